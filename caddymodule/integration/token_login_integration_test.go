package integration

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"github.com/golang-jwt/jwt/v5"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/harness"
	"github.com/caddy-osdm/caddy-osdm/tokenauth"
)

// e2eCall is what the provider's backend got: the header that carried
// the token, the token, and the client osdm_access put in {osdm.client}.
type e2eCall struct {
	path, header, token, client string
}

// e2eBackend is the provider's functional API behind osdm_access.
type e2eBackend struct {
	mu    sync.Mutex
	calls []e2eCall
}

func (b *e2eBackend) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c := e2eCall{path: r.URL.Path, client: r.Header.Get("X-Osdm-Client")}
	for _, h := range []string{"Authenticate", "Authorization"} {
		if v := r.Header.Get(h); v != "" {
			c.header, c.token = h, strings.TrimPrefix(v, "Bearer ")
		}
	}
	b.mu.Lock()
	b.calls = append(b.calls, c)
	b.mu.Unlock()
	body, _ := io.ReadAll(r.Body)
	fmt.Fprintf(w, "%s for %s", body, c.client)
}

func (b *e2eBackend) snapshot() []e2eCall {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]e2eCall(nil), b.calls...)
}

// TestTokenLoginAccessIntegration runs both sides in one real Caddy: two
// consumer routes with osdm_token (one per grant form and header) log in
// at osdm_login, and osdm_access in front of the provider's backend lets
// exactly the calls carrying the access tokens osdm_login issued through.
func TestTokenLoginAccessIntegration(t *testing.T) {
	dir := t.TempDir()
	login, err := tokenauth.GenerateKey("ES256")
	if err != nil {
		t.Fatal(err)
	}
	loginPEM, _, err := tokenauth.WriteKeyPair(dir, "login", login)
	if err != nil {
		t.Fatal(err)
	}
	type consumer struct {
		sub, kid, alg, pem, pub string
	}
	consumers := []*consumer{{sub: "e2e-rail-a", kid: "a-1", alg: "PS256"}, {sub: "e2e-rail-b", kid: "b-1", alg: "EdDSA"}}
	for _, c := range consumers {
		key, err := tokenauth.GenerateKey(c.alg)
		if err != nil {
			t.Fatal(err)
		}
		if c.pem, c.pub, err = tokenauth.WriteKeyPair(dir, c.sub, key); err != nil {
			t.Fatal(err)
		}
	}
	backend := &e2eBackend{}
	api := httptest.NewServer(backend)
	t.Cleanup(api.Close)

	const issuer = "https://login.e2e-provider.example"
	logFile := filepath.Join(dir, "caddy.log")
	var tokenURL string
	base := harness.Serve(t, func(port int) string {
		provider := fmt.Sprintf("http://127.0.0.1:%d", port)
		tokenURL = provider + "/oauth/token"
		return harness.Options(harness.DebugOption, harness.LogOption(logFile, "DEBUG")) + harness.Site(port, fmt.Sprintf(`
	log {
		output file %[1]s
		format filter {
			wrap json
			request>headers>Authenticate replace REDACTED
		}
	}

	route /oauth/token {
		osdm_login {
			signing_key_file %[2]s
			issuer %[3]s
			audience %[4]s
			token_lifetime 10m
			client e2e-rail-a {
				alg PS256
				key a-1 %[5]s
			}
			client e2e-rail-b {
				key b-1 %[6]s
			}
		}
	}
	route /osdm/* {
		osdm_access {
			issuer %[3]s
			audience %[3]s
			scope uic_osdm
		}
		reverse_proxy %[7]s {
			transport osdm
			header_up X-Osdm-Client {osdm.client}
		}
	}
	route /metrics {
		metrics
	}
	route /a/* {
		uri strip_prefix /a
		osdm_token {
			token_url %[4]s
			key_file %[8]s
			kid a-1
			alg PS256
			issuer https://reservations.rail-a.example
			subject e2e-rail-a
			partner e2e-provider-a
		}
		rewrite * /osdm{uri}
		reverse_proxy %[9]s {
			transport osdm
		}
	}
	route /b/* {
		uri strip_prefix /b
		osdm_token {
			token_url %[4]s
			key_file %[10]s
			kid b-1
			subject e2e-rail-b
			grant client_assertion
			header Authorization
			partner e2e-provider-b
		}
		rewrite * /osdm{uri}
		reverse_proxy %[9]s {
			transport osdm
		}
	}
`, logFile, loginPEM, issuer, tokenURL, consumers[0].pub, consumers[1].pub, api.Listener.Addr(), consumers[0].pem, provider[len("http://"):], consumers[1].pem))
	})
	// osdm_login's counters outlive a configuration: what it granted
	// before is on /metrics already.
	granted := map[string]float64{}
	_, before, _ := harness.Do(t, http.MethodGet, base+"/metrics", "", "", nil)
	for _, c := range consumers {
		granted[c.sub] = harness.MetricValue(t, before, grantedSeries(c.sub))
	}

	// Through the consumer routes: osdm_token logs in at osdm_login once
	// per consumer, and osdm_access lets every call through.
	for i := range 4 {
		for _, route := range []string{"a", "b"} {
			body := fmt.Sprintf(`{"n":%d}`, i)
			code, got, _ := harness.PostJSON(t, base+"/"+route+"/offers", body)
			if want := body + " for e2e-rail-" + route; code != http.StatusOK || got != want {
				t.Fatalf("/%s/offers: %d %q, want 200 %q", route, code, got, want)
			}
		}
	}
	calls := backend.snapshot()
	if len(calls) != 8 {
		t.Fatalf("the backend got %d calls, want 8", len(calls))
	}
	tokens := map[string]string{} // token -> client
	for _, c := range calls {
		wantHeader := map[string]string{"e2e-rail-a": "Authenticate", "e2e-rail-b": "Authorization"}[c.client]
		if c.path != "/osdm/offers" || c.header != wantHeader {
			t.Fatalf("call %+v: want /osdm/offers with the token in %s", c, wantHeader)
		}
		// The token is one osdm_login signed, for the client osdm_access
		// named; the identity token it was traded for cannot pass.
		claims := jwt.MapClaims{}
		if _, err := jwt.ParseWithClaims(c.token, claims, func(*jwt.Token) (any, error) { return login.Public(), nil },
			jwt.WithValidMethods([]string{"ES256"}), jwt.WithIssuer(issuer), jwt.WithAudience(issuer), jwt.WithExpirationRequired(),
		); err != nil || claims["sub"] != c.client || claims["scope"] != "uic_osdm" {
			t.Fatalf("call of %s carried a token that is not osdm_login's for it: %v %v", c.client, err, claims)
		}
		tokens[c.token] = c.client
	}
	if len(tokens) != 2 {
		t.Fatalf("%d distinct access tokens, want one per consumer (cached)", len(tokens))
	}

	// Only those calls: without a token or with one osdm_login did not
	// issue, osdm_access answers 401 and the backend is not reached.
	var someToken string
	for tok := range tokens {
		someToken = tok
	}
	alien, _ := tokenauth.GenerateKey("ES256")
	forged, _ := (&tokenauth.AccessTokenIssuer{
		Key: alien, Alg: "ES256", KeyID: "x", Issuer: issuer, Audience: []string{issuer}, Lifetime: 600e9,
	}).Issue("e2e-rail-a", []string{"uic_osdm"})
	for name, h := range map[string]http.Header{
		"no token":        nil,
		"forged":          {"Authenticate": {forged.Token}},
		"tampered":        {"Authenticate": {someToken[:len(someToken)-4] + "AAAA"}},
		"not a JWT":       {"Authorization": {"Bearer opaque"}},
		"corrupt payload": {"Authenticate": {strings.Replace(someToken, ".", ".x", 1)}},
	} {
		code, body, hdr := harness.Do(t, http.MethodPost, base+"/osdm/offers", "application/json", "{}", h)
		if code != http.StatusUnauthorized || !strings.HasPrefix(hdr.Get("WWW-Authenticate"), "Bearer ") {
			t.Errorf("%s: %d %s", name, code, body)
		}
	}
	if n := len(backend.snapshot()); n != 8 {
		t.Fatalf("the backend got %d calls after the refused ones, want still 8", n)
	}

	// osdm_login granted one token per consumer (its counters outlive a
	// configuration, and this test may run more than once).
	_, metrics, _ := harness.Do(t, http.MethodGet, base+"/metrics", "", "", nil)
	for _, c := range consumers {
		if got := harness.MetricValue(t, metrics, grantedSeries(c.sub)) - granted[c.sub]; got != 1 {
			t.Errorf("osdm_login granted %v tokens to %s, want 1", got, c.sub)
		}
	}
	for _, want := range []string{
		`caddy_osdm_login_token_requests_total{client="e2e-rail-a",issuer="` + issuer + `",outcome="granted"}`,
		`caddy_osdm_login_token_requests_total{client="e2e-rail-b",issuer="` + issuer + `",outcome="granted"}`,
		`caddy_osdm_token_requests_total{partner="e2e-provider-a",result="ok"} 1`,
		`caddy_osdm_token_requests_total{partner="e2e-provider-b",result="ok"} 1`,
		`caddy_osdm_token_cache_hits_total{partner="e2e-provider-a"} 3`,
	} {
		if !strings.Contains(metrics, want+" ") && !strings.Contains(metrics, want+"\n") {
			t.Errorf("metrics lack %s", want)
		}
	}

	// Neither the access tokens nor the keys are in the logs: the debug
	// logs of both sides, and the access log, whose copy of the incoming
	// request Caddy takes before any handler runs (the README's filter).
	caddy.Stop()
	logs := harness.ReadFiles(t, logFile)
	if !bytes.Contains(logs, []byte(`"upstream roundtrip"`)) {
		t.Fatal("the debug log has no reverse_proxy upstream roundtrip entry: the search would prove nothing")
	}
	harness.AssertNoSecrets(t, logs, slices.Collect(maps.Keys(tokens)), loginPEM, consumers[0].pem, consumers[1].pem)
}

// grantedSeries is the series of osdm_login's granted token requests of
// client.
func grantedSeries(client string) string {
	return `caddy_osdm_login_token_requests_total{client="` + client + `",issuer="https://login.e2e-provider.example",outcome="granted"}`
}
