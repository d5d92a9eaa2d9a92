package tokenauth

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

func TestAccessTokenRoundTrip(t *testing.T) {
	f := newLoginFixture(t)
	g, ref := f.token(loginForm(f.valid()))
	if ref != nil {
		t.Fatal(ref)
	}
	v := &AccessTokenVerifier{
		Keys: StaticKeys(f.keys.login.Public()), Issuer: loginTestIssuer, Audience: loginTestIssuer,
		Scopes: []string{"uic_osdm"}, Now: f.clock.Now,
	}
	claims, err := v.Verify(g.Response.AccessToken)
	if err != nil {
		t.Fatal(err)
	}
	if claims.Subject != "alpine" || claims.ClientID != "alpine" || claims.Scope != "uic_osdm" || claims.ID != g.AccessTokenID {
		t.Fatalf("claims %+v", claims)
	}
	if got := claims.ExpiresAt.Sub(f.clock.Now()); got != 15*time.Minute {
		t.Fatalf("lifetime %s", got)
	}
	tok, _, _ := jwt.NewParser().ParseUnverified(g.Response.AccessToken, jwt.MapClaims{})
	if tok.Header["kid"] != "login-1" || tok.Header["typ"] != AccessTokenType || tok.Header["alg"] != "ES256" {
		t.Fatalf("header %v", tok.Header)
	}
}

// TestAccessTokenShortLifetime: a 2 s lifetime gives a token valid for at
// least 2 s and refused after them.
func TestAccessTokenShortLifetime(t *testing.T) {
	keys := loginTestKeys(t)
	now := time.Date(2026, 3, 1, 12, 0, 0, 700_000_000, time.UTC)
	clock := func() time.Time { return now }
	iss := &AccessTokenIssuer{Key: keys.login, Alg: "ES256", KeyID: "k", Issuer: "i", Audience: []string{"a"}, Lifetime: 2 * time.Second, Now: clock}
	issued, err := iss.Issue("alpine", []string{"uic_osdm"})
	if err != nil {
		t.Fatal(err)
	}
	if issued.ExpiresIn != 2 || issued.ExpiresAt.Sub(now) < 2*time.Second {
		t.Fatalf("expires_in %d, exp %s after now", issued.ExpiresIn, issued.ExpiresAt.Sub(now))
	}
	v := &AccessTokenVerifier{Keys: StaticKeys(keys.login.Public()), Now: clock}
	now = now.Add(1900 * time.Millisecond)
	if _, err := v.Verify(issued.Token); err != nil {
		t.Fatalf("at 1.9 s: %v", err)
	}
	now = now.Add(1500 * time.Millisecond)
	if _, err := v.Verify(issued.Token); err == nil || err.(*AccessTokenError).Reason != "expired" {
		t.Fatalf("at 3.4 s: %v", err)
	}
}

func TestAccessTokenVerifierRefuses(t *testing.T) {
	keys := loginTestKeys(t)
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	issuer := func(key crypto.Signer, alg string) *AccessTokenIssuer {
		return &AccessTokenIssuer{Key: key, Alg: alg, KeyID: "k", Issuer: "https://login", Audience: []string{"https://api"}, Lifetime: time.Minute, Now: clock}
	}
	good, _ := issuer(keys.login, "ES256").Issue("alpine", []string{"uic_osdm"})
	other, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	forged, _ := issuer(other, "ES256").Issue("alpine", []string{"uic_osdm"})
	wrongIss := issuer(keys.login, "ES256")
	wrongIss.Issuer = "https://elsewhere"
	fromElsewhere, _ := wrongIss.Issue("alpine", []string{"uic_osdm"})
	narrow, _ := issuer(keys.login, "ES256").Issue("alpine", []string{"uic_osdm_read"})
	// An identity token (typ JWT) signed with the login key is no access token.
	idTok := jwt.NewWithClaims(jwt.SigningMethodES256, jwt.MapClaims{"iss": "https://login", "sub": "alpine", "aud": "https://api", "exp": now.Add(time.Minute).Unix()})
	idTok.Header["typ"] = "JWT"
	identity, _ := idTok.SignedString(keys.login)
	hs := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{"iss": "https://login", "sub": "alpine", "exp": now.Add(time.Minute).Unix()})
	hs.Header["typ"] = AccessTokenType
	hmac, _ := hs.SignedString([]byte("secret"))

	// The good token's claims with one name in another case, which
	// encoding/json would take for the claim.
	renamed := func(name, key string) string {
		_, payload, _ := strings.Cut(good.Token, ".")
		payload, _, _ = strings.Cut(payload, ".")
		claims, _ := base64.RawURLEncoding.DecodeString(payload)
		edited := strings.Replace(string(claims), `"`+name+`":`, `"`+key+`":`, 1)
		if edited == string(claims) {
			t.Fatalf("no claim %s in %s", name, claims)
		}
		b64 := base64.RawURLEncoding
		signing := b64.EncodeToString([]byte(`{"alg":"ES256","kid":"k","typ":"at+jwt"}`)) + "." + b64.EncodeToString([]byte(edited))
		sig, err := jwt.SigningMethodES256.Sign(signing, keys.login)
		if err != nil {
			t.Fatal(err)
		}
		return signing + "." + b64.EncodeToString(sig)
	}

	v := &AccessTokenVerifier{Keys: StaticKeys(keys.login.Public()), Issuer: "https://login", Audience: "https://api", Scopes: []string{"uic_osdm"}, Now: clock}
	if _, err := v.Verify(good.Token); err != nil {
		t.Fatalf("good token: %v", err)
	}
	cases := []struct {
		name, token, reason string
		status              int
	}{
		{"missing", "", "missing", 401},
		{"garbage", "abc.def", "malformed", 401},
		{"other key", forged.Token, "bad_signature", 401},
		{"HMAC", hmac, "bad_signature", 401},
		{"other issuer", fromElsewhere.Token, "bad_issuer", 401},
		{"identity token", identity, "bad_typ", 401},
		{"scope missing", narrow.Token, "insufficient_scope", 403},
		{"tampered", good.Token[:len(good.Token)-4] + "AAAA", "bad_signature", 401},
		{"aud with a capital", renamed("aud", "Aud"), "malformed", 401},
		{"case-folded exp", renamed("exp", "eXp"), "malformed", 401},
		{"iss in capitals", renamed("iss", "ISS"), "malformed", 401},
		{"sub with a long s", renamed("sub", "\u017fub"), "malformed", 401},
		{"scope with a capital", renamed("scope", "Scope"), "malformed", 401},
		{"case-folded client_id", renamed("client_id", "Client_ID"), "malformed", 401},
		{"escaped capital in aud", renamed("aud", `\u0041ud`), "malformed", 401},
	}
	for _, tc := range cases {
		_, err := v.Verify(tc.token)
		ae, _ := err.(*AccessTokenError)
		if ae == nil || ae.Reason != tc.reason || ae.HTTPStatus() != tc.status {
			t.Errorf("%s: %v, want %s", tc.name, err, tc.reason)
			continue
		}
		if tc.token != "" && strings.Contains(ae.Description, tc.token) {
			t.Errorf("%s: description quotes the token", tc.name)
		}
		if strings.Contains(tc.name, "capital") || strings.Contains(tc.name, "case") || strings.Contains(tc.name, "long s") {
			if !strings.Contains(ae.Description, "case-sensitive") {
				t.Errorf("%s: description %q does not say claim names are case-sensitive", tc.name, ae.Description)
			}
		}
	}
	audV := *v
	audV.Audience = "https://other-api"
	if _, err := audV.Verify(good.Token); err == nil || err.(*AccessTokenError).Reason != "bad_audience" {
		t.Fatalf("audience: %v", err)
	}
}

func TestAccessTokenIssuerCheck(t *testing.T) {
	keys := loginTestKeys(t)
	ok := AccessTokenIssuer{Key: keys.login, Alg: "ES256", KeyID: "k", Issuer: "i", Audience: []string{"a"}, Lifetime: time.Second}
	if err := ok.Check(); err != nil {
		t.Fatal(err)
	}
	for name, edit := range map[string]func(i *AccessTokenIssuer){
		"RSA alg on EC key": func(i *AccessTokenIssuer) { i.Alg = "RS256" },
		"HMAC":              func(i *AccessTokenIssuer) { i.Alg = "HS256" },
		"no kid":            func(i *AccessTokenIssuer) { i.KeyID = "" },
		"no issuer":         func(i *AccessTokenIssuer) { i.Issuer = "" },
		"no audience":       func(i *AccessTokenIssuer) { i.Audience = nil },
		"zero lifetime":     func(i *AccessTokenIssuer) { i.Lifetime = 0 },
	} {
		i := ok
		edit(&i)
		if i.Check() == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
