package harness

import (
	"fmt"
	"net"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig"
	_ "github.com/caddyserver/caddy/v2/modules/standard"

	// The order of the osdm directives in a route.
	_ "github.com/caddy-osdm/caddy-osdm/caddymodule"
)

// tokLoad adapts a Caddyfile and runs it in this process. A Caddyfile
// that `caddy fmt` would change is a test bug: the adapter's warning fails
// the test.
func LoadCaddyfile(t testing.TB, caddyfile string) {
	t.Helper()
	cfg, warnings, err := caddyconfig.GetAdapter("caddyfile").Adapt([]byte(caddyfile), map[string]any{"filename": "Caddyfile"})
	if err != nil {
		t.Fatalf("adapting Caddyfile: %v", err)
	}
	for _, w := range warnings {
		t.Errorf("adapter warning: %s", w.String())
	}
	if err := caddy.Load(cfg, true); err != nil {
		t.Fatalf("loading config: %v", err)
	}
}

// provCaddy runs a Caddyfile in this process on a free port.
func ServeCaddyfile(t testing.TB, caddyfile func(port int) string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cfg, warnings, err := caddyconfig.GetAdapter("caddyfile").Adapt([]byte(caddyfile(port)), map[string]any{"filename": "Caddyfile"})
	if err != nil {
		t.Fatalf("adapting: %v", err)
	}
	// A Caddyfile that `caddy fmt` would change is a test bug.
	for _, w := range warnings {
		t.Errorf("adapter warning: %s", w.String())
	}
	if err := caddy.Load(cfg, true); err != nil {
		t.Fatalf("loading: %v", err)
	}
	t.Cleanup(func() { _ = caddy.Stop() })
	return fmt.Sprintf("http://127.0.0.1:%d", port)
}
