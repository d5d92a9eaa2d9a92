package tokenauth

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// fuzzNow is the clock of the fuzz targets: fixed, so that a seed means
// the same thing whenever it runs.
var fuzzNow = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// assertionMarker in a fuzzed login answer is replaced by the identity
// token the client sent: a login service that echoes it must not get it
// into our errors (and from there into logs and legacy replies).
const assertionMarker = "$ASSERTION"

// roundTripFunc is an http.RoundTripper made of a function.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// FuzzTokenResponse gives the token client any answer from a login
// service: any status, Content-Type and body (in which $ASSERTION stands
// for the identity token sent). Token never panics; it succeeds only on a
// 200 with a usable token that has not expired, and fails with a
// *LoginError whose text holds no control character, no part of the
// identity token's signature and not the access token of the answer.
func FuzzTokenResponse(f *testing.F) {
	_, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		f.Fatal(err)
	}
	signer, err := NewIdentitySigner(IdentityConfig{
		Issuer: "https://reservations.example-railway.eu", Subject: "example-railway",
		Audience: "https://login.fz.example/oauth/token", KeyID: "fz-1",
	}, key, func() time.Time { return fuzzNow })
	if err != nil {
		f.Fatal(err)
	}
	jwtAT, _ := jwt.NewWithClaims(jwt.SigningMethodEdDSA, jwt.MapClaims{"exp": fuzzNow.Add(time.Hour).Unix(), "sub": "x"}).SignedString(key)
	for _, s := range []struct {
		status int
		ctype  string
		body   string
	}{
		{200, "application/json", `{"access_token":"opaque-access-token-0123456789","token_type":"Bearer","expires_in":300}`},
		{200, "application/json;charset=UTF-8", `{"access_token":"opaque-access-token-0123456789","token_type":"bearer","expires_in":"3600","scope":"uic_osdm"}`},
		{200, "application/json", `{"access_token":"` + jwtAT + `","token_type":"Bearer"}`},
		{200, "application/json", `{"access_token":"opaque-access-token-0123456789"}`},
		{200, "application/json", `{"access_token":"opaque-access-token-0123456789","token_type":"mac","expires_in":300}`},
		{200, "application/json", `{"access_token":"opaque-access-token-0123456789","expires_in":-5}`},
		{200, "application/json", `{"access_token":"opaque-access-token-0123456789","expires_in":1e300}`},
		{200, "application/json", `{"access_token":"opaque-access-token-0123456789","expires_in":"$ASSERTION"}`},
		{200, "application/json", `{"access_token":"","token_type":"Bearer"}`},
		{200, "application/json", `{"access_token":42}`},
		{200, "application/json", `null`},
		{200, "text/html", `<html>login</html>`},
		{400, "application/json", `{"error":"invalid_grant","error_description":"jti already used in $ASSERTION"}`},
		{401, "application/json", `{"error":"invalid_client","error_description":"bad\nline\u0000"}`},
		{503, "text/plain", `upstream down: $ASSERTION`},
		{302, "", ``},
	} {
		f.Add(s.status, s.ctype, []byte(s.body))
	}
	f.Fuzz(func(t *testing.T, status int, ctype string, body []byte) {
		if status < 100 || status > 599 {
			status = 200
		}
		var assertion string
		client := &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
			sent, _ := io.ReadAll(r.Body)
			form, _ := url.ParseQuery(string(sent))
			assertion = form.Get("assertion")
			answer := bytes.ReplaceAll(body, []byte(assertionMarker), []byte(assertion))
			return &http.Response{
				StatusCode: status, Header: http.Header{"Content-Type": {ctype}},
				Body: io.NopCloser(bytes.NewReader(answer)), ContentLength: int64(len(answer)), Request: r,
			}, nil
		})}
		tc, err := NewTokenClient(TokenClientConfig{
			Partner: "fz", TokenURL: "https://login.fz.example/oauth/token", Signer: signer,
			HTTPClient: client, Now: func() time.Time { return fuzzNow },
		})
		if err != nil {
			t.Fatal(err)
		}
		tok, err := tc.Token(context.Background())
		if err == nil {
			if status != http.StatusOK || tok.AccessToken == "" || !tok.Expiry.After(fuzzNow) {
				t.Fatalf("accepted status %d token %q expiring %s", status, tok.AccessToken, tok.Expiry)
			}
			return
		}
		var le *LoginError
		if !errors.As(err, &le) {
			t.Fatalf("error %T is not a *LoginError: %v", err, err)
		}
		msg := err.Error()
		if i := strings.IndexFunc(msg, func(r rune) bool { return r < 0x20 || r == 0x7f }); i >= 0 {
			t.Fatalf("control character in the error: %q", msg)
		}
		if sig := assertion[strings.LastIndexByte(assertion, '.')+1:]; len(sig) > 16 && strings.Contains(msg, sig) {
			t.Fatalf("the error holds the identity token's signature: %q", msg)
		}
		var ans struct {
			AccessToken any `json:"access_token"`
		}
		answer := bytes.ReplaceAll(body, []byte(assertionMarker), []byte(assertion))
		if json.Unmarshal(answer, &ans) == nil {
			if at, ok := ans.AccessToken.(string); ok && len(at) >= 16 && bytes.Count(answer, []byte(at)) == 1 && strings.Contains(msg, at) {
				t.Fatalf("the error holds the access token: %q", msg)
			}
		}
	})
}
