package harness

import (
	"crypto"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"net"
	"path/filepath"
	"testing"
	"time"
)

// CA is a throwaway certificate authority of a test: its certificate
// and the certificates it issues are PEM files in its directory.
type CA struct {
	// Cert is the CA's certificate.
	Cert *x509.Certificate
	// File is the PEM file of the CA's certificate, <dir>/<name>.crt.
	File string

	key crypto.Signer
	dir string
}

// NewCA makes a CA named name (its certificate's common name) valid for
// a day and writes its certificate in dir; a second CA of the same name
// replaces the first's file.
func NewCA(t testing.TB, dir, name string) *CA {
	t.Helper()
	key := ECKey(t)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	ca := &CA{Cert: cert, File: filepath.Join(dir, name+".crt"), key: key, dir: dir}
	writePEM(t, ca.File, "CERTIFICATE", der, 0o644)
	return ca
}

// Issue writes a certificate valid for a day for a server (names: its
// DNS names and IP addresses) or a client (client true), and its key,
// as <name>.crt and <name>.key (PKCS #8) in the CA's directory, and
// returns the two paths.
func (ca *CA) Issue(t testing.TB, name string, client bool, names ...string) (certFile, keyFile string) {
	t.Helper()
	return ca.IssueUntil(t, name, client, time.Now().Add(24*time.Hour), names...)
}

// IssueUntil is Issue of a certificate valid for the two days up to
// notAfter (one already expired for a notAfter in the past).
func (ca *CA) IssueUntil(t testing.TB, name string, client bool, notAfter time.Time, names ...string) (certFile, keyFile string) {
	t.Helper()
	key := ECKey(t)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: name},
		NotBefore: notAfter.Add(-48 * time.Hour), NotAfter: notAfter,
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	if client {
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
	}
	for _, n := range names {
		if ip := net.ParseIP(n); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, n)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.Cert, key.Public(), ca.key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(ca.dir, name+".crt"), filepath.Join(ca.dir, name+".key")
	writePEM(t, certFile, "CERTIFICATE", der, 0o644)
	WriteKey(t, keyFile, key)
	return certFile, keyFile
}

// Trust is a TLS client configuration that trusts the CA alone.
func (ca *CA) Trust() *tls.Config {
	pool := x509.NewCertPool()
	pool.AddCert(ca.Cert)
	return &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
}
