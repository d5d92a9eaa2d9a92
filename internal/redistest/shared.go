package redistest

import (
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
)

// Shared is the address (host:port) of a Redis for a test: the one
// OSDM_TEST_REDIS names (the tests share it, each under a key prefix of
// its own), or else one this test starts (Server: Debian's redis-server
// with the Durable settings, killed when the test ends), shared by the
// test's subtests. Only without OSDM_TEST_REDIS and without redis-server
// is the test skipped, saying how to run it: `go test` shows a passing
// package's skips only with -v, so a plain `go test ./...` runs the
// Redis tests wherever it can.
func Shared(tb testing.TB) string {
	tb.Helper()
	if addr := os.Getenv("OSDM_TEST_REDIS"); addr != "" {
		return addr
	}
	if _, err := exec.LookPath("redis-server"); err != nil {
		tb.Skip("OSDM_TEST_REDIS not set and redis-server not installed (Debian: apt-get install redis-server; or name a Redis to test against, e.g. `redis-server --port 6379 --dir \"$(mktemp -d)\" --appendonly yes --daemonize yes`, then OSDM_TEST_REDIS=127.0.0.1:6379): test skipped")
	}
	return ownServer(tb)
}

// own are the servers Shared started, by top-level test name: a test
// and its subtests share one, for as long as the test that started it
// runs.
var (
	ownMu sync.Mutex
	own   = map[string]string{}
)

// ownServer returns the Redis of tb's top-level test, starting one for
// tb if there is none.
func ownServer(tb testing.TB) string {
	tb.Helper()
	root, _, _ := strings.Cut(tb.Name(), "/")
	ownMu.Lock()
	defer ownMu.Unlock()
	if addr, ok := own[root]; ok {
		return addr
	}
	addr := Server(tb)
	own[root] = addr
	// Registered after Server's own cleanup, so it runs before the
	// server is killed: no later subtest gets a dead address.
	tb.Cleanup(func() {
		ownMu.Lock()
		defer ownMu.Unlock()
		delete(own, root)
	})
	return addr
}
