package providerauth

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/harness"
	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/storeconfig"
)

// loginBoltCaddyfile is one or more sites, each an osdm_login on its own
// port with its own issuer, all keeping spent jti values in the bolt file
// path. lifetime changes between reloads so a reload really changes the
// configuration.
func loginBoltCaddyfile(f *harness.ProvFixture, path, lifetime string, ports ...int) string {
	var b strings.Builder
	b.WriteString(harness.Options())
	for i, port := range ports {
		fmt.Fprintf(&b, `
http://127.0.0.1:%d {
	route /oauth/token {
		osdm_login {
			signing_key_file %s
			issuer https://login-%d.example-provider.eu
			audience %s
			token_lifetime %s
			replay_store bolt %s
			client alpine {
				key alp-1 %s
			}
		}
	}
}
`, port, f.LoginPEM, i, harness.ProvAudience, lifetime, path, f.Path("alpine.pub"))
	}
	return b.String()
}

// tokenClient opens a connection per request: a kept-alive connection
// to the server a reload replaces may be closed under a POST, which the
// client does not retry.
var tokenClient = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 10 * time.Second}

// tokenStatus posts an identity token to a login service and returns the
// status and body of the answer.
//
// Right after a reload, a new connection can still end without an answer
// although no handler ran: the old listener (SO_REUSEPORT) is closed with
// the connection in its accept queue (reset), or the old server accepted
// it and read the request after its graceful shutdown began, which
// net/http's server drops by closing the connection (EOF). Neither
// reached osdm_login, so nothing was spent, and the token request is sent
// again. The callers' assertions prove it: a fresh token sent again must
// be granted, which it would not be (invalid_grant, already used) had the
// lost attempt spent its jti.
func tokenStatus(t *testing.T, port int, assertion string) (int, string) {
	t.Helper()
	var resp *http.Response
	var err error
	for try := 0; ; try++ {
		resp, err = tokenClient.PostForm(fmt.Sprintf("http://127.0.0.1:%d/oauth/token", port), harness.BearerForm(assertion))
		if _, dropped := harness.DroppedUnanswered(err); err == nil || try == 4 || !dropped {
			break
		}
		t.Logf("token request lost to the reload (%v); sending it again", err)
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

func wantGranted(t *testing.T, what string, st int, body string) {
	t.Helper()
	if st != http.StatusOK || !strings.Contains(body, "access_token") {
		t.Fatalf("%s: %d %s, want a token", what, st, body)
	}
}

func wantReplay(t *testing.T, what string, st int, body string) {
	t.Helper()
	if st != http.StatusBadRequest || !strings.Contains(body, `"error":"invalid_grant"`) || !strings.Contains(body, "already used") || strings.Contains(body, "access_token") {
		t.Fatalf("%s: %d %s, want invalid_grant for a used jti", what, st, body)
	}
}

// TestLoginBoltReplayStoreAcrossReloadAndRestart runs osdm_login with
// replay_store bolt in a real Caddy. Two sites name the same file and
// work at once (one open database), and share the spent tokens. A jti
// spent before a config reload is refused after it, and the reload that
// keeps the file keeps it open (a new token is granted, so its jti is
// written). A failed reload (a second file that another process holds)
// fails naming that file, and leaves the running config's file open. After
// Caddy stops the file is closed, and a Caddy started again on it still
// refuses the spent tokens.
func TestLoginBoltReplayStoreAcrossReloadAndRestart(t *testing.T) {
	f := harness.NewProvFixture(t)
	path := filepath.Join(t.TempDir(), "state", "osdm.db")
	p1, p2 := harness.FreePort(t), harness.FreePort(t)
	if err := harness.TryLoad(t, loginBoltCaddyfile(f, path, "1m", p1, p2)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = caddy.Stop() })

	now := time.Now()
	spentOn1, spentOn2 := f.AlpineToken(now), f.AlpineToken(now)
	st, body := tokenStatus(t, p1, spentOn1)
	wantGranted(t, "site 1", st, body)
	st, body = tokenStatus(t, p2, spentOn2)
	wantGranted(t, "site 2", st, body)
	st, body = tokenStatus(t, p2, spentOn1)
	wantReplay(t, "site 1's token on site 2", st, body)

	// Reload: the new configuration is provisioned while the old holds
	// the file; then the old is cleaned up.
	if err := harness.TryLoad(t, loginBoltCaddyfile(f, path, "2m", p1, p2)); err != nil {
		t.Fatalf("reload: %v", err)
	}
	st, body = tokenStatus(t, p1, spentOn1)
	wantReplay(t, "after the reload", st, body)
	st, body = tokenStatus(t, p1, spentOn2)
	wantReplay(t, "site 2's token on site 1 after the reload", st, body)
	afterReload := f.AlpineToken(now)
	st, body = tokenStatus(t, p2, afterReload)
	wantGranted(t, "a new token after the reload (a write to the file)", st, body)

	// A reload that cannot open its file fails, naming it; the running
	// configuration keeps its file open and working.
	held := filepath.Join(t.TempDir(), "held.db")
	harness.HoldBoltFile(t, held)
	p3 := harness.FreePort(t)
	src := loginBoltCaddyfile(f, path, "3m", p1, p2) + strings.Replace(loginBoltCaddyfile(f, held, "3m", p3), harness.Options(), "", 1)
	err := harness.TryLoad(t, src)
	if err == nil || !strings.Contains(err.Error(), held) || !strings.Contains(err.Error(), "locked") {
		t.Fatalf("reload with a locked file: %v, want an error naming %s", err, held)
	}
	st, body = tokenStatus(t, p1, f.AlpineToken(now))
	wantGranted(t, "a new token after the failed reload", st, body)
	st, body = tokenStatus(t, p2, afterReload)
	wantReplay(t, "after the failed reload", st, body)

	// Stop: the file is closed. Start again: the spent tokens stay spent.
	if err := caddy.Stop(); err != nil {
		t.Fatal(err)
	}
	if !harness.BoltClosed(t, path) {
		t.Fatal("the file is still open after Caddy stopped")
	}
	if err := harness.TryLoad(t, loginBoltCaddyfile(f, path, "1m", p1)); err != nil {
		t.Fatal(err)
	}
	for name, tok := range map[string]string{"site 1's": spentOn1, "site 2's": spentOn2, "post-reload": afterReload} {
		st, body = tokenStatus(t, p1, tok)
		wantReplay(t, name+" token after a restart", st, body)
	}
	st, body = tokenStatus(t, p1, f.AlpineToken(now))
	wantGranted(t, "a new token after the restart", st, body)
}

// TestLoginBoltLockedFileFailsProvision: a replay_store bolt file another
// process holds makes provisioning fail with an error naming the file.
func TestLoginBoltLockedFileFailsProvision(t *testing.T) {
	f := harness.NewProvFixture(t)
	path := filepath.Join(t.TempDir(), "held.db")
	harness.HoldBoltFile(t, path)
	err := harness.TryLoad(t, loginBoltCaddyfile(f, path, "1m", harness.FreePort(t)))
	if err == nil {
		_ = caddy.Stop()
		t.Fatal("Caddy started on a locked replay store file")
	}
	if !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "locked by another process") {
		t.Fatalf("error %q does not name the locked file", err)
	}
}

func TestLoginReplayStoreCaddyfile(t *testing.T) {
	good := map[string]LoginReplayStore{
		"replay_store bolt":                     {Config: storeconfig.Config{Engine: "bolt"}},
		"replay_store bolt /var/lib/osdm.db":    {Config: storeconfig.Config{Engine: "bolt", Path: "/var/lib/osdm.db"}},
		"replay_store redis 10.0.0.5:6379":      {Config: storeconfig.Config{Engine: "redis", Address: "10.0.0.5:6379"}},
		"replay_store redis 10.0.0.5:6379 rw:":  {Config: storeconfig.Config{Engine: "redis", Address: "10.0.0.5:6379", Prefix: "rw:"}},
		"replay_store memory max_entries 20000": {Config: storeconfig.Config{Engine: "memory"}, MaxEntries: 20000},
		"replay_store shared":                   {Config: storeconfig.Config{Name: "shared"}},
	}
	for line, want := range good {
		var l Login
		src := "osdm_login {\n signing_key_file l.pem\n issuer i\n client c {\n key k c.pub\n }\n " + line + "\n}"
		if err := harness.TryUnmarshal(&l, src); err != nil {
			t.Errorf("%s: %v", line, err)
			continue
		}
		if *l.ReplayStore != want {
			t.Errorf("%s: %+v, want %+v", line, *l.ReplayStore, want)
		}
	}
	bad := map[string]string{
		"replay_store bolt /a /b":       "at most one path",
		"replay_store redis":            "redis takes <address>",
		"replay_store redis a:1 p: q":   "redis takes <address>",
		"replay_store disk /x":          "a store name takes no more arguments",
		"replay_store memory /var/x.db": "takes only max_entries",
	}
	for line, want := range bad {
		src := "osdm_login {\n signing_key_file l.pem\n issuer i\n " + line + "\n client c {\n key k c.pub\n }\n}"
		err := harness.TryUnmarshal(new(Login), src)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "Testfile:4") {
			t.Errorf("%s: %v, want %q at Testfile:4", line, err, want)
		}
	}
}

// TestLoginReplayStoreProvisionErrors: options of one engine given to
// another are refused, and a failed Provision leaves nothing pooled.
func TestLoginReplayStoreProvisionErrors(t *testing.T) {
	f := harness.NewProvFixture(t)
	path := filepath.Join(t.TempDir(), "r.db")
	cases := map[string]*LoginReplayStore{
		"bolt with max_entries":  {Type: "bolt", Config: storeconfig.Config{Path: path}, MaxEntries: 10},
		"memory with a path":     {Type: "memory", Config: storeconfig.Config{Path: path}},
		"bolt with an address":   {Type: "bolt", Config: storeconfig.Config{Address: "127.0.0.1:6379"}},
		"redis with a path":      {Type: "redis", Config: storeconfig.Config{Address: "127.0.0.1:6379", Path: path}},
		"memory with a prefix":   {Type: "memory", Config: storeconfig.Config{Prefix: "x:"}},
		"bolt in a missing root": {Type: "bolt", Config: storeconfig.Config{Path: "/proc/osdm/r.db"}},
	}
	for name, rs := range cases {
		l := loginModule(f, rs)
		ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
		err := l.Provision(ctx)
		if err == nil {
			t.Errorf("%s: provisioned", name)
		}
		if err := l.Cleanup(); err != nil {
			t.Errorf("%s: Cleanup after a failed Provision: %v", name, err)
		}
		cancel()
	}
}

// TestChildProcess is not a test: it is the child process of the
// harness (HoldBoltFile).
func TestChildProcess(t *testing.T) { harness.ChildProcess(t) }
