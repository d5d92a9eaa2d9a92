package harness

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig"
	_ "github.com/caddyserver/caddy/v2/modules/standard"

	// The order of the osdm directives in a route.
	_ "github.com/caddy-osdm/caddy-osdm/caddymodule"
)

// Adapt adapts a Caddyfile named name (for the file:line of errors and
// warnings) to JSON. A Caddyfile that `caddy fmt` would change is a test
// bug: each adapter warning fails the test.
func Adapt(t testing.TB, name, caddyfile string) []byte {
	t.Helper()
	cfg, warnings, err := caddyconfig.GetAdapter("caddyfile").Adapt([]byte(caddyfile), map[string]any{"filename": name})
	if err != nil {
		t.Fatalf("adapting %s: %v", name, err)
	}
	for _, w := range warnings {
		t.Errorf("adapter warning: %s:%d: %s", w.File, w.Line, w.Message)
	}
	return cfg
}

// TryAdapt adapts a Caddyfile named name and returns the adapter's
// error, for Caddyfiles that must be refused.
func TryAdapt(name, caddyfile string) error {
	_, _, err := caddyconfig.GetAdapter("caddyfile").Adapt([]byte(caddyfile), map[string]any{"filename": name})
	return err
}

// TryLoad adapts caddyfile and runs it in this process, in place of the
// configuration running; it returns the error of caddy.Load. Caddy stops
// when the test ends.
func TryLoad(t testing.TB, caddyfile string) error {
	t.Helper()
	return TryLoadJSON(t, Adapt(t, "Caddyfile", caddyfile))
}

// TryLoadJSON is TryLoad of a JSON configuration.
func TryLoadJSON(t testing.TB, cfg []byte) error {
	t.Helper()
	t.Cleanup(func() { _ = caddy.Stop() })
	return caddy.Load(cfg, true)
}

// Load is TryLoad that fails the test if the configuration does not load.
func Load(t testing.TB, caddyfile string) {
	t.Helper()
	LoadNamed(t, "Caddyfile", caddyfile)
}

// LoadNamed is Load of a Caddyfile named name in errors and warnings.
func LoadNamed(t testing.TB, name, caddyfile string) {
	t.Helper()
	LoadJSON(t, Adapt(t, name, caddyfile))
}

// LoadJSON is Load of a JSON configuration, raw or any value that
// marshals to one.
func LoadJSON(t testing.TB, cfg any) {
	t.Helper()
	raw, ok := cfg.([]byte)
	if !ok {
		var err error
		if raw, err = json.Marshal(cfg); err != nil {
			t.Fatal(err)
		}
	}
	if err := TryLoadJSON(t, raw); err != nil {
		t.Fatalf("loading the configuration: %v", err)
	}
}

// ServeSite is Serve of the Caddyfile of one site: options (Options'
// block) and the site http://127.0.0.1:<port> holding what site returns
// for the port (see Site).
func ServeSite(t testing.TB, options string, site func(port int) string) string {
	t.Helper()
	return Serve(t, func(port int) string { return options + Site(port, site(port)) })
}

// Serve runs the Caddyfile caddyfile returns for a free port (FreePort)
// and returns its base URL, http://127.0.0.1:<port>.
func Serve(t testing.TB, caddyfile func(port int) string) string {
	t.Helper()
	port := FreePort(t)
	Load(t, caddyfile(port))
	return fmt.Sprintf("http://127.0.0.1:%d", port)
}
