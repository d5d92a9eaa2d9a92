package app_test

import (
	"context"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/appview"
	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/storeconfig"
)

// TestStoreRefusalsAreTheConfigs: the app refuses a handler's store with
// the one message storeconfig.Config.Validate gives, whether the store is
// named or inline, so that a Caddyfile, JSON and the app say the same.
func TestStoreRefusalsAreTheConfigs(t *testing.T) {
	ctx, cancel := caddy.NewContext(caddy.Context{Context: context.Background()})
	defer cancel()
	app, err := appview.For(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for name, cfg := range map[string]storeconfig.Config{
		"redis without address": {Engine: "redis"},
		"redis with a path":     {Engine: "redis", Address: "127.0.0.1:1", Path: "/x"},
		"bolt with an address":  {Engine: "bolt", Address: "127.0.0.1:1"},
		"unknown engine":        {Engine: "disk"},
		"negative timeout":      {Engine: "bolt", Timeout: caddy.Duration(-time.Second)},
		"named with a path":     {Name: "main", Path: "/x"},
		"named with a timeout":  {Name: "main", Timeout: caddy.Duration(time.Second)},
	} {
		want := cfg.Validate()
		if want == nil {
			t.Fatalf("%s: valid", name)
		}
		_, _, err := app.Store(&cfg)
		if err == nil || err.Error() != want.Error() {
			t.Errorf("%s: app says %v, the config %v", name, err, want)
		}
	}
}
