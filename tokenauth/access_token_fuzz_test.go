package tokenauth

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// accessTokenReasons are the reasons an AccessTokenError may give.
var accessTokenReasons = []string{"missing", "malformed", "bad_typ", "unknown_key", "bad_signature", "expired",
	"not_yet_valid", "bad_issuer", "bad_audience", "insufficient_scope"}

// FuzzVerifyAccessToken gives osdm_access's check any token: a raw string
// (mode 0), or any header and claims signed with the login service's key
// (mode 1) or with another key (mode 2), so that the claim checks behind
// a valid signature are reached. A refusal is an *AccessTokenError with a
// known reason whose description never quotes the token; an acceptance is
// a token golang-jwt verifies with the login's key, typ at+jwt, the
// login's iss and aud, not expired, issued in the past, with sub and the
// required scope, and no claim named in another case than RFC 7519's
// (refused as malformed).
func FuzzVerifyAccessToken(f *testing.F) {
	login, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	stranger, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	const iss = "https://login.fz.example"
	issuer := &AccessTokenIssuer{Key: login, Alg: "ES256", KeyID: "login-1", Issuer: iss, Audience: []string{iss},
		Lifetime: 15 * time.Minute, Now: func() time.Time { return fuzzNow }}
	v := &AccessTokenVerifier{Keys: StaticKeys(login.Public()), Issuer: iss, Audience: iss, Scopes: []string{"uic_osdm"},
		Leeway: 30 * time.Second, Now: func() time.Time { return fuzzNow }}
	b64 := base64.RawURLEncoding
	for _, scopes := range [][]string{{"uic_osdm"}, {"uic_osdm_read"}, {"uic_osdm", "x"}} {
		tok, err := issuer.Issue("example-railway", scopes)
		if err != nil {
			f.Fatal(err)
		}
		f.Add([]byte(tok.Token), []byte(nil), uint8(0))
		parts := strings.Split(tok.Token, ".")
		h, _ := b64.DecodeString(parts[0])
		c, _ := b64.DecodeString(parts[1])
		f.Add(h, c, uint8(1))
		f.Add(h, c, uint8(2))
	}
	f.Add([]byte(""), []byte(nil), uint8(0))
	f.Add([]byte("Bearer x.y.z"), []byte(nil), uint8(0))
	f.Add([]byte(`{"alg":"none","typ":"at+jwt"}`), []byte(`{"sub":"a","iss":"`+iss+`","aud":"`+iss+`","exp":1e12,"scope":"uic_osdm"}`), uint8(1))
	f.Add([]byte(`{"alg":"ES256","typ":"AT+JWT","kid":"other"}`), []byte(`{"sub":"a","iss":"`+iss+`","aud":["x","`+iss+`"],"exp":1e12,"iat":0,"scope":"uic_osdm"}`), uint8(1))
	f.Fuzz(func(t *testing.T, header, claims []byte, mode uint8) {
		token := string(header)
		if mode%3 != 0 {
			key := login
			if mode%3 == 2 {
				key = stranger
			}
			signing := b64.EncodeToString(header) + "." + b64.EncodeToString(claims)
			sig, err := jwt.SigningMethodES256.Sign(signing, key)
			if err != nil {
				t.Fatal(err)
			}
			token = signing + "." + b64.EncodeToString(sig)
		}
		got, err := v.Verify(token)
		key, claim := foldedClaimName(token)
		if err != nil {
			var ae *AccessTokenError
			if !errors.As(err, &ae) || !slices.Contains(accessTokenReasons, ae.Reason) {
				t.Fatalf("error %T %v", err, err)
			}
			if key != "" && ae.Reason != "malformed" {
				t.Fatalf("claim %q refused as %s, not as malformed: %v", key, ae.Reason, err)
			}
			if len(token) > 40 && strings.Contains(ae.Description, token) {
				t.Fatalf("the description quotes the token: %q", ae.Description)
			}
			return
		}
		if key != "" {
			t.Fatalf("accepted claim %q as %q", key, claim)
		}
		if fv := formViolation(token); fv != "" {
			t.Fatalf("accepted an access token with %s", fv)
		}
		mc := jwt.MapClaims{}
		parsed, err := jwt.NewParser(jwt.WithValidMethods([]string{"ES256"}), jwt.WithoutClaimsValidation()).
			ParseWithClaims(token, mc, func(*jwt.Token) (any, error) { return login.Public(), nil })
		if err != nil {
			t.Fatalf("accepted a token golang-jwt does not verify with the login's key: %v", err)
		}
		if typ, _ := parsed.Header["typ"].(string); !strings.EqualFold(typ, AccessTokenType) {
			t.Fatalf("accepted typ %q", typ)
		}
		if i, _ := mc.GetIssuer(); i != iss {
			t.Fatalf("accepted iss %q", i)
		}
		if aud, _ := mc.GetAudience(); !slices.Contains(aud, iss) {
			t.Fatalf("accepted aud %v", aud)
		}
		exp, _ := mc.GetExpirationTime()
		if exp == nil || fuzzNow.After(exp.Add(v.Leeway)) {
			t.Fatalf("accepted exp %v", exp)
		}
		if iat, _ := mc.GetIssuedAt(); iat != nil && iat.After(fuzzNow.Add(v.Leeway)) {
			t.Fatalf("accepted iat %s in the future", iat)
		}
		if got.Subject == "" || !slices.Contains(strings.Fields(got.Scope), "uic_osdm") {
			t.Fatalf("accepted sub %q scope %q", got.Subject, got.Scope)
		}
	})
}
