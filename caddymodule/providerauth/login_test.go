package providerauth

import (
	"context"
	"crypto"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/golang-jwt/jwt/v5"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/harness"
	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/storeconfig"
	"github.com/caddy-osdm/caddy-osdm/tokenauth"
)

// loginModule is an osdm_login configured for the fixture's clients.
func loginModule(f *harness.ProvFixture, store *LoginReplayStore) *Login {
	return &Login{
		SigningKeyFile: f.LoginPEM, Issuer: harness.ProvIssuer, Audience: []string{harness.ProvAudience},
		ReplayStore: store,
		Clients: []RegisteredConsumer{
			{Subject: "alpine", Algs: []string{"RS256", "PS256"}, Keys: []ConsumerKey{{ID: "alp-1", File: f.Path("alpine.pub")}}},
			{Subject: "coastal", Keys: []ConsumerKey{{ID: "coast-1", File: f.Path("coastal.pub")}}},
		},
	}
}

// provision provisions m and cleans it up at the end of the test.
func provProvision(t testing.TB, m interface {
	Provision(caddy.Context) error
}) {
	t.Helper()
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	t.Cleanup(cancel)
	if err := m.Provision(ctx); err != nil {
		t.Fatal(err)
	}
	if c, ok := m.(caddy.CleanerUpper); ok {
		t.Cleanup(func() { _ = c.Cleanup() })
	}
}

// provPost sends a token request to a provisioned Login.
func provPost(l *Login, form url.Values) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodPost, "/oauth/token", strings.NewReader(form.Encode()))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	w := httptest.NewRecorder()
	_ = l.ServeHTTP(w, r, nil)
	return w
}

func TestLoginCaddyfile(t *testing.T) {
	var l Login
	harness.Unmarshal(t, &l, `osdm_login {
		signing_key_file /etc/osdm/login.pem
		signing_alg ES256
		signing_kid login-2026
		issuer https://login.example-provider.eu
		audience https://login.example-provider.eu/oauth/token https://login.example-provider.eu
		access_audience https://api.example-provider.eu
		token_lifetime 2s
		clock_skew 45s
		max_assertion_lifetime 5m
		replay_store memory max_entries 5000
		client example-railway {
			alg RS256 PS256
			key legacy-2026-01 /etc/osdm/clients/er-2026.pub
			key legacy-2025-06 /etc/osdm/clients/er-2025.pub not_before 2025-06-01T00:00:00Z not_after 2026-02-01T00:00:00Z
			scope uic_osdm
		}
		client other {
			key k1 /etc/osdm/clients/other.pub
		}
	}`)
	got, _ := json.Marshal(l)
	want := `{"signing_key_file":"/etc/osdm/login.pem","signing_alg":"ES256","signing_kid":"login-2026","issuer":"https://login.example-provider.eu",` +
		`"audience":["https://login.example-provider.eu/oauth/token","https://login.example-provider.eu"],"access_audience":["https://api.example-provider.eu"],` +
		`"token_lifetime":2000000000,"clock_skew":45000000000,"max_assertion_lifetime":300000000000,"replay_store":{"engine":"memory","max_entries":5000},` +
		`"clients":[{"sub":"example-railway","alg":["RS256","PS256"],"keys":[{"kid":"legacy-2026-01","file":"/etc/osdm/clients/er-2026.pub"},` +
		`{"kid":"legacy-2025-06","file":"/etc/osdm/clients/er-2025.pub","not_before":"2025-06-01T00:00:00Z","not_after":"2026-02-01T00:00:00Z"}],"scope":["uic_osdm"]},` +
		`{"sub":"other","keys":[{"kid":"k1","file":"/etc/osdm/clients/other.pub"}]}]}`
	if string(got) != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}

	var r Login
	harness.Unmarshal(t, &r, "osdm_login {\n signing_key_file l.pem\n issuer i\n client c {\n key k c.pub\n }\n replay_store redis 10.0.0.5:6379\n}")
	if r.ReplayStore.Engine != "redis" || r.ReplayStore.Address != "10.0.0.5:6379" {
		t.Fatalf("replay store %+v", r.ReplayStore)
	}
}

func TestLoginCaddyfileErrors(t *testing.T) {
	cases := map[string]string{
		"repeated option":        "issuer a\nissuer b",
		"unknown option":         "issuers a",
		"bad duration":           "token_lifetime soon",
		"zero duration":          "token_lifetime 0s",
		"negative skew":          "clock_skew -1s",
		"signing alg HMAC":       "signing_alg HS256",
		"two issuers":            "issuer a b",
		"unknown store":          "replay_store disk",
		"redis without address":  "replay_store redis",
		"memory bad max":         "replay_store memory max_entries lots",
		"client without key":     "client a {\n scope x\n}",
		"duplicate client":       "client a {\n key k f\n}\nclient a {\n key k f\n}",
		"duplicate kid":          "client a {\n key k f\n key k g\n}",
		"bad not_after":          "client a {\n key k f not_after tomorrow\n}",
		"unknown key option":     "client a {\n key k f expires 2026-01-01T00:00:00Z\n}",
		"client alg none":        "client a {\n alg none\n key k f\n}",
		"unknown client option":  "client a {\n key k f\n keys k f\n}",
		"repeated client option": "client a {\n key k f\n scope x\n scope y\n}",
		"no signing key":         "issuer i\nclient a {\n key k f\n}",
		"no issuer":              "signing_key_file l.pem\nclient a {\n key k f\n}",
		"no client":              "signing_key_file l.pem\nissuer i",
		"empty subject":          "client \"\" {\n key k f\n}",
		"empty kid":              "client a {\n key \"\" f\n}",
		"key never valid":        "client a {\n key k f not_after 2026-01-01T00:00:00Z not_before 2026-02-01T00:00:00Z\n}",
		"empty audience":         "audience https://a \"\"",
		"empty client scope":     "client a {\n key k f\n scope \"\"\n}",
	}
	texts := map[string]string{ // the error's text, where it matters
		"repeated option":        "issuer already specified, at Testfile:3",
		"repeated client option": `client "a": scope already specified, at Testfile:5`,
		"duplicate client":       `client "a" already specified`,
		"unknown client option":  `unrecognized client subdirective "keys"; did you mean "key"?`,
		"no client":              "osdm_login: at least one client is required, at Testfile:1",
		"empty subject":          `client "": the subject (the sub of the client's tokens) must not be empty, at Testfile:2`,
		"empty kid":              `client "a": key "": the kid must not be empty, at Testfile:3`,
		"key never valid":        `client "a" key "k": not_after 2026-01-01T00:00:00Z is not after not_before 2026-02-01T00:00:00Z: the key would never be valid, at Testfile:3`,
		"empty audience":         `audience: value 2 is empty (""), at Testfile:2`,
		"empty client scope":     `client "a": scope: value 1 is empty (""), at Testfile:4`,
	}
	for name, body := range cases {
		err := harness.TryUnmarshal(new(Login), harness.Block("osdm_login", body))
		if err == nil {
			t.Errorf("%s: accepted", name)
			continue
		}
		if !strings.Contains(err.Error(), "Testfile:") {
			t.Errorf("%s: error does not name file and line: %v", name, err)
		}
		if want := texts[name]; !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %s", name, err, want)
		}
	}
}

// A whole Caddyfile with a missing or a bad osdm_login subdirective fails
// to adapt, naming the file and the line.
func TestLoginCaddyfileAdaptErrorNamesFileAndLine(t *testing.T) {
	for _, tc := range []struct{ name, issuer, extra, want string }{
		{"missing issuer", "", "", "osdm_login: issuer is required, at Caddyfile:3"},
		{"bad clock_skew", "issuer https://login.example", "clock_skew soon", "Caddyfile:10"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cf := `:9443 {
	route /oauth/token {
		osdm_login {
			signing_key_file /etc/osdm/login.pem
			` + tc.issuer + `
			client example-railway {
				key legacy-2026-01 /etc/osdm/clients/er-2026.pub
			}
			token_lifetime 15m
			` + tc.extra + `
		}
	}
}
`
			err := harness.TryAdapt("Caddyfile", cf)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestLoginProvisionErrors(t *testing.T) {
	f := harness.NewProvFixture(t)
	cases := map[string]func(l *Login){
		"no issuer":           func(l *Login) { l.Issuer = "" },
		"no signing key":      func(l *Login) { l.SigningKeyFile = "" },
		"missing signing key": func(l *Login) { l.SigningKeyFile = f.Path("nope.pem") },
		"public as signing":   func(l *Login) { l.SigningKeyFile = f.LoginPub },
		"alg misfits key":     func(l *Login) { l.SigningAlg = "RS256" },
		"no clients":          func(l *Login) { l.Clients = nil },
		"client key missing":  func(l *Login) { l.Clients[0].Keys[0].File = f.Path("nope.pub") },
		"client bad time":     func(l *Login) { l.Clients[0].Keys[0].NotAfter = "next week" },
		"client alg misfits":  func(l *Login) { l.Clients[1].Algs = []string{"ES256"} },
		"unknown store":       func(l *Login) { l.ReplayStore = &LoginReplayStore{Type: "disk"} },
		"redis no address":    func(l *Login) { l.ReplayStore = &LoginReplayStore{Config: storeconfig.Config{Engine: "redis"}} },
		"engine and type": func(l *Login) {
			l.ReplayStore = &LoginReplayStore{Config: storeconfig.Config{Engine: "memory"}, Type: "redis"}
		},
		"negative lifetime": func(l *Login) { l.TokenLifetime = caddy.Duration(-time.Second) },
	}
	for name, edit := range cases {
		l := loginModule(f, nil)
		edit(l)
		if err := harness.TryProvision(l); err == nil {
			t.Errorf("%s: provisioned", name)
		}
	}
}

func TestLoginModuleGrantsAndRefuses(t *testing.T) {
	f := harness.NewProvFixture(t)
	now := time.Now()
	l := loginModule(f, nil)
	l.Issuer = "https://login.grants.example"
	provProvision(t, l)
	core, logs := observer.New(zap.InfoLevel)
	l.logger = zap.New(core)

	granted := provCounter(l, "alpine", "granted")
	unknown := provCounter(l, "unknown", "unknown_client")
	replays := provCounter(l, "alpine", "replay")

	assertion := f.AlpineToken(now)
	w := provPost(l, harness.BearerForm(assertion))
	if w.Code != http.StatusOK {
		t.Fatalf("status %d body %s", w.Code, w.Body)
	}
	var resp tokenauth.AccessTokenResponse
	if err := json.Unmarshal(w.Body.Bytes(), &resp); err != nil || resp.ExpiresIn != 900 || resp.TokenType != "Bearer" {
		t.Fatalf("response %s: %v", w.Body, err)
	}
	// The access token verifies with the login's public key and default kid.
	pub, _ := tokenauth.LoadPublicKeyFile(f.LoginPub)
	kid, _ := tokenauth.PublicKeyID(pub)
	v := &tokenauth.AccessTokenVerifier{Keys: func(k string) []crypto.PublicKey {
		if k == kid {
			return []crypto.PublicKey{pub}
		}
		return nil
	}, Issuer: l.Issuer, Audience: l.Issuer}
	if claims, err := v.Verify(resp.AccessToken); err != nil || claims.Subject != "alpine" {
		t.Fatalf("access token: %v %+v", err, claims)
	}

	if w := provPost(l, harness.BearerForm(assertion)); w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), `"error":"invalid_grant"`) {
		t.Fatalf("replay: %d %s", w.Code, w.Body)
	}
	for i := range 3 {
		tok := f.Identity(jwt.SigningMethodRS256, f.Alpine, "made-up-"+string(rune('a'+i)), "alp-1", now, nil)
		provPost(l, harness.BearerForm(tok))
	}
	if d := provCounter(l, "alpine", "granted") - granted; d != 1 {
		t.Fatalf("granted counted %v times", d)
	}
	if d := provCounter(l, "alpine", "replay") - replays; d != 1 {
		t.Fatalf("replay counted %v times", d)
	}
	if d := provCounter(l, "unknown", "unknown_client") - unknown; d != 3 {
		t.Fatalf("unknown clients counted %v times", d)
	}
	// Made-up subjects never become label values.
	if strings.Contains(provMetricsText(t, l), "made-up") {
		t.Fatal("a made-up subject became a metric label")
	}
	// Logs name the client and the reason, never a token.
	for _, e := range logs.All() {
		text, _ := json.Marshal(e.ContextMap())
		if strings.Contains(string(text), assertion[:40]) || strings.Contains(string(text), resp.AccessToken[:40]) {
			t.Fatalf("log line %q holds a token", e.Message)
		}
	}
	if logs.FilterField(zap.String("reason", "replay")).Len() != 1 {
		t.Fatalf("replay log lines: %v", logs.All())
	}
}

// provMetricsText is the text of the login request counter's series.
func provMetricsText(t *testing.T, l *Login) string {
	t.Helper()
	reg := prometheus.NewRegistry()
	reg.MustRegister(l.metrics.requests)
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, f := range families {
		for _, m := range f.GetMetric() {
			b.WriteString(m.String())
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// provCounter reads the login request counter of l, for one client and
// outcome.
func provCounter(l *Login, client, outcome string) float64 {
	var m dto.Metric
	if err := l.metrics.requests.WithLabelValues(l.Issuer, client, outcome).Write(&m); err != nil {
		panic(err)
	}
	return m.GetCounter().GetValue()
}
