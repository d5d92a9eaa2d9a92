package tokenauth

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	josejwt "github.com/go-jose/go-jose/v4/jwt"
	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"

	"github.com/caddy-osdm/caddy-osdm/internal/testclock"
)

// loginKeySet are the keys of the provider-side tests, made once: RSA
// generation is slow under the race detector.
type loginKeySet struct {
	alpine, alpineOld, alpineNext, stranger *rsa.PrivateKey
	eastern                                 *ecdsa.PrivateKey
	coastal                                 ed25519.PrivateKey
	login                                   *ecdsa.PrivateKey
}

var (
	loginKeysOnce sync.Once
	loginKeys     loginKeySet
)

func loginTestKeys(t testing.TB) *loginKeySet {
	t.Helper()
	loginKeysOnce.Do(func() {
		rsaKey := func() *rsa.PrivateKey {
			k, err := rsa.GenerateKey(rand.Reader, 2048)
			if err != nil {
				panic(err)
			}
			return k
		}
		loginKeys.alpine, loginKeys.alpineOld, loginKeys.alpineNext, loginKeys.stranger = rsaKey(), rsaKey(), rsaKey(), rsaKey()
		loginKeys.eastern, _ = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		loginKeys.login, _ = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		_, loginKeys.coastal, _ = ed25519.GenerateKey(rand.Reader)
	})
	return &loginKeys
}

const (
	loginTestAudience = "https://login.example-provider.eu/oauth/token"
	loginTestIssuer   = "https://login.example-provider.eu"
	loginTestIss      = "https://reservations.example-railway.eu"
)

// loginFixture is a login service with three clients, a settable clock
// and a memory replay store.
type loginFixture struct {
	t       testing.TB
	keys    *loginKeySet
	clock   *testclock.Clock
	store   *MemoryReplayStore
	service *LoginService
}

func newLoginFixture(t testing.TB) *loginFixture {
	t.Helper()
	f := &loginFixture{t: t, keys: loginTestKeys(t), clock: testclock.New(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))}
	clients := []RegisteredConsumer{
		{
			Subject: "alpine",
			Algs:    []string{"RS256", "PS256"},
			Keys: []ConsumerKey{
				{ID: "alp-1", Public: f.keys.alpine.Public()},
				{ID: "alp-old", Public: f.keys.alpineOld.Public(), NotAfter: f.clock.Now().Add(-time.Hour)},
				{ID: "alp-next", Public: f.keys.alpineNext.Public(), NotBefore: f.clock.Now().Add(time.Hour)},
			},
			Scopes: []string{"uic_osdm", "uic_osdm_read"},
		},
		{Subject: "eastern", Keys: []ConsumerKey{{ID: "east-1", Public: f.keys.eastern.Public()}}},
		{Subject: "coastal", Keys: []ConsumerKey{{ID: "coast-1", Public: f.keys.coastal.Public()}}},
	}
	v, err := NewAssertionValidator(AssertionPolicy{
		Audience:    []string{loginTestAudience, loginTestIssuer},
		ClockSkew:   30 * time.Second,
		MaxLifetime: 10 * time.Minute,
		Clients:     clients,
		Now:         f.clock.Now,
	})
	if err != nil {
		t.Fatal(err)
	}
	f.store = NewMemoryReplayStore(MemoryReplayOptions{SweepInterval: -1, Now: f.clock.Now})
	f.service = &LoginService{
		Validator: v,
		Issuer: &AccessTokenIssuer{
			Key: f.keys.login, Alg: "ES256", KeyID: "login-1", Issuer: loginTestIssuer,
			Audience: []string{loginTestIssuer}, Lifetime: 15 * time.Minute, Now: f.clock.Now,
		},
		Replay: f.store,
	}
	if err := f.service.Issuer.Check(); err != nil {
		t.Fatal(err)
	}
	return f
}

// claims are the claims a well-behaved consumer sends.
func (f *loginFixture) claims(sub string) jwt.MapClaims {
	now := f.clock.Now()
	return jwt.MapClaims{
		"iss": loginTestIss, "sub": sub, "aud": loginTestAudience,
		"exp": now.Add(5 * time.Minute).Unix(), "nbf": now.Add(-120 * time.Second).Unix(),
		"iat": now.Unix(), "jti": uuid.NewString(), "scope": "uic_osdm",
	}
}

// sign makes an identity token with golang-jwt; header entries replace
// the defaults (typ JWT, the kid given), a nil value removes one.
func (f *loginFixture) sign(method jwt.SigningMethod, key any, kid string, claims jwt.MapClaims, header map[string]any) string {
	f.t.Helper()
	tok := jwt.NewWithClaims(method, claims)
	tok.Header["kid"] = kid
	for k, v := range header {
		if v == nil {
			delete(tok.Header, k)
		} else {
			tok.Header[k] = v
		}
	}
	s, err := tok.SignedString(key)
	if err != nil {
		f.t.Fatal(err)
	}
	return s
}

// valid is a correct token of client alpine.
func (f *loginFixture) valid() string {
	return f.sign(jwt.SigningMethodRS256, f.keys.alpine, "alp-1", f.claims("alpine"), nil)
}

func loginForm(assertion string) url.Values {
	return url.Values{"grant_type": {loginGrantJWTBearer}, "assertion": {assertion}, "scope": {"uic_osdm"}}
}

func clientAssertionForm(assertion string) url.Values {
	return url.Values{
		"grant_type": {"client_credentials"}, "client_assertion_type": {loginClientAssertionType},
		"client_assertion": {assertion}, "scope": {"uic_osdm"},
	}
}

// post runs a token request through ServeHTTP and returns the recorder.
func (f *loginFixture) post(form url.Values) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodPost, "/oauth/token", strings.NewReader(form.Encode()))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	w := httptest.NewRecorder()
	f.service.ServeHTTP(w, r)
	return w
}

// token runs a token request through Token.
func (f *loginFixture) token(form url.Values) (*LoginGrant, *Refusal) {
	r := httptest.NewRequest(http.MethodPost, "/oauth/token", strings.NewReader(form.Encode()))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	g, err := f.service.Token(context.Background(), r)
	if err != nil {
		return nil, err.(*Refusal)
	}
	return g, nil
}

func TestLoginGrantsValidTokens(t *testing.T) {
	f := newLoginFixture(t)
	cases := []struct {
		name      string
		assertion func() string
	}{
		{"RS256", f.valid},
		{"PS256", func() string { return f.sign(jwt.SigningMethodPS256, f.keys.alpine, "alp-1", f.claims("alpine"), nil) }},
		{"ES256", func() string {
			return f.sign(jwt.SigningMethodES256, f.keys.eastern, "east-1", f.claims("eastern"), nil)
		}},
		{"EdDSA", func() string {
			return f.sign(jwt.SigningMethodEdDSA, f.keys.coastal, "coast-1", f.claims("coastal"), nil)
		}},
		{"exp within skew", func() string {
			c := f.claims("alpine")
			c["exp"], c["iat"], c["nbf"] = f.clock.Now().Add(-10*time.Second).Unix(), f.clock.Now().Add(-5*time.Minute).Unix(), nil
			delete(c, "nbf")
			return f.sign(jwt.SigningMethodRS256, f.keys.alpine, "alp-1", c, nil)
		}},
		{"iat ahead within skew", func() string {
			c := f.claims("alpine")
			c["iat"] = f.clock.Now().Add(20 * time.Second).Unix()
			return f.sign(jwt.SigningMethodRS256, f.keys.alpine, "alp-1", c, nil)
		}},
		{"no iat, exp - now at the cap", func() string {
			c := f.claims("alpine")
			delete(c, "iat")
			c["exp"] = f.clock.Now().Add(10 * time.Minute).Unix()
			return f.sign(jwt.SigningMethodRS256, f.keys.alpine, "alp-1", c, nil)
		}},
		{"aud as array with the issuer", func() string {
			c := f.claims("alpine")
			c["aud"] = []string{"https://other.example", loginTestIssuer}
			return f.sign(jwt.SigningMethodRS256, f.keys.alpine, "alp-1", c, nil)
		}},
		{"typ lower case", func() string {
			return f.sign(jwt.SigningMethodRS256, f.keys.alpine, "alp-1", f.claims("alpine"), map[string]any{"typ": "jwt"})
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := f.post(loginForm(tc.assertion()))
			if w.Code != http.StatusOK {
				t.Fatalf("status %d, body %s", w.Code, w.Body)
			}
			var resp AccessTokenResponse
			if err := json.Unmarshal(w.Body.Bytes(), &resp); err != nil {
				t.Fatal(err)
			}
			if resp.AccessToken == "" || resp.TokenType != "Bearer" || resp.ExpiresIn != 900 || resp.Scope != "uic_osdm" {
				t.Fatalf("response %+v", resp)
			}
			if w.Header().Get("Cache-Control") != "no-store" || w.Header().Get("Pragma") != "no-cache" {
				t.Fatalf("cache headers %v", w.Header())
			}
		})
	}
}

func TestLoginClientAssertionForm(t *testing.T) {
	f := newLoginFixture(t)
	c := f.claims("alpine")
	c["iss"] = "alpine"
	form := clientAssertionForm(f.sign(jwt.SigningMethodRS256, f.keys.alpine, "alp-1", c, nil))
	form.Set("client_id", "alpine")
	if g, ref := f.token(form); ref != nil {
		t.Fatalf("refused: %v", ref)
	} else if g.Assertion.Subject != "alpine" {
		t.Fatalf("subject %q", g.Assertion.Subject)
	}

	// A client_id naming another client.
	c = f.claims("alpine")
	c["iss"] = "alpine"
	form = clientAssertionForm(f.sign(jwt.SigningMethodRS256, f.keys.alpine, "alp-1", c, nil))
	form.Set("client_id", "eastern")
	if _, ref := f.token(form); ref == nil || ref.OAuth.Code != ErrCodeInvalidClient {
		t.Fatalf("client_id mismatch: got %v", ref)
	}
}

// TestLoginIndependentSigner checks interoperability: tokens made by
// go-jose, another JWT implementation, are accepted.
func TestLoginIndependentSigner(t *testing.T) {
	f := newLoginFixture(t)
	cases := []struct {
		alg     jose.SignatureAlgorithm
		key     crypto.Signer
		kid     string
		subject string
	}{
		{jose.RS256, f.keys.alpine, "alp-1", "alpine"},
		{jose.PS256, f.keys.alpine, "alp-1", "alpine"},
		{jose.ES256, f.keys.eastern, "east-1", "eastern"},
		{jose.EdDSA, f.keys.coastal, "coast-1", "coastal"},
	}
	for _, tc := range cases {
		t.Run(string(tc.alg), func(t *testing.T) {
			opts := (&jose.SignerOptions{}).WithType("JWT").WithHeader(jose.HeaderKey("kid"), tc.kid)
			signer, err := jose.NewSigner(jose.SigningKey{Algorithm: tc.alg, Key: tc.key}, opts)
			if err != nil {
				t.Fatal(err)
			}
			now := f.clock.Now()
			token, err := josejwt.Signed(signer).Claims(josejwt.Claims{
				Issuer: loginTestIss, Subject: tc.subject, Audience: josejwt.Audience{loginTestAudience},
				Expiry: josejwt.NewNumericDate(now.Add(5 * time.Minute)), NotBefore: josejwt.NewNumericDate(now.Add(-2 * time.Minute)),
				IssuedAt: josejwt.NewNumericDate(now), ID: uuid.NewString(),
			}).Claims(map[string]any{"scope": "uic_osdm"}).Serialize()
			if err != nil {
				t.Fatal(err)
			}
			if _, ref := f.token(loginForm(token)); ref != nil {
				t.Fatalf("refused: %v", ref)
			}
		})
	}
}

// loginAttack is a token request that must be refused.
type loginAttack struct {
	name   string
	form   func(f *loginFixture) url.Values
	code   string
	reason RefusalReason
}

// withClaims signs alpine's RS256 token after edit changed its claims.
func withClaims(edit func(c jwt.MapClaims, now time.Time)) func(f *loginFixture) url.Values {
	return func(f *loginFixture) url.Values {
		c := f.claims("alpine")
		edit(c, f.clock.Now())
		return loginForm(f.sign(jwt.SigningMethodRS256, f.keys.alpine, "alp-1", c, nil))
	}
}

// renamedClaim signs alpine's RS256 token with the claim name written as
// key, which may be a JSON escape: the same claim in another case.
func renamedClaim(name, key string) func(f *loginFixture) url.Values {
	return func(f *loginFixture) url.Values {
		f.t.Helper()
		payload, err := json.Marshal(f.claims("alpine"))
		if err != nil {
			f.t.Fatal(err)
		}
		renamed := strings.Replace(string(payload), `"`+name+`":`, `"`+key+`":`, 1)
		if renamed == string(payload) {
			f.t.Fatalf("no claim %s in %s", name, payload)
		}
		b64 := base64.RawURLEncoding
		signing := b64.EncodeToString([]byte(`{"alg":"RS256","kid":"alp-1","typ":"JWT"}`)) + "." + b64.EncodeToString([]byte(renamed))
		sig, err := jwt.SigningMethodRS256.Sign(signing, f.keys.alpine)
		if err != nil {
			f.t.Fatal(err)
		}
		return loginForm(signing + "." + b64.EncodeToString(sig))
	}
}

func loginAttacks() []loginAttack {
	return []loginAttack{
		{"alg none", func(f *loginFixture) url.Values {
			return loginForm(f.sign(jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, "alp-1", f.claims("alpine"), nil))
		}, ErrCodeInvalidGrant, ReasonAlgNotAllowed},
		{"HS256 with the public key as secret", func(f *loginFixture) url.Values {
			der, _ := x509.MarshalPKIXPublicKey(f.keys.alpine.Public())
			secret := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
			return loginForm(f.sign(jwt.SigningMethodHS256, secret, "alp-1", f.claims("alpine"), nil))
		}, ErrCodeInvalidGrant, ReasonAlgNotAllowed},
		{"alg not pinned for the client", func(f *loginFixture) url.Values {
			return loginForm(f.sign(jwt.SigningMethodRS384, f.keys.alpine, "alp-1", f.claims("alpine"), nil))
		}, ErrCodeInvalidGrant, ReasonAlgNotAllowed},
		{"unknown alg", func(f *loginFixture) url.Values {
			tok := f.valid()
			parts := strings.Split(tok, ".")
			parts[0] = base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"XS999","kid":"alp-1","typ":"JWT"}`))
			return loginForm(strings.Join(parts, "."))
		}, ErrCodeInvalidGrant, ReasonAlgNotAllowed},
		{"unknown kid", func(f *loginFixture) url.Values {
			return loginForm(f.sign(jwt.SigningMethodRS256, f.keys.alpine, "alp-9", f.claims("alpine"), nil))
		}, ErrCodeInvalidGrant, ReasonUnknownKey},
		{"no kid", func(f *loginFixture) url.Values {
			return loginForm(f.sign(jwt.SigningMethodRS256, f.keys.alpine, "", f.claims("alpine"), map[string]any{"kid": nil}))
		}, ErrCodeInvalidGrant, ReasonUnknownKey},
		{"another client's kid", func(f *loginFixture) url.Values {
			return loginForm(f.sign(jwt.SigningMethodES256, f.keys.eastern, "east-1", f.claims("alpine"), nil))
		}, ErrCodeInvalidGrant, ReasonAlgNotAllowed},
		{"another client's kid with a pinned alg", func(f *loginFixture) url.Values {
			return loginForm(f.sign(jwt.SigningMethodRS256, f.keys.alpine, "east-1", f.claims("alpine"), nil))
		}, ErrCodeInvalidGrant, ReasonUnknownKey},
		{"another client's key under this client's kid", func(f *loginFixture) url.Values {
			return loginForm(f.sign(jwt.SigningMethodES256, f.keys.eastern, "east-1", f.claims("coastal"), nil))
		}, ErrCodeInvalidGrant, ReasonAlgNotAllowed},
		{"unregistered key", func(f *loginFixture) url.Values {
			return loginForm(f.sign(jwt.SigningMethodRS256, f.keys.stranger, "alp-1", f.claims("alpine"), nil))
		}, ErrCodeInvalidGrant, ReasonBadSignature},
		{"tampered payload", func(f *loginFixture) url.Values {
			parts := strings.Split(f.valid(), ".")
			c := f.claims("alpine")
			c["scope"] = "uic_osdm uic_osdm_read"
			payload, _ := json.Marshal(c)
			parts[1] = base64.RawURLEncoding.EncodeToString(payload)
			return loginForm(strings.Join(parts, "."))
		}, ErrCodeInvalidGrant, ReasonBadSignature},
		{"retired key", func(f *loginFixture) url.Values {
			return loginForm(f.sign(jwt.SigningMethodRS256, f.keys.alpineOld, "alp-old", f.claims("alpine"), nil))
		}, ErrCodeInvalidGrant, ReasonKeyRetired},
		{"key not yet valid", func(f *loginFixture) url.Values {
			return loginForm(f.sign(jwt.SigningMethodRS256, f.keys.alpineNext, "alp-next", f.claims("alpine"), nil))
		}, ErrCodeInvalidGrant, ReasonKeyNotYetValid},
		{"unknown client", func(f *loginFixture) url.Values {
			return loginForm(f.sign(jwt.SigningMethodRS256, f.keys.alpine, "alp-1", f.claims("intruder"), nil))
		}, ErrCodeInvalidGrant, ReasonUnknownClient},
		{"missing sub", withClaims(func(c jwt.MapClaims, _ time.Time) { delete(c, "sub") }), ErrCodeInvalidGrant, ReasonMissingClaim},
		{"expired", withClaims(func(c jwt.MapClaims, now time.Time) {
			c["exp"], c["iat"] = now.Add(-time.Minute).Unix(), now.Add(-5*time.Minute).Unix()
		}), ErrCodeInvalidGrant, ReasonExpired},
		{"nbf in the future beyond skew", withClaims(func(c jwt.MapClaims, now time.Time) { c["nbf"] = now.Add(2 * time.Minute).Unix() }),
			ErrCodeInvalidGrant, ReasonNotYetValid},
		{"iat in the future beyond skew", withClaims(func(c jwt.MapClaims, now time.Time) { c["iat"] = now.Add(2 * time.Minute).Unix() }),
			ErrCodeInvalidGrant, ReasonIssuedInFuture},
		{"exp too far out", withClaims(func(c jwt.MapClaims, now time.Time) { c["exp"] = now.Add(20 * time.Minute).Unix() }),
			ErrCodeInvalidGrant, ReasonLifetimeTooLong},
		{"exp too far out without iat", withClaims(func(c jwt.MapClaims, now time.Time) {
			delete(c, "iat")
			c["exp"] = now.Add(11 * time.Minute).Unix()
		}), ErrCodeInvalidGrant, ReasonLifetimeTooLong},
		{"exp as a string", withClaims(func(c jwt.MapClaims, now time.Time) { c["exp"] = "tomorrow" }),
			ErrCodeInvalidGrant, ReasonMalformedAssertion},
		{"wrong aud", withClaims(func(c jwt.MapClaims, _ time.Time) { c["aud"] = "https://login.other.example/oauth/token" }),
			ErrCodeInvalidGrant, ReasonBadAudience},
		{"missing aud", withClaims(func(c jwt.MapClaims, _ time.Time) { delete(c, "aud") }), ErrCodeInvalidGrant, ReasonBadAudience},
		{"missing exp", withClaims(func(c jwt.MapClaims, _ time.Time) { delete(c, "exp") }), ErrCodeInvalidGrant, ReasonMissingClaim},
		{"missing jti", withClaims(func(c jwt.MapClaims, _ time.Time) { delete(c, "jti") }), ErrCodeInvalidGrant, ReasonMissingClaim},
		{"missing scope", withClaims(func(c jwt.MapClaims, _ time.Time) { delete(c, "scope") }), ErrCodeInvalidGrant, ReasonMissingClaim},
		{"missing iss", withClaims(func(c jwt.MapClaims, _ time.Time) { delete(c, "iss") }), ErrCodeInvalidGrant, ReasonMissingClaim},
		{"scope as array", withClaims(func(c jwt.MapClaims, _ time.Time) { c["scope"] = []string{"uic_osdm"} }),
			ErrCodeInvalidGrant, ReasonMalformedAssertion},
		{"wrong scope in the token", withClaims(func(c jwt.MapClaims, _ time.Time) { c["scope"] = "uic_osdm admin" }),
			ErrCodeInvalidScope, ReasonBadScope},
		{"form scope beyond the token's", func(f *loginFixture) url.Values {
			form := loginForm(f.valid())
			form.Set("scope", "uic_osdm_read")
			return form
		}, ErrCodeInvalidScope, ReasonBadScope},
		{"typ not JWT", func(f *loginFixture) url.Values {
			return loginForm(f.sign(jwt.SigningMethodRS256, f.keys.alpine, "alp-1", f.claims("alpine"), map[string]any{"typ": "at+jwt"}))
		}, ErrCodeInvalidGrant, ReasonBadType},
		{"typ missing", func(f *loginFixture) url.Values {
			return loginForm(f.sign(jwt.SigningMethodRS256, f.keys.alpine, "alp-1", f.claims("alpine"), map[string]any{"typ": nil}))
		}, ErrCodeInvalidGrant, ReasonBadType},
		{"malformed assertion", func(*loginFixture) url.Values { return loginForm("not-a-jwt") }, ErrCodeInvalidGrant, ReasonMalformedAssertion},
		{"malformed base64", func(*loginFixture) url.Values { return loginForm("e30.%%%.sig") }, ErrCodeInvalidGrant, ReasonMalformedAssertion},
		{"oversized assertion", func(f *loginFixture) url.Values {
			c := f.claims("alpine")
			c["pad"] = strings.Repeat("x", MaxAssertionBytes)
			return loginForm(f.sign(jwt.SigningMethodRS256, f.keys.alpine, "alp-1", c, nil))
		}, ErrCodeInvalidRequest, ReasonAssertionTooLarge},
		{"oversized body", func(f *loginFixture) url.Values {
			form := loginForm(f.valid())
			form.Set("padding", strings.Repeat("x", MaxTokenRequestBytes))
			return form
		}, ErrCodeInvalidRequest, ReasonBodyTooLarge},
		{"oversized garbage assertion", func(f *loginFixture) url.Values {
			return loginForm(strings.Repeat("a", MaxAssertionBytes+1))
		}, ErrCodeInvalidRequest, ReasonAssertionTooLarge},
		{"wrong grant type", func(f *loginFixture) url.Values {
			form := loginForm(f.valid())
			form.Set("grant_type", "password")
			return form
		}, ErrCodeUnsupportedGrantType, ReasonUnsupportedGrant},
		{"missing grant type", func(f *loginFixture) url.Values {
			form := loginForm(f.valid())
			form.Del("grant_type")
			return form
		}, ErrCodeInvalidRequest, ReasonMalformedRequest},
		{"missing assertion", func(*loginFixture) url.Values {
			return url.Values{"grant_type": {loginGrantJWTBearer}}
		}, ErrCodeInvalidRequest, ReasonMalformedRequest},
		{"repeated parameter", func(f *loginFixture) url.Values {
			form := loginForm(f.valid())
			form.Add("assertion", f.valid())
			return form
		}, ErrCodeInvalidRequest, ReasonMalformedRequest},
		{"both forms at once", func(f *loginFixture) url.Values {
			form := loginForm(f.valid())
			form.Set("client_assertion", f.valid())
			return form
		}, ErrCodeInvalidRequest, ReasonMalformedRequest},
		{"client assertion of the wrong type", func(f *loginFixture) url.Values {
			form := clientAssertionForm(f.valid())
			form.Set("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:saml2-bearer")
			return form
		}, ErrCodeInvalidClient, ReasonMalformedRequest},
		{"client_credentials without assertion", func(*loginFixture) url.Values {
			return url.Values{"grant_type": {"client_credentials"}}
		}, ErrCodeInvalidClient, ReasonMalformedRequest},
		{"client assertion: unregistered key", func(f *loginFixture) url.Values {
			c := f.claims("alpine")
			c["iss"] = "alpine"
			return clientAssertionForm(f.sign(jwt.SigningMethodRS256, f.keys.stranger, "alp-1", c, nil))
		}, ErrCodeInvalidClient, ReasonBadSignature},
		{"client assertion: alg none", func(f *loginFixture) url.Values {
			c := f.claims("alpine")
			c["iss"] = "alpine"
			return clientAssertionForm(f.sign(jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, "alp-1", c, nil))
		}, ErrCodeInvalidClient, ReasonAlgNotAllowed},
		{"aud with a capital", renamedClaim("aud", "Aud"), ErrCodeInvalidGrant, ReasonMalformedAssertion},
		{"case-folded exp", renamedClaim("exp", "eXp"), ErrCodeInvalidGrant, ReasonMalformedAssertion},
		{"sub in capitals", renamedClaim("sub", "SUB"), ErrCodeInvalidGrant, ReasonMalformedAssertion},
		{"sub with a long s", renamedClaim("sub", "\u017fub"), ErrCodeInvalidGrant, ReasonMalformedAssertion},
		{"scope with a capital", renamedClaim("scope", "Scope"), ErrCodeInvalidGrant, ReasonMalformedAssertion},
		{"escaped capital in aud", renamedClaim("aud", `\u0041ud`), ErrCodeInvalidGrant, ReasonMalformedAssertion},
		{"aud twice, once in capitals", withClaims(func(c jwt.MapClaims, _ time.Time) { c["AUD"] = "https://login.other.example/oauth/token" }),
			ErrCodeInvalidGrant, ReasonMalformedAssertion},
		{"client assertion: iss with a capital", func(f *loginFixture) url.Values {
			c := f.claims("alpine")
			c["Iss"] = "alpine"
			delete(c, "iss")
			return clientAssertionForm(f.sign(jwt.SigningMethodRS256, f.keys.alpine, "alp-1", c, nil))
		}, ErrCodeInvalidClient, ReasonMalformedAssertion},
		{"client assertion: wrong scope stays invalid_scope", func(f *loginFixture) url.Values {
			c := f.claims("alpine")
			c["iss"], c["scope"] = "alpine", "admin"
			return clientAssertionForm(f.sign(jwt.SigningMethodRS256, f.keys.alpine, "alp-1", c, nil))
		}, ErrCodeInvalidScope, ReasonBadScope},
	}
}

func TestLoginRefusesAttacks(t *testing.T) {
	f := newLoginFixture(t)
	for _, tc := range loginAttacks() {
		t.Run(tc.name, func(t *testing.T) {
			form := tc.form(f)
			w := f.post(form)
			var body map[string]any
			if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
				t.Fatalf("body %q: %v", w.Body, err)
			}
			if body["error"] != tc.code {
				t.Fatalf("error %v, want %s (body %s)", body["error"], tc.code, w.Body)
			}
			if _, has := body["access_token"]; has {
				t.Fatal("refusal carries an access token")
			}
			desc, _ := body["error_description"].(string)
			if desc == "" {
				t.Fatal("no error_description")
			}
			for _, p := range []string{form.Get("assertion"), form.Get("client_assertion")} {
				if len(p) > 20 && strings.Contains(w.Body.String(), p[:20]) {
					t.Fatal("the response echoes the assertion")
				}
			}
			want := (&OAuthError{Code: tc.code}).HTTPStatus()
			if tc.reason == ReasonBodyTooLarge {
				want = http.StatusRequestEntityTooLarge
			}
			if w.Code != want {
				t.Fatalf("status %d, want %d", w.Code, want)
			}
			if w.Header().Get("Cache-Control") != "no-store" || w.Header().Get("Pragma") != "no-cache" {
				t.Fatalf("cache headers %v", w.Header())
			}
			if (w.Code == http.StatusUnauthorized) != strings.HasPrefix(w.Header().Get("WWW-Authenticate"), "Bearer realm=") {
				t.Fatalf("status %d with WWW-Authenticate %q", w.Code, w.Header().Get("WWW-Authenticate"))
			}
			// The reason, for metrics.
			_, ref := f.token(tc.form(f))
			if ref == nil || ref.Reason != tc.reason {
				t.Fatalf("reason %v, want %s", ref, tc.reason)
			}
		})
	}
}

// TestLoginCaseFoldedClaimDescription: the refusal of a claim named in
// another case says which key, which claim and why.
func TestLoginCaseFoldedClaimDescription(t *testing.T) {
	f := newLoginFixture(t)
	for _, tc := range []struct {
		form func(f *loginFixture) url.Values
		want string
	}{
		{renamedClaim("aud", "Aud"), `claim "Aud" is not "aud": claim names are case-sensitive (RFC 7519); write it "aud"`},
		{renamedClaim("aud", `\u0041ud`), `claim "Aud" is not "aud"`},
		{renamedClaim("sub", "\u017fub"), `claim "ſub" is not "sub"`},
	} {
		_, ref := f.token(tc.form(f))
		if ref == nil || !strings.Contains(ref.OAuth.Description, tc.want) {
			t.Errorf("refusal %v, want a description with %s", ref, tc.want)
		}
	}
}

func TestLoginRequestEnvelope(t *testing.T) {
	f := newLoginFixture(t)
	body := loginForm(f.valid()).Encode()
	cases := []struct {
		name, method, contentType, target string
		status                            int
		reason                            RefusalReason
	}{
		{"GET", http.MethodGet, "application/x-www-form-urlencoded", "/oauth/token", http.StatusMethodNotAllowed, ReasonMethodNotAllowed},
		{"JSON body", http.MethodPost, "application/json", "/oauth/token", http.StatusBadRequest, ReasonContentType},
		{"no content type", http.MethodPost, "", "/oauth/token", http.StatusBadRequest, ReasonContentType},
		{"assertion in the URL", http.MethodPost, "application/x-www-form-urlencoded", "/oauth/token?assertion=x", http.StatusBadRequest, ReasonMalformedRequest},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest(tc.method, tc.target, strings.NewReader(body))
			if tc.contentType != "" {
				r.Header.Set("Content-Type", tc.contentType)
			}
			w := httptest.NewRecorder()
			f.service.ServeHTTP(w, r)
			if w.Code != tc.status || !strings.Contains(w.Body.String(), `"error":"invalid_request"`) {
				t.Fatalf("status %d body %s", w.Code, w.Body)
			}
			r = httptest.NewRequest(tc.method, tc.target, strings.NewReader(body))
			r.Header.Set("Content-Type", tc.contentType)
			if _, err := f.service.Token(context.Background(), r); err.(*Refusal).Reason != tc.reason {
				t.Fatalf("reason %v", err)
			}
		})
	}
	// A charset parameter is fine.
	r := httptest.NewRequest(http.MethodPost, "/oauth/token", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded; charset=UTF-8")
	if _, err := f.service.Token(context.Background(), r); err != nil {
		t.Fatalf("charset refused: %v", err)
	}
}

func TestLoginReplay(t *testing.T) {
	f := newLoginFixture(t)
	assertion := f.valid()
	if _, ref := f.token(loginForm(assertion)); ref != nil {
		t.Fatalf("first use refused: %v", ref)
	}
	g, ref := f.token(loginForm(assertion))
	if g != nil || ref == nil || ref.OAuth.Code != ErrCodeInvalidGrant || ref.Reason != ReasonReplay || ref.Client != "alpine" {
		t.Fatalf("replay: grant %v refusal %v", g, ref)
	}
	// Still refused just before exp + skew (the token is valid till then).
	f.clock.Advance(5*time.Minute + 29*time.Second)
	if _, ref := f.token(loginForm(assertion)); ref == nil || ref.Reason != ReasonReplay {
		t.Fatalf("replay near expiry: %v", ref)
	}
	// The same jti from another client is another token.
	c := f.claims("eastern")
	c2 := f.claims("alpine")
	c2["jti"] = "shared-jti"
	c["jti"] = "shared-jti"
	if _, ref := f.token(loginForm(f.sign(jwt.SigningMethodRS256, f.keys.alpine, "alp-1", c2, nil))); ref != nil {
		t.Fatal(ref)
	}
	if _, ref := f.token(loginForm(f.sign(jwt.SigningMethodES256, f.keys.eastern, "east-1", c, nil))); ref != nil {
		t.Fatalf("same jti, other client: %v", ref)
	}
}

// TestLoginInvalidTokenDoesNotBurnJTI: the jti is recorded only once the
// token passed every check, so a forged token cannot block a real one.
func TestLoginInvalidTokenDoesNotBurnJTI(t *testing.T) {
	f := newLoginFixture(t)
	c := f.claims("alpine")
	forged := f.sign(jwt.SigningMethodRS256, f.keys.stranger, "alp-1", c, nil)
	if _, ref := f.token(loginForm(forged)); ref == nil || ref.Reason != ReasonBadSignature {
		t.Fatalf("forged: %v", ref)
	}
	wide := jwt.MapClaims{}
	for k, v := range c {
		wide[k] = v
	}
	wide["scope"] = "admin"
	if _, ref := f.token(loginForm(f.sign(jwt.SigningMethodRS256, f.keys.alpine, "alp-1", wide, nil))); ref == nil {
		t.Fatal("bad scope accepted")
	}
	if _, ref := f.token(loginForm(f.sign(jwt.SigningMethodRS256, f.keys.alpine, "alp-1", c, nil))); ref != nil {
		t.Fatalf("genuine token refused after forged ones: %v", ref)
	}
	if f.store.Len() != 1 {
		t.Fatalf("store holds %d entries, want 1", f.store.Len())
	}
}

func TestLoginConcurrentReplay(t *testing.T) {
	f := newLoginFixture(t)
	form := loginForm(f.valid())
	var granted, replays atomic.Int32
	var wg sync.WaitGroup
	start := make(chan struct{})
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			g, ref := f.token(form)
			switch {
			case g != nil:
				granted.Add(1)
			case ref.Reason == ReasonReplay:
				replays.Add(1)
			}
		}()
	}
	close(start)
	wg.Wait()
	if granted.Load() != 1 || replays.Load() != 19 {
		t.Fatalf("granted %d, replays %d; want 1 and 19", granted.Load(), replays.Load())
	}
}

// failingStore is a replay store that cannot answer.
type failingStore struct{ err error }

func (s failingStore) Claim(context.Context, string, string, time.Time) error { return s.err }

func TestLoginStoreFailuresFailClosed(t *testing.T) {
	for _, tc := range []struct {
		err    error
		code   string
		reason RefusalReason
	}{
		{ErrReplayStoreFull, ErrCodeTemporarilyUnavailable, ReasonReplayStoreFull},
		{ErrReplayStoreUnavailable, ErrCodeServerError, ReasonReplayStoreError},
	} {
		f := newLoginFixture(t)
		f.service.Replay = failingStore{tc.err}
		w := f.post(loginForm(f.valid()))
		if w.Code != http.StatusServiceUnavailable || !strings.Contains(w.Body.String(), tc.code) || strings.Contains(w.Body.String(), "access_token") {
			t.Fatalf("%v: status %d body %s", tc.err, w.Code, w.Body)
		}
		if _, ref := f.token(loginForm(f.valid())); ref.Reason != tc.reason {
			t.Fatalf("reason %s", ref.Reason)
		}
	}
}

func TestLoginFormScopeNarrows(t *testing.T) {
	f := newLoginFixture(t)
	c := f.claims("alpine")
	c["scope"] = "uic_osdm uic_osdm_read"
	form := loginForm(f.sign(jwt.SigningMethodRS256, f.keys.alpine, "alp-1", c, nil))
	form.Set("scope", "uic_osdm_read")
	g, ref := f.token(form)
	if ref != nil {
		t.Fatal(ref)
	}
	if g.Response.Scope != "uic_osdm_read" {
		t.Fatalf("scope %q", g.Response.Scope)
	}
	// Without a form scope the token's scope is granted.
	c = f.claims("alpine")
	c["scope"] = "uic_osdm uic_osdm_read"
	form = loginForm(f.sign(jwt.SigningMethodRS256, f.keys.alpine, "alp-1", c, nil))
	form.Del("scope")
	if g, ref = f.token(form); ref != nil || g.Response.Scope != "uic_osdm uic_osdm_read" {
		t.Fatalf("grant %+v refusal %v", g, ref)
	}
}

func TestNewAssertionValidatorRefusesBadPolicies(t *testing.T) {
	keys := loginTestKeys(t)
	good := RegisteredConsumer{Subject: "a", Keys: []ConsumerKey{{ID: "k", Public: keys.alpine.Public()}}}
	base := AssertionPolicy{Audience: []string{"aud"}, ClockSkew: time.Second, MaxLifetime: time.Minute, Clients: []RegisteredConsumer{good}}
	cases := map[string]func(p *AssertionPolicy){
		"no audience":      func(p *AssertionPolicy) { p.Audience = nil },
		"negative skew":    func(p *AssertionPolicy) { p.ClockSkew = -time.Second },
		"zero lifetime":    func(p *AssertionPolicy) { p.MaxLifetime = 0 },
		"no clients":       func(p *AssertionPolicy) { p.Clients = nil },
		"duplicate client": func(p *AssertionPolicy) { p.Clients = []RegisteredConsumer{good, good} },
		"HMAC alg": func(p *AssertionPolicy) {
			p.Clients = []RegisteredConsumer{{Subject: "a", Algs: []string{"HS256"}, Keys: good.Keys}}
		},
		"none alg": func(p *AssertionPolicy) {
			p.Clients = []RegisteredConsumer{{Subject: "a", Algs: []string{"none"}, Keys: good.Keys}}
		},
		"alg misfits a key": func(p *AssertionPolicy) {
			p.Clients = []RegisteredConsumer{{Subject: "a", Algs: []string{"ES256"}, Keys: good.Keys}}
		},
		"duplicate kid": func(p *AssertionPolicy) {
			p.Clients = []RegisteredConsumer{{Subject: "a", Keys: []ConsumerKey{good.Keys[0], good.Keys[0]}}}
		},
		"no key": func(p *AssertionPolicy) { p.Clients = []RegisteredConsumer{{Subject: "a"}} },
		"inverted window": func(p *AssertionPolicy) {
			now := time.Now()
			p.Clients = []RegisteredConsumer{{Subject: "a", Keys: []ConsumerKey{{ID: "k", Public: keys.alpine.Public(), NotBefore: now, NotAfter: now.Add(-time.Hour)}}}}
		},
	}
	for name, edit := range cases {
		p := base
		edit(&p)
		if _, err := NewAssertionValidator(p); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := NewAssertionValidator(base); err != nil {
		t.Fatalf("good policy refused: %v", err)
	}
}
