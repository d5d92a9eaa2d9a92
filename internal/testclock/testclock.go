// Package testclock is a clock that tests move by hand, for the packages
// whose time is injected (converter, sandbox, tokenauth): expiry is tested
// by moving the clock, never by sleeping.
package testclock

import (
	"sync"
	"time"
)

// Clock is a settable clock, safe for concurrent use. Its Now method is
// what the packages take as their clock.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// New returns a clock that reads t until moved.
func New(t time.Time) *Clock { return &Clock{t: t} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Advance moves the clock by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}
