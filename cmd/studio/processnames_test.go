package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestProcessTestsSaySo: a test that starts the studio binary (buildBinary)
// ends its name in "Process", and only such a test does. make test runs
// them by that name apart from the race run, many at once: the code they
// test runs in a binary built without -race, so the detector would watch
// only their setup, and they mostly wait (for a minute to come, a lease to
// lapse, a process to start).
func TestProcessTestsSaySo(t *testing.T) {
	files, err := filepath.Glob("*_test.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	seen := 0
	for _, name := range files {
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || !strings.HasPrefix(fn.Name.Name, "Test") {
				continue
			}
			builds := false
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				if c, ok := n.(*ast.CallExpr); ok {
					if id, ok := c.Fun.(*ast.Ident); ok && id.Name == "buildBinary" {
						builds = true
					}
				}
				return !builds
			})
			named := strings.HasSuffix(fn.Name.Name, "Process")
			switch {
			case builds && !named:
				t.Errorf("%s (%s) starts the binary: end its name in Process", fn.Name.Name, name)
			case named && !builds:
				t.Errorf("%s (%s) ends in Process but never starts the binary", fn.Name.Name, name)
			case builds:
				seen++
			}
		}
	}
	if seen == 0 {
		t.Error("no process test found: has buildBinary been renamed?")
	}
}
