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

// TestAccessTokenNotInAccessLog: a provider site (osdm_login, osdm_access,
// a backend behind reverse_proxy with transport osdm) with a `log` of its
// own, in JSON, with Caddyfile.example's filter, and Caddy's debug
// logging: no line of the log holds the access token, nor the identity
// token; the backend still gets the token in Authenticate. The line of
// each functional call is Caddy's own, with the header REDACTED: status,
// user, and a log_append field.
func TestAccessTokenNotInAccessLog(t *testing.T) {
	fields := exampleFilterFields(t)
	f := harness.NewProvFixture(t)
	backend := harness.RecordHeader(t, "Authenticate", "ok")
	logFile := filepath.Join(t.TempDir(), "access.log")
	base := harness.ServeSite(t, harness.Options(harness.DebugOption), func(port int) string {
		return fmt.Sprintf(`
	log {
		output file %s
		format filter {
			wrap json
%s		}
		level DEBUG
	}
`, logFile, fields) + f.LoginRoute(f.AlpineClient()) + fmt.Sprintf(`
	route /osdm/* {
		log_append osdm_site provider
		osdm_access {
			issuer %s
			audience %s
		}
		reverse_proxy %s {
			transport osdm
		}
	}
`, harness.ProvIssuer, harness.ProvIssuer, backend.Addr)
	})
	identity := f.AlpineToken(time.Now())
	form := harness.BearerForm(identity).Encode()
	status, body, _ := harness.Do(t, http.MethodPost, base+"/oauth/token", harness.FormType, form, nil)
	if status != http.StatusOK {
		t.Fatalf("token: %d %s", status, body)
	}
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	if err := json.Unmarshal([]byte(body), &tok); err != nil || tok.AccessToken == "" {
		t.Fatalf("token answer %s: %v", body, err)
	}
	access := tok.AccessToken
	for _, h := range []string{"Bearer " + access, access} {
		if status, body, _ := harness.Do(t, http.MethodGet, base+"/osdm/offers", "", "", http.Header{"Authenticate": {h}}); status != http.StatusOK || body != "ok" {
			t.Fatalf("functional call: %d %s", status, body)
		}
	}
	got := backend.Got()
	for _, h := range got {
		if h != "Bearer "+access && h != access {
			t.Errorf("the backend got Authenticate %q", shortTok(h))
		}
	}
	if n := len(got); n != 2 {
		t.Fatalf("the backend got %d calls", n)
	}
	// The access log is written after the answer: wait for both lines.
	var logs string
	deadline := time.Now().Add(time.Minute)
	for {
		logs = string(harness.ReadFiles(t, logFile))
		if strings.Count(logs, `"uri":"/osdm/offers"`) >= 2 || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !strings.Contains(logs, `"uri":"/osdm/offers"`) {
		t.Fatalf("the access log has no line of the functional call:\n%s", logs)
	}
	calls := 0
	for _, line := range strings.Split(logs, "\n") {
		var m struct {
			Msg     string `json:"msg"`
			Logger  string `json:"logger"`
			Status  int    `json:"status"`
			UserID  string `json:"user_id"`
			Site    string `json:"osdm_site"`
			Request struct {
				URI     string         `json:"uri"`
				Headers map[string]any `json:"headers"`
			} `json:"request"`
		}
		if json.Unmarshal([]byte(line), &m) != nil || m.Msg != "handled request" || m.Request.URI != "/osdm/offers" {
			continue
		}
		calls++
		if m.Status != 200 || m.UserID != "alpine" || m.Site != "provider" || !strings.HasPrefix(m.Logger, "http.log.access") ||
			m.Request.Headers["Authenticate"] != "REDACTED" {
			t.Errorf("access log line of a functional call: %s", shortTok(line))
		}
	}
	if calls != 2 {
		t.Errorf("%d access log lines of the 2 functional calls:\n%s", calls, logs)
	}
	// A token's signature is its last segment: no line has it.
	for name, tok := range map[string]string{"access token": access, "identity token": identity} {
		sig := tok[strings.LastIndexByte(tok, '.')+1:]
		for _, line := range strings.Split(logs, "\n") {
			if strings.Contains(line, sig) {
				t.Errorf("the %s is in the log: %s", name, shortTok(line))
			}
		}
	}
}

// shortTok shortens s for a failure message.
func shortTok(s string) string {
	if len(s) > 300 {
		return s[:300] + "..."
	}
	return s
}
