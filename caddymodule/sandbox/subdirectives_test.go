package sandbox

import (
	"strings"
	"testing"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/glue"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
)

// TestSuggestionListsAreTheParsersNames: every name the suggestion lists
// of legacy_sandbox offers is one its parser takes (a
// name it refuses would be suggested for a typo and refused again).
func TestSuggestionListsAreTheParsersNames(t *testing.T) {
	for _, name := range glue.LegacySandboxSubdirectives {
		var s LegacySandbox
		err := s.UnmarshalCaddyfile(caddyfile.NewTestDispenser("legacy_sandbox {\n\t" + name + " x\n}"))
		if err != nil && strings.Contains(err.Error(), "unrecognized") {
			t.Errorf("legacy_sandbox: listed %q is refused: %v", name, err)
		}
	}
}
