package glue_test

import (
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/consumer"
	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/glue"
	"github.com/caddy-osdm/caddy-osdm/caddymodule/provider"
	"github.com/caddy-osdm/caddy-osdm/caddymodule/reverse"
	"github.com/caddy-osdm/caddy-osdm/caddymodule/sandbox"
)

// TestSuggestionListsAreTheParsersNames: every name a module's suggestion
// list offers is one its parser takes (a name it refuses would be
// suggested for a typo and refused again).
func TestSuggestionListsAreTheParsersNames(t *testing.T) {
	for _, m := range []struct {
		directive string
		known     []string
		new       func() caddyfile.Unmarshaler
		open      string // the block the names are in
	}{
		{"osdm_convert", glue.ConvertSubdirectives, func() caddyfile.Unmarshaler { return new(consumer.Convert) }, ""},
		{"osdm_token", glue.TokenSubdirectives, func() caddyfile.Unmarshaler { return new(consumer.Token) }, ""},
		{"osdm_login", glue.LoginSubdirectives, func() caddyfile.Unmarshaler { return new(provider.Login) }, ""},
		{"osdm_login", glue.LoginClientSubdirectives, func() caddyfile.Unmarshaler { return new(provider.Login) }, "client a"},
		{"osdm_access", glue.AccessSubdirectives, func() caddyfile.Unmarshaler { return new(provider.Access) }, ""},
		{"osdm_legacy", glue.OsdmLegacySubdirectives, func() caddyfile.Unmarshaler { return new(reverse.OSDMLegacy) }, ""},
		{"osdm_sandbox", glue.SandboxSubdirectives, func() caddyfile.Unmarshaler { return new(sandbox.Sandbox) }, ""},
		{"legacy_sandbox", glue.LegacySandboxSubdirectives, func() caddyfile.Unmarshaler { return new(sandbox.LegacySandbox) }, ""},
	} {
		for _, name := range m.known {
			line := "\t" + name + " x\n"
			if m.open != "" {
				line = "\t" + m.open + " {\n\t" + line + "\t}\n"
			}
			err := m.new().UnmarshalCaddyfile(caddyfile.NewTestDispenser(m.directive + " {\n" + line + "}"))
			if err != nil && strings.Contains(err.Error(), "unrecognized") {
				t.Errorf("%s %s: listed %q is refused: %v", m.directive, m.open, name, err)
			}
		}
	}
}
