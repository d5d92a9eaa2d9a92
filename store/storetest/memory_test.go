package storetest_test

import (
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/internal/testclock"
	"github.com/caddy-osdm/caddy-osdm/store"
	"github.com/caddy-osdm/caddy-osdm/store/storetest"
)

// TestMemorySuite holds the test double to the suite the real engines
// pass, so unit tests built on it see a store that behaves like them.
func TestMemorySuite(t *testing.T) {
	clock := testclock.New(time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC))
	storetest.Run(t, func(t *testing.T) store.Store {
		m := storetest.NewMemory()
		m.Now = clock.Now
		return m
	}, storetest.Clock{TTL: time.Hour, Advance: clock.Advance})
}
