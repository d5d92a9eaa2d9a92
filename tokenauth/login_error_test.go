package tokenauth

import (
	"context"
	"crypto"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// brokenSigner has a key's public half but cannot sign: the login fails
// before any request goes out.
type brokenSigner struct{ crypto.Signer }

func (brokenSigner) Sign(io.Reader, []byte, crypto.SignerOpts) ([]byte, error) {
	return nil, errors.New("the key is gone")
}

// TestLoginErrorRetryable runs the token client against login services
// that fail in each way, and checks which failures may succeed when tried
// again (the login service's side, or the way to it) and which need our
// configuration changed.
func TestLoginErrorRetryable(t *testing.T) {
	answer := func(status int, body string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			io.WriteString(w, body)
		}
	}
	hijack := func(write string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			conn, buf, err := http.NewResponseController(w).Hijack()
			if err != nil {
				t.Error(err)
				return
			}
			buf.WriteString(write)
			buf.Flush()
			conn.Close()
		}
	}
	cases := []struct {
		name               string
		handler            http.Handler // nil: nothing listens
		tls, brokenKey     bool
		retryable, timeout bool
	}{
		{"503 temporarily_unavailable", answer(503, `{"error":"temporarily_unavailable"}`), false, false, true, false},
		{"502 HTML", answer(502, `<html>bad gateway</html>`), false, false, true, false},
		{"500 server_error", answer(500, `{"error":"server_error"}`), false, false, true, false},
		{"429", answer(429, ``), false, false, true, false},
		{"408", answer(408, ``), false, false, true, false},
		{"400 temporarily_unavailable", answer(400, `{"error":"temporarily_unavailable"}`), false, false, true, false},
		{"200 garbage", answer(200, `<html>maintenance</html>`), false, false, true, false},
		{"200 cut off", hijack("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{\"access_token\":\"x"), false, false, true, false},
		{"reset before the answer", hijack(""), false, false, true, false},
		{"nothing listens", nil, false, false, true, false},
		{"hangs past the client's timeout", http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
			// Read to the end, so that the server sees the client go.
			io.Copy(io.Discard, r.Body)
			<-r.Context().Done()
		}), false, false, true, true},
		{"400 invalid_grant", answer(400, `{"error":"invalid_grant","error_description":"jti already used"}`), false, false, false, false},
		{"401 invalid_client", answer(401, `{"error":"invalid_client"}`), false, false, false, false},
		{"400 invalid_scope", answer(400, `{"error":"invalid_scope"}`), false, false, false, false},
		{"404 HTML (token_url wrong)", answer(404, `<html>not found</html>`), false, false, false, false},
		{"TLS certificate not trusted", answer(200, `{"access_token":"x","expires_in":60}`), true, false, false, false},
		{"identity token cannot be signed", answer(200, `{"access_token":"x","expires_in":60}`), false, true, false, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			testKeys(t)
			var url string
			switch {
			case tc.handler == nil:
				srv := httptest.NewServer(http.NotFoundHandler())
				url = srv.URL
				srv.Close()
			case tc.tls:
				srv := httptest.NewTLSServer(tc.handler)
				defer srv.Close()
				url = srv.URL
			default:
				srv := httptest.NewServer(tc.handler)
				defer srv.Close()
				url = srv.URL
			}
			var key crypto.Signer = testEC["P-256"]
			if tc.brokenKey {
				key = brokenSigner{key}
			}
			s, err := NewIdentitySigner(testIdentityConfig(), key, nil)
			if err != nil {
				t.Fatal(err)
			}
			// Short only where the login must time out: a TLS handshake
			// under the race detector takes a few hundred milliseconds.
			timeout := 10 * time.Second
			if tc.timeout {
				timeout = 300 * time.Millisecond
			}
			c, err := NewTokenClient(TokenClientConfig{Partner: "sncf", TokenURL: url, Signer: s,
				HTTPClient: &http.Client{Timeout: timeout}})
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.Token(context.Background())
			var le *LoginError
			if !errors.As(err, &le) {
				t.Fatalf("got %v, want a *LoginError", err)
			}
			if le.Retryable() != tc.retryable || le.Timeout() != tc.timeout {
				t.Fatalf("%v: Retryable %v Timeout %v, want %v %v", err, le.Retryable(), le.Timeout(), tc.retryable, tc.timeout)
			}
		})
	}
}
