package integration

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/golang-jwt/jwt/v5"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/harness"
	"github.com/caddy-osdm/caddy-osdm/legacy"
)

// TestLogAndMetricLabels runs, in one Caddy logging at INFO, two
// osdm_login services and an osdm_convert:
//   - the login metrics tell the two login services apart (issuer label);
//   - a token request refused before any key is known has no empty kid
//     in its log line;
//   - a legacy request refused for a bad field logs its message_id and
//     kind (from the reply's correlationId and the message read), and
//     counts under that kind.
//
// (osdm_legacy's search line: TestOSDMLegacySearchLogsAtDebug.)
func TestLogAndMetricLabels(t *testing.T) {
	f := harness.NewProvFixture(t)
	partner := &recordingPartner{}
	rec := httptest.NewServer(partner)
	t.Cleanup(rec.Close)
	dir := t.TempDir()
	logFile := filepath.Join(dir, "info.log")
	const issuer2 = "https://login-two.example-railway.eu"
	base := harness.ServeSite(t, harness.Options(harness.LogOption(logFile, "INFO")), func(port int) string {
		return fmt.Sprintf(`
	route /one/token {
		osdm_login {
			signing_key_file %[1]s
			issuer %[2]s
			audience %[3]s
			client alpine {
				alg RS256
				key alp-1 %[4]s
			}
		}
	}
	route /two/token {
		osdm_login {
			signing_key_file %[1]s
			issuer %[5]s
			audience %[3]s
			client alpine {
				alg RS256
				key alp-1 %[4]s
			}
		}
	}
	route /legacy {
		osdm_convert {
			partner labels
		}
		reverse_proxy %[6]s
	}
	route /metrics {
		metrics
	}
`, f.LoginPEM, harness.ProvIssuer, harness.ProvAudience, f.Path("alpine.pub"), issuer2, rec.Listener.Addr())
	})
	form := func(assertion string) string { return harness.BearerForm(assertion).Encode() }
	for _, path := range []string{"/one/token", "/two/token"} {
		if status, body, _ := harness.Do(t, http.MethodPost, base+path, harness.FormType, form(f.AlpineToken(time.Now())), nil); status != http.StatusOK {
			t.Fatalf("%s: %d %s", path, status, body)
		}
	}
	stranger := f.Identity(jwt.SigningMethodRS256, f.Alpine, "stranger", "s-1", time.Now(), nil)
	if status, body, _ := harness.Do(t, http.MethodPost, base+"/two/token", harness.FormType, form(stranger), nil); status != http.StatusBadRequest {
		t.Fatalf("unknown client: %d %s", status, body)
	}

	// A BookingRequest with a train number too long: refused before any call.
	bad := &legacy.BookingRequest{Header: legacy.Header{MessageID: "LBL-bad-1"}, Journey: journeyOn("9203"),
		Places: secondClassSeats(legacy.Tariff{Code: 1, Count: 1})}
	body, err := legacy.Encode(legacy.XML, bad)
	if err != nil {
		t.Fatal(err)
	}
	body = bytes.Replace(body, []byte(">9203<"), []byte(">TOOLONG9203<"), 1)
	if status, reply, _ := harness.Do(t, http.MethodPost, base+"/legacy", legacy.XML.ContentType(), string(body), nil); status != http.StatusBadRequest {
		t.Fatalf("bad BookingRequest: %d %s", status, reply)
	}

	_, metrics, _ := harness.Do(t, http.MethodGet, base+"/metrics", "", "", nil)
	if err := caddy.Stop(); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`caddy_osdm_login_token_requests_total{client="alpine",issuer="` + harness.ProvIssuer + `",outcome="granted"}`,
		`caddy_osdm_login_token_requests_total{client="alpine",issuer="` + issuer2 + `",outcome="granted"}`,
		`caddy_osdm_login_token_requests_total{client="unknown",issuer="` + issuer2 + `",outcome="unknown_client"}`,
		`caddy_osdm_convert_exchanges_total{kind="BookingRequest",outcome="invalid_message",partner="labels"}`,
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	if n := partner.count(); n != 0 {
		t.Errorf("the partner got %d calls", n)
	}

	entries := harness.JSONLines[map[string]any](t, logFile)
	var refusedLogin, refusedLegacy int
	for _, m := range entries {
		switch m["msg"] {
		case "token request refused":
			refusedLogin++
			if kid, has := m["kid"]; has || m["issuer"] != issuer2 {
				t.Errorf("login refusal line: kid %q, issuer %v: %v", kid, m["issuer"], m)
			}
		case "access token issued":
			if m["kid"] != "alp-1" || m["issuer"] == nil {
				t.Errorf("login line: %v", m)
			}
		case "legacy request refused":
			refusedLegacy++
			if m["message_id"] != "LBL-bad-1" || m["kind"] != "BookingRequest" {
				t.Errorf("legacy refusal line: %v", m)
			}
		}
	}
	if refusedLogin != 1 || refusedLegacy != 1 {
		t.Errorf("INFO lines: %d login refusals, %d legacy refusals; want 1 and 1:\n%v", refusedLogin, refusedLegacy, entries)
	}
}
