package reverse

import (
	"strings"
	"testing"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/glue"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
)

// TestSuggestionListsAreTheParsersNames: every name the suggestion lists
// of osdm_legacy offers is one its parser takes (a
// name it refuses would be suggested for a typo and refused again).
func TestSuggestionListsAreTheParsersNames(t *testing.T) {
	for _, name := range glue.OsdmLegacySubdirectives {
		var m OSDMLegacy
		err := m.UnmarshalCaddyfile(caddyfile.NewTestDispenser("osdm_legacy {\n\t" + name + " x\n}"))
		if err != nil && strings.Contains(err.Error(), "unrecognized") {
			t.Errorf("osdm_legacy: listed %q is refused: %v", name, err)
		}
	}
}
