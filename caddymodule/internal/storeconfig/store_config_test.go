package storeconfig

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/modulekit"
)

func TestConfigValidate(t *testing.T) {
	bad := map[string]Config{
		"unknown engine":   {Engine: "disk"},
		"bolt address":     {Engine: "bolt", Address: "127.0.0.1:6379"},
		"bolt prefix":      {Engine: "bolt", Prefix: "x:"},
		"redis no address": {Engine: "redis"},
		"redis path":       {Engine: "redis", Address: "a:1", Path: "/x"},
		"negative timeout": {Engine: "bolt", Timeout: caddy.Duration(-time.Second)},
		"name and engine":  {Name: "main", Engine: "bolt"},
		"name and path":    {Name: "main", Path: "/x"},
	}
	for name, cfg := range bad {
		if err := cfg.Validate(); err == nil {
			t.Errorf("%s: valid", name)
		}
	}
	for _, cfg := range []Config{{}, {Name: "main"}, {Engine: "bolt", Path: "/x"}, {Engine: "redis", Address: "a:1", Prefix: "p:"}} {
		if err := cfg.Validate(); err != nil {
			t.Errorf("%+v: %v", cfg, err)
		}
	}
}

func TestStoreCaddyfile(t *testing.T) {
	good := map[string]Config{
		"store bolt":                                 {Engine: "bolt"},
		"store main":                                 {Name: "main"},
		"store bolt /var/lib/caddy/osdm.db":          {Engine: "bolt", Path: "/var/lib/caddy/osdm.db"},
		"store redis 10.0.0.5:6379":                  {Engine: "redis", Address: "10.0.0.5:6379"},
		"store redis redis://r:6379/2 railway-a:":    {Engine: "redis", Address: "redis://r:6379/2", Prefix: "railway-a:"},
		"store redis {env.REDIS} {env.REDIS_PREFIX}": {Engine: "redis", Address: "{env.REDIS}", Prefix: "{env.REDIS_PREFIX}"},
	}
	for src, want := range good {
		d := caddyfile.NewTestDispenser(src)
		d.Next()
		got, err := UnmarshalArgs(d, "store", d.RemainingArgs())
		if err != nil {
			t.Errorf("%s: %v", src, err)
			continue
		}
		if *got != want {
			t.Errorf("%s: %+v, want %+v", src, *got, want)
		}
		// The JSON a Caddyfile gives is snake_case and omits what is unset.
		j, _ := json.Marshal(got)
		if strings.Contains(string(j), `""`) || strings.Contains(string(j), "Engine") {
			t.Errorf("%s: JSON %s", src, j)
		}
	}
	bad := map[string]string{
		"store":                      "takes a store name, bolt [<path>] or redis",
		"store disk /x":              "a store name takes no more arguments",
		"store bolt /a /b":           "at most one path",
		"store redis":                "redis takes <address>",
		"store redis a:1 p: surplus": "redis takes <address>",
	}
	for src, want := range bad {
		d := caddyfile.NewTestDispenser("\n\n" + src)
		d.Next()
		_, err := UnmarshalArgs(d, "store", d.RemainingArgs())
		if err == nil {
			t.Errorf("%s: accepted", src)
			continue
		}
		if !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "Testfile:3") {
			t.Errorf("%s: error %q, want %q at Testfile:3", src, err, want)
		}
	}
}

// TestStoreSub: the store subdirective of a module's table reads its
// arguments as Unmarshal does, and its errors name the line.
func TestStoreSub(t *testing.T) {
	var cfg *Config
	table := modulekit.Table{Subs: []modulekit.Sub{Sub(&cfg)}}
	if _, err := table.Directive(caddyfile.NewTestDispenser("m {\n\tstore redis 10.0.0.5:6379 railway-a:\n}")); err != nil {
		t.Fatal(err)
	}
	if want := (Config{Engine: "redis", Address: "10.0.0.5:6379", Prefix: "railway-a:"}); cfg == nil || *cfg != want {
		t.Errorf("read %+v, want %+v", cfg, want)
	}
	_, err := table.Directive(caddyfile.NewTestDispenser("m {\n\tstore\n}"))
	if err == nil || !strings.Contains(err.Error(), "store takes a store name") || !strings.HasSuffix(err.Error(), "at Testfile:2") {
		t.Errorf("store without arguments: %v", err)
	}
	// An empty name is not the default store.
	_, err = table.Directive(caddyfile.NewTestDispenser("m {\n\tstore \"\"\n}"))
	if err == nil || !strings.Contains(err.Error(), `store "": a store name must not be empty`) || !strings.HasSuffix(err.Error(), "at Testfile:2") {
		t.Errorf("store with an empty name: %v", err)
	}
}
