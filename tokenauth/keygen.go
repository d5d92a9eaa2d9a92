package tokenauth

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// GeneratedRSABits is the RSA size GenerateKey uses: 3072 bits, the
// 128-bit security level that NIST SP 800-57 asks for after 2030.
const GeneratedRSABits = 3072

// GenerateKey makes a private key for a JWS algorithm: RSA 3072 for RS*
// and PS*, EC P-256/P-384/P-521 for ES256/ES384/ES512, Ed25519 for EdDSA.
func GenerateKey(alg string) (crypto.Signer, error) {
	if _, err := SigningMethod(alg); err != nil {
		return nil, err
	}
	switch alg {
	case "ES256":
		return ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	case "ES384":
		return ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	case "ES512":
		return ecdsa.GenerateKey(elliptic.P521(), rand.Reader)
	case "EdDSA":
		_, key, err := ed25519.GenerateKey(rand.Reader)
		return key, err
	}
	return GenerateRSAKey(GeneratedRSABits)
}

// GenerateRSAKey makes an RSA key of the given size (at least MinRSABits).
func GenerateRSAKey(bits int) (crypto.Signer, error) {
	if bits < MinRSABits {
		return nil, fmt.Errorf("RSA key of %d bits; at least %d are required", bits, MinRSABits)
	}
	return rsa.GenerateKey(rand.Reader, bits)
}

// MarshalPrivateKeyPEM encodes a private key as a PKCS#8 "PRIVATE KEY"
// PEM block.
func MarshalPrivateKeyPEM(key crypto.Signer) ([]byte, error) {
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), nil
}

// MarshalPublicKeyPEM encodes a public key as a PKIX "PUBLIC KEY" PEM block.
func MarshalPublicKeyPEM(pub crypto.PublicKey) ([]byte, error) {
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}), nil
}

// PublicKeyID is a stable kid derived from a public key: the first 16
// characters of the base64url SHA-256 of its PKIX encoding. A login
// service uses it when no kid is configured, so that a verifier holding
// the same public key finds the same kid.
func PublicKeyID(pub crypto.PublicKey) (string, error) {
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(der)
	return base64.RawURLEncoding.EncodeToString(sum[:])[:16], nil
}

// WriteKeyPair writes key to dir/name.pem (PKCS#8, mode 0600) and its
// public key to dir/name.pub (PKIX, mode 0644). It never overwrites: if
// either file exists it writes nothing and returns an error wrapping
// fs.ErrExist.
func WriteKeyPair(dir, name string, key crypto.Signer) (privPath, pubPath string, err error) {
	privPEM, err := MarshalPrivateKeyPEM(key)
	if err != nil {
		return "", "", err
	}
	pubPEM, err := MarshalPublicKeyPEM(key.Public())
	if err != nil {
		return "", "", err
	}
	privPath = filepath.Join(dir, name+".pem")
	pubPath = filepath.Join(dir, name+".pub")
	for _, p := range []string{privPath, pubPath} {
		if _, err := os.Lstat(p); err == nil {
			return "", "", fmt.Errorf("%s: %w; not overwriting a key", p, fs.ErrExist)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return "", "", err
		}
	}
	if err := writeNewFile(privPath, privPEM, 0o600); err != nil {
		return "", "", err
	}
	if err := writeNewFile(pubPath, pubPEM, 0o644); err != nil {
		_ = os.Remove(privPath)
		return "", "", err
	}
	return privPath, pubPath, nil
}

// writeNewFile creates path exclusively (O_EXCL: a file that appeared since
// the check is not overwritten either) with its final mode from the start,
// so that a private key is never readable by others, not even briefly.
func writeNewFile(path string, data []byte, mode os.FileMode) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(path)
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(path)
		return err
	}
	return nil
}
