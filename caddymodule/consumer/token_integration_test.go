package consumer

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/caddyserver/caddy/v2"
	_ "github.com/caddyserver/caddy/v2/modules/standard"
	"github.com/golang-jwt/jwt/v5"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/harness"
)

func tokCaddyfile(port int, logFile, accessLog string, a, b *harness.LoginPartner, kidA, keyFileA string) string {
	route := func(path string, p *harness.LoginPartner, kid, keyFile string) string {
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
`, path, p.TokenURL(), keyFile, kid, p.Name, p.Upstream.Listener.Addr())
	}
	return harness.Options(harness.DebugOption, harness.LogOption(logFile, "DEBUG")) + harness.Site(port, fmt.Sprintf(`
	log {
		output file %s
		format json
	}

%s
%s`, accessLog, route("a", a, kidA, keyFileA), route("b", b, b.Name+"-kid-1", b.KeyFile)))
}

func TestTokenIntegrationTwoPartners(t *testing.T) {
	dir := t.TempDir()
	ecKey := harness.ECKey(t)
	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	a := harness.NewLoginPartner(t, "sncf", ecKey, dir)
	b := harness.NewLoginPartner(t, "db", rsaKey, dir)
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
		port := harness.FreePort(t)
		harness.Load(t, tokCaddyfile(port, logFile, accessLog, a, b, kidA, keyFileA))
		return fmt.Sprintf("http://127.0.0.1:%d", port)
	}
	base := load("sncf-kid-1", a.KeyFile)

	// Each route reaches its own partner with that partner's token.
	for i := range 3 {
		body := fmt.Sprintf(`{"n":%d}`, i)
		if code, got, _ := harness.PostJSON(t, base+"/a/offers", body); code != 200 || got != fmt.Sprintf("sncf got %q", body) {
			t.Fatalf("/a: %d %q", code, got)
		}
		if code, got, _ := harness.PostJSON(t, base+"/b/offers", body); code != 200 || got != fmt.Sprintf("db got %q", body) {
			t.Fatalf("/b: %d %q", code, got)
		}
	}
	_, issuedA, seenA, loginsA := a.Snapshot()
	_, issuedB, seenB, loginsB := b.Snapshot()
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
	a.Mu.Lock()
	a.Revoked[issuedA[0]] = true
	a.Mu.Unlock()
	code, got, hdr := harness.PostJSON(t, base+"/a/bookings", `{"replay":true}`)
	if code != 200 || got != `sncf got "{\"replay\":true}"` || hdr.Get("X-Refused") != "" || hdr.Get("X-Partner") != "sncf" {
		t.Fatalf("after revocation: %d %q %v", code, got, hdr)
	}
	if _, issuedA, _, loginsA = a.Snapshot(); loginsA != 2 {
		t.Fatalf("logins A = %d after the 401, want 2", loginsA)
	}
	if _, _, _, loginsB = b.Snapshot(); loginsB != 1 {
		t.Fatal("a 401 of partner A made partner B log in again")
	}

	// A reload with the same partner configuration keeps the cached token.
	base = load("sncf-kid-1", a.KeyFile)
	for range 5 {
		if code, _, _ := harness.PostJSON(t, base+"/a/x", "{}"); code != 200 {
			t.Fatalf("after reload: %d", code)
		}
	}
	if _, _, _, n := a.Snapshot(); n != 2 {
		t.Fatalf("logins A = %d after an unchanged reload, want 2", n)
	}

	// Key rotation: a new kid and key file, then a reload; no request fails.
	newKey, _ := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	a.Mu.Lock()
	a.Kids["sncf-kid-2"] = newKey.Public()
	a.Mu.Unlock()
	newKeyFile := filepath.Join(dir, "sncf-2.pem")
	harness.WriteKey(t, newKeyFile, newKey)
	base = load("sncf-kid-2", newKeyFile)
	for range 3 {
		if code, _, _ := harness.PostJSON(t, base+"/a/x", "{}"); code != 200 {
			t.Fatalf("after key rotation: %d", code)
		}
	}
	assertionsA, _, _, n := a.Snapshot()
	if n != 3 {
		t.Fatalf("logins A = %d after key rotation, want 3 (one with the new key)", n)
	}
	rotated, _, _ := jwt.NewParser().ParseUnverified(assertionsA[len(assertionsA)-1], jwt.MapClaims{})
	if rotated.Header["kid"] != "sncf-kid-2" || rotated.Header["alg"] != "ES384" {
		t.Fatalf("after rotation the assertion has kid %v alg %v", rotated.Header["kid"], rotated.Header["alg"])
	}

	// A failed login is a 502 naming the partner, not the partner's 401.
	b.Mu.Lock()
	b.FailLogin = true
	b.Revoked[issuedB[0]] = true
	b.Mu.Unlock()
	if code, _, _ := harness.PostJSON(t, base+"/b/x", "{}"); code != http.StatusBadGateway {
		t.Fatalf("failed login answered %d, want 502", code)
	}

	caddy.Stop()
	logs := harness.ReadFiles(t, logFile, accessLog)
	if !bytes.Contains(logs, []byte(`"upstream roundtrip"`)) {
		t.Fatal("the debug log has no reverse_proxy upstream roundtrip entry: the test would prove nothing")
	}
	if !bytes.Contains(logs, []byte(`login at partner \"db\" failed: HTTP 400 invalid_grant: client db is suspended`)) {
		t.Fatalf("the failed login is not logged with partner, status and code:\n%s", logs)
	}
	tokAssertNoSecrets(t, logs, a, b, newKeyFile)
}

// tokAssertNoSecrets fails if any identity token, access token or piece of
// a private key appears in logs.
func tokAssertNoSecrets(t *testing.T, logs []byte, a, b *harness.LoginPartner, extraKeyFiles ...string) {
	t.Helper()
	var tokens []string
	for _, p := range []*harness.LoginPartner{a, b} {
		assertions, issued, _, _ := p.Snapshot()
		if len(assertions) == 0 || len(issued) == 0 {
			t.Fatalf("partner %s saw no login: nothing to search for", p.Name)
		}
		tokens = append(append(tokens, assertions...), issued...)
	}
	harness.AssertNoSecrets(t, logs, tokens, append([]string{a.KeyFile, b.KeyFile}, extraKeyFiles...)...)
	if bytes.Contains(logs, []byte("Bearer ey")) {
		t.Fatal("a bearer token was found in the logs")
	}
}

// TestTokenOnlyThroughOSDMTransport: the reverse_proxy after osdm_token
// sends the token (transport osdm); a request of a later route that did
// not pass osdm_token carries none, though both routes serve at once.
func TestTokenOnlyThroughOSDMTransport(t *testing.T) {
	dir := t.TempDir()
	key := harness.ECKey(t)
	p := harness.NewLoginPartner(t, "sncf", key, dir)
	plain := harness.RecordHeader(t, "Authenticate", "plain")
	port := harness.FreePort(t)
	harness.Load(t, harness.Options()+harness.Site(port, fmt.Sprintf(`
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
`, p.TokenURL(), p.KeyFile, p.Upstream.Listener.Addr(), plain.Addr)))
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
	plainAuth := plain.Got()
	if len(plainAuth) != 20 {
		t.Fatalf("the plain upstream got %d requests, want 20", len(plainAuth))
	}
	for _, a := range plainAuth {
		if a != "" {
			t.Fatal("a request that did not pass osdm_token carried a token")
		}
	}
	if _, _, seen, logins := p.Snapshot(); logins != 1 || len(seen) != 20 {
		t.Fatalf("%d logins, %d requests with a token; want 1 and 20", logins, len(seen))
	}
}
