package osdmsandbox

import (
	"testing"

	"github.com/caddy-osdm/caddy-osdm/internal/osdmspec"
)

// TestMappingDocListsEveryOperation holds docs/mapping.md's table of
// every OSDM operation to the router: its osdm_sandbox cell says 501
// exactly when no route serves the operation.
func TestMappingDocListsEveryOperation(t *testing.T) {
	osdmspec.CheckDocOperations(t, "../docs/mapping.md", "`osdm_sandbox`", func(method, path string) bool {
		return router.Match(method, path).Route != nil
	})
}
