package harness

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"testing"
)

// randReader is the source of the keys and certificates of the tests.
var randReader = rand.Reader

// ECKey is a new P-256 (ES256) private key.
func ECKey(t testing.TB) *ecdsa.PrivateKey {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), randReader)
	if err != nil {
		t.Fatal(err)
	}
	return key
}
