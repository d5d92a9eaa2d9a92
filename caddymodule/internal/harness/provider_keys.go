package harness

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/rsa"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"

	"github.com/caddy-osdm/caddy-osdm/tokenauth"
)

// The provider of ProvFixture: its login service's issuer and token
// endpoint.
const (
	ProvIssuer   = "https://login.example-provider.eu"
	ProvAudience = "https://login.example-provider.eu/oauth/token"
)

var (
	provRSAOnce sync.Once
	provRSAKey  *rsa.PrivateKey
)

// ProvFixture holds the provider-side test keys as files: the login's
// signing key, and the public keys of clients alpine (RSA) and coastal
// (Ed25519).
type ProvFixture struct {
	t testing.TB
	// Dir holds the files.
	Dir string
	// Login is the login service's signing key.
	Login *ecdsa.PrivateKey
	// Alpine and Coastal are the clients' keys.
	Alpine  *rsa.PrivateKey
	Coastal ed25519.PrivateKey
	// LoginPEM and LoginPub are the files of Login.
	LoginPEM, LoginPub string
}

// NewProvFixture writes the keys of a ProvFixture in a directory of the
// test.
func NewProvFixture(t testing.TB) *ProvFixture {
	t.Helper()
	provRSAOnce.Do(func() {
		k, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			panic(err)
		}
		provRSAKey = k
	})
	f := &ProvFixture{t: t, Dir: t.TempDir(), Alpine: provRSAKey}
	f.Login = ECKey(t)
	_, f.Coastal, _ = ed25519.GenerateKey(rand.Reader)
	var err error
	if f.LoginPEM, f.LoginPub, err = tokenauth.WriteKeyPair(f.Dir, "login", f.Login); err != nil {
		t.Fatal(err)
	}
	f.WritePub("alpine.pub", f.Alpine.Public())
	f.WritePub("coastal.pub", f.Coastal.Public())
	return f
}

// LoginSigning is the subdirectives of an osdm_login that is the
// fixture's login service (its key, ProvIssuer, ProvAudience), on lines
// indented for a site's route.
func (f *ProvFixture) LoginSigning() string {
	return "signing_key_file " + f.LoginPEM + "\n\t\t\tissuer " + ProvIssuer + "\n\t\t\taudience " + ProvAudience
}

// LoginRoute is the route /oauth/token of a site that is the fixture's
// login service (LoginSigning), with more of osdm_login's subdirectives
// (its clients: AlpineClient) on lines indented for osdm_login's block.
func (f *ProvFixture) LoginRoute(more string) string {
	return "\troute /oauth/token {\n\t\tosdm_login {\n\t\t\t" + f.LoginSigning() + "\n" +
		strings.TrimPrefix(more, "\n") + "\t\t}\n\t}\n"
}

// AlpineClient is osdm_login's block of client alpine, who signs with
// its RS256 key alp-1 (AlpineToken), indented for osdm_login's block.
func (f *ProvFixture) AlpineClient() string {
	return "\t\t\tclient alpine {\n\t\t\t\talg RS256\n\t\t\t\tkey alp-1 " + f.Path("alpine.pub") + "\n\t\t\t}\n"
}

// WritePub writes pub as the PEM file name.
func (f *ProvFixture) WritePub(name string, pub crypto.PublicKey) {
	f.t.Helper()
	WritePublicKey(f.t, f.Path(name), pub)
}

// Path is the path of the fixture's file name.
func (f *ProvFixture) Path(name string) string { return filepath.Join(f.Dir, name) }

// Identity signs an identity token as a consumer would.
func (f *ProvFixture) Identity(method jwt.SigningMethod, key any, sub, kid string, now time.Time, edit func(jwt.MapClaims)) string {
	f.t.Helper()
	return f.IdentityWithHeader(nil, method, key, sub, kid, now, edit)
}

// IdentityWithHeader is Identity with header's members added to the
// token's header (crit, for one).
func (f *ProvFixture) IdentityWithHeader(header map[string]any, method jwt.SigningMethod, key any, sub, kid string, now time.Time, edit func(jwt.MapClaims)) string {
	f.t.Helper()
	c := jwt.MapClaims{
		"iss": "https://reservations.example-railway.eu", "sub": sub, "aud": ProvAudience,
		"exp": now.Add(5 * time.Minute).Unix(), "nbf": now.Add(-2 * time.Minute).Unix(), "iat": now.Unix(),
		"jti": uuid.NewString(), "scope": "uic_osdm",
	}
	if edit != nil {
		edit(c)
	}
	tok := jwt.NewWithClaims(method, c)
	tok.Header["kid"] = kid
	for k, v := range header {
		tok.Header[k] = v
	}
	s, err := tok.SignedString(key)
	if err != nil {
		f.t.Fatal(err)
	}
	return s
}

// AlpineToken is a valid identity token of client alpine.
func (f *ProvFixture) AlpineToken(now time.Time) string {
	return f.Identity(jwt.SigningMethodRS256, f.Alpine, "alpine", "alp-1", now, nil)
}

// BearerForm is the form of a token request for an access token with
// an identity token, the assertion of the jwt-bearer grant (RFC 7523).
func BearerForm(assertion string) url.Values {
	return url.Values{"grant_type": {"urn:ietf:params:oauth:grant-type:jwt-bearer"}, "assertion": {assertion}}
}
