package legacyprovider

import (
	"testing"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/harness"
)

// TestMain gives the package's tests a data directory of their own: a
// handler without a store keeps its bolt file in Caddy's data directory,
// and bbolt locks it, so test processes must not share the user's.
func TestMain(m *testing.M) { harness.Main(m, "osdm-reverse-data-") }
