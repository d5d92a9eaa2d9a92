package caddymodule

import (
	"os"
	"testing"
)

// TestMain gives the package's tests a data directory of their own:
// osdm_convert keeps its journal in a bolt file there by default, and
// bbolt locks it, so test processes must not share the user's.
func TestMain(m *testing.M) {
	if os.Getenv(journalRoleEnv) == "" {
		dir, err := os.MkdirTemp("", "caddymodule-data-")
		if err != nil {
			panic(err)
		}
		os.Setenv("XDG_DATA_HOME", dir)
		code := m.Run()
		os.RemoveAll(dir)
		os.Exit(code)
	}
	os.Exit(m.Run())
}
