package tokenauth

import (
	"context"
	"crypto"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// The properties every refusal of a login service holds, whatever it was
// sent: an RFC 6749 code, one of the statuses the README lists, and a
// description that is printable, bounded and never repeats an identity
// token back.
var refusalCodes = []string{
	ErrCodeInvalidRequest, ErrCodeInvalidClient, ErrCodeInvalidGrant, ErrCodeUnsupportedGrantType,
	ErrCodeInvalidScope, ErrCodeServerError, ErrCodeTemporarilyUnavailable,
}

func checkRefusal(t *testing.T, err error, assertion string) *Refusal {
	t.Helper()
	var ref *Refusal
	if !errors.As(err, &ref) {
		t.Fatalf("error %T is not a *Refusal: %v", err, err)
	}
	if !slices.Contains(refusalCodes, ref.OAuth.Code) || ref.Reason == "" {
		t.Fatalf("refusal with code %q reason %q", ref.OAuth.Code, ref.Reason)
	}
	if s := ref.HTTPStatus(); s != 400 && s != 401 && s != 405 && s != 413 && s != 503 {
		t.Fatalf("refusal answered with status %d", s)
	}
	d := ref.OAuth.Description
	if i := strings.IndexFunc(d, func(r rune) bool { return r < 0x20 || r == 0x7f }); i >= 0 {
		t.Fatalf("control character in the description: %q", d)
	}
	if len(d) > 1024 {
		t.Fatalf("description of %d bytes", len(d))
	}
	if len(assertion) > 80 && strings.Contains(d, assertion) {
		t.Fatalf("the description repeats the identity token: %q", d)
	}
	return ref
}

// fuzzKeys are the fixture's client keys by kid, for checking independently
// of the validator that an accepted token is signed by the key of its kid.
func fuzzKeys(f *loginFixture) map[string]crypto.PublicKey {
	return map[string]crypto.PublicKey{
		"alp-1": f.keys.alpine.Public(), "alp-old": f.keys.alpineOld.Public(), "alp-next": f.keys.alpineNext.Public(),
		"east-1": f.keys.eastern.Public(), "coast-1": f.keys.coastal.Public(),
	}
}

// fuzzClientAlgs are the pinned algorithms of the fixture's clients.
var fuzzClientAlgs = map[string][]string{"alpine": {"RS256", "PS256"}, "eastern": {"ES256"}, "coastal": {"EdDSA"}}

// checkAccepted checks an accepted identity token against the policy
// with golang-jwt directly: signed with the key of its kid, that key
// registered for its sub and in its validity window, the alg pinned for
// the client, aud, times, lifetime, iss, jti and scope all as the login
// service requires, and no claim named in another case than RFC 7519's.
func checkAccepted(t *testing.T, f *loginFixture, assertion string, got *ValidatedAssertion) {
	t.Helper()
	if key, claim := foldedClaimName(assertion); key != "" {
		t.Fatalf("accepted claim %q as %q", key, claim)
	}
	if v := formViolation(assertion); v != "" {
		t.Fatalf("accepted an identity token with %s", v)
	}
	now := f.clock.Now()
	key := fuzzKeys(f)[got.KeyID]
	if key == nil || !strings.HasPrefix(got.KeyID, map[string]string{"alpine": "alp-", "eastern": "east-", "coastal": "coast-"}[got.Subject]) {
		t.Fatalf("accepted kid %q for sub %q", got.KeyID, got.Subject)
	}
	if got.KeyID == "alp-old" || got.KeyID == "alp-next" {
		t.Fatalf("accepted key %s outside its validity window", got.KeyID)
	}
	claims := jwt.MapClaims{}
	tok, err := jwt.NewParser(jwt.WithValidMethods(fuzzClientAlgs[got.Subject]), jwt.WithoutClaimsValidation()).
		ParseWithClaims(assertion, claims, func(*jwt.Token) (any, error) { return key, nil })
	if err != nil {
		t.Fatalf("accepted a token that golang-jwt does not verify with key %s: %v", got.KeyID, err)
	}
	if typ, _ := tok.Header["typ"].(string); !strings.EqualFold(typ, "JWT") {
		t.Fatalf("accepted typ %q", typ)
	}
	if sub, _ := claims["sub"].(string); sub != got.Subject || fuzzClientAlgs[sub] == nil {
		t.Fatalf("accepted sub %v", claims["sub"])
	}
	aud, _ := claims.GetAudience()
	if !slices.Contains(aud, loginTestAudience) && !slices.Contains(aud, loginTestIssuer) {
		t.Fatalf("accepted aud %v", aud)
	}
	skew := 30 * time.Second
	exp, _ := claims.GetExpirationTime()
	if exp == nil || now.After(exp.Add(skew)) {
		t.Fatalf("accepted exp %v at %s", exp, now)
	}
	start := now
	if iat, _ := claims.GetIssuedAt(); iat != nil {
		if iat.After(now.Add(skew)) {
			t.Fatalf("accepted iat %s in the future", iat)
		}
		start = iat.Time
	}
	if exp.Sub(start) > 10*time.Minute {
		t.Fatalf("accepted a lifetime of %s", exp.Sub(start))
	}
	if nbf, _ := claims.GetNotBefore(); nbf != nil && nbf.After(now.Add(skew)) {
		t.Fatalf("accepted nbf %s in the future", nbf)
	}
	if iss, _ := claims["iss"].(string); iss == "" {
		t.Fatal("accepted a token without iss")
	}
	if jti, _ := claims["jti"].(string); jti == "" || jti != got.ID {
		t.Fatalf("accepted jti %v", claims["jti"])
	}
	scope, _ := claims["scope"].(string)
	allowed := map[string][]string{"alpine": {"uic_osdm", "uic_osdm_read"}}[got.Subject]
	if allowed == nil {
		allowed = []string{DefaultClientScope}
	}
	if len(strings.Fields(scope)) == 0 {
		t.Fatal("accepted an empty scope")
	}
	for _, s := range strings.Fields(scope) {
		if !slices.Contains(allowed, s) {
			t.Fatalf("accepted scope %q for %s", s, got.Subject)
		}
	}
}

// loginSeeds are token requests of the login tests, good and bad.
func loginSeeds(f *loginFixture) []url.Values {
	seeds := []url.Values{loginForm(f.valid())}
	c := f.claims("alpine")
	c["iss"] = "alpine"
	seeds = append(seeds, clientAssertionForm(f.sign(jwt.SigningMethodRS256, f.keys.alpine, "alp-1", c, nil)))
	seeds = append(seeds, loginForm(f.sign(jwt.SigningMethodES256, f.keys.eastern, "east-1", f.claims("eastern"), nil)))
	seeds = append(seeds, loginForm(f.sign(jwt.SigningMethodEdDSA, f.keys.coastal, "coast-1", f.claims("coastal"), nil)))
	for _, a := range loginAttacks() {
		form := a.form(f)
		if len(form.Encode()) < 4<<10 {
			seeds = append(seeds, form)
		}
	}
	return seeds
}

// assertionOfForm is the identity token of a token request form.
func assertionOfForm(body []byte) string {
	form, err := url.ParseQuery(string(body))
	if err != nil {
		return ""
	}
	if a := form.Get("assertion"); a != "" {
		return a
	}
	return form.Get("client_assertion")
}

// FuzzLoginTokenRequest sends the login service any token request body
// (form-encoded or not) with any Content-Type and query string. A refusal
// holds the properties of checkRefusal; a grant is for a token that
// golang-jwt verifies independently with the registered key and that
// meets every check of the policy; the same request sent again is refused
// as a replay; the access token issued verifies as the login's own.
func FuzzLoginTokenRequest(f *testing.F) {
	fx := newLoginFixture(f)
	for _, form := range loginSeeds(fx) {
		f.Add("", "application/x-www-form-urlencoded", []byte(form.Encode()))
	}
	f.Add("assertion=x", "application/x-www-form-urlencoded", []byte(loginForm(fx.valid()).Encode()))
	f.Add("", "application/json", []byte(`{"grant_type":"client_credentials"}`))
	f.Add("", "application/x-www-form-urlencoded; charset=utf-8", []byte("grant_type=%zz"))
	verifier := &AccessTokenVerifier{Keys: StaticKeys(fx.keys.login.Public()), Issuer: loginTestIssuer, Audience: loginTestIssuer, Now: fx.clock.Now}
	f.Fuzz(func(t *testing.T, query, ctype string, body []byte) {
		// A replay store of its own per input, so that a valid token is
		// granted once here whatever ran before.
		service := &LoginService{Validator: fx.service.Validator, Issuer: fx.service.Issuer,
			Replay: NewMemoryReplayStore(MemoryReplayOptions{SweepInterval: -1, Now: fx.clock.Now})}
		request := func() (*LoginGrant, error) {
			r := httptest.NewRequest(http.MethodPost, "/oauth/token", strings.NewReader(string(body)))
			r.URL.RawQuery = query
			r.Header.Set("Content-Type", ctype)
			return service.Token(context.Background(), r)
		}
		assertion := assertionOfForm(body)
		g, err := request()
		if err != nil {
			checkRefusal(t, err, assertion)
			return
		}
		checkAccepted(t, fx, assertion, g.Assertion)
		if _, err := verifier.Verify(g.Response.AccessToken); err != nil {
			t.Fatalf("the access token issued does not verify: %v", err)
		}
		if g.Response.TokenType != "Bearer" || g.Response.ExpiresIn <= 0 {
			t.Fatalf("token response %+v", g.Response)
		}
		_, err = request()
		if ref := checkRefusal(t, err, assertion); ref.Reason != ReasonReplay {
			t.Fatalf("the same identity token used twice: second answer %v", err)
		}
	})
}

// FuzzValidateAssertion checks arbitrary strings as identity tokens: every
// refusal holds the properties of checkRefusal, every acceptance those of
// checkAccepted.
func FuzzValidateAssertion(f *testing.F) {
	fx := newLoginFixture(f)
	for _, form := range loginSeeds(fx) {
		if a := form.Get("assertion") + form.Get("client_assertion"); a != "" {
			f.Add(a)
		}
	}
	f.Add("")
	f.Add("..")
	f.Add("e30.e30.")
	f.Fuzz(func(t *testing.T, assertion string) {
		got, err := fx.service.Validator.Validate(assertion)
		checkFoldedClaimRefused(t, assertion, err)
		if err != nil {
			checkRefusal(t, err, assertion)
			return
		}
		checkAccepted(t, fx, assertion, got)
	})
}

// fuzzSigners are the keys FuzzValidateSignedClaims signs with: the
// clients' registered ones, a retired and a future key, and a stranger's.
func fuzzSigners(f *loginFixture) []struct {
	method jwt.SigningMethod
	key    crypto.Signer
} {
	return []struct {
		method jwt.SigningMethod
		key    crypto.Signer
	}{
		{jwt.SigningMethodRS256, f.keys.alpine}, {jwt.SigningMethodPS256, f.keys.alpine},
		{jwt.SigningMethodES256, f.keys.eastern}, {jwt.SigningMethodEdDSA, f.keys.coastal},
		{jwt.SigningMethodRS256, f.keys.alpineOld}, {jwt.SigningMethodRS256, f.keys.alpineNext},
		{jwt.SigningMethodRS256, f.keys.stranger}, {jwt.SigningMethodRS384, f.keys.alpine},
	}
}

// FuzzValidateSignedClaims signs any header and claims bytes with one of
// the fixture's keys, so that the validator's claim checks (which a random
// string never reaches) see arbitrary JSON behind a valid signature. Every
// acceptance must meet checkAccepted; every refusal checkRefusal, and a
// token with a claim named in another case is refused as malformed.
func FuzzValidateSignedClaims(f *testing.F) {
	fx := newLoginFixture(f)
	b64 := base64.RawURLEncoding
	for _, form := range loginSeeds(fx) {
		a := form.Get("assertion") + form.Get("client_assertion")
		parts := strings.Split(a, ".")
		if len(parts) != 3 {
			continue
		}
		h, err1 := b64.DecodeString(parts[0])
		c, err2 := b64.DecodeString(parts[1])
		if err1 == nil && err2 == nil {
			for which := range uint8(len(fuzzSigners(fx))) {
				f.Add(h, c, which)
			}
		}
	}
	now := fx.clock.Now().Unix()
	f.Add([]byte(`{"alg":"RS256","kid":"alp-1","typ":"jwt"}`), []byte(`{"sub":"alpine","iss":"x","aud":["`+loginTestIssuer+`"],"exp":`+jsonInt(now+60)+`,"jti":"j","scope":"uic_osdm_read uic_osdm"}`), uint8(0))
	f.Add([]byte(`{"alg":"RS256","kid":"alp-1","typ":"JWT"}`), []byte(`{"sub":"alpine","sub":"eastern","iss":"x","aud":"`+loginTestAudience+`","exp":`+jsonInt(now+60)+`.9,"jti":"j2","scope":"uic_osdm"}`), uint8(0))
	signers := fuzzSigners(fx)
	f.Fuzz(func(t *testing.T, header, claims []byte, which uint8) {
		s := signers[int(which)%len(signers)]
		signing := b64.EncodeToString(header) + "." + b64.EncodeToString(claims)
		sig, err := s.method.Sign(signing, s.key)
		if err != nil {
			t.Fatal(err)
		}
		assertion := signing + "." + b64.EncodeToString(sig)
		got, err := fx.service.Validator.Validate(assertion)
		checkFoldedClaimRefused(t, assertion, err)
		if err != nil {
			checkRefusal(t, err, assertion)
			return
		}
		checkAccepted(t, fx, assertion, got)
		var h map[string]any
		if json.Unmarshal(header, &h) != nil || h["alg"] != s.method.Alg() {
			t.Fatalf("accepted header %s signed with %s", header, s.method.Alg())
		}
	})
}

// claimNames are the claims the login service and osdm_access read.
var claimNames = []string{"iss", "sub", "aud", "exp", "nbf", "iat", "jti", "scope", "client_id"}

// foldedClaimName is, independently of the code under test, a top-level
// key of the token's claims that is a claim name in another case than RFC
// 7519's ("Aud", "eXp"), and the name it folds to; "" when there is none
// or the claims do not decode. encoding/json, which golang-jwt decodes
// claims with, would take such a key for the claim, so both the login
// service and osdm_access must refuse the token.
func foldedClaimName(token string) (key, claim string) {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return "", ""
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return "", ""
	}
	var claims map[string]json.RawMessage
	if json.Unmarshal(payload, &claims) != nil {
		return "", ""
	}
	for name := range claims {
		for _, want := range claimNames {
			if name != want && strings.EqualFold(name, want) {
				return name, want
			}
		}
	}
	return "", ""
}

// checkFoldedClaimRefused fails unless an identity token with a claim
// name in another case is refused as malformed (or as too large, which is
// checked first).
func checkFoldedClaimRefused(t *testing.T, assertion string, err error) {
	t.Helper()
	key, claim := foldedClaimName(assertion)
	if key == "" {
		return
	}
	var ref *Refusal
	if !errors.As(err, &ref) {
		t.Fatalf("accepted claim %q as %q", key, claim)
	}
	if ref.Reason != ReasonMalformedAssertion && ref.Reason != ReasonAssertionTooLarge {
		t.Fatalf("claim %q refused as %s, not as malformed: %v", key, ref.Reason, err)
	}
}

func jsonInt(n int64) string {
	b, _ := json.Marshal(n)
	return string(b)
}
