package app_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/redis/go-redis/v9"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/harness"
	"github.com/caddy-osdm/caddy-osdm/internal/redistest"
)

// testCA writes a CA and a certificate for 127.0.0.1 it signed, as PEM
// files in dir, and returns their paths and a client configuration that
// trusts the CA.
func testCA(t *testing.T, dir string) (caFile, certFile, keyFile string, trust *tls.Config) {
	t.Helper()
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "osdm test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true,
		KeyUsage: x509.KeyUsageCertSign, BasicConstraintsValid: true}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(caDER)
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "redis"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, _ := x509.MarshalECPrivateKey(key)
	write := func(name, typ string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: b}), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	return write("ca.pem", "CERTIFICATE", caDER), write("redis.pem", "CERTIFICATE", der),
		write("redis.key", "EC PRIVATE KEY", keyDER), &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
}

// A Redis that speaks TLS only and asks for a password: the app reaches
// it with tls { ca } and the password from a placeholder; a wrong
// password, and a CA that did not sign Redis's certificate, fail the
// start saying so (they are the configuration's fault, not a Redis still
// starting).
func TestRedisTLSAndPassword(t *testing.T) {
	dir := t.TempDir()
	caFile, certFile, keyFile, trust := testCA(t, dir)
	addr := redistest.TLSServer(t, certFile, keyFile, trust, "--requirepass", "s3cret-pw")
	t.Setenv("OSDM_TEST_REDIS_PASSWORD", "s3cret-pw")
	up, _ := backend(t)
	port := harness.FreePort(t)
	redisStore := func(password, ca string) map[string]any {
		return map[string]any{"engine": "redis", "addresses": []string{addr}, "prefix": "tls:",
			"password": password, "tls": map[string]any{"ca": ca}}
	}

	err := caddy.Load(probeConfig(port, map[string]any{"r": redisStore("wrong", caFile)}, map[string]any{"name": "r"}, up), true)
	if err == nil || !strings.Contains(err.Error(), "refused the connection") || !strings.Contains(err.Error(), addr) {
		caddy.Stop()
		t.Fatalf("a wrong password: %v, want the start refused naming %s", err, addr)
	}
	other := t.TempDir()
	otherCA, _, _, _ := testCA(t, other)
	err = caddy.Load(probeConfig(port, map[string]any{"r": redisStore("{env.OSDM_TEST_REDIS_PASSWORD}", otherCA)}, map[string]any{"name": "r"}, up), true)
	if err == nil || !strings.Contains(err.Error(), "certificate") {
		caddy.Stop()
		t.Fatalf("a CA that did not sign Redis's certificate: %v, want the start refused", err)
	}

	load(t, probeConfig(port, map[string]any{"r": redisStore("{env.OSDM_TEST_REDIS_PASSWORD}", caFile)}, map[string]any{"name": "r"}, up))
	waitFor(t, port, "backend")
	c := redis.NewClient(&redis.Options{Addr: addr, Password: "s3cret-pw", TLSConfig: trust})
	defer c.Close()
	if v, err := c.Get(context.Background(), "tls:last").Result(); err != nil || !strings.Contains(v, "backend") {
		t.Fatalf("Redis has tls:last = %q, %v", v, err)
	}
}
