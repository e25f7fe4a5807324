package studio_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"studio/locales"
)

// auditActionRe is an audit action's shape: "release.schedule",
// "schedule.gates.set".
var auditActionRe = regexp.MustCompile(`^[a-z][a-z_]*(\.[a-z_]+)+$`)

// actionCallers take an audit action as a string argument.
var actionCallers = map[string]bool{"carryOut": true, "write": true, "editDraft": true, "repinned": true, "changeSite": true}

// TestEveryAuditActionHasWords: History shows each act as a sentence in
// both languages, never the stored code (issue 39). The actions are read
// from the engine's and the store's source: an Action field, a variable
// named action or act, or an argument of the use cases that audit with
// one; the actions built by concatenation are listed here.
func TestEveryAuditActionHasWords(t *testing.T) {
	actions := map[string]string{}
	for _, root := range []string{"../../engine", "../../store", "../../handlers"} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, path, nil, 0)
			if err != nil {
				return err
			}
			add := func(e ast.Expr) {
				if lit, ok := e.(*ast.BasicLit); ok && lit.Kind == token.STRING {
					if s, _ := strconv.Unquote(lit.Value); auditActionRe.MatchString(s) {
						actions[s] = fset.Position(lit.Pos()).String()
					}
				}
			}
			ast.Inspect(f, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.KeyValueExpr:
					if id, ok := n.Key.(*ast.Ident); ok && id.Name == "Action" {
						add(n.Value)
					}
				case *ast.AssignStmt:
					for i, l := range n.Lhs {
						if id, ok := l.(*ast.Ident); ok && (id.Name == "action" || id.Name == "act") && i < len(n.Rhs) {
							add(n.Rhs[i])
						}
					}
				case *ast.CallExpr:
					name := ""
					switch fn := n.Fun.(type) {
					case *ast.SelectorExpr:
						name = fn.Sel.Name
					case *ast.Ident:
						name = fn.Name
					}
					if actionCallers[name] {
						for _, a := range n.Args {
							add(a)
						}
					}
				}
				return true
			})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, state := range []string{"succeeded", "failed", "killed"} { // "automation.run_" + state
		actions["automation.run_"+state] = "engine/scheduler/automations.go"
	}
	for _, state := range []string{"expired", "missed"} { // "release." + state, the ticker's end of a release
		actions["release."+state] = "engine/scheduler/run.go"
	}
	if len(actions) < 40 {
		t.Fatalf("found %d audit actions in the source; the scan is broken", len(actions))
	}
	for _, lang := range []string{"en", "tr"} {
		p := locales.For(lang)
		for action, where := range actions {
			if _, ok := p.Lookup("sitehistory.action." + strings.ReplaceAll(action, ".", "_")); !ok {
				t.Errorf("%s: History has no %s words for %q", where, lang, action)
			}
		}
	}
}
