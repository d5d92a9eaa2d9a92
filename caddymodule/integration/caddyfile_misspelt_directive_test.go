package integration

import (
	"strings"
	"testing"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/harness"
)

// TestMisspeltDirectiveName pins what `caddy validate`, `adapt` and `run`
// say of a misspelt directive name, as docs/operations.md quotes it:
// Caddy's own error, with the file and line, at a site's top level and
// in a route (where the line named is the route's closing brace), and
// no suggestion (Caddy looks directive names up itself, with no hook for
// a plugin); within a directive of this project a misspelt subdirective
// gets its line and the closest name. Should Caddy start
// suggesting directive names, this test fails so the docs are updated.
func TestMisspeltDirectiveName(t *testing.T) {
	for _, c := range []struct {
		name, caddyfile, want string
	}{
		{"site", "http://:8080 {\n\tosdm_covert {\n\t\tpartner alpine\n\t}\n}\n",
			"Caddyfile:2: unrecognized directive: osdm_covert"},
		{"route", "http://:8080 {\n\troute /partners/alpine {\n\t\tosdm_covert {\n\t\t\tpartner alpine\n\t\t}\n\t}\n}\n",
			// The line is the route's closing brace, not the directive's.
			"parsing caddyfile tokens for 'route': unrecognized directive: osdm_covert - are you sure your Caddyfile structure (nesting and braces) is correct?, at Caddyfile:6"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := harness.TryAdapt("Caddyfile", c.caddyfile)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("adapting a misspelt directive: %v, want %q", err, c.want)
			}
			if strings.Contains(err.Error(), "osdm_convert") {
				t.Fatalf("Caddy now suggests a directive name (%v): docs/operations.md says it does not", err)
			}
		})
	}
	err := harness.TryAdapt("Caddyfile", "http://:8080 {\n\troute {\n\t\tosdm_convert {\n\t\t\tpartnr alpine\n\t\t}\n\t}\n}\n")
	if err == nil || !strings.Contains(err.Error(), `parsing caddyfile tokens for 'osdm_convert': unrecognized subdirective "partnr"; did you mean "partner"?, at Caddyfile:4`) {
		t.Fatalf("a misspelt subdirective: %v, want its line and the closest name", err)
	}
}
