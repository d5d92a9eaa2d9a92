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

// own are the servers Shared started, by the name of the test that
// started each: that test and its subtests share it, for as long as that
// test runs (a sibling, which may run in parallel and outlive it, starts
// its own).
var (
	ownMu sync.Mutex
	own   = map[string]string{}
)

// ownServer returns the Redis of tb or of the closest of its parent tests
// that has one, starting one for tb if none has.
func ownServer(tb testing.TB) string {
	tb.Helper()
	name := tb.Name()
	ownMu.Lock()
	defer ownMu.Unlock()
	for n := name; ; {
		if addr, ok := own[n]; ok {
			return addr
		}
		i := strings.LastIndexByte(n, '/')
		if i < 0 {
			break
		}
		n = n[:i]
	}
	addr := Server(tb)
	own[name] = addr
	// Registered after Server's own cleanup, so it runs before the
	// server is killed.
	tb.Cleanup(func() {
		ownMu.Lock()
		defer ownMu.Unlock()
		delete(own, name)
	})
	return addr
}
