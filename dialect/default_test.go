package dialect

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

func TestDefault(t *testing.T) {
	d, err := Lookup(Default)
	if err != nil {
		t.Fatalf("Default %q is no dialect: %v", Default, err)
	}
	if OrDefault(nil) != d {
		t.Errorf("OrDefault(nil) = %s, want %s", OrDefault(nil).Name, Default)
	}
	o, _ := Lookup(OpenAI)
	if OrDefault(o) != o {
		t.Error("OrDefault replaced a set dialect")
	}
}

// nativeNames are the files allowed to look up a named dialect: the mock
// server's metrics are registered under vLLM's names and renamed from
// there, which is a fact of the mock, not a default.
var nativeNames = map[string]bool{filepath.Join("..", "mockserver", "dialect.go"): true}

// TestOneDefault fails when code outside this package picks a dialect by
// name as a fallback (dialect.Lookup(dialect.VLLM)) instead of taking
// Default through OrDefault: the default lives in one place.
func TestOneDefault(t *testing.T) {
	fset := token.NewFileSet()
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != ".." && (d.Name() == "testdata" || d.Name() == "dialect" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || nativeNames[path] {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) != 1 || !isSel(call.Fun, "dialect", "Lookup") {
				return true
			}
			if arg, ok := call.Args[0].(*ast.SelectorExpr); ok && isSel(arg, "dialect", arg.Sel.Name) {
				t.Errorf("%s: dialect.Lookup(dialect.%s): a fallback dialect is dialect.OrDefault's", fset.Position(call.Pos()), arg.Sel.Name)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// isSel reports whether e is pkg.name.
func isSel(e ast.Expr, pkg, name string) bool {
	s, ok := e.(*ast.SelectorExpr)
	if !ok || s.Sel.Name != name {
		return false
	}
	id, ok := s.X.(*ast.Ident)
	return ok && id.Name == pkg
}
