package harness

import (
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/internal/testrig"
)

// ReturnsWithin fails t with failure unless f returns within d: the bound
// on a call that must not hang, such as a store's Stop
// (internal/testrig's, which the tests of tokenauth and store share).
func ReturnsWithin(t testing.TB, d time.Duration, failure string, f func()) {
	t.Helper()
	testrig.ReturnsWithin(t, d, failure, f)
}
