package harness

import (
	"os"
	"testing"
)

// Main runs a package's tests (from its TestMain) with a data directory
// of their own, made under the temporary directory with name prefix and
// removed afterwards: the modules keep their bolt files in Caddy's data
// directory by default, and bbolt locks them, so test processes must not
// share the user's. A child process (IsChild) keeps its parent's.
func Main(m *testing.M, prefix string) {
	if IsChild() {
		os.Exit(m.Run())
	}
	dir, err := os.MkdirTemp("", prefix)
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_DATA_HOME", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
