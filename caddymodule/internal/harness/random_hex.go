package harness

import (
	"crypto/rand"
	"encoding/hex"
)

// RandomHex is n random bytes in hex, for names no other test or run
// uses (key prefixes, message IDs).
func RandomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
