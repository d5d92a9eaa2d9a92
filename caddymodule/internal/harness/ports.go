package harness

import (
	"testing"

	"github.com/caddy-osdm/caddy-osdm/internal/testrig"
)

// FreePort returns a port on 127.0.0.1 that nothing listens on, in
// 20000-31999 (below the ephemeral range, above internal/redistest's
// ports), not handed out before by this process.
func FreePort(t testing.TB) int {
	t.Helper()
	return testrig.FreePort(t, 20000, 32000)
}
