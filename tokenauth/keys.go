package tokenauth

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/golang-jwt/jwt/v5"
)

// MinRSABits is the smallest RSA modulus accepted for signing or verifying.
const MinRSABits = 2048

// LoadPrivateKeyFile reads a PEM private key: RSA (PKCS#1 or PKCS#8),
// EC P-256/384/521 (SEC1 or PKCS#8) or Ed25519 (PKCS#8).
func LoadPrivateKeyFile(path string) (crypto.Signer, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	key, err := ParsePrivateKeyPEM(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return key, nil
}

// ParsePrivateKeyPEM parses the first private key block of data.
// Encrypted keys are refused: Caddy has no way to ask for a passphrase.
func ParsePrivateKeyPEM(data []byte) (crypto.Signer, error) {
	block, err := firstBlock(data, "PRIVATE KEY")
	if err != nil {
		return nil, err
	}
	if block.Type == "ENCRYPTED PRIVATE KEY" || strings.Contains(block.Headers["Proc-Type"], "ENCRYPTED") {
		return nil, errors.New("private key is encrypted; decrypt it (e.g. openssl pkey -in enc.pem -out key.pem) and protect the file by permissions")
	}
	var key any
	switch block.Type {
	case "RSA PRIVATE KEY":
		key, err = x509.ParsePKCS1PrivateKey(block.Bytes)
	case "EC PRIVATE KEY":
		key, err = x509.ParseECPrivateKey(block.Bytes)
	case "PRIVATE KEY":
		key, err = x509.ParsePKCS8PrivateKey(block.Bytes)
	default:
		return nil, fmt.Errorf("PEM block %q is not a private key (want PRIVATE KEY, RSA PRIVATE KEY or EC PRIVATE KEY)", block.Type)
	}
	if err != nil {
		return nil, fmt.Errorf("parsing %s: %w", block.Type, err)
	}
	signer, ok := key.(crypto.Signer)
	if !ok {
		return nil, fmt.Errorf("unsupported private key type %T", key)
	}
	if err := checkKeyStrength(signer.Public()); err != nil {
		return nil, err
	}
	return signer, nil
}

// LoadPublicKeyFile reads a PEM public key (PKIX "PUBLIC KEY", PKCS#1
// "RSA PUBLIC KEY") or the public key of a PEM certificate.
func LoadPublicKeyFile(path string) (crypto.PublicKey, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	key, err := ParsePublicKeyPEM(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return key, nil
}

// ParsePublicKeyPEM parses the first public key or certificate block of data.
func ParsePublicKeyPEM(data []byte) (crypto.PublicKey, error) {
	block, err := firstBlock(data, "PUBLIC KEY")
	if err != nil {
		return nil, err
	}
	var key any
	switch block.Type {
	case "PUBLIC KEY":
		key, err = x509.ParsePKIXPublicKey(block.Bytes)
	case "RSA PUBLIC KEY":
		key, err = x509.ParsePKCS1PublicKey(block.Bytes)
	case "CERTIFICATE":
		var cert *x509.Certificate
		cert, err = x509.ParseCertificate(block.Bytes)
		if err == nil {
			key = cert.PublicKey
		}
	default:
		return nil, fmt.Errorf("PEM block %q is not a public key (want PUBLIC KEY, RSA PUBLIC KEY or CERTIFICATE)", block.Type)
	}
	if err != nil {
		return nil, fmt.Errorf("parsing %s: %w", block.Type, err)
	}
	switch key.(type) {
	case *rsa.PublicKey, *ecdsa.PublicKey, ed25519.PublicKey:
	default:
		return nil, fmt.Errorf("unsupported public key type %T", key)
	}
	if err := checkKeyStrength(key); err != nil {
		return nil, err
	}
	return key, nil
}

// firstBlock returns the first PEM block of data, skipping blocks such as
// "EC PARAMETERS" that openssl writes before the key.
func firstBlock(data []byte, what string) (*pem.Block, error) {
	for {
		var block *pem.Block
		block, data = pem.Decode(data)
		if block == nil {
			return nil, fmt.Errorf("no PEM %s block found", what)
		}
		if block.Type != "EC PARAMETERS" {
			return block, nil
		}
	}
}

func checkKeyStrength(pub crypto.PublicKey) error {
	if k, ok := pub.(*rsa.PublicKey); ok && k.N.BitLen() < MinRSABits {
		return fmt.Errorf("RSA key has %d bits; at least %d are required", k.N.BitLen(), MinRSABits)
	}
	return nil
}

// DefaultAlg is the JWS algorithm a key signs with when none is configured:
// RS256 for RSA, ES256/ES384/ES512 for EC P-256/P-384/P-521, EdDSA for Ed25519.
func DefaultAlg(pub crypto.PublicKey) (string, error) {
	switch k := pub.(type) {
	case *rsa.PublicKey:
		return "RS256", nil
	case *ecdsa.PublicKey:
		switch k.Curve {
		case elliptic.P256():
			return "ES256", nil
		case elliptic.P384():
			return "ES384", nil
		case elliptic.P521():
			return "ES512", nil
		}
		return "", fmt.Errorf("unsupported EC curve %s", k.Curve.Params().Name)
	case ed25519.PublicKey:
		return "EdDSA", nil
	}
	return "", fmt.Errorf("unsupported key type %T", pub)
}

// SigningMethod returns the golang-jwt method for an asymmetric JWS
// algorithm name. "none" and the HMAC algorithms are refused: an OSDM
// identity or access token is always signed with a private key.
func SigningMethod(alg string) (jwt.SigningMethod, error) {
	switch alg {
	case "RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA":
		return jwt.GetSigningMethod(alg), nil
	}
	return nil, fmt.Errorf("unsupported alg %q (want one of RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384, ES512, EdDSA)", alg)
}

// CheckAlg reports whether alg can be used with the key: RS*/PS* need RSA,
// ESnnn needs EC on the matching curve, EdDSA needs Ed25519.
func CheckAlg(alg string, pub crypto.PublicKey) error {
	if _, err := SigningMethod(alg); err != nil {
		return err
	}
	var ok bool
	switch k := pub.(type) {
	case *rsa.PublicKey:
		ok = alg[0] == 'R' || alg[0] == 'P'
	case *ecdsa.PublicKey:
		want, _ := DefaultAlg(k)
		ok = alg == want
	case ed25519.PublicKey:
		ok = alg == "EdDSA"
	}
	if !ok {
		return fmt.Errorf("alg %s does not fit a %s key", alg, KeyDescription(pub))
	}
	return nil
}

// KeyDescription names a key's type and size for messages, e.g. "RSA 2048".
func KeyDescription(pub crypto.PublicKey) string {
	switch k := pub.(type) {
	case *rsa.PublicKey:
		return fmt.Sprintf("RSA %d", k.N.BitLen())
	case *ecdsa.PublicKey:
		return "EC " + k.Curve.Params().Name
	case ed25519.PublicKey:
		return "Ed25519"
	}
	return fmt.Sprintf("%T", pub)
}
