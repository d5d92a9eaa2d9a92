package harness

import (
	"crypto"
	"crypto/x509"
	"encoding/pem"
	"io/fs"
	"os"
	"testing"

	"github.com/caddy-osdm/caddy-osdm/tokenauth"
)

// WriteKey writes key as a PKCS #8 PEM file at path.
func WriteKey(t testing.TB, path string, key crypto.Signer) {
	t.Helper()
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	writePEM(t, path, "PRIVATE KEY", der, 0o600)
}

// WritePublicKey writes pub as a PKIX PEM file at path.
func WritePublicKey(t testing.TB, path string, pub crypto.PublicKey) {
	t.Helper()
	data, err := tokenauth.MarshalPublicKeyPEM(pub)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// writePEM writes der as one PEM block of type typ at path.
func writePEM(t testing.TB, path, typ string, der []byte, perm fs.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), perm); err != nil {
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
