package tokenauth

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// signRaw signs header and claims given as raw JSON with alpine's RS256
// key, so that a test controls exactly what the token says.
func (f *loginFixture) signRaw(header, claims string) string {
	f.t.Helper()
	b64 := base64.RawURLEncoding
	signing := b64.EncodeToString([]byte(header)) + "." + b64.EncodeToString([]byte(claims))
	sig, err := jwt.SigningMethodRS256.Sign(signing, f.keys.alpine)
	if err != nil {
		f.t.Fatal(err)
	}
	return signing + "." + b64.EncodeToString(sig)
}

// validClaimsJSON are alpine's claims as JSON, with exp written as expJSON.
func (f *loginFixture) validClaimsJSON(expJSON, jti string) string {
	now := f.clock.Now().Unix()
	return `{"iss":"` + loginTestIss + `","sub":"alpine","aud":"` + loginTestAudience + `","exp":` + expJSON +
		`,"iat":` + jsonInt(now) + `,"jti":"` + jti + `","scope":"uic_osdm"}`
}

// TestLoginRefusesCritAndStringDates: RFC 7515 section 4.1.11 (a crit
// extension not understood) and RFC 7519 NumericDate (a JSON number, not
// digits in a string), in both request forms.
func TestLoginRefusesCritAndStringDates(t *testing.T) {
	f := newLoginFixture(t)
	now := f.clock.Now().Unix()
	exp := jsonInt(now + 300)
	goodHeader := `{"alg":"RS256","kid":"alp-1","typ":"JWT"}`
	// The control: the same token, well-formed, is accepted.
	if _, ref := f.token(loginForm(f.signRaw(goodHeader, f.validClaimsJSON(exp, "ok-1")))); ref != nil {
		t.Fatalf("well-formed raw token refused: %v", ref)
	}
	cases := []struct{ name, header, claims, want string }{
		{"crit extension", `{"alg":"RS256","kid":"alp-1","typ":"JWT","crit":["x-something"],"x-something":1}`, f.validClaimsJSON(exp, "c-1"), "crit"},
		{"crit empty", `{"alg":"RS256","kid":"alp-1","typ":"JWT","crit":[]}`, f.validClaimsJSON(exp, "c-2"), "crit"},
		{"crit escaped", `{"alg":"RS256","kid":"alp-1","typ":"JWT","\u0063rit":["exp"]}`, f.validClaimsJSON(exp, "c-3"), "crit"},
		{"exp as string", goodHeader, f.validClaimsJSON(`"`+exp+`"`, "s-1"), "claim exp is a JSON string"},
		{"iat as string", goodHeader, strings.Replace(f.validClaimsJSON(exp, "s-2"), `"iat":`+jsonInt(now), `"iat":"`+jsonInt(now)+`"`, 1), "claim iat is a JSON string"},
		{"nbf as string", goodHeader, strings.Replace(f.validClaimsJSON(exp, "s-3"), `"scope"`, `"nbf" : "`+jsonInt(now-60)+`","scope"`, 1), "claim nbf is a JSON string"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			token := f.signRaw(tc.header, tc.claims)
			_, ref := f.token(loginForm(token))
			if ref == nil || ref.OAuth.Code != ErrCodeInvalidGrant || ref.Reason != ReasonMalformedAssertion || !strings.Contains(ref.OAuth.Description, tc.want) {
				t.Fatalf("grant form: %v, want invalid_grant about %s", ref, tc.want)
			}
			_, ref = f.token(clientAssertionForm(token))
			if ref == nil || ref.OAuth.Code != ErrCodeInvalidClient {
				t.Fatalf("client assertion form: %v, want invalid_client", ref)
			}
		})
	}
}

// TestAccessTokenRefusesCritAndStringDates: osdm_access's verifier refuses
// the same two forms in an access token signed with the login key.
func TestAccessTokenRefusesCritAndStringDates(t *testing.T) {
	keys := loginTestKeys(t)
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	b64 := base64.RawURLEncoding
	sign := func(header, claims string) string {
		signing := b64.EncodeToString([]byte(header)) + "." + b64.EncodeToString([]byte(claims))
		sig, err := jwt.SigningMethodES256.Sign(signing, keys.login)
		if err != nil {
			t.Fatal(err)
		}
		return signing + "." + b64.EncodeToString(sig)
	}
	claims := func(exp string) string {
		return `{"iss":"https://login","sub":"alpine","aud":["https://api"],"exp":` + exp + `,"iat":` + jsonInt(now.Unix()) + `,"jti":"j","scope":"uic_osdm","client_id":"alpine"}`
	}
	exp := jsonInt(now.Add(time.Minute).Unix())
	v := &AccessTokenVerifier{Keys: StaticKeys(keys.login.Public()), Issuer: "https://login", Audience: "https://api", Now: func() time.Time { return now }}
	if _, err := v.Verify(sign(`{"alg":"ES256","kid":"k","typ":"at+jwt"}`, claims(exp))); err != nil {
		t.Fatalf("control token refused: %v", err)
	}
	for name, token := range map[string]string{
		"crit":          sign(`{"alg":"ES256","kid":"k","typ":"at+jwt","crit":["x-something"]}`, claims(exp)),
		"exp as string": sign(`{"alg":"ES256","kid":"k","typ":"at+jwt"}`, claims(`"`+exp+`"`)),
	} {
		_, err := v.Verify(token)
		ae, ok := err.(*AccessTokenError)
		if !ok || ae.Reason != "malformed" || ae.HTTPStatus() != http.StatusUnauthorized {
			t.Errorf("%s: %v, want a 401 malformed refusal", name, err)
		}
	}
}

// TestLoginURLAssertionIsSpent: an identity token sent in the URL query
// is refused, and its jti is spent so that the same token posted properly
// afterwards is refused as a replay; a token whose signature does not
// verify spends nothing.
func TestLoginURLAssertionIsSpent(t *testing.T) {
	for _, param := range []string{"assertion", "client_assertion"} {
		t.Run(param, func(t *testing.T) {
			f := newLoginFixture(t)
			token := f.valid()
			r := httptest.NewRequest(http.MethodPost, "/oauth/token?"+url.Values{param: {token}}.Encode(), strings.NewReader(loginForm(token).Encode()))
			r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			w := httptest.NewRecorder()
			f.service.ServeHTTP(w, r)
			if w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), `"error":"invalid_request"`) || !strings.Contains(w.Body.String(), "spent") {
				t.Fatalf("URL token: %d %s", w.Code, w.Body)
			}
			if _, ref := f.token(loginForm(token)); ref == nil || ref.Reason != ReasonReplay {
				t.Fatalf("the exposed token posted properly afterwards: %v, want a replay refusal", ref)
			}

			// Forged (another key): refused, nothing spent, so the
			// genuine token with that jti still works.
			c := f.claims("alpine")
			forged := f.sign(jwt.SigningMethodRS256, f.keys.stranger, "alp-1", c, nil)
			r = httptest.NewRequest(http.MethodPost, "/oauth/token?"+url.Values{param: {forged}}.Encode(), strings.NewReader(""))
			r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			if _, err := f.service.Token(context.Background(), r); err == nil || err.(*Refusal).Reason != ReasonMalformedRequest || strings.Contains(err.(*Refusal).OAuth.Description, "spent") {
				t.Fatalf("forged URL token: %v", err)
			}
			if _, ref := f.token(loginForm(f.sign(jwt.SigningMethodRS256, f.keys.alpine, "alp-1", c, nil))); ref != nil {
				t.Fatalf("a forged URL token burnt a genuine jti: %v", ref)
			}
		})
	}
}

// TestLoginClientAssertionOSDMForm: a client assertion with iss = the
// consumer's issuer URL and sub = its user name (OSDM's form) is accepted
// like iss = sub; a client registered with an issuer gets exactly that
// one accepted, in both forms.
func TestLoginClientAssertionOSDMForm(t *testing.T) {
	f := newLoginFixture(t)
	if g, ref := f.token(clientAssertionForm(f.valid())); ref != nil || g.Assertion.Issuer != loginTestIss {
		t.Fatalf("OSDM form (iss %s, sub alpine): %v", loginTestIss, ref)
	}
	c := f.claims("alpine")
	c["iss"] = "alpine"
	if _, ref := f.token(clientAssertionForm(f.sign(jwt.SigningMethodRS256, f.keys.alpine, "alp-1", c, nil))); ref != nil {
		t.Fatalf("iss = sub: %v", ref)
	}

	clients := []RegisteredConsumer{{Subject: "alpine", Issuer: loginTestIss, Keys: []ConsumerKey{{ID: "alp-1", Public: f.keys.alpine.Public()}}}}
	v, err := NewAssertionValidator(AssertionPolicy{Audience: []string{loginTestAudience}, ClockSkew: 30 * time.Second, MaxLifetime: 10 * time.Minute, Clients: clients, Now: f.clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	f.service.Validator = v
	if _, ref := f.token(clientAssertionForm(f.valid())); ref != nil {
		t.Fatalf("registered issuer: %v", ref)
	}
	for _, iss := range []string{"alpine", "https://other.example"} {
		c := f.claims("alpine")
		c["iss"] = iss
		token := f.sign(jwt.SigningMethodRS256, f.keys.alpine, "alp-1", c, nil)
		if _, ref := f.token(clientAssertionForm(token)); ref == nil || ref.Reason != ReasonBadIssuer || ref.OAuth.Code != ErrCodeInvalidClient {
			t.Fatalf("client assertion iss %q with issuer %q registered: %v", iss, loginTestIss, ref)
		}
		if _, ref := f.token(loginForm(token)); ref == nil || ref.Reason != ReasonBadIssuer || ref.OAuth.Code != ErrCodeInvalidGrant {
			t.Fatalf("grant iss %q with issuer %q registered: %v", iss, loginTestIss, ref)
		}
	}
}

// formViolation is, independently of the code under test, what makes a
// token one that must be refused whatever else it says: a crit header
// parameter (RFC 7515 section 4.1.11; nothing is understood here) or exp,
// nbf or iat as a JSON string (RFC 7519 NumericDate). "" when there is
// none or the parts do not decode as JSON objects.
func formViolation(token string) string {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return ""
	}
	var header, claims map[string]json.RawMessage
	if h, err := base64.RawURLEncoding.DecodeString(parts[0]); err == nil && json.Unmarshal(h, &header) == nil {
		if _, has := header["crit"]; has {
			return "crit"
		}
	}
	c, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil || json.Unmarshal(c, &claims) != nil {
		return ""
	}
	for _, name := range []string{"exp", "nbf", "iat"} {
		if v := bytes.TrimSpace(claims[name]); len(v) > 0 && v[0] == '"' {
			return name + " as a string"
		}
	}
	return ""
}
