package harness

import (
	"crypto"
	"crypto/x509"
	"encoding/pem"
	"os"
	"testing"
)

// WriteKey writes key as a PKCS #8 PEM file at path.
func WriteKey(t testing.TB, path string, key crypto.Signer) {
	t.Helper()
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
}

// ReadFiles returns the files at paths, one after the other.
func ReadFiles(t testing.TB, paths ...string) []byte {
	t.Helper()
	var all []byte
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, b...)
	}
	return all
}
