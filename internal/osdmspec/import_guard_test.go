package osdmspec

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const importPath = "github.com/caddy-osdm/caddy-osdm/internal/osdmspec"

// TestImportedOnlyFromTests keeps kin-openapi and the embedded spec out of
// production binaries: nothing the module root (the package xcaddy builds
// into Caddy) depends on may import this package. Test-only packages such
// as the integration harness may.
func TestImportedOnlyFromTests(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Skipf("module root not found at %s: %v", root, err)
	}
	cmd := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", ".")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		if p == importPath || strings.HasPrefix(p, "github.com/getkin/kin-openapi") || strings.HasSuffix(p, "/internal/harness") {
			t.Errorf("the production build depends on %s; only tests may", p)
		}
	}
}
