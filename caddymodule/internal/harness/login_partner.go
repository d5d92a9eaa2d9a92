package harness

import (
	"crypto"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// LoginPartner is a partner railway of a consumer test: a login
// service that checks our identity tokens with our public key and issues
// access tokens signed with its own key, and an OSDM upstream that accepts
// only those access tokens.
type LoginPartner struct {
	// Name is the partner's name.
	Name string
	// ClientKey is our key, registered at the partner under Kids.
	ClientKey crypto.Signer
	// Kids are the key ids the partner knows our keys under.
	Kids map[string]crypto.PublicKey
	// KeyFile holds ClientKey.
	KeyFile string
	// LoginKey signs the access tokens.
	LoginKey ed25519.PrivateKey
	// Login is the login service, Upstream the OSDM upstream.
	Login, Upstream *httptest.Server
	// Mu guards what follows.
	Mu         sync.Mutex
	assertions []string // every identity token received
	issued     []string // every access token issued
	logins     int
	seen       []string // access tokens the upstream accepted
	// Revoked are access tokens the upstream refuses.
	Revoked map[string]bool
	// FailLogin makes the login service refuse every login.
	FailLogin bool
	// AccessTyp is the typ header of the access tokens, if not JWT.
	AccessTyp string
	// AccessAud is the aud claim of the access tokens, if any.
	AccessAud string
}

// NewLoginPartner starts the partner name, which knows key under the kid
// <name>-kid-1 (its private key is in dir/<name>.pem), until the test
// ends.
func NewLoginPartner(t testing.TB, name string, key crypto.Signer, dir string) *LoginPartner {
	t.Helper()
	p := &LoginPartner{Name: name, ClientKey: key, Revoked: map[string]bool{}}
	p.Kids = map[string]crypto.PublicKey{name + "-kid-1": key.Public()}
	p.KeyFile = filepath.Join(dir, name+".pem")
	WriteKey(t, p.KeyFile, key)
	_, p.LoginKey, _ = ed25519.GenerateKey(rand.Reader)
	p.Login = httptest.NewServer(http.HandlerFunc(p.ServeLogin))
	p.Upstream = httptest.NewServer(http.HandlerFunc(p.ServeUpstream))
	t.Cleanup(p.Login.Close)
	t.Cleanup(p.Upstream.Close)
	return p
}

// TokenURL is the URL of the partner's token endpoint.
func (p *LoginPartner) TokenURL() string { return p.Login.URL + "/oauth/token" }

// ServeLogin is the login service: it checks the identity token and
// issues an access token.
func (p *LoginPartner) ServeLogin(w http.ResponseWriter, r *http.Request) {
	fail := func(code, desc string) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		json.NewEncoder(w).Encode(map[string]string{"error": code, "error_description": desc})
	}
	if err := r.ParseForm(); err != nil || r.PostForm.Get("grant_type") != "urn:ietf:params:oauth:grant-type:jwt-bearer" {
		fail("unsupported_grant_type", "want jwt-bearer")
		return
	}
	assertion := r.PostForm.Get("assertion")
	p.Mu.Lock()
	p.assertions = append(p.assertions, assertion)
	failLogin := p.FailLogin
	p.Mu.Unlock()
	if failLogin {
		fail("invalid_grant", "client "+p.Name+" is suspended")
		return
	}
	tok, err := jwt.Parse(assertion, func(tok *jwt.Token) (any, error) {
		kid, _ := tok.Header["kid"].(string)
		if k, ok := p.Kids[kid]; ok {
			return k, nil
		}
		return nil, fmt.Errorf("unknown kid %q", kid)
	}, jwt.WithAudience(p.TokenURL()), jwt.WithSubject("example-railway"), jwt.WithIssuer("https://reservations.example-railway.eu"), jwt.WithExpirationRequired())
	if err != nil || tok.Claims.(jwt.MapClaims)["scope"] != "uic_osdm" {
		fail("invalid_grant", fmt.Sprintf("assertion refused: %v", err))
		return
	}
	at := jwt.NewWithClaims(jwt.SigningMethodEdDSA, jwt.MapClaims{
		"iss": p.Login.URL, "sub": "example-railway", "exp": time.Now().Add(time.Hour).Unix(), "jti": rand.Text(),
	})
	if p.AccessTyp != "" {
		at.Header["typ"] = p.AccessTyp
	}
	if p.AccessAud != "" {
		at.Claims.(jwt.MapClaims)["aud"] = p.AccessAud
	}
	access, err := at.SignedString(p.LoginKey)
	if err != nil {
		panic(err)
	}
	p.Mu.Lock()
	p.logins++
	p.issued = append(p.issued, access)
	p.Mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"access_token": access, "token_type": "Bearer", "expires_in": 3600})
}

// ServeUpstream is the OSDM upstream: it accepts the access tokens the
// login service issued and did not revoke.
func (p *LoginPartner) ServeUpstream(w http.ResponseWriter, r *http.Request) {
	bearer, ok := strings.CutPrefix(r.Header.Get("Authenticate"), "Bearer ")
	_, err := jwt.Parse(bearer, func(*jwt.Token) (any, error) { return p.LoginKey.Public(), nil },
		jwt.WithValidMethods([]string{"EdDSA"}), jwt.WithIssuer(p.Login.URL), jwt.WithExpirationRequired())
	p.Mu.Lock()
	revoked := p.Revoked[bearer]
	if ok && err == nil && !revoked {
		p.seen = append(p.seen, bearer)
	}
	p.Mu.Unlock()
	if !ok || err != nil || revoked {
		w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
		w.Header().Set("X-Refused", "yes")
		http.Error(w, "token refused", http.StatusUnauthorized)
		return
	}
	body, _ := io.ReadAll(r.Body)
	w.Header().Set("X-Partner", p.Name)
	fmt.Fprintf(w, "%s got %q", p.Name, body)
}

// Snapshot returns what the partner saw so far.
func (p *LoginPartner) Snapshot() (assertions, issued, seen []string, logins int) {
	p.Mu.Lock()
	defer p.Mu.Unlock()
	return append([]string(nil), p.assertions...), append([]string(nil), p.issued...), append([]string(nil), p.seen...), p.logins
}
