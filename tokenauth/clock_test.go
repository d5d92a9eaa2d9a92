package tokenauth

import (
	"testing"
	"time"
)

// TestClockNow: a Clock is read through Now, its own time when set and
// the wall clock's when nil, so that no holder needs a default.
func TestClockNow(t *testing.T) {
	fixed := time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)
	if got := Clock(func() time.Time { return fixed }).Now(); !got.Equal(fixed) {
		t.Errorf("set clock: %v", got)
	}
	before := time.Now()
	got := Clock(nil).Now()
	if got.Before(before) || got.After(time.Now()) {
		t.Errorf("nil clock: %v, not the wall clock's time", got)
	}
}
