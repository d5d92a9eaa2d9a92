package tokenauth

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"errors"
	"io"
	"log"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// selfSignedClientCert is a throwaway client certificate.
func selfSignedClientCert(t *testing.T) tls.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "example-railway"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

// TestTokenClientTLSFailuresSayWhoRefused: a login service whose
// certificate we do not trust, and one that wants a client certificate we
// do not send, fail with a LoginError saying which side gave up; with the
// service's CA and a client certificate the login succeeds.
func TestTokenClientTLSFailuresSayWhoRefused(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"access_token": "at-tls", "token_type": "Bearer", "expires_in": 60})
	}))
	srv.TLS = &tls.Config{ClientAuth: tls.RequireAnyClientCert}
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.StartTLS()
	t.Cleanup(srv.Close)

	trusting := srv.Client().Transport.(*http.Transport).Clone()
	withCert := trusting.Clone()
	withCert.TLSClientConfig.Certificates = []tls.Certificate{selfSignedClientCert(t)}
	for _, tc := range []struct {
		name      string
		transport http.RoundTripper
		want      string
	}{
		{"system roots", http.DefaultTransport.(*http.Transport).Clone(), "the login service's TLS certificate was not accepted"},
		{"no client certificate", trusting, "the login service refused the TLS connection"},
		{"CA and client certificate", withCert, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			testKeys(t)
			signer, err := NewIdentitySigner(testIdentityConfig(), testEC["P-256"], nil)
			if err != nil {
				t.Fatal(err)
			}
			c, err := NewTokenClient(TokenClientConfig{
				Partner: "sncf", TokenURL: srv.URL + "/token", Signer: signer,
				HTTPClient: &http.Client{Transport: tc.transport, Timeout: 5 * time.Second},
			})
			if err != nil {
				t.Fatal(err)
			}
			tok, err := c.Token(context.Background())
			if tc.want == "" {
				if err != nil || tok.AccessToken != "at-tls" {
					t.Fatalf("got %v, %v", tok, err)
				}
				return
			}
			var le *LoginError
			if !errors.As(err, &le) || le.Description != tc.want || le.Status != 0 || le.Err == nil {
				t.Fatalf("err = %#v, want a LoginError described %q", err, tc.want)
			}
			if !strings.HasPrefix(err.Error(), `login at partner "sncf" failed: `+tc.want+": ") {
				t.Fatalf("message %q", err)
			}
		})
	}
}
