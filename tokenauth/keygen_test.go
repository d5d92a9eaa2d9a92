package tokenauth

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

func TestGenerateKeyFitsAlg(t *testing.T) {
	for _, alg := range []string{"RS256", "PS384", "ES256", "ES384", "ES512", "EdDSA"} {
		key, err := GenerateKey(alg)
		if err != nil {
			t.Fatalf("%s: %v", alg, err)
		}
		if err := CheckAlg(alg, key.Public()); err != nil {
			t.Fatalf("%s: %v", alg, err)
		}
		if k, ok := key.(*rsa.PrivateKey); ok && k.N.BitLen() != GeneratedRSABits {
			t.Fatalf("%s: %d bits", alg, k.N.BitLen())
		}
	}
	for _, alg := range []string{"HS256", "none", ""} {
		if _, err := GenerateKey(alg); err == nil {
			t.Fatalf("%q accepted", alg)
		}
	}
	if _, err := GenerateRSAKey(1024); err == nil {
		t.Fatal("RSA 1024 accepted")
	}
}

func TestWriteKeyPairRoundTripsAndNeverOverwrites(t *testing.T) {
	dir := t.TempDir()
	key, err := GenerateKey("ES256")
	if err != nil {
		t.Fatal(err)
	}
	priv, pub, err := WriteKeyPair(dir, "consumer", key)
	if err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(priv); st.Mode().Perm() != 0o600 {
		t.Fatalf("private key mode %v", st.Mode().Perm())
	}
	loaded, err := LoadPrivateKeyFile(priv)
	if err != nil || !loaded.(*ecdsa.PrivateKey).Equal(key) {
		t.Fatalf("reloading %s: %v", priv, err)
	}
	loadedPub, err := LoadPublicKeyFile(pub)
	if err != nil || !loadedPub.(*ecdsa.PublicKey).Equal(key.Public()) {
		t.Fatalf("reloading %s: %v", pub, err)
	}
	data, _ := os.ReadFile(priv)
	if string(data[:27]) != "-----BEGIN PRIVATE KEY-----" {
		t.Fatalf("not PKCS#8: %q", data[:27])
	}

	other, _ := GenerateKey("EdDSA")
	if _, _, err := WriteKeyPair(dir, "consumer", other); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("overwrite: %v", err)
	}
	again, _ := LoadPrivateKeyFile(priv)
	if !again.(*ecdsa.PrivateKey).Equal(key) {
		t.Fatal("existing key changed")
	}
	// A lone .pub blocks the pair too, and no .pem is left behind.
	if err := os.WriteFile(filepath.Join(dir, "half.pub"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := WriteKeyPair(dir, "half", other); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("half pair: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "half.pem")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("half.pem written: %v", err)
	}
	if _, ok := other.(ed25519.PrivateKey); !ok {
		t.Fatal("EdDSA key is not Ed25519")
	}
}

func TestPublicKeyIDIsStable(t *testing.T) {
	a, _ := GenerateKey("ES256")
	b, _ := GenerateKey("ES256")
	ida, err := PublicKeyID(a.Public())
	if err != nil || len(ida) != 16 {
		t.Fatalf("%q %v", ida, err)
	}
	again, _ := PublicKeyID(a.Public())
	idb, _ := PublicKeyID(b.Public())
	if ida != again || ida == idb {
		t.Fatalf("ids %q %q %q", ida, again, idb)
	}
}
