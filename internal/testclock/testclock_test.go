package testclock

import (
	"sync"
	"testing"
	"time"
)

func TestClockMovesOnlyWhenTold(t *testing.T) {
	start := time.Date(2026, 12, 1, 8, 30, 0, 0, time.FixedZone("CET", 3600))
	c := New(start)
	if got := c.Now(); !got.Equal(start) || got.Location() != start.Location() {
		t.Fatalf("Now() = %v, want %v in its zone", got, start)
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() { c.Advance(time.Minute) })
	}
	wg.Wait()
	if got := c.Now(); !got.Equal(start.Add(4 * time.Minute)) {
		t.Fatalf("after 4 advances of 1m: %v", got)
	}
}
