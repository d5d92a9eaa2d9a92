package integration

import (
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/harness"
)

// exampleFilterFields are the fields of Caddyfile.example's log filter:
// the test runs the filter the project ships, not one of its own.
func exampleFilterFields(t *testing.T) string {
	t.Helper()
	src := string(harness.ReadFiles(t, filepath.Join("..", "..", "Caddyfile.example")))
	_, rest, ok := strings.Cut(src, exampleLogBlock)
	fields, _, ok2 := strings.Cut(rest, "\t\t}\n")
	if !ok || !ok2 || !strings.Contains(fields, "request>headers>Authenticate") {
		t.Fatalf("Caddyfile.example's global options have no log filter on request>headers>Authenticate")
	}
	return fields
}

// TestTokenInNoLogLine: a provider site (osdm_login, osdm_access, then a
// backend behind reverse_proxy) with Caddy's log at DEBUG and
// Caddyfile.example's filter on the default log; without a site log, with
// a bare `log`, and with a site log of its own (output and format, with
// the same filter), with and without handle_errors. A call answered 200,
// one whose backend is down (502), one a handler after osdm_access fails
// (500) and one whose token is refused (401): no line of any log holds
// the access token or the refused one, Caddy's error lines and access
// lines show the header REDACTED (so a Caddy that moves the request's
// headers elsewhere in its lines fails here), and the backend still got
// the token.
func TestTokenInNoLogLine(t *testing.T) {
	fields := exampleFilterFields(t)
	for _, tc := range []struct {
		name, siteLog string
		handleErrors  bool
	}{
		{name: "no site log"},
		{name: "bare log", siteLog: "bare"},
		{name: "bare log, handle_errors", siteLog: "bare", handleErrors: true},
		{name: "own log, handle_errors", siteLog: "own", handleErrors: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			defaultLog, siteLog := filepath.Join(dir, "default.log"), filepath.Join(dir, "site.log")
			f := harness.NewProvFixture(t)
			backend := harness.RecordHeader(t, "Authenticate", "ok")
			down := harness.FreePort(t)
			options := harness.Options("\tlog {\n\t\toutput file " + defaultLog + "\n\t\tlevel DEBUG\n\t\tformat filter {\n\t\t\twrap json\n" + fields + "\t\t}\n\t}\n")
			base := harness.ServeSite(t, options, func(port int) string {
				site := ""
				switch tc.siteLog {
				case "bare":
					site = "\tlog\n"
				case "own":
					site = "\tlog {\n\t\toutput file " + siteLog + "\n\t\tformat filter {\n\t\t\twrap json\n" + fields + "\t\t}\n\t}\n"
				}
				if tc.handleErrors {
					site += "\thandle_errors {\n\t\trespond \"failed: {err.status_code}\" {err.status_code}\n\t}\n"
				}
				return site + f.LoginRoute(f.AlpineClient()) + fmt.Sprintf(`
	route /osdm/* {
		osdm_access {
			issuer %s
			audience %s
		}
		route /osdm/offers {
			reverse_proxy %s {
				transport osdm
			}
		}
		route /osdm/down {
			reverse_proxy 127.0.0.1:%d {
				transport osdm
			}
		}
		route /osdm/fail {
			error "the backend broke" 500
		}
	}
`, harness.ProvIssuer, harness.ProvIssuer, backend.Addr, down)
			})
			status, body, _ := harness.Do(t, http.MethodPost, base+"/oauth/token", harness.FormType, harness.BearerForm(f.AlpineToken(time.Now())).Encode(), nil)
			var tok struct {
				AccessToken string `json:"access_token"`
			}
			if err := json.Unmarshal([]byte(body), &tok); status != http.StatusOK || err != nil || tok.AccessToken == "" {
				t.Fatalf("token: %d %s %v", status, body, err)
			}
			access := tok.AccessToken
			refused := access[:strings.LastIndexByte(access, '.')+1] + "c2lnbmF0dXJlLW9mLWEtZm9yZ2Vk"
			for _, c := range []struct {
				path, token string
				status      int
			}{
				{"/osdm/offers", access, http.StatusOK},
				{"/osdm/down", access, http.StatusBadGateway},
				{"/osdm/fail", access, http.StatusInternalServerError},
				{"/osdm/offers", refused, http.StatusUnauthorized},
			} {
				if status, body, _ := harness.Do(t, http.MethodGet, base+c.path, "", "", http.Header{"Authenticate": {"Bearer " + c.token}}); status != c.status {
					t.Fatalf("GET %s: %d %s, want %d", c.path, status, body, c.status)
				}
			}
			if got := backend.Got(); len(got) != 1 || got[0] != "Bearer "+access {
				t.Errorf("the backend got %d calls, or not the token", len(got))
			}

			type line struct {
				Level   string `json:"level"`
				Logger  string `json:"logger"`
				Msg     string `json:"msg"`
				Status  int    `json:"status"`
				Request struct {
					URI     string         `json:"uri"`
					Headers map[string]any `json:"headers"`
				} `json:"request"`
			}
			files := []string{defaultLog}
			if tc.siteLog == "own" {
				files = append(files, siteLog)
			}
			// Access lines are written after the answer: wait for them.
			var lines []line
			var raw string
			for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
				lines, raw = nil, ""
				for _, file := range files {
					lines = append(lines, harness.JSONLines[line](t, file)...)
					raw += string(harness.ReadFiles(t, file))
				}
				accessLines := 0
				for _, l := range lines {
					if strings.HasPrefix(l.Logger, "http.log.access") && strings.HasPrefix(l.Request.URI, "/osdm/") {
						accessLines++
					}
				}
				if tc.siteLog == "" || accessLines >= 4 || time.Now().After(deadline) {
					break
				}
			}
			for name, secret := range map[string]string{"access token": access, "refused token": refused} {
				if strings.Contains(raw, secret[strings.LastIndexByte(secret, '.')+1:]) {
					t.Errorf("the %s is in a log line", name)
				}
			}
			errorLines, accessLines, debugLines := 0, 0, 0
			for _, l := range lines {
				if l.Level == "debug" {
					debugLines++
				}
				isError, isAccess := strings.HasPrefix(l.Logger, "http.log.error"), strings.HasPrefix(l.Logger, "http.log.access")
				if !isError && !isAccess || !strings.HasPrefix(l.Request.URI, "/osdm/") {
					continue
				}
				if isError {
					errorLines++
				} else {
					accessLines++
				}
				if v := l.Request.Headers["Authenticate"]; v != "REDACTED" {
					t.Errorf("%s line of %s: Authenticate is %T, want REDACTED", l.Logger, l.Request.URI, v)
				}
			}
			if errorLines < 2 {
				t.Errorf("%d error lines of the 502 and the 500, want 2:\n%s", errorLines, raw)
			}
			if want := map[bool]int{true: 4, false: 0}[tc.siteLog != ""]; accessLines != want {
				t.Errorf("%d access lines of the functional calls, want %d:\n%s", accessLines, want, raw)
			}
			if debugLines == 0 {
				t.Errorf("no line at DEBUG: the test does not run at Caddy's debug level")
			}
		})
	}
}
