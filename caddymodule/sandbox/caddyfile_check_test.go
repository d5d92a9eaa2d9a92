package sandbox

import (
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2/caddyconfig"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/harness"
)

// refusal is a block of subdirectives and a text its error must hold.
type refusal struct{ block, want string }

// checkRefusals unmarshals each block inside a directive's braces into a
// new handler and wants the error each names; an argument on the
// directive line is refused as well.
func checkRefusals(t *testing.T, directive string, handler func() caddyfile.Unmarshaler, refusals []refusal) {
	t.Helper()
	for _, tc := range refusals {
		err := handler().UnmarshalCaddyfile(caddyfile.NewTestDispenser(directive + " {\n" + tc.block + "\n}"))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: err = %v, want %q", tc.block, err, tc.want)
		}
	}
	if err := handler().UnmarshalCaddyfile(caddyfile.NewTestDispenser(directive + " extra")); err == nil {
		t.Error("an argument on the directive line was accepted")
	}
}

// checkAdaptRefused wants the Caddyfile cf, named Caddyfile, to fail to
// adapt with an error naming line (Caddyfile:<n>) and holding what.
func checkAdaptRefused(t *testing.T, cf, line, what string) {
	t.Helper()
	_, _, err := caddyconfig.GetAdapter("caddyfile").Adapt([]byte(cf), map[string]any{"filename": "Caddyfile"})
	if err == nil || !strings.Contains(err.Error(), line) || !strings.Contains(err.Error(), what) {
		t.Errorf("err = %v, want one naming %s and %s", err, line, what)
	}
}

// checkAdaptedJSON wants the JSON adapted from cf to hold want.
func checkAdaptedJSON(t *testing.T, cf, want string) {
	t.Helper()
	out := harness.Adapt(t, "Caddyfile", cf)
	if !strings.Contains(string(out), want) {
		t.Fatalf("adapted JSON\n%s\ndoes not contain\n%s", out, want)
	}
}
