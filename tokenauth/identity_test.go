package tokenauth

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	josejwt "github.com/go-jose/go-jose/v4/jwt"
	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"
)

var testNow = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func fixedClock(t time.Time) Clock { return func() time.Time { return t } }

func testIdentityConfig() IdentityConfig {
	return IdentityConfig{
		Issuer:   "https://reservations.example-railway.eu",
		Subject:  "example-railway",
		Audience: "https://login.sncf.example/oauth/token",
		KeyID:    "legacy-2026-01",
	}
}

// decodeSegment decodes one JWT segment into a map, keeping numbers exact.
func decodeSegment(t *testing.T, seg string) map[string]any {
	t.Helper()
	raw, err := base64.RawURLEncoding.DecodeString(seg)
	if err != nil {
		t.Fatalf("segment is not base64url: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	m := map[string]any{}
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("segment is not JSON: %v", err)
	}
	return m
}

func TestIdentityTokenHeaderAndClaimsExact(t *testing.T) {
	testKeys(t)
	s, err := NewIdentitySigner(testIdentityConfig(), testRSA, fixedClock(testNow))
	if err != nil {
		t.Fatal(err)
	}
	tok, err := s.Sign()
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		t.Fatalf("not a compact JWS: %d parts", len(parts))
	}
	header := decodeSegment(t, parts[0])
	wantHeader := map[string]any{"alg": "RS256", "kid": "legacy-2026-01", "typ": "JWT"}
	if len(header) != len(wantHeader) {
		t.Fatalf("header = %v, want exactly %v", header, wantHeader)
	}
	for k, v := range wantHeader {
		if header[k] != v {
			t.Fatalf("header[%s] = %v, want %v", k, header[k], v)
		}
	}
	claims := decodeSegment(t, parts[1])
	jti, _ := claims["jti"].(string)
	if _, err := uuid.Parse(jti); err != nil {
		t.Fatalf("jti %q is not a UUID: %v", jti, err)
	}
	want := map[string]any{
		"iss":   "https://reservations.example-railway.eu",
		"sub":   "example-railway",
		"aud":   "https://login.sncf.example/oauth/token",
		"exp":   json.Number("1772366700"), // now + 300 s
		"scope": "uic_osdm",
		"nbf":   json.Number("1772366280"), // now - 120 s
		"iat":   json.Number("1772366400"),
		"jti":   jti,
	}
	if testNow.Unix() != 1772366400 {
		t.Fatalf("test clock moved: %d", testNow.Unix())
	}
	if len(claims) != len(want) {
		t.Fatalf("claims = %v, want exactly the keys of %v", claims, want)
	}
	for k, v := range want {
		if claims[k] != v {
			t.Errorf("claim %s = %#v, want %#v", k, claims[k], v)
		}
	}

	// Every token has its own jti.
	tok2, err := s.Sign()
	if err != nil {
		t.Fatal(err)
	}
	if decodeSegment(t, strings.Split(tok2, ".")[1])["jti"] == jti {
		t.Fatal("two identity tokens share a jti")
	}
}

func TestIdentityTokenVerifiesWithTwoLibraries(t *testing.T) {
	testKeys(t)
	cases := []struct {
		alg string
		key crypto.Signer
	}{
		{"RS256", testRSA}, {"RS384", testRSA}, {"RS512", testRSA},
		{"PS256", testRSA}, {"PS384", testRSA}, {"PS512", testRSA},
		{"ES256", testEC["P-256"]}, {"ES384", testEC["P-384"]}, {"ES512", testEC["P-521"]},
		{"EdDSA", testEd},
		{"", testEC["P-384"]}, // default from the key: ES384
	}
	for _, tc := range cases {
		t.Run(tc.alg, func(t *testing.T) {
			cfg := testIdentityConfig()
			cfg.Alg = tc.alg
			cfg.Scope = "uic_osdm other"
			cfg.Lifetime = 200 * time.Second
			now := time.Now() // both libraries check exp/nbf against the real clock
			s, err := NewIdentitySigner(cfg, tc.key, fixedClock(now))
			if err != nil {
				t.Fatal(err)
			}
			wantAlg := s.Config().Alg
			tok, err := s.Sign()
			if err != nil {
				t.Fatal(err)
			}

			// golang-jwt
			parsed, err := jwt.Parse(tok, func(*jwt.Token) (any, error) { return tc.key.Public(), nil },
				jwt.WithValidMethods([]string{wantAlg}),
				jwt.WithAudience(cfg.Audience),
				jwt.WithIssuer(cfg.Issuer),
				jwt.WithSubject(cfg.Subject),
				jwt.WithExpirationRequired(),
				jwt.WithIssuedAt(),
			)
			if err != nil {
				t.Fatalf("golang-jwt: %v", err)
			}
			if parsed.Header["kid"] != cfg.KeyID {
				t.Fatalf("golang-jwt: kid = %v", parsed.Header["kid"])
			}

			// go-jose, an independent implementation
			jws, err := josejwt.ParseSigned(tok, []jose.SignatureAlgorithm{jose.SignatureAlgorithm(wantAlg)})
			if err != nil {
				t.Fatalf("go-jose parse: %v", err)
			}
			var std josejwt.Claims
			var extra struct {
				Scope string `json:"scope"`
			}
			if err := jws.Claims(tc.key.Public(), &std, &extra); err != nil {
				t.Fatalf("go-jose verify: %v", err)
			}
			if err := std.ValidateWithLeeway(josejwt.Expected{
				Issuer: cfg.Issuer, Subject: cfg.Subject, AnyAudience: josejwt.Audience{cfg.Audience}, Time: now,
			}, 0); err != nil {
				t.Fatalf("go-jose validate: %v", err)
			}
			if got := std.Expiry.Time().Sub(std.IssuedAt.Time()); got != 200*time.Second {
				t.Fatalf("exp - iat = %s, want 200s", got)
			}
			if got := std.IssuedAt.Time().Sub(std.NotBefore.Time()); got != IdentityNotBeforeSkew {
				t.Fatalf("iat - nbf = %s, want %s", got, IdentityNotBeforeSkew)
			}
			if extra.Scope != "uic_osdm other" {
				t.Fatalf("scope = %q", extra.Scope)
			}
			if jws.Headers[0].KeyID != cfg.KeyID || jws.Headers[0].Algorithm != wantAlg {
				t.Fatalf("go-jose header = %+v", jws.Headers[0])
			}

			// A different key of the same type must not verify it.
			if _, err := jwt.Parse(tok, func(*jwt.Token) (any, error) { return otherPublicKey(t, tc.key), nil }); err == nil {
				t.Fatal("token verified with another key")
			}
		})
	}
}

// otherPublicKey returns a new key of the same type and size as k.
func otherPublicKey(t *testing.T, k crypto.Signer) crypto.PublicKey {
	t.Helper()
	var other crypto.Signer
	var err error
	switch k := k.(type) {
	case *rsa.PrivateKey:
		other, err = rsa.GenerateKey(rand.Reader, k.N.BitLen())
	case *ecdsa.PrivateKey:
		other, err = ecdsa.GenerateKey(k.Curve, rand.Reader)
	case ed25519.PrivateKey:
		_, other, err = ed25519.GenerateKey(rand.Reader)
	}
	if err != nil || other == nil {
		t.Fatalf("generating another key: %v", err)
	}
	return other.Public()
}

func TestNewIdentitySignerErrors(t *testing.T) {
	testKeys(t)
	cases := []struct {
		name string
		edit func(*IdentityConfig)
		key  crypto.Signer
		want string
	}{
		{"lifetime below 120s", func(c *IdentityConfig) { c.Lifetime = 119 * time.Second }, testRSA, "lifetime 1m59s is below the minimum of 2m0s"},
		{"alg mismatch", func(c *IdentityConfig) { c.Alg = "ES256" }, testRSA, "alg ES256 does not fit a RSA 2048 key"},
		{"curve mismatch", func(c *IdentityConfig) { c.Alg = "ES256" }, testEC["P-521"], "alg ES256 does not fit a EC P-521 key"},
		{"HMAC", func(c *IdentityConfig) { c.Alg = "HS256" }, testEd, `unsupported alg "HS256"`},
		{"no issuer", func(c *IdentityConfig) { c.Issuer = "" }, testRSA, "issuer is required"},
		{"no subject", func(c *IdentityConfig) { c.Subject = "" }, testRSA, "subject is required"},
		{"no audience", func(c *IdentityConfig) { c.Audience = "" }, testRSA, "audience is required"},
		{"no kid", func(c *IdentityConfig) { c.KeyID = "" }, testRSA, "kid is required"},
		{"no key", func(*IdentityConfig) {}, nil, "no private key"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testIdentityConfig()
			tc.edit(&cfg)
			_, err := NewIdentitySigner(cfg, tc.key, nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one containing %q", err, tc.want)
			}
		})
	}
	// Exactly the minimum is allowed, and defaults are filled in.
	cfg := testIdentityConfig()
	cfg.Lifetime = MinIdentityLifetime
	s, err := NewIdentitySigner(cfg, testEd, nil)
	if err != nil {
		t.Fatalf("lifetime of exactly %s refused: %v", MinIdentityLifetime, err)
	}
	if got := s.Config(); got.Alg != "EdDSA" || got.Scope != DefaultScope {
		t.Fatalf("defaults not filled in: %+v", got)
	}
	s, _ = NewIdentitySigner(testIdentityConfig(), testEd, nil)
	if s.Config().Lifetime != DefaultIdentityLifetime {
		t.Fatalf("default lifetime = %s", s.Config().Lifetime)
	}
}
