package integration

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/harness"
	"github.com/caddy-osdm/caddy-osdm/legacy"
)

// TestValidateWhileServing: `caddy validate` of Caddyfile.example passes
// while the same configuration serves from the same data directory (its
// bolt file locked by the serving Caddy): validation provisions, and
// provisioning opens no store; the osdm app opens them when it starts.
func TestValidateWhileServing(t *testing.T) {
	c := startExampleChain(t)
	path := filepath.Join(t.TempDir(), "Caddyfile")
	if err := os.WriteFile(path, []byte(c.caddyfile), 0o600); err != nil {
		t.Fatal(err)
	}
	out, took, err := harness.CaddyCommand(t, "validate", "--config", path, "--adapter", "caddyfile")
	if err != nil || !strings.Contains(out, "Valid configuration") {
		t.Fatalf("caddy validate of the serving configuration: %v\n%s", err, out)
	}
	t.Logf("caddy validate of the serving configuration took %v", took)
	status, r := c.send(t, "alpine", legacy.XML, &legacy.AvailabilityRequest{
		Header: legacy.Header{MessageID: "after-validate"}, Journey: journeyOn("9203"),
		Places: secondClassSeats(legacy.Tariff{Code: 1, Count: 1}),
	})
	must[*legacy.AvailabilityReply](t, status, r, http.StatusOK)
}
