package providerauth

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/caddyserver/caddy/v2/modules/standard"
	"github.com/golang-jwt/jwt/v5"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/harness"
)

// TestLoginAccessIntegration runs osdm_login and osdm_access in a real
// Caddy in front of a respond backend: tokens come from hand-made identity
// tokens over HTTP, and only calls with a valid access token get through.
func TestLoginAccessIntegration(t *testing.T) {
	f := harness.NewProvFixture(t)
	base := harness.ServeSite(t, harness.Options(), func(port int) string {
		return f.LoginRoute(fmt.Sprintf(`
			token_lifetime 1m
			clock_skew 30s
			client alpine {
				alg RS256 PS256
				key alp-1 %s
				scope uic_osdm
			}
			client coastal {
				key coast-1 %s
			}
`, f.Path("alpine.pub"), f.Path("coastal.pub"))) + fmt.Sprintf(`
	route /osdm/* {
		osdm_access {
			key_file %s
			issuer %s
			audience %s
			scope uic_osdm
		}
		respond "hello {http.auth.user.id} {osdm.client}" 200
	}
	route /inproc/* {
		osdm_access {
			issuer %s
			audience %s
		}
		respond "inproc {osdm.client}" 200
	}
	route /metrics {
		metrics
	}
`, f.LoginPub, harness.ProvIssuer, harness.ProvIssuer, harness.ProvIssuer, harness.ProvIssuer)
	})
	tokenURL := base + "/oauth/token"

	getToken := func(form url.Values) (int, map[string]any, http.Header) {
		status, body, h := harness.Do(t, http.MethodPost, tokenURL, harness.FormType, form.Encode(), nil)
		var m map[string]any
		if err := json.Unmarshal([]byte(body), &m); err != nil {
			t.Fatalf("token answer %q: %v", body, err)
		}
		return status, m, h
	}

	// jwt-bearer form, RS256.
	status, m, h := getToken(harness.BearerForm(f.AlpineToken(time.Now())))
	if status != http.StatusOK || m["token_type"] != "Bearer" || m["expires_in"] != 60.0 || m["scope"] != "uic_osdm" {
		t.Fatalf("token: %d %v", status, m)
	}
	if h.Get("Cache-Control") != "no-store" || h.Get("Pragma") != "no-cache" {
		t.Fatalf("cache headers %v", h)
	}
	access := m["access_token"].(string)

	// client_assertion form, EdDSA.
	c := f.Identity(jwt.SigningMethodEdDSA, f.Coastal, "coastal", "coast-1", time.Now(), func(c jwt.MapClaims) { c["iss"] = "coastal" })
	status, m, _ = getToken(url.Values{
		"grant_type": {"client_credentials"}, "client_assertion_type": {"urn:ietf:params:oauth:client-assertion-type:jwt-bearer"},
		"client_assertion": {c},
	})
	if status != http.StatusOK {
		t.Fatalf("client assertion: %d %v", status, m)
	}
	coastalAccess := m["access_token"].(string)

	// osdm_access lets exactly the valid calls through.
	calls := []struct {
		name   string
		path   string
		header http.Header
		status int
		body   string
	}{
		{"Authenticate", "/osdm/offers", http.Header{"Authenticate": {access}}, 200, "hello alpine alpine"},
		{"Authorization Bearer", "/osdm/offers", http.Header{"Authorization": {"Bearer " + coastalAccess}}, 200, "hello coastal coastal"},
		{"in-process key", "/inproc/x", http.Header{"Authenticate": {access}}, 200, "inproc alpine"},
		{"no token", "/osdm/offers", nil, 401, ""},
		{"identity token instead", "/osdm/offers", http.Header{"Authenticate": {f.AlpineToken(time.Now())}}, 401, ""},
		{"tampered", "/osdm/offers", http.Header{"Authenticate": {access[:len(access)-6] + "AAAAAA"}}, 401, ""},
	}
	for _, call := range calls {
		status, body, h := harness.Do(t, http.MethodGet, base+call.path, "", "", call.header)
		if status != call.status {
			t.Errorf("%s: %d %s", call.name, status, body)
			continue
		}
		if call.status == 200 && body != call.body {
			t.Errorf("%s: body %q", call.name, body)
		}
		if call.status == 401 {
			if !strings.HasPrefix(h.Get("WWW-Authenticate"), "Bearer ") || h.Get("Content-Type") != "application/problem+json" || strings.Contains(body, "hello") {
				t.Errorf("%s: %v %s", call.name, h, body)
			}
		}
	}

	// Attacks over HTTP: the right RFC 6749 error and no token.
	none := f.Identity(jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, "alpine", "alp-1", time.Now(), nil)
	replayed := f.AlpineToken(time.Now())
	if st, _, _ := harness.Do(t, http.MethodPost, tokenURL, harness.FormType, harness.BearerForm(replayed).Encode(), nil); st != 200 {
		t.Fatalf("first use: %d", st)
	}
	attacks := []struct {
		name, contentType, body string
		status                  int
		code                    string
	}{
		{"alg none", harness.FormType, harness.BearerForm(none).Encode(), 400, "invalid_grant"},
		{"replay", harness.FormType, harness.BearerForm(replayed).Encode(), 400, "invalid_grant"},
		{"unknown client", harness.FormType, harness.BearerForm(f.Identity(jwt.SigningMethodRS256, f.Alpine, "intruder", "alp-1", time.Now(), nil)).Encode(), 400, "invalid_grant"},
		{"wrong grant type", harness.FormType, "grant_type=password&username=a&password=b", 400, "unsupported_grant_type"},
		{"wrong content type", "application/json", `{"grant_type":"client_credentials"}`, 400, "invalid_request"},
		{"client assertion, bad signature", harness.FormType, url.Values{
			"grant_type": {"client_credentials"}, "client_assertion_type": {"urn:ietf:params:oauth:client-assertion-type:jwt-bearer"},
			"client_assertion": {c[:len(c)-6] + "AAAAAA"},
		}.Encode(), 401, "invalid_client"},
	}
	for _, a := range attacks {
		st, body, h := harness.Do(t, http.MethodPost, tokenURL, a.contentType, a.body, nil)
		if st != a.status || !strings.Contains(body, `"error":"`+a.code+`"`) || strings.Contains(body, "access_token") {
			t.Errorf("%s: %d %s", a.name, st, body)
		}
		if st == 401 && !strings.Contains(h.Get("WWW-Authenticate"), `error="invalid_client"`) {
			t.Errorf("%s: WWW-Authenticate %q", a.name, h.Get("WWW-Authenticate"))
		}
	}

	// 20 concurrent sends of one token: exactly one access token.
	shared := harness.BearerForm(f.AlpineToken(time.Now())).Encode()
	var mu sync.Mutex
	codes := map[int]int{}
	var wg sync.WaitGroup
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st, _, _ := harness.Do(t, http.MethodPost, tokenURL, harness.FormType, shared, nil)
			mu.Lock()
			codes[st]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	if codes[200] != 1 || codes[400] != 19 {
		t.Fatalf("concurrent sends: %v", codes)
	}

	// Metrics: outcomes by configured client, unknown ones folded.
	_, metrics, _ := harness.Do(t, http.MethodGet, base+"/metrics", "", "", nil)
	for _, want := range []string{
		`caddy_osdm_login_token_requests_total{client="alpine",issuer="` + harness.ProvIssuer + `",outcome="granted"}`,
		`caddy_osdm_login_token_requests_total{client="alpine",issuer="` + harness.ProvIssuer + `",outcome="replay"}`,
		`caddy_osdm_login_token_requests_total{client="unknown",issuer="` + harness.ProvIssuer + `",outcome="unknown_client"}`,
		`caddy_osdm_login_replay_store_entries{issuer="` + harness.ProvIssuer + `"}`,
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	if strings.Contains(metrics, "intruder") {
		t.Error("an unknown subject became a label value")
	}
}
