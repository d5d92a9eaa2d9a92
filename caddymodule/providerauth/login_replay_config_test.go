package providerauth

import (
	"encoding/json"
	"testing"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/storeconfig"
)

// TestLoginReplayStoreJSON: replay_store is a store's JSON object (with
// engine memory and max_entries besides); the older spellings, "type" for
// "engine" and engine "store" for a named store, are read as before.
func TestLoginReplayStoreJSON(t *testing.T) {
	for in, want := range map[string]struct {
		cfg    storeconfig.Config
		engine string
	}{
		`{}`:                                  {storeconfig.Config{}, "memory"},
		`{"engine":"memory","max_entries":5}`: {storeconfig.Config{Engine: "memory"}, "memory"},
		`{"name":"main"}`:                     {storeconfig.Config{Name: "main"}, ""},
		`{"engine":"store","name":"main"}`:    {storeconfig.Config{Name: "main", Engine: "store"}, ""},
		`{"type":"redis","address":"a:1"}`:    {storeconfig.Config{Address: "a:1"}, "redis"},
		`{"engine":"redis","address":"a:1","prefix":"p:","timeout":"3s"}`: {storeconfig.Config{Engine: "redis", Address: "a:1", Prefix: "p:", Timeout: 3e9}, "redis"},
		`{"engine":"bolt","path":"/x"}`:                                   {storeconfig.Config{Engine: "bolt", Path: "/x"}, "bolt"},
	} {
		var r LoginReplayStore
		if err := json.Unmarshal([]byte(in), &r); err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		engine, err := r.engine()
		if err != nil || r.Config != want.cfg || engine != want.engine {
			t.Errorf("%s: %+v engine %q (%v), want %+v engine %q", in, r.Config, engine, err, want.cfg, want.engine)
		}
	}
	for _, in := range []string{`{"engine":"bolt","type":"redis"}`, `{"engine":"store"}`, `{"engine":"disk"}`} {
		var r LoginReplayStore
		_ = json.Unmarshal([]byte(in), &r)
		if _, err := r.engine(); err == nil {
			t.Errorf("%s accepted", in)
		}
	}
}
