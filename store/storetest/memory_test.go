package storetest_test

import (
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/store"
	"github.com/caddy-osdm/caddy-osdm/store/storetest"
)

// TestMemorySuite holds the test double to the suite the real engines
// pass, so unit tests built on it see a store that behaves like them.
func TestMemorySuite(t *testing.T) {
	storetest.RunOnTestClock(t, func(t *testing.T, now func() time.Time) store.Store {
		m := storetest.NewMemory()
		m.Now = now
		return m
	})
}
