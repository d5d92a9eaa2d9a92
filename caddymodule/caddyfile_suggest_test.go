package caddymodule

import (
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
)

// TestSuggestionListsAreTheParsersNames: every name the suggestion lists
// of osdm_legacy and legacy_sandbox offer is one their parser takes (a
// name it refuses would be suggested for a typo and refused again).
func TestSuggestionListsAreTheParsersNames(t *testing.T) {
	for _, name := range osdmLegacySubdirectives {
		var m OSDMLegacy
		err := m.UnmarshalCaddyfile(caddyfile.NewTestDispenser("osdm_legacy {\n\t" + name + " x\n}"))
		if err != nil && strings.Contains(err.Error(), "unrecognized") {
			t.Errorf("osdm_legacy: listed %q is refused: %v", name, err)
		}
	}
	for _, name := range legacySandboxSubdirectives {
		var s LegacySandbox
		err := s.UnmarshalCaddyfile(caddyfile.NewTestDispenser("legacy_sandbox {\n\t" + name + " x\n}"))
		if err != nil && strings.Contains(err.Error(), "unrecognized") {
			t.Errorf("legacy_sandbox: listed %q is refused: %v", name, err)
		}
	}
}
