package tokenauth

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// loginStub is a login service answering with a fixed status and body and
// recording the requests it got.
type loginStub struct {
	mu       sync.Mutex
	status   int
	body     string
	ctype    string
	requests []recordedRequest
}

type recordedRequest struct {
	method, contentType, body string
}

func (s *loginStub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	s.requests = append(s.requests, recordedRequest{r.Method, r.Header.Get("Content-Type"), string(b)})
	status, body, ctype := s.status, s.body, s.ctype
	s.mu.Unlock()
	if ctype == "" {
		ctype = "application/json"
	}
	w.Header().Set("Content-Type", ctype)
	w.WriteHeader(status)
	io.WriteString(w, body)
}

func newTestClient(t *testing.T, url string, grant Grant, now Clock, warn func(string)) *TokenClient {
	t.Helper()
	testKeys(t)
	s, err := NewIdentitySigner(testIdentityConfig(), testEC["P-256"], now)
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewTokenClient(TokenClientConfig{Partner: "sncf", TokenURL: url, Grant: grant, Signer: s, Now: now, Warn: warn})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// assertionOf extracts the assertion from a recorded form body.
func assertionOf(t *testing.T, body, field string) string {
	t.Helper()
	for _, kv := range strings.Split(body, "&") {
		if v, ok := strings.CutPrefix(kv, field+"="); ok {
			return v
		}
	}
	t.Fatalf("no %s in %q", field, body)
	return ""
}

func TestTokenRequestFormsByteExact(t *testing.T) {
	for _, tc := range []struct {
		grant Grant
		field string
		want  string // with %s for the assertion
	}{
		{"", "assertion", "assertion=%s&grant_type=urn%%3Aietf%%3Aparams%%3Aoauth%%3Agrant-type%%3Ajwt-bearer&scope=uic_osdm"},
		{GrantJWTBearer, "assertion", "assertion=%s&grant_type=urn%%3Aietf%%3Aparams%%3Aoauth%%3Agrant-type%%3Ajwt-bearer&scope=uic_osdm"},
		{GrantClientAssertion, "client_assertion", "client_assertion=%s&client_assertion_type=urn%%3Aietf%%3Aparams%%3Aoauth%%3Aclient-assertion-type%%3Ajwt-bearer&grant_type=client_credentials&scope=uic_osdm"},
	} {
		t.Run(string(tc.grant), func(t *testing.T) {
			stub := &loginStub{status: 200, body: `{"access_token":"at-1","token_type":"Bearer","expires_in":60}`}
			srv := httptest.NewServer(stub)
			defer srv.Close()
			c := newTestClient(t, srv.URL+"/oauth/token", tc.grant, nil, nil)
			if _, err := c.Token(context.Background()); err != nil {
				t.Fatal(err)
			}
			req := stub.requests[0]
			if req.method != http.MethodPost || req.contentType != "application/x-www-form-urlencoded" {
				t.Fatalf("request %s with Content-Type %q", req.method, req.contentType)
			}
			a := assertionOf(t, req.body, tc.field)
			if strings.Count(a, ".") != 2 {
				t.Fatalf("assertion %q is not a compact JWS", a)
			}
			if want := fmt.Sprintf(tc.want, a); req.body != want {
				t.Fatalf("body\n%s\nwant\n%s", req.body, want)
			}
		})
	}
}

func TestTokenClientAnswers(t *testing.T) {
	testKeys(t)
	now := testNow
	jwtAccess, err := jwt.NewWithClaims(jwt.SigningMethodES256, jwt.MapClaims{"exp": now.Add(42 * time.Second).Unix()}).SignedString(testEC["P-256"])
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name       string
		body       string
		wantToken  string
		wantExpiry time.Duration
		wantWarn   bool
	}{
		{"expires_in number", `{"access_token":"at","token_type":"Bearer","expires_in":3600,"scope":"uic_osdm"}`, "at", time.Hour, false},
		{"expires_in string", `{"access_token":"at","token_type":"bearer","expires_in":"90"}`, "at", 90 * time.Second, false},
		{"no token_type, 2 s", `{"access_token":"at","expires_in":2}`, "at", 2 * time.Second, false},
		{"JWT exp", `{"access_token":"` + jwtAccess + `","token_type":"Bearer"}`, jwtAccess, 42 * time.Second, false},
		{"default with warning", `{"access_token":"opaque","token_type":"Bearer"}`, "opaque", DefaultExpiresIn, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(&loginStub{status: 200, body: tc.body})
			defer srv.Close()
			var warned []string
			c := newTestClient(t, srv.URL, "", fixedClock(now), func(m string) { warned = append(warned, m) })
			tok, err := c.Token(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if tok.AccessToken != tc.wantToken || !tok.Expiry.Equal(now.Add(tc.wantExpiry)) {
				t.Fatalf("token %q expiring in %s, want %q in %s", tok.AccessToken, tok.Expiry.Sub(now), tc.wantToken, tc.wantExpiry)
			}
			if (len(warned) > 0) != tc.wantWarn {
				t.Fatalf("warnings %q, want warning: %v", warned, tc.wantWarn)
			}
			for _, w := range warned {
				if strings.Contains(w, tc.wantToken) {
					t.Fatal("warning contains the token")
				}
			}
		})
	}
}

func TestTokenClientLoginErrors(t *testing.T) {
	cases := []struct {
		name        string
		status      int
		body, ctype string
		want        LoginError
		wantMsg     string
	}{
		{"invalid_grant", 400, `{"error":"invalid_grant","error_description":"jti already used"}`, "",
			LoginError{Partner: "sncf", Status: 400, Code: "invalid_grant", Description: "jti already used"},
			`login at partner "sncf" failed: HTTP 400 invalid_grant: jti already used`},
		{"invalid_client", 401, `{"error":"invalid_client"}`, "",
			LoginError{Partner: "sncf", Status: 401, Code: "invalid_client"},
			`login at partner "sncf" failed: HTTP 401 invalid_client`},
		{"HTML outage", 502, `<html>bad gateway</html>`, "text/html; charset=utf-8",
			LoginError{Partner: "sncf", Status: 502, Description: `answer is not an RFC 6749 error (Content-Type "text/html", 24 bytes)`},
			`HTTP 502: answer is not an RFC 6749 error`},
		{"no access_token", 200, `{"token_type":"Bearer","expires_in":60}`, "",
			LoginError{Partner: "sncf", Status: 200, Description: "answer has no access_token"}, "answer has no access_token"},
		{"not JSON", 200, `access_token=x`, "",
			LoginError{Partner: "sncf", Status: 200, Description: "answer is not a JSON token response"}, "answer is not a JSON token response"},
		{"not bearer", 200, `{"access_token":"x","token_type":"mac","expires_in":60}`, "",
			LoginError{Partner: "sncf", Status: 200, Description: `token_type "mac" is not Bearer`}, "is not Bearer"},
		{"negative expires_in", 200, `{"access_token":"x","expires_in":-5}`, "",
			LoginError{Partner: "sncf", Status: 200, Description: `expires_in "-5" is not a positive number of seconds`}, "expires_in"},
		{"too large", 200, `{"access_token":"` + strings.Repeat("x", MaxTokenResponseBytes) + `"}`, "",
			LoginError{Partner: "sncf", Status: 200, Description: fmt.Sprintf("answer larger than %d bytes", MaxTokenResponseBytes)}, "answer larger than"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			stub := &loginStub{status: tc.status, body: tc.body, ctype: tc.ctype}
			srv := httptest.NewServer(stub)
			defer srv.Close()
			c := newTestClient(t, srv.URL, GrantClientAssertion, nil, nil)
			tok, err := c.Token(context.Background())
			var le *LoginError
			if !errors.As(err, &le) {
				t.Fatalf("got %v, %v; want a *LoginError", tok, err)
			}
			if le.Partner != tc.want.Partner || le.Status != tc.want.Status || le.Code != tc.want.Code || le.Description != tc.want.Description {
				t.Fatalf("LoginError %+v, want %+v", *le, tc.want)
			}
			if !strings.Contains(err.Error(), tc.wantMsg) {
				t.Fatalf("message %q does not contain %q", err, tc.wantMsg)
			}
			if a := assertionOf(t, stub.requests[0].body, "client_assertion"); strings.Contains(err.Error(), a) {
				t.Fatal("error message contains the assertion")
			}
		})
	}
}

func TestTokenClientErrorDescriptionEchoingAssertionIsRedacted(t *testing.T) {
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		w.WriteHeader(400)
		fmt.Fprintf(w, `{"error":"invalid_grant","error_description":"bad assertion %s\nend"}`, r.PostForm.Get("assertion"))
	}))
	defer srv.Close()
	c := newTestClient(t, srv.URL, GrantJWTBearer, nil, nil)
	_, err := c.Token(context.Background())
	var le *LoginError
	if !errors.As(err, &le) {
		t.Fatal(err)
	}
	if le.Description != "bad assertion [redacted] end" {
		t.Fatalf("description %q", le.Description)
	}
}

func TestTokenClientTransportError(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	c := newTestClient(t, url, "", nil, nil)
	_, err := c.Token(context.Background())
	var le *LoginError
	if !errors.As(err, &le) || le.Err == nil || le.Status != 0 {
		t.Fatalf("got %v, want a LoginError wrapping the transport error", err)
	}
	if !strings.HasPrefix(err.Error(), `login at partner "sncf" failed: Post "`+url) {
		t.Fatalf("message %q", err)
	}
}

func TestNewTokenClientErrors(t *testing.T) {
	testKeys(t)
	s, err := NewIdentitySigner(testIdentityConfig(), testEd, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		cfg  TokenClientConfig
		want string
	}{
		{TokenClientConfig{TokenURL: "/oauth/token", Signer: s}, "is not an absolute http(s) URL"},
		{TokenClientConfig{TokenURL: "ftp://x/y", Signer: s}, "is not an absolute http(s) URL"},
		{TokenClientConfig{TokenURL: "https://rail:s3cret@x/y", Signer: s}, `token_url "https://rail:xxxxx@x/y" must not carry a user or password`},
		{TokenClientConfig{TokenURL: "https://rail@x/y", Signer: s}, `token_url "https://rail@x/y" must not carry a user or password`},
		{TokenClientConfig{TokenURL: "https://x/y#token", Signer: s}, `token_url "https://x/y#token" must not have a fragment`},
		{TokenClientConfig{TokenURL: "https://x/y"}, "no identity token signer"},
		{TokenClientConfig{TokenURL: "https://x/y", Signer: s, Grant: "password"}, `unknown grant "password"`},
	} {
		if _, err := NewTokenClient(tc.cfg); err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "s3cret") {
			t.Errorf("NewTokenClient(%+v) = %v, want error containing %q (and no password)", tc.cfg, err, tc.want)
		}
	}
}
