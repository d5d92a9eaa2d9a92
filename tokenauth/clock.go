package tokenauth

import "time"

// Clock returns the current time. Every time-dependent type in tokenauth
// takes one so that tests can move time forward instead of sleeping; nil
// means time.Now.
type Clock func() time.Time

// orNow returns c, or time.Now when c is nil.
func (c Clock) orNow() Clock {
	if c == nil {
		return time.Now
	}
	return c
}

// Now is c's current time, time.Now's when c is nil, so that a holder of
// a Clock field reads it without a default of its own.
func (c Clock) Now() time.Time { return c.orNow()() }
