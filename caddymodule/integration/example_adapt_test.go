package integration

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/harness"
	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig"
)

// TestExampleAdaptRoundTrip adapts Caddyfile.example and checks that every
// osdm_* handler's JSON decodes into its module and encodes back to the
// same JSON: what `caddy adapt` prints is a faithful JSON configuration.
func TestExampleAdaptRoundTrip(t *testing.T) {
	src := harness.ReadFiles(t, filepath.Join("..", "..", "Caddyfile.example"))
	out, warnings, err := caddyconfig.GetAdapter("caddyfile").Adapt(src, map[string]any{"filename": "Caddyfile.example"})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range warnings {
		t.Errorf("%s:%d: %s", w.File, w.Line, w.Message)
	}
	var tree any
	if err := json.Unmarshal(out, &tree); err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	harness.WalkHandlers(tree, func(h map[string]any) {
		name, _ := h["handler"].(string)
		info, err := caddy.GetModule("http.handlers." + name)
		if err != nil || !strings.HasPrefix(name, "osdm_") && !strings.HasPrefix(name, "legacy_") {
			return
		}
		seen[name]++
		raw, _ := json.Marshal(h)
		mod := info.New()
		if err := json.Unmarshal(raw, mod); err != nil {
			t.Fatalf("%s: %v in %s", name, err, raw)
		}
		back, _ := json.Marshal(mod)
		var want, got map[string]any
		_ = json.Unmarshal(raw, &want)
		delete(want, "handler")
		_ = json.Unmarshal(back, &got)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s does not round-trip:\nadapted %s\nback    %s", name, raw, back)
		}
	})
	for _, name := range []string{"legacy_sandbox", "osdm_legacy"} {
		if seen[name] != 1 {
			t.Errorf("Caddyfile.example adapts to %d %s handlers, want 1", seen[name], name)
		}
	}
	for _, name := range []string{"osdm_convert", "osdm_token", "osdm_login", "osdm_access", "osdm_sandbox"} {
		want := 3 // alpine, coastal, hermes
		if name == "osdm_sandbox" {
			want = 2
		}
		if seen[name] < want {
			t.Errorf("Caddyfile.example adapts to %d %s handlers, want %d", seen[name], name, want)
		}
	}
}

// TestExampleListensOnLoopback: every site of Caddyfile.example listens on
// 127.0.0.1 only; its keys are demo keys and its legacy side has no
// authentication of its own.
func TestExampleListensOnLoopback(t *testing.T) {
	src := harness.ReadFiles(t, filepath.Join("..", "..", "Caddyfile.example"))
	out := harness.Adapt(t, "Caddyfile.example", string(src))
	var cfg struct {
		Apps struct {
			HTTP struct {
				Servers map[string]struct {
					Listen []string `json:"listen"`
				} `json:"servers"`
			} `json:"http"`
		} `json:"apps"`
	}
	if err := json.Unmarshal(out, &cfg); err != nil {
		t.Fatal(err)
	}
	n := 0
	for name, srv := range cfg.Apps.HTTP.Servers {
		for _, l := range srv.Listen {
			n++
			addr, err := caddy.ParseNetworkAddress(l)
			if err != nil {
				t.Fatalf("server %s: %v", name, err)
			}
			if addr.Host != "127.0.0.1" {
				t.Errorf("server %s listens on %q, want 127.0.0.1 only", name, l)
			}
		}
	}
	if n < 5 {
		t.Errorf("Caddyfile.example adapts to %d listen addresses, want one per site (5)", n)
	}
}
