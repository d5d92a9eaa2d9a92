package integration

import (
	"bytes"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/harness"
	"github.com/caddyserver/caddy/v2"
)

// TestTransportCaddyfile: `transport osdm` takes the http transport's
// subdirectives, and an https upstream turns its TLS on as with
// `transport http`.
func TestTransportCaddyfile(t *testing.T) {
	cf := `:8080 {
	reverse_proxy https://osdm.sncf.example {
		transport osdm {
			tls_server_name osdm.sncf.example
			tls_insecure_skip_verify
			versions 1.1 2
			dial_timeout 3s
		}
	}
	reverse_proxy /plain/* 127.0.0.1:1 {
		transport osdm
	}
}
`
	out := harness.Adapt(t, "Caddyfile", cf)
	for _, want := range []string{
		`"transport":{"dial_timeout":3000000000,"protocol":"osdm","tls":{"insecure_skip_verify":true,"server_name":"osdm.sncf.example"},"versions":["1.1","2"]}`,
		`"transport":{"protocol":"osdm"}`,
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("adapted JSON\n%s\ndoes not contain\n%s", out, want)
		}
	}
	err := harness.TryAdapt("Caddyfile", `:8080 {
	reverse_proxy 127.0.0.1:1 {
		transport osdm {
			token_url https://login.example
		}
	}
}
`)
	if err == nil || !strings.Contains(err.Error(), "Caddyfile:4") {
		t.Fatalf("an option of osdm_token in the transport: %v, want an error naming Caddyfile:4", err)
	}
}

// TestTransportMissingFails: a reverse_proxy without `transport osdm`
// after osdm_token, or after osdm_access, would send calls without the
// token: the client gets a 502, and the log says what to add.
func TestTransportMissingFails(t *testing.T) {
	// First the front's proxy lacks the transport, then the provider's.
	for i, who := range []string{"osdm_token", "osdm_access"} {
		c := newRaceChain(t) // new ports: no hand-over from the last config
		logFile := filepath.Join(t.TempDir(), "caddy.log")
		c.extra = fmt.Sprintf("\tlog {\n\t\toutput file %s\n\t\tformat json\n\t}\n", logFile)
		cf := c.caddyfile()
		cut := strings.Index(cf, "transport osdm")
		if i == 1 {
			cut = strings.LastIndex(cf, "transport osdm")
		}
		harness.Load(t, cf[:cut]+"header_up X-Cut "+who+cf[cut+len("transport osdm"):])
		base := fmt.Sprintf("http://127.0.0.1:%d", c.front)
		code, body, _ := harness.PostJSON(t, base+"/a/x", "{}")
		if code != http.StatusBadGateway || body != "" {
			t.Errorf("without transport osdm after %s: %d %q, want a 502", who, code, body)
		}
		if code, body, _ := harness.PostJSON(t, base+"/plain/x", "{}"); code != http.StatusOK || body != "plain" {
			t.Errorf("the plain route: %d %q", code, body)
		}
		if _, _, seen, _ := c.p.Snapshot(); len(seen) != 0 {
			t.Errorf("the partner accepted %d requests", len(seen))
		}
		if err := caddy.Stop(); err != nil {
			t.Fatal(err)
		}
		if logs := harness.ReadFiles(t, logFile); !bytes.Contains(logs, []byte(who+": the reverse_proxy after it has no `transport osdm`")) {
			t.Errorf("no error of %s naming the fix in the log:\n%s", who, logs)
		}
	}
}
