package osdmlegacy

import (
	"strings"
	"testing"

	"github.com/caddy-osdm/caddy-osdm/internal/osdmspec"
	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// TestMappingDocListsEveryOperation holds docs/mapping.md's table of
// every OSDM operation to the router: its osdm_legacy cell says 501
// exactly when no route serves the operation, and names the restriction
// the 501 names.
func TestMappingDocListsEveryOperation(t *testing.T) {
	router := newTestFacade(t, Config{}, Deps{}).router
	osdmspec.CheckDocOperations(t, "../docs/mapping.md", "`osdm_legacy`", func(method, path string) bool {
		return router.Match(method, path).Route != nil
	})
	_, rows := osdmspec.DocOperations(t, "../docs/mapping.md")
	for _, op := range osdm.SpecOperations() {
		if why, ok := notOfferedWhy[op.ID]; ok && !strings.Contains(strings.Join(rows[op.String()], "|"), why) {
			t.Errorf("%s: the doc says %q, the answer names %q", op, rows[op.String()], why)
		}
	}
}

// TestNotOfferedWhyNamesSpecOperations: each operation a restriction rules
// out is one of the spec, and not served.
func TestNotOfferedWhyNamesSpecOperations(t *testing.T) {
	router := newTestFacade(t, Config{}, Deps{}).router
	for id := range notOfferedWhy {
		found := false
		for _, op := range osdm.SpecOperations() {
			if op.ID == id {
				found = true
				if router.Match(op.Method, op.Path).Route != nil {
					t.Errorf("%s is served, yet listed as ruled out", id)
				}
			}
		}
		if !found {
			t.Errorf("%s is no operationId of the spec", id)
		}
	}
}
