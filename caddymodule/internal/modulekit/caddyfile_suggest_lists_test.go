package modulekit_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/consumer"
	"github.com/caddy-osdm/caddy-osdm/caddymodule/legacyprovider"
	"github.com/caddy-osdm/caddy-osdm/caddymodule/providerauth"
	"github.com/caddy-osdm/caddy-osdm/caddymodule/sandbox"
)

// TestSuggestionListsAreTheParsersNames: every name a module's suggestion
// list offers is one its parser takes (a name it refuses would be
// suggested for a typo and refused again). The list is read from the
// parser's own answer to a name far from every known one.
func TestSuggestionListsAreTheParsersNames(t *testing.T) {
	known := regexp.MustCompile(`\(known: ([^)]*)\)`)
	for _, m := range []struct {
		directive string
		new       func() caddyfile.Unmarshaler
		open      string // the block the names are in
	}{
		{"osdm_convert", func() caddyfile.Unmarshaler { return new(consumer.Convert) }, ""},
		{"osdm_token", func() caddyfile.Unmarshaler { return new(consumer.Token) }, ""},
		{"osdm_login", func() caddyfile.Unmarshaler { return new(providerauth.Login) }, ""},
		{"osdm_login", func() caddyfile.Unmarshaler { return new(providerauth.Login) }, "client a"},
		{"osdm_access", func() caddyfile.Unmarshaler { return new(providerauth.Access) }, ""},
		{"osdm_legacy", func() caddyfile.Unmarshaler { return new(legacyprovider.OSDMLegacy) }, ""},
		{"osdm_sandbox", func() caddyfile.Unmarshaler { return new(sandbox.Sandbox) }, ""},
		{"legacy_sandbox", func() caddyfile.Unmarshaler { return new(sandbox.LegacySandbox) }, ""},
	} {
		block := func(line string) string {
			if m.open != "" {
				line = "\t" + m.open + " {\n\t" + line + "\t}\n"
			}
			return m.directive + " {\n" + line + "}"
		}
		err := m.new().UnmarshalCaddyfile(caddyfile.NewTestDispenser(block("\tqqqqqqqqqqqqqqqq x\n")))
		list := known.FindStringSubmatch(fmt.Sprint(err))
		if list == nil {
			t.Errorf("%s %s: an unknown name is answered %v, without the known names", m.directive, m.open, err)
			continue
		}
		for _, name := range strings.Split(list[1], ", ") {
			err := m.new().UnmarshalCaddyfile(caddyfile.NewTestDispenser(block("\t" + name + " x\n")))
			if err != nil && strings.Contains(err.Error(), "unrecognized") {
				t.Errorf("%s %s: listed %q is refused: %v", m.directive, m.open, name, err)
			}
		}
	}
}
