package tokenauth

import "time"

// CacheState describes a TokenCache's token and logins, for an operator:
// never the token itself.
type CacheState struct {
	// Obtained is when the current token was received; zero before the
	// first login (and after Invalidate).
	Obtained time.Time
	// Expires and RefreshAt are the current token's expiry and the time
	// its refresh in the background starts.
	Expires, RefreshAt time.Time
	// LastErr is the last failed login's error, until a login succeeds;
	// LastErrAt is when it failed.
	LastErr   error
	LastErrAt time.Time
	// Failures counts the failed logins since the last success.
	Failures int
	// RetryAt is when a login may be tried again after failures.
	RetryAt time.Time
}

// State describes the cache now.
func (c *TokenCache) State() CacheState {
	var s CacheState
	if e := c.cur.Load(); e != nil {
		s.Obtained = time.Unix(0, e.obtained)
		s.Expires = time.Unix(0, e.expiry)
		s.RefreshAt = time.Unix(0, e.refreshAt)
	}
	if at := c.retryAt.Load(); at != 0 {
		s.RetryAt = time.Unix(0, at)
	}
	c.mu.Lock()
	s.LastErr, s.LastErrAt, s.Failures = c.lastErr, c.lastErrAt, c.failures
	c.mu.Unlock()
	return s
}
