package results

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// stopKeys returns the values of the Extra… constants of stopkeys.go.
func stopKeys(t *testing.T) map[string]string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "stopkeys.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string]string{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, s := range g.Specs {
			vs := s.(*ast.ValueSpec)
			for i, n := range vs.Names {
				if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
					v, _ := strconv.Unquote(lit.Value)
					keys[v] = n.Name
				}
			}
		}
	}
	return keys
}

// keyLiterals returns the string literals of f used as a map index or as
// a map literal's key whose value is one of keys, as "file:line: key".
func keyLiterals(fset *token.FileSet, f *ast.File, keys map[string]string) []string {
	var out []string
	check := func(e ast.Expr) {
		lit, ok := e.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return
		}
		if v, _ := strconv.Unquote(lit.Value); keys[v] != "" {
			out = append(out, fset.Position(lit.Pos()).String()+": "+lit.Value+" (want replay."+keys[v]+")")
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.IndexExpr:
			check(n.Index)
		case *ast.CompositeLit:
			if _, isMap := n.Type.(*ast.MapType); isMap {
				for _, el := range n.Elts {
					if kv, ok := el.(*ast.KeyValueExpr); ok {
						check(kv.Key)
					}
				}
			}
		}
		return true
	})
	return out
}

// TestStopKeysAreConstants fails when a stop-record key is spelt as a
// string literal anywhere in the module (sources and tests) instead of
// its constant: a misspelt literal would read a key nobody writes.
func TestStopKeysAreConstants(t *testing.T) {
	keys := stopKeys(t)
	if len(keys) < 10 {
		t.Fatalf("found %d stop keys in stopkeys.go; the parse is broken", len(keys))
	}
	fset := token.NewFileSet()
	var bad []string
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != ".." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || filepath.Base(path) == "stopkeys.go" {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		bad = append(bad, keyLiterals(fset, f, keys)...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range bad {
		t.Error(b)
	}
}
