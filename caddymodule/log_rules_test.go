package caddymodule

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/golang-jwt/jwt/v5"

	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// TestLogAndMetricLabels runs, in one Caddy logging at INFO, two
// osdm_login services, an osdm_convert and an osdm_legacy:
//   - the login metrics tell the two login services apart (issuer label);
//   - a token request refused before any key is known has no empty kid
//     in its log line;
//   - a legacy request refused for a bad field logs its message_id and
//     kind (from the reply's correlationId and the message read), and
//     counts under that kind;
//   - a successful osdm_legacy search writes no INFO line (the rule of
//     osdm_convert: searches at DEBUG), a booking does.
func TestLogAndMetricLabels(t *testing.T) {
	f := newProvFixture(t)
	partner := &recordingPartner{}
	rec := httptest.NewServer(partner)
	t.Cleanup(rec.Close)
	l := startBKLegacy(t)
	dir := t.TempDir()
	logFile := filepath.Join(dir, "info.log")
	const issuer2 = "https://login-two.example-railway.eu"
	base := provCaddy(t, func(port int) string {
		return fmt.Sprintf(`{
	admin off
	persist_config off
	auto_https off
	log {
		output file %[1]s
		format json
		level INFO
	}
}

http://127.0.0.1:%[2]d {
	route /one/token {
		osdm_login {
			signing_key_file %[3]s
			issuer %[4]s
			audience %[5]s
			client alpine {
				alg RS256
				key alp-1 %[6]s
			}
		}
	}
	route /two/token {
		osdm_login {
			signing_key_file %[3]s
			issuer %[7]s
			audience %[5]s
			client alpine {
				alg RS256
				key alp-1 %[6]s
			}
		}
	}
	route /legacy {
		osdm_convert {
			partner labels
		}
		reverse_proxy %[8]s
	}
	route /osdm/* {
		uri strip_prefix /osdm
		osdm_legacy {
			partner labels-legacy
			store bolt %[9]s
		}
		reverse_proxy %[10]s
	}
	route /metrics {
		metrics
	}
}
`, logFile, port, f.loginPEM, provIssuer, provAudience, f.path("alpine.pub"), issuer2, rec.Listener.Addr(),
			filepath.Join(dir, "legacy.db"), l.addr)
	})
	form := func(assertion string) string {
		return url.Values{"grant_type": {"urn:ietf:params:oauth:grant-type:jwt-bearer"}, "assertion": {assertion}}.Encode()
	}
	for _, path := range []string{"/one/token", "/two/token"} {
		if status, body, _ := provDo(t, http.MethodPost, base+path, provForm, form(f.alpineToken(time.Now())), nil); status != http.StatusOK {
			t.Fatalf("%s: %d %s", path, status, body)
		}
	}
	stranger := f.identity(jwt.SigningMethodRS256, f.alpine, "stranger", "s-1", time.Now(), nil)
	if status, body, _ := provDo(t, http.MethodPost, base+"/two/token", provForm, form(stranger), nil); status != http.StatusBadRequest {
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
	if status, reply, _ := provDo(t, http.MethodPost, base+"/legacy", legacy.XML.ContentType(), string(body), nil); status != http.StatusBadRequest {
		t.Fatalf("bad BookingRequest: %d %s", status, reply)
	}

	c := &bkClient{t: t, base: base}
	var br osdm.BookingResponse
	c.ok("POST", "/bookings", bookingOf(c.offer("708").OfferID), newUUID(), 200, &br)

	_, metrics, _ := provDo(t, http.MethodGet, base+"/metrics", "", "", nil)
	if err := caddy.Stop(); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`caddy_osdm_login_token_requests_total{client="alpine",issuer="` + provIssuer + `",outcome="granted"}`,
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

	raw, _ := os.ReadFile(logFile)
	var refusedLogin, refusedLegacy, search, booking int
	for _, line := range bytes.Split(raw, []byte("\n")) {
		var m map[string]any
		if json.Unmarshal(line, &m) != nil {
			continue
		}
		switch m["msg"] {
		case "token request refused":
			refusedLogin++
			if kid, has := m["kid"]; has || m["issuer"] != issuer2 {
				t.Errorf("login refusal line: kid %q, issuer %v: %s", kid, m["issuer"], line)
			}
		case "access token issued":
			if m["kid"] != "alp-1" || m["issuer"] == nil {
				t.Errorf("login line: %s", line)
			}
		case "legacy request refused":
			refusedLegacy++
			if m["message_id"] != "LBL-bad-1" || m["kind"] != "BookingRequest" {
				t.Errorf("legacy refusal line: %s", line)
			}
		case "osdm call":
			switch m["operation"] {
			case "POST /offers":
				search++
			case "POST /bookings":
				booking++
			}
		}
	}
	if refusedLogin != 1 || refusedLegacy != 1 || search != 0 || booking != 1 {
		t.Errorf("INFO lines: %d login refusals, %d legacy refusals, %d searches, %d bookings; want 1, 1, 0, 1:\n%s",
			refusedLogin, refusedLegacy, search, booking, raw)
	}
}
