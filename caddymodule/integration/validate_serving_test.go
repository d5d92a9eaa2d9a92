package integration

import (
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	caddycmd "github.com/caddyserver/caddy/v2/cmd"

	"github.com/caddy-osdm/caddy-osdm/legacy"
)

// caddyArgsEnv holds the arguments (one a line) TestCaddyCommandProcess
// runs the caddy command with.
const caddyArgsEnv = "OSDM_TEST_CADDY_ARGS"

// TestCaddyCommandProcess is not a test: it is the caddy command, run as
// a child process by the tests that need one. Without caddyArgsEnv it
// does nothing.
func TestCaddyCommandProcess(t *testing.T) {
	args := os.Getenv(caddyArgsEnv)
	if args == "" {
		t.Skip("runs only as the child process of tests that run the caddy command")
	}
	os.Args = append([]string{"caddy"}, strings.Split(args, "\n")...)
	caddycmd.Main() // exits
}

// caddyCommand runs the caddy command with args in a child process, with
// this process's environment (its data directory among it).
func caddyCommand(t *testing.T, args ...string) (string, time.Duration, error) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestCaddyCommandProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), caddyArgsEnv+"="+strings.Join(args, "\n"))
	start := time.Now()
	out, err := cmd.CombinedOutput()
	return string(out), time.Since(start), err
}

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
	out, took, err := caddyCommand(t, "validate", "--config", path, "--adapter", "caddyfile")
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
