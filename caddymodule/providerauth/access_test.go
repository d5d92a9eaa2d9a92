package providerauth

import (
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/harness"
	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/subrequest"
	"github.com/caddy-osdm/caddy-osdm/osdm"
	"github.com/caddy-osdm/caddy-osdm/tokenauth"
)

func TestAccessCaddyfile(t *testing.T) {
	var a Access
	harness.Unmarshal(t, &a, `osdm_access {
		key_file /etc/osdm/login.pub /etc/osdm/login-old.pub
		issuer https://login.example-provider.eu
		audience https://login.example-provider.eu
		scope uic_osdm
		header Authorization
		clock_skew 5s
	}`)
	got, _ := json.Marshal(a)
	want := `{"key_files":["/etc/osdm/login.pub","/etc/osdm/login-old.pub"],"issuer":"https://login.example-provider.eu",` +
		`"audience":"https://login.example-provider.eu","scope":["uic_osdm"],"header":"Authorization","clock_skew":5000000000}`
	if string(got) != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	for name, body := range map[string]string{
		"repeated":     "issuer a\nissuer b",
		"unknown":      "keyfile x",
		"no key file":  "key_file",
		"bad header":   "header \"Bad Header\"",
		"two audience": "audience a b",
		"no key":       "scope uic_osdm",
	} {
		if err := harness.TryUnmarshal(new(Access), harness.Block("osdm_access", body)); err == nil || !strings.Contains(err.Error(), "Testfile:") {
			t.Errorf("%s: %v", name, err)
		}
	}
	// An empty scope or key file names nothing: refused at its line.
	for body, want := range map[string]string{
		"issuer i\naudience a\nscope uic_osdm \"\"": `scope: value 2 is empty (""), at Testfile:4`,
		"audience a\nkey_file \"\"":                 `key_file: value 1 is empty (""), at Testfile:3`,
	} {
		if err := harness.TryUnmarshal(new(Access), harness.Block("osdm_access", body)); err == nil || err.Error() != want {
			t.Errorf("%q: %v, want %s", body, err, want)
		}
	}
}

// A whole Caddyfile whose osdm_access has neither key_file nor issuer
// fails to adapt, naming the file and the line.
func TestAccessCaddyfileAdaptErrorNamesFileAndLine(t *testing.T) {
	cf := `:9443 {
	route /osdm/* {
		osdm_access {
			audience https://api.example
			scope uic_osdm
		}
		respond "ok"
	}
}
`
	err := harness.TryAdapt("Caddyfile", cf)
	if want := "osdm_access: key_file or issuer is required"; err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "at Caddyfile:3") {
		t.Fatalf("err = %v, want one containing %q", err, want)
	}
}

// provAccessRun runs a request through an osdm_access whose next handler
// answers with the placeholders it sees.
func provAccessRun(t *testing.T, a *Access, header http.Header) *httptest.ResponseRecorder {
	t.Helper()
	r := httptest.NewRequest(http.MethodGet, "/osdm/offers", nil)
	r.Header = header
	repl := caddy.NewReplacer()
	r = r.WithContext(context.WithValue(r.Context(), caddy.ReplacerCtxKey, repl))
	w := httptest.NewRecorder()
	next := caddyhttp.HandlerFunc(func(w http.ResponseWriter, r *http.Request) error {
		_, _ = w.Write([]byte(repl.ReplaceAll("{http.auth.user.id} {osdm.client} {osdm.scope}", "-")))
		return nil
	})
	if err := a.ServeHTTP(w, r, next); err != nil {
		t.Fatal(err)
	}
	return w
}

func TestAccessChecksTokens(t *testing.T) {
	f := harness.NewProvFixture(t)
	issue := func(key *ecdsa.PrivateKey, scopes ...string) string {
		i := &tokenauth.AccessTokenIssuer{Key: key, Alg: "ES256", KeyID: "k", Issuer: harness.ProvIssuer, Audience: []string{harness.ProvIssuer}, Lifetime: time.Minute}
		tok, err := i.Issue("alpine", scopes)
		if err != nil {
			t.Fatal(err)
		}
		return tok.Token
	}
	good := issue(f.Login, "uic_osdm")
	stranger := harness.ECKey(t)
	forged := issue(stranger, "uic_osdm")
	narrow := issue(f.Login, "uic_osdm_read")

	a := &Access{KeyFiles: []string{f.LoginPub}, Issuer: harness.ProvIssuer, Audience: harness.ProvIssuer, Scopes: []string{"uic_osdm"}}
	provProvision(t, a)

	for name, h := range map[string]http.Header{
		"Authenticate without Bearer":  {"Authenticate": {good}},
		"Authenticate with Bearer":     {"Authenticate": {"Bearer " + good}},
		"Authorization with Bearer":    {"Authorization": {"Bearer " + good}},
		"Authorization without Bearer": {"Authorization": {good}},
		"lower-case bearer":            {"Authorization": {"bearer " + good}},
	} {
		w := provAccessRun(t, a, h)
		if w.Code != http.StatusOK || w.Body.String() != "alpine alpine uic_osdm" {
			t.Errorf("%s: %d %q", name, w.Code, w.Body)
		}
	}

	cases := []struct {
		name   string
		header http.Header
		status int
		code   string
		bearer string
	}{
		{"no token", http.Header{}, 401, osdm.CodeMissingToken, `Bearer realm="` + harness.ProvIssuer + `"`},
		{"forged", http.Header{"Authenticate": {forged}}, 401, osdm.CodeInvalidToken, `Bearer realm="` + harness.ProvIssuer + `", error="invalid_token"`},
		{"basic auth", http.Header{"Authorization": {"Basic YTpi"}}, 401, osdm.CodeInvalidToken, `Bearer realm="` + harness.ProvIssuer + `", error="invalid_token"`},
		{"scope missing", http.Header{"Authenticate": {narrow}}, 403, osdm.CodeInsufficientScope, `Bearer realm="` + harness.ProvIssuer + `", error="insufficient_scope", scope="uic_osdm"`},
		// Two tokens: which one is the client's would be a guess.
		{"two Authenticate headers", http.Header{"Authenticate": {good, forged}}, 401, osdm.CodeInvalidToken, `Bearer realm="` + harness.ProvIssuer + `", error="invalid_token"`},
		{"Authenticate twice, the same", http.Header{"Authenticate": {good, good}}, 401, osdm.CodeInvalidToken, `Bearer realm="` + harness.ProvIssuer + `", error="invalid_token"`},
		{"two Authorization headers", http.Header{"Authorization": {"Bearer " + good, "Bearer " + forged}}, 401, osdm.CodeInvalidToken, `Bearer realm="` + harness.ProvIssuer + `", error="invalid_token"`},
	}
	for _, tc := range cases {
		w := provAccessRun(t, a, tc.header)
		if w.Code != tc.status || w.Header().Get("WWW-Authenticate") != tc.bearer || w.Header().Get("Content-Type") != "application/problem+json" {
			t.Errorf("%s: %d %q %q", tc.name, w.Code, w.Header().Get("WWW-Authenticate"), w.Header().Get("Content-Type"))
			continue
		}
		var p struct {
			Code   string `json:"code"`
			Title  string `json:"title"`
			Detail string `json:"detail"`
			Status int    `json:"status"`
		}
		if err := json.Unmarshal(w.Body.Bytes(), &p); err != nil || p.Code != tc.code || p.Status != tc.status || p.Title == "" || p.Detail == "" {
			t.Errorf("%s: problem %s (%v)", tc.name, w.Body, err)
		}
		if strings.Contains(w.Body.String(), "alpine") {
			t.Errorf("%s: the refused request reached next", tc.name)
		}
		if strings.HasPrefix(tc.name, "two") || strings.Contains(tc.name, "twice") {
			if want := "header is given 2 times; send one access token"; !strings.Contains(p.Detail, want) {
				t.Errorf("%s: detail %q, want one saying %q", tc.name, p.Detail, want)
			}
		}
	}
}

// TestAccessUsesInProcessLoginKey: without key_file, osdm_access verifies
// with the signing key of the osdm_login that has its issuer.
func TestAccessUsesInProcessLoginKey(t *testing.T) {
	f := harness.NewProvFixture(t)
	l := loginModule(f, nil)
	l.Issuer = "https://login.inproc.example"
	a := &Access{Issuer: l.Issuer, Audience: l.Issuer}
	provProvision(t, a) // before the login, as Caddy may do
	provProvision(t, l)
	w := provPost(l, harness.BearerForm(f.AlpineToken(time.Now())))
	var resp tokenauth.AccessTokenResponse
	if err := json.Unmarshal(w.Body.Bytes(), &resp); err != nil || resp.AccessToken == "" {
		t.Fatalf("login: %d %s", w.Code, w.Body)
	}
	if w := provAccessRun(t, a, http.Header{"Authenticate": {resp.AccessToken}}); w.Code != http.StatusOK {
		t.Fatalf("in-process key: %d %s", w.Code, w.Body)
	}
	// Another issuer's access handler does not find this key.
	other := &Access{Issuer: "https://login.elsewhere.example", Audience: "https://login.elsewhere.example"}
	provProvision(t, other)
	if w := provAccessRun(t, other, http.Header{"Authenticate": {resp.AccessToken}}); w.Code != http.StatusUnauthorized {
		t.Fatalf("other issuer: %d %s", w.Code, w.Body)
	}
	// After the login is gone (config unloaded), its key is no longer trusted.
	if err := l.Cleanup(); err != nil {
		t.Fatal(err)
	}
	if w := provAccessRun(t, a, http.Header{"Authenticate": {resp.AccessToken}}); w.Code != http.StatusUnauthorized {
		t.Fatalf("after cleanup: %d %s", w.Code, w.Body)
	}
	if err := (&Access{}).Validate(); err == nil {
		t.Fatal("neither key_file nor issuer: valid")
	}
}

// TestAccessPassesTokenThroughTransportOnly: the token leaves the request
// the next handlers see and goes to the backend through the osdm
// transport; an answer of a reverse_proxy that did not send it is a 502
// naming the fix; a handler that is not a proxy answers as it likes.
func TestAccessPassesTokenThroughTransportOnly(t *testing.T) {
	f := harness.NewProvFixture(t)
	i := &tokenauth.AccessTokenIssuer{Key: f.Login, Alg: "ES256", KeyID: "k", Issuer: harness.ProvIssuer, Audience: []string{harness.ProvIssuer}, Lifetime: time.Minute}
	tok, err := i.Issue("alpine", []string{"uic_osdm"})
	if err != nil {
		t.Fatal(err)
	}
	a := &Access{KeyFiles: []string{f.LoginPub}, Issuer: harness.ProvIssuer}
	provProvision(t, a)
	run := func(next caddyhttp.HandlerFunc) (*httptest.ResponseRecorder, error) {
		r := httptest.NewRequest(http.MethodGet, "/osdm/offers", nil)
		r.Header.Set("Authenticate", "Bearer "+tok.Token)
		r = r.WithContext(context.WithValue(r.Context(), caddy.ReplacerCtxKey, caddy.NewReplacer()))
		w := httptest.NewRecorder()
		return w, a.ServeHTTP(w, r, next)
	}
	// proxy acts as reverse_proxy, with or without the osdm transport.
	proxy := func(osdm bool, got *string) caddyhttp.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) error {
			if r.Header.Get("Authenticate") != "" {
				t.Error("the handlers after osdm_access see the token")
			}
			r.Context().Value(caddy.ReplacerCtxKey).(*caddy.Replacer).Set(proxyUpstreamVar, "127.0.0.1:1")
			if osdm {
				r = subrequest.WithBearerHeaders(r)
			}
			*got = r.Header.Get("Authenticate")
			io.WriteString(w, "backend")
			return nil
		}
	}
	var sent string
	if w, err := run(proxy(true, &sent)); err != nil || w.Body.String() != "backend" || sent != "Bearer "+tok.Token {
		t.Fatalf("with transport osdm: %v %q, backend got %q", err, w.Body, sent)
	}
	w, err := run(proxy(false, &sent))
	var he caddyhttp.HandlerError
	if !errors.As(err, &he) || he.StatusCode != http.StatusBadGateway || !errors.Is(err, subrequest.ErrNoOSDMTransport) || w.Body.Len() != 0 {
		t.Fatalf("without transport osdm: %v, client got %q", err, w.Body)
	}
	if w, err := run(func(w http.ResponseWriter, r *http.Request) error {
		io.WriteString(w, "sandbox")
		return nil
	}); err != nil || w.Body.String() != "sandbox" {
		t.Fatalf("a handler that is not a proxy: %v %q", err, w.Body)
	}
}
