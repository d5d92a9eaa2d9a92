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
