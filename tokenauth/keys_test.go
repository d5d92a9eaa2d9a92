package tokenauth

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// Test keys are generated once per test binary: RSA generation is slow.
var (
	testKeysOnce sync.Once
	testRSA      *rsa.PrivateKey
	testEC       map[string]*ecdsa.PrivateKey
	testEd       ed25519.PrivateKey
)

func testKeys(t testing.TB) {
	t.Helper()
	testKeysOnce.Do(func() {
		var err error
		if testRSA, err = rsa.GenerateKey(rand.Reader, 2048); err != nil {
			panic(err)
		}
		testEC = map[string]*ecdsa.PrivateKey{}
		for name, curve := range map[string]elliptic.Curve{"P-256": elliptic.P256(), "P-384": elliptic.P384(), "P-521": elliptic.P521()} {
			if testEC[name], err = ecdsa.GenerateKey(curve, rand.Reader); err != nil {
				panic(err)
			}
		}
		if _, testEd, err = ed25519.GenerateKey(rand.Reader); err != nil {
			panic(err)
		}
	})
}

func pemBytes(typ string, der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der})
}

func mustPKCS8(t testing.TB, key any) []byte {
	t.Helper()
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pemBytes("PRIVATE KEY", der)
}

func mustSEC1(t testing.TB, key *ecdsa.PrivateKey) []byte {
	t.Helper()
	der, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pemBytes("EC PRIVATE KEY", der)
}

func TestParsePrivateKeyPEMFormats(t *testing.T) {
	testKeys(t)
	// openssl ecparam -genkey writes the curve parameters before the key.
	p256Params := append(pemBytes("EC PARAMETERS", []byte{0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07}), mustSEC1(t, testEC["P-256"])...)
	tests := []struct {
		name    string
		pem     []byte
		want    crypto.PublicKey
		wantAlg string
		desc    string
	}{
		{"RSA PKCS#1", pemBytes("RSA PRIVATE KEY", x509.MarshalPKCS1PrivateKey(testRSA)), &testRSA.PublicKey, "RS256", "RSA 2048"},
		{"RSA PKCS#8", mustPKCS8(t, testRSA), &testRSA.PublicKey, "RS256", "RSA 2048"},
		{"EC P-256 SEC1", mustSEC1(t, testEC["P-256"]), &testEC["P-256"].PublicKey, "ES256", "EC P-256"},
		{"EC P-256 SEC1 after EC PARAMETERS", p256Params, &testEC["P-256"].PublicKey, "ES256", "EC P-256"},
		{"EC P-256 PKCS#8", mustPKCS8(t, testEC["P-256"]), &testEC["P-256"].PublicKey, "ES256", "EC P-256"},
		{"EC P-384 SEC1", mustSEC1(t, testEC["P-384"]), &testEC["P-384"].PublicKey, "ES384", "EC P-384"},
		{"EC P-384 PKCS#8", mustPKCS8(t, testEC["P-384"]), &testEC["P-384"].PublicKey, "ES384", "EC P-384"},
		{"EC P-521 SEC1", mustSEC1(t, testEC["P-521"]), &testEC["P-521"].PublicKey, "ES512", "EC P-521"},
		{"EC P-521 PKCS#8", mustPKCS8(t, testEC["P-521"]), &testEC["P-521"].PublicKey, "ES512", "EC P-521"},
		{"Ed25519 PKCS#8", mustPKCS8(t, testEd), testEd.Public(), "EdDSA", "Ed25519"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			key, err := ParsePrivateKeyPEM(tt.pem)
			if err != nil {
				t.Fatalf("ParsePrivateKeyPEM: %v", err)
			}
			type equaler interface{ Equal(crypto.PublicKey) bool }
			if !key.Public().(equaler).Equal(tt.want) {
				t.Fatalf("parsed a different key")
			}
			alg, err := DefaultAlg(key.Public())
			if err != nil || alg != tt.wantAlg {
				t.Fatalf("DefaultAlg = %q, %v; want %q", alg, err, tt.wantAlg)
			}
			if err := CheckAlg(alg, key.Public()); err != nil {
				t.Fatalf("CheckAlg(default alg): %v", err)
			}
			if d := KeyDescription(key.Public()); d != tt.desc {
				t.Fatalf("KeyDescription = %q, want %q", d, tt.desc)
			}
		})
	}
}

func TestParsePrivateKeyPEMErrors(t *testing.T) {
	testKeys(t)
	short, err := rsa.GenerateKey(rand.Reader, 1024)
	if err != nil {
		t.Fatal(err)
	}
	legacyEncrypted := pem.EncodeToMemory(&pem.Block{
		Type:    "RSA PRIVATE KEY",
		Headers: map[string]string{"Proc-Type": "4,ENCRYPTED", "DEK-Info": "AES-256-CBC,00112233445566778899AABBCCDDEEFF"},
		Bytes:   []byte("ciphertext-not-a-key"),
	})
	tests := []struct {
		name string
		pem  []byte
		want string
	}{
		{"empty", nil, "no PEM PRIVATE KEY block found"},
		{"garbage", []byte("this is not a key\n"), "no PEM PRIVATE KEY block found"},
		{"PKCS#8 encrypted", pemBytes("ENCRYPTED PRIVATE KEY", []byte{1, 2, 3}), "private key is encrypted"},
		{"legacy encrypted", legacyEncrypted, "private key is encrypted"},
		{"public key", pemBytes("PUBLIC KEY", []byte{1}), `PEM block "PUBLIC KEY" is not a private key`},
		{"certificate", pemBytes("CERTIFICATE", []byte{1}), `PEM block "CERTIFICATE" is not a private key`},
		{"corrupt PKCS#8", pemBytes("PRIVATE KEY", []byte("garbage")), "parsing PRIVATE KEY"},
		{"corrupt PKCS#1", pemBytes("RSA PRIVATE KEY", []byte("garbage")), "parsing RSA PRIVATE KEY"},
		{"corrupt SEC1", pemBytes("EC PRIVATE KEY", []byte("garbage")), "parsing EC PRIVATE KEY"},
		{"PKCS#1 under EC label", pemBytes("EC PRIVATE KEY", x509.MarshalPKCS1PrivateKey(testRSA)), "parsing EC PRIVATE KEY"},
		{"short RSA PKCS#1", pemBytes("RSA PRIVATE KEY", x509.MarshalPKCS1PrivateKey(short)), "RSA key has 1024 bits; at least 2048 are required"},
		{"short RSA PKCS#8", mustPKCS8(t, short), "RSA key has 1024 bits"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			key, err := ParsePrivateKeyPEM(tt.pem)
			if err == nil {
				t.Fatalf("got a %T key, want error containing %q", key, tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %q does not contain %q", err, tt.want)
			}
		})
	}
}

func TestLoadPrivateKeyFile(t *testing.T) {
	testKeys(t)
	dir := t.TempDir()
	good := filepath.Join(dir, "good.pem")
	bad := filepath.Join(dir, "bad.pem")
	if err := os.WriteFile(good, mustSEC1(t, testEC["P-384"]), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte("nope"), 0o600); err != nil {
		t.Fatal(err)
	}
	key, err := LoadPrivateKeyFile(good)
	if err != nil || !testEC["P-384"].PublicKey.Equal(key.Public()) {
		t.Fatalf("LoadPrivateKeyFile(good) = %v, %v", key, err)
	}
	if _, err := LoadPrivateKeyFile(bad); err == nil || !strings.Contains(err.Error(), bad) {
		t.Fatalf("error for a bad file must name it, got %v", err)
	}
	if _, err := LoadPrivateKeyFile(filepath.Join(dir, "missing.pem")); !os.IsNotExist(err) {
		t.Fatalf("missing file: got %v, want not-exist", err)
	}
}

func TestParsePublicKeyPEM(t *testing.T) {
	testKeys(t)
	pkix1, err := x509.MarshalPKIXPublicKey(&testEC["P-256"].PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	pkixEd, err := x509.MarshalPKIXPublicKey(testEd.Public())
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "t"}, NotBefore: time.Now(), NotAfter: time.Now().Add(time.Hour)}
	cert, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &testRSA.PublicKey, testRSA)
	if err != nil {
		t.Fatal(err)
	}
	short, err := rsa.GenerateKey(rand.Reader, 1024)
	if err != nil {
		t.Fatal(err)
	}
	type equaler interface{ Equal(crypto.PublicKey) bool }
	for name, tt := range map[string]struct {
		pem  []byte
		want crypto.PublicKey
		err  string
	}{
		"PKIX EC":         {pemBytes("PUBLIC KEY", pkix1), &testEC["P-256"].PublicKey, ""},
		"PKIX Ed25519":    {pemBytes("PUBLIC KEY", pkixEd), testEd.Public(), ""},
		"PKCS#1 RSA":      {pemBytes("RSA PUBLIC KEY", x509.MarshalPKCS1PublicKey(&testRSA.PublicKey)), &testRSA.PublicKey, ""},
		"certificate":     {pemBytes("CERTIFICATE", cert), &testRSA.PublicKey, ""},
		"private key":     {mustPKCS8(t, testEd), nil, `PEM block "PRIVATE KEY" is not a public key`},
		"garbage":         {[]byte("x"), nil, "no PEM PUBLIC KEY block found"},
		"corrupt PKIX":    {pemBytes("PUBLIC KEY", []byte("x")), nil, "parsing PUBLIC KEY"},
		"short RSA PKCS1": {pemBytes("RSA PUBLIC KEY", x509.MarshalPKCS1PublicKey(&short.PublicKey)), nil, "RSA key has 1024 bits"},
	} {
		t.Run(name, func(t *testing.T) {
			key, err := ParsePublicKeyPEM(tt.pem)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error = %v, want one containing %q", err, tt.err)
				}
				return
			}
			if err != nil || !key.(equaler).Equal(tt.want) {
				t.Fatalf("ParsePublicKeyPEM = %v, %v", key, err)
			}
		})
	}
}

func TestCheckAlg(t *testing.T) {
	testKeys(t)
	rsaPub, p256, p384, p521, ed := &testRSA.PublicKey, &testEC["P-256"].PublicKey, &testEC["P-384"].PublicKey, &testEC["P-521"].PublicKey, testEd.Public()
	ok := []struct {
		alg string
		key crypto.PublicKey
	}{
		{"RS256", rsaPub}, {"RS384", rsaPub}, {"RS512", rsaPub}, {"PS256", rsaPub}, {"PS384", rsaPub}, {"PS512", rsaPub},
		{"ES256", p256}, {"ES384", p384}, {"ES512", p521}, {"EdDSA", ed},
	}
	for _, tt := range ok {
		if err := CheckAlg(tt.alg, tt.key); err != nil {
			t.Errorf("CheckAlg(%s, %s) = %v, want nil", tt.alg, KeyDescription(tt.key), err)
		}
	}
	bad := []struct {
		alg  string
		key  crypto.PublicKey
		want string
	}{
		{"ES256", rsaPub, "alg ES256 does not fit a RSA 2048 key"},
		{"EdDSA", rsaPub, "alg EdDSA does not fit a RSA 2048 key"},
		{"RS256", p256, "alg RS256 does not fit a EC P-256 key"},
		{"PS256", p256, "alg PS256 does not fit a EC P-256 key"},
		{"ES384", p256, "alg ES384 does not fit a EC P-256 key"},
		{"ES256", p384, "alg ES256 does not fit a EC P-384 key"},
		{"ES256", p521, "alg ES256 does not fit a EC P-521 key"},
		{"EdDSA", p256, "alg EdDSA does not fit a EC P-256 key"},
		{"RS256", ed, "alg RS256 does not fit a Ed25519 key"},
		{"ES256", ed, "alg ES256 does not fit a Ed25519 key"},
		{"HS256", rsaPub, `unsupported alg "HS256"`},
		{"none", ed, `unsupported alg "none"`},
		{"rs256", rsaPub, `unsupported alg "rs256"`},
		{"", p256, `unsupported alg ""`},
	}
	for _, tt := range bad {
		err := CheckAlg(tt.alg, tt.key)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("CheckAlg(%q, %s) = %v, want error containing %q", tt.alg, KeyDescription(tt.key), err, tt.want)
		}
	}
}

func TestDefaultAlgUnsupported(t *testing.T) {
	k, err := ecdsa.GenerateKey(elliptic.P224(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := DefaultAlg(&k.PublicKey); err == nil || !strings.Contains(err.Error(), "P-224") {
		t.Fatalf("DefaultAlg(P-224) = %v, want unsupported curve error", err)
	}
	if _, err := DefaultAlg("not a key"); err == nil {
		t.Fatal("DefaultAlg(string) succeeded")
	}
}
