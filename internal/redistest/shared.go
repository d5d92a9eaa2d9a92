package redistest

import (
	"os"
	"testing"
)

// Shared is the address (host:port) of the Redis the tests share, from
// OSDM_TEST_REDIS; without one, the test is skipped, saying how to run
// it. Tests on it keep their keys apart under a prefix of their own.
func Shared(tb testing.TB) string {
	tb.Helper()
	addr := os.Getenv("OSDM_TEST_REDIS")
	if addr == "" {
		tb.Skip("OSDM_TEST_REDIS not set (host:port of a Redis to test against, e.g. `redis-server --port 6379 --dir \"$(mktemp -d)\" --appendonly yes --daemonize yes`, then OSDM_TEST_REDIS=127.0.0.1:6379): test skipped")
	}
	return addr
}
