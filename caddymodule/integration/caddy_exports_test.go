package integration

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestModulesReadCaddyOnlyThroughExports: no module code imports unsafe
// or reflect (the test harness aside), the means by which a module would
// read Caddy's unexported state, which a Caddy release may change without
// notice; what a module needs of Caddy it reads through what Caddy
// exports, and what it cannot read that way it leaves to the
// configuration (the log filter of docs/operations.md).
func TestModulesReadCaddyOnlyThroughExports(t *testing.T) {
	root := filepath.Join("..")
	seen := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == "harness" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		seen++
		for _, imp := range f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); p == "unsafe" || p == "reflect" {
				t.Errorf("%s imports %s", path, p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen < 20 {
		t.Fatalf("read %d files of caddymodule: the walk is not where it should be", seen)
	}
}
