package engine_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// clockRead matches the spellings the house rule forbids, wherever they
// appear in a file's text.
var clockRead = regexp.MustCompile(`\btime\.(Now\(\)|Since\(|Until\()`)

// clockReads returns every read of the system clock in a Go source file:
// the forbidden spellings in its text, and, from its syntax tree, any use of
// the time package's Now, Since or Until however "time" was imported (an
// alias, a dot import, or Now taken as a function value).
func clockReads(name string, src []byte) ([]string, error) {
	var found []string
	for i, line := range strings.Split(string(src), "\n") {
		if m := clockRead.FindString(line); m != "" {
			found = append(found, fmt.Sprintf("%s:%d: %s", name, i+1, m))
		}
	}

	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	local := ""
	for _, imp := range f.Imports {
		if path, _ := strconv.Unquote(imp.Path.Value); path != "time" {
			continue
		}
		local = "time"
		if imp.Name != nil {
			local = imp.Name.Name
		}
	}
	forbidden := map[string]bool{"Now": true, "Since": true, "Until": true}
	switch local {
	case "", "_":
		return found, nil
	case ".":
		ast.Inspect(f, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && forbidden[id.Name] {
				found = append(found, fmt.Sprintf("%s: %s (dot-imported time)", fset.Position(id.Pos()), id.Name))
			}
			return true
		})
		return found, nil
	}
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok || !forbidden[sel.Sel.Name] {
			return true
		}
		if x, ok := sel.X.(*ast.Ident); ok && x.Name == local && local != "time" {
			found = append(found, fmt.Sprintf("%s: %s.%s", fset.Position(sel.Pos()), local, sel.Sel.Name))
		}
		if x, ok := sel.X.(*ast.Ident); ok && x.Name == "time" && local == "time" {
			// time.Now without a call (a function value) escapes the text
			// pattern.
			if !strings.HasPrefix(string(src[fset.Position(sel.End()).Offset:]), "(") {
				found = append(found, fmt.Sprintf("%s: time.%s as a value", fset.Position(sel.Pos()), sel.Sel.Name))
			}
		}
		return true
	})
	return found, nil
}

// TestEngineNeverReadsTheSystemClock enforces DESIGN.md's rule: now is
// always a parameter or the engine's Clock; only cmd/studio builds the
// real clock. The test runs in engine/, so "." is the engine and its
// sub-packages.
func TestEngineNeverReadsTheSystemClock(t *testing.T) {
	t.Parallel()

	t.Run("NoClockReadsOutsideTests", func(t *testing.T) {
		var files []string
		var found []string
		err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			reads, err := clockReads(path, src)
			if err != nil {
				return err
			}
			files = append(files, path)
			found = append(found, reads...)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		// Guard against passing vacuously (a wrong working directory).
		seen := strings.Join(files, " ")
		for _, want := range []string{"engine.go", "rundue.go", "ticker.go", "schedule.go", filepath.Join("localtime", "localtime.go"), filepath.Join("fakeclock", "fakeclock.go")} {
			if !strings.Contains(seen, want) {
				t.Fatalf("walk did not reach %s (saw %s)", want, seen)
			}
		}
		for _, f := range found {
			t.Errorf("reads the system clock: %s", f)
		}
	})

	t.Run("DetectorCatchesEachForm", func(t *testing.T) {
		for _, tc := range []struct {
			name string
			src  string
			want int
		}{
			{"Clean", "package p\nimport \"time\"\nfunc f(c interface{ Now() time.Time }) time.Time { return c.Now() }\n", 0},
			{"OtherPackagesNow", "package p\nimport \"time\"\nvar mytime struct{ Now func() }\nfunc f(d time.Duration) { mytime.Now() }\n", 0},
			{"Now", "package p\nimport \"time\"\nfunc f() time.Time { return time.Now() }\n", 1},
			{"Since", "package p\nimport \"time\"\nfunc f(t time.Time) time.Duration { return time.Since(t) }\n", 1},
			{"Until", "package p\nimport \"time\"\nfunc f(t time.Time) time.Duration { return time.Until(t) }\n", 1},
			{"InAComment", "package p\n// calls time.Now() sometimes\n", 1},
			{"NowAsAValue", "package p\nimport \"time\"\nvar now = time.Now\n", 1},
			{"SinceAsAValue", "package p\nimport \"time\"\nvar since = time.Since\n", 1},
			{"Aliased", "package p\nimport clock \"time\"\nvar t = clock.Now()\n", 1},
			{"DotImported", "package p\nimport . \"time\"\nvar t = Now()\n", 1},
		} {
			t.Run(tc.name, func(t *testing.T) {
				got, err := clockReads("x.go", []byte(tc.src))
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != tc.want {
					t.Fatalf("found %d (%v), want %d", len(got), got, tc.want)
				}
			})
		}
	})
}
