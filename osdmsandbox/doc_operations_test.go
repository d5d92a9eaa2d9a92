package osdmsandbox

import (
	"slices"
	"strings"
	"testing"

	"github.com/caddy-osdm/caddy-osdm/internal/osdmspec"
	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// TestMappingDocListsEveryOperation holds docs/mapping.md's table of
// every OSDM operation to the router: each operation of the spec has a
// row, and its osdm_sandbox cell says 501 exactly when no route serves it.
func TestMappingDocListsEveryOperation(t *testing.T) {
	header, rows := osdmspec.DocOperations(t, "../docs/mapping.md")
	col := slices.Index(header, "`osdm_sandbox`")
	if col < 0 {
		t.Fatalf("no osdm_sandbox column in %v", header)
	}
	for _, op := range osdm.SpecOperations() {
		cells, ok := rows[op.String()]
		if !ok {
			t.Errorf("docs/mapping.md does not list %s", op)
			continue
		}
		delete(rows, op.String())
		served := router.Match(op.Method, op.Path).Route != nil
		if says501 := strings.HasPrefix(cells[col], "501"); says501 == served {
			t.Errorf("%s: the doc says %q, the router serves it: %v", op, cells[col], served)
		}
	}
	for key := range rows {
		t.Errorf("docs/mapping.md lists %s, which is no operation of the spec", key)
	}
}
