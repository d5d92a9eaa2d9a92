package caddymodule

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig"
	_ "github.com/caddyserver/caddy/v2/modules/standard"
	"github.com/golang-jwt/jwt/v5"
)

// tokPartner is one partner railway of the integration test: a login
// service that checks our identity tokens with our public key and issues
// access tokens signed with its own key, and an OSDM upstream that accepts
// only those access tokens.
type tokPartner struct {
	name       string
	clientKey  crypto.Signer // ours, registered at the partner under kids
	kids       map[string]crypto.PublicKey
	keyFile    string
	loginKey   ed25519.PrivateKey
	login      *httptest.Server
	upstream   *httptest.Server
	mu         sync.Mutex
	assertions []string // every identity token received
	issued     []string // every access token issued
	logins     int
	seen       []string // access tokens the upstream accepted
	revoked    map[string]bool
	failLogin  bool
	accessTyp  string // the typ header of the access tokens, if not JWT
	accessAud  string // the aud claim of the access tokens, if any
}

func newTokPartner(t *testing.T, name string, key crypto.Signer, dir string) *tokPartner {
	t.Helper()
	p := &tokPartner{name: name, clientKey: key, revoked: map[string]bool{}}
	p.kids = map[string]crypto.PublicKey{name + "-kid-1": key.Public()}
	p.keyFile = filepath.Join(dir, name+".pem")
	tokWriteKey(t, p.keyFile, key)
	_, p.loginKey, _ = ed25519.GenerateKey(rand.Reader)
	p.login = httptest.NewServer(http.HandlerFunc(p.serveLogin))
	p.upstream = httptest.NewServer(http.HandlerFunc(p.serveUpstream))
	t.Cleanup(p.login.Close)
	t.Cleanup(p.upstream.Close)
	return p
}

func tokWriteKey(t *testing.T, path string, key crypto.Signer) {
	t.Helper()
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
}

func (p *tokPartner) tokenURL() string { return p.login.URL + "/oauth/token" }

func (p *tokPartner) serveLogin(w http.ResponseWriter, r *http.Request) {
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
	p.mu.Lock()
	p.assertions = append(p.assertions, assertion)
	failLogin := p.failLogin
	p.mu.Unlock()
	if failLogin {
		fail("invalid_grant", "client "+p.name+" is suspended")
		return
	}
	tok, err := jwt.Parse(assertion, func(tok *jwt.Token) (any, error) {
		kid, _ := tok.Header["kid"].(string)
		if k, ok := p.kids[kid]; ok {
			return k, nil
		}
		return nil, fmt.Errorf("unknown kid %q", kid)
	}, jwt.WithAudience(p.tokenURL()), jwt.WithSubject("example-railway"), jwt.WithIssuer("https://reservations.example-railway.eu"), jwt.WithExpirationRequired())
	if err != nil || tok.Claims.(jwt.MapClaims)["scope"] != "uic_osdm" {
		fail("invalid_grant", fmt.Sprintf("assertion refused: %v", err))
		return
	}
	at := jwt.NewWithClaims(jwt.SigningMethodEdDSA, jwt.MapClaims{
		"iss": p.login.URL, "sub": "example-railway", "exp": time.Now().Add(time.Hour).Unix(), "jti": rand.Text(),
	})
	if p.accessTyp != "" {
		at.Header["typ"] = p.accessTyp
	}
	if p.accessAud != "" {
		at.Claims.(jwt.MapClaims)["aud"] = p.accessAud
	}
	access, err := at.SignedString(p.loginKey)
	if err != nil {
		panic(err)
	}
	p.mu.Lock()
	p.logins++
	p.issued = append(p.issued, access)
	p.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"access_token": access, "token_type": "Bearer", "expires_in": 3600})
}

func (p *tokPartner) serveUpstream(w http.ResponseWriter, r *http.Request) {
	bearer, ok := strings.CutPrefix(r.Header.Get("Authenticate"), "Bearer ")
	_, err := jwt.Parse(bearer, func(*jwt.Token) (any, error) { return p.loginKey.Public(), nil },
		jwt.WithValidMethods([]string{"EdDSA"}), jwt.WithIssuer(p.login.URL), jwt.WithExpirationRequired())
	p.mu.Lock()
	revoked := p.revoked[bearer]
	if ok && err == nil && !revoked {
		p.seen = append(p.seen, bearer)
	}
	p.mu.Unlock()
	if !ok || err != nil || revoked {
		w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
		w.Header().Set("X-Refused", "yes")
		http.Error(w, "token refused", http.StatusUnauthorized)
		return
	}
	body, _ := io.ReadAll(r.Body)
	w.Header().Set("X-Partner", p.name)
	fmt.Fprintf(w, "%s got %q", p.name, body)
}

func (p *tokPartner) snapshot() (assertions, issued, seen []string, logins int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.assertions...), append([]string(nil), p.issued...), append([]string(nil), p.seen...), p.logins
}

func tokFreePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// tokLoad adapts a Caddyfile and runs it in this process. A Caddyfile
// that `caddy fmt` would change is a test bug: the adapter's warning fails
// the test.
func tokLoad(t *testing.T, caddyfile string) {
	t.Helper()
	cfg, warnings, err := caddyconfig.GetAdapter("caddyfile").Adapt([]byte(caddyfile), map[string]any{"filename": "Caddyfile"})
	if err != nil {
		t.Fatalf("adapting Caddyfile: %v", err)
	}
	for _, w := range warnings {
		t.Errorf("adapter warning: %s", w.String())
	}
	if err := caddy.Load(cfg, true); err != nil {
		t.Fatalf("loading config: %v", err)
	}
}

func tokCaddyfile(port int, logFile, accessLog string, a, b *tokPartner, kidA, keyFileA string) string {
	route := func(path string, p *tokPartner, kid, keyFile string) string {
		return fmt.Sprintf(`	route /%s/* {
		osdm_token {
			token_url %s
			key_file %s
			kid %s
			issuer https://reservations.example-railway.eu
			subject example-railway
			partner %s
		}
		reverse_proxy %s {
			transport osdm
		}
	}
`, path, p.tokenURL(), keyFile, kid, p.name, p.upstream.Listener.Addr())
	}
	return fmt.Sprintf(`{
	admin off
	persist_config off
	auto_https off
	debug
	log {
		output file %s
		format json
		level DEBUG
	}
}

http://127.0.0.1:%d {
	log {
		output file %s
		format json
	}

%s
%s}
`, logFile, port, accessLog, route("a", a, kidA, keyFileA), route("b", b, b.name+"-kid-1", b.keyFile))
}

func tokPost(t *testing.T, url, body string) (int, string, http.Header) {
	t.Helper()
	// No keep-alive: a config reload closes the idle connections.
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := client.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp.Header
}

func TestTokenIntegrationTwoPartners(t *testing.T) {
	dir := t.TempDir()
	ecKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	a := newTokPartner(t, "sncf", ecKey, dir)
	b := newTokPartner(t, "db", rsaKey, dir)
	logFile, accessLog := filepath.Join(dir, "caddy.log"), filepath.Join(dir, "access.log")
	// load runs a configuration on a port no earlier one listened on, and
	// returns its base URL. caddy.Load returns while the previous
	// configuration's server is still shutting down, and on Linux the new
	// server's listener is a second SO_REUSEPORT socket on the same port:
	// a request sent to that port right after a reload may be queued on the
	// old socket when it closes (connection reset by peer) or be read by the
	// old server after its shutdown began (closed unanswered, EOF). That
	// hand-over is Caddy's; the token cache kept across the reload is ours,
	// and it does not depend on the port.
	load := func(kidA, keyFileA string) string {
		port := tokFreePort(t)
		tokLoad(t, tokCaddyfile(port, logFile, accessLog, a, b, kidA, keyFileA))
		return fmt.Sprintf("http://127.0.0.1:%d", port)
	}
	base := load("sncf-kid-1", a.keyFile)
	t.Cleanup(func() { caddy.Stop() })

	// Each route reaches its own partner with that partner's token.
	for i := range 3 {
		body := fmt.Sprintf(`{"n":%d}`, i)
		if code, got, _ := tokPost(t, base+"/a/offers", body); code != 200 || got != fmt.Sprintf("sncf got %q", body) {
			t.Fatalf("/a: %d %q", code, got)
		}
		if code, got, _ := tokPost(t, base+"/b/offers", body); code != 200 || got != fmt.Sprintf("db got %q", body) {
			t.Fatalf("/b: %d %q", code, got)
		}
	}
	_, issuedA, seenA, loginsA := a.snapshot()
	_, issuedB, seenB, loginsB := b.snapshot()
	if loginsA != 1 || loginsB != 1 {
		t.Fatalf("logins A=%d B=%d, want one each (the token is cached)", loginsA, loginsB)
	}
	if len(seenA) != 3 || len(seenB) != 3 {
		t.Fatalf("upstreams accepted %d and %d requests, want 3 each", len(seenA), len(seenB))
	}
	for _, s := range seenA {
		if s != issuedA[0] {
			t.Fatal("upstream A got a token its login service did not issue")
		}
	}
	for _, s := range seenB {
		if s != issuedB[0] {
			t.Fatal("upstream B got a token its login service did not issue")
		}
	}

	// The partner revokes A's token: the request is replayed once with a
	// new token, and the client never sees the 401.
	a.mu.Lock()
	a.revoked[issuedA[0]] = true
	a.mu.Unlock()
	code, got, hdr := tokPost(t, base+"/a/bookings", `{"replay":true}`)
	if code != 200 || got != `sncf got "{\"replay\":true}"` || hdr.Get("X-Refused") != "" || hdr.Get("X-Partner") != "sncf" {
		t.Fatalf("after revocation: %d %q %v", code, got, hdr)
	}
	if _, issuedA, _, loginsA = a.snapshot(); loginsA != 2 {
		t.Fatalf("logins A = %d after the 401, want 2", loginsA)
	}
	if _, _, _, loginsB = b.snapshot(); loginsB != 1 {
		t.Fatal("a 401 of partner A made partner B log in again")
	}

	// A reload with the same partner configuration keeps the cached token.
	base = load("sncf-kid-1", a.keyFile)
	for range 5 {
		if code, _, _ := tokPost(t, base+"/a/x", "{}"); code != 200 {
			t.Fatalf("after reload: %d", code)
		}
	}
	if _, _, _, n := a.snapshot(); n != 2 {
		t.Fatalf("logins A = %d after an unchanged reload, want 2", n)
	}

	// Key rotation: a new kid and key file, then a reload; no request fails.
	newKey, _ := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	a.mu.Lock()
	a.kids["sncf-kid-2"] = newKey.Public()
	a.mu.Unlock()
	newKeyFile := filepath.Join(dir, "sncf-2.pem")
	tokWriteKey(t, newKeyFile, newKey)
	base = load("sncf-kid-2", newKeyFile)
	for range 3 {
		if code, _, _ := tokPost(t, base+"/a/x", "{}"); code != 200 {
			t.Fatalf("after key rotation: %d", code)
		}
	}
	assertionsA, _, _, n := a.snapshot()
	if n != 3 {
		t.Fatalf("logins A = %d after key rotation, want 3 (one with the new key)", n)
	}
	rotated, _, _ := jwt.NewParser().ParseUnverified(assertionsA[len(assertionsA)-1], jwt.MapClaims{})
	if rotated.Header["kid"] != "sncf-kid-2" || rotated.Header["alg"] != "ES384" {
		t.Fatalf("after rotation the assertion has kid %v alg %v", rotated.Header["kid"], rotated.Header["alg"])
	}

	// A failed login is a 502 naming the partner, not the partner's 401.
	b.mu.Lock()
	b.failLogin = true
	b.revoked[issuedB[0]] = true
	b.mu.Unlock()
	if code, _, _ := tokPost(t, base+"/b/x", "{}"); code != http.StatusBadGateway {
		t.Fatalf("failed login answered %d, want 502", code)
	}

	caddy.Stop()
	logs := tokReadFiles(t, logFile, accessLog)
	if !bytes.Contains(logs, []byte(`"upstream roundtrip"`)) {
		t.Fatal("the debug log has no reverse_proxy upstream roundtrip entry: the test would prove nothing")
	}
	if !bytes.Contains(logs, []byte(`login at partner \"db\" failed: HTTP 400 invalid_grant: client db is suspended`)) {
		t.Fatalf("the failed login is not logged with partner, status and code:\n%s", logs)
	}
	tokAssertNoSecrets(t, logs, a, b, newKeyFile)
}

func tokReadFiles(t *testing.T, paths ...string) []byte {
	t.Helper()
	var all []byte
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, b...)
	}
	return all
}

// tokAssertNoSecrets fails if any identity token, access token or piece of
// a private key appears in logs.
func tokAssertNoSecrets(t *testing.T, logs []byte, a, b *tokPartner, extraKeyFiles ...string) {
	t.Helper()
	var secrets []string
	keyFiles := append([]string{a.keyFile, b.keyFile}, extraKeyFiles...)
	for _, p := range []*tokPartner{a, b} {
		assertions, issued, _, _ := p.snapshot()
		if len(assertions) == 0 || len(issued) == 0 {
			t.Fatalf("partner %s saw no login: nothing to search for", p.name)
		}
		for _, s := range append(assertions, issued...) {
			secrets = append(secrets, s)
			// The signature alone is secret enough to look for.
			secrets = append(secrets, s[strings.LastIndexByte(s, '.')+1:])
		}
	}
	for _, f := range keyFiles {
		pemData, _ := os.ReadFile(f)
		for _, line := range strings.Split(string(pemData), "\n") {
			if len(line) >= 40 && !strings.HasPrefix(line, "-----") {
				secrets = append(secrets, line)
			}
		}
	}
	for _, s := range secrets {
		if bytes.Contains(logs, []byte(s)) {
			t.Fatalf("secret %.12s... found in the logs", s)
		}
	}
	if bytes.Contains(logs, []byte("Bearer ey")) {
		t.Fatal("a bearer token was found in the logs")
	}
}

// TestTokenOnlyThroughOSDMTransport: the reverse_proxy after osdm_token
// sends the token (transport osdm); a request of a later route that did
// not pass osdm_token carries none, though both routes serve at once.
func TestTokenOnlyThroughOSDMTransport(t *testing.T) {
	dir := t.TempDir()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	p := newTokPartner(t, "sncf", key, dir)
	var mu sync.Mutex
	var plainAuth []string
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		plainAuth = append(plainAuth, r.Header.Get("Authenticate"))
		mu.Unlock()
		io.WriteString(w, "plain")
	}))
	t.Cleanup(plain.Close)
	port := tokFreePort(t)
	tokLoad(t, fmt.Sprintf(`{
	admin off
	persist_config off
	auto_https off
}

http://127.0.0.1:%d {
	route /a/* {
		osdm_token {
			token_url %s
			key_file %s
			kid sncf-kid-1
			issuer https://reservations.example-railway.eu
			subject example-railway
		}
		reverse_proxy %s {
			transport osdm
		}
	}
	reverse_proxy /plain/* %s
}
`, port, p.tokenURL(), p.keyFile, p.upstream.Listener.Addr(), plain.Listener.Addr()))
	t.Cleanup(func() { caddy.Stop() })
	base := fmt.Sprintf("http://127.0.0.1:%d", port)

	var wg sync.WaitGroup
	errs := make(chan string, 40)
	for i := range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			path, want := "/a/x", "sncf got \"{}\""
			if i%2 == 1 {
				path, want = "/plain/x", "plain"
			}
			resp, err := (&http.Client{Transport: &http.Transport{DisableKeepAlives: true}}).Post(base+path, "application/json", strings.NewReader("{}"))
			if err != nil {
				errs <- err.Error()
				return
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 || string(body) != want {
				errs <- fmt.Sprintf("%s: %d %q", path, resp.StatusCode, body)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(plainAuth) != 20 {
		t.Fatalf("the plain upstream got %d requests, want 20", len(plainAuth))
	}
	for _, a := range plainAuth {
		if a != "" {
			t.Fatal("a request that did not pass osdm_token carried a token")
		}
	}
	if _, _, seen, logins := p.snapshot(); logins != 1 || len(seen) != 20 {
		t.Fatalf("%d logins, %d requests with a token; want 1 and 20", logins, len(seen))
	}
}
