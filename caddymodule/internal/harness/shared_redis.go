package harness

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"testing"
)

// SharedRedis is the address (host:port) of the Redis the tests share,
// from OSDM_TEST_REDIS; without one, the test is skipped. Tests on it
// keep their keys apart under a prefix of their own (RandomHex).
func SharedRedis(t testing.TB) string {
	t.Helper()
	addr := os.Getenv("OSDM_TEST_REDIS")
	if addr == "" {
		t.Skip("OSDM_TEST_REDIS not set (host:port of a Redis to test against)")
	}
	return addr
}

// RandomHex is n random bytes in hex, for names no other test or run
// uses (key prefixes, message IDs).
func RandomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
