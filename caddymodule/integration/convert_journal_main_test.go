package integration

import (
	"os"
	"testing"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/harness"
)

// TestMain gives the package's tests a data directory of their own:
// osdm_convert keeps its journal in a bolt file there by default, and
// bbolt locks it, so test processes must not share the user's.
func TestMain(m *testing.M) { harness.Main(m, "caddymodule-data-") }

// journalDataDir is a data directory for one test, under /dev/shm when
// that is a tmpfs the test can write, else in the test's temporary
// directory.
func journalDataDir(t *testing.T) string {
	t.Helper()
	if dir, err := os.MkdirTemp("/dev/shm", "caddymodule-"); err == nil {
		t.Cleanup(func() { os.RemoveAll(dir) })
		return dir
	}
	return t.TempDir()
}

// TestChildProcess is not a test: it is the child process of the harness
// (the Caddy processes of the journal tests).
func TestChildProcess(t *testing.T) { harness.ChildProcess(t) }
