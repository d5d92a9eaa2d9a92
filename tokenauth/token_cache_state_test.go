package tokenauth

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/internal/testclock"
)

// State tells when the token was obtained and expires, and the failed
// logins since the last success, with when the next may be tried.
func TestCacheState(t *testing.T) {
	clock := testclock.New(testNow)
	src := &fakeSource{clock: clock, lifetime: 100 * time.Second}
	c := NewTokenCache(src, CacheConfig{Now: clock.Now, MinBackoff: time.Second, RefreshAhead: 10 * time.Second})
	if s := c.State(); !s.Obtained.IsZero() || s.LastErr != nil || s.Failures != 0 {
		t.Fatalf("State before any login = %+v", s)
	}
	ctx := context.Background()
	if _, err := c.Token(ctx); err != nil {
		t.Fatal(err)
	}
	s := c.State()
	if !s.Obtained.Equal(testNow) || !s.Expires.Equal(testNow.Add(100*time.Second)) || !s.RefreshAt.Equal(testNow.Add(90*time.Second)) {
		t.Fatalf("State after a login = %+v", s)
	}

	src.setErr(errors.New("login service down"))
	clock.Advance(200 * time.Second) // expired: the next call logs in, and fails
	if _, err := c.Token(ctx); err == nil {
		t.Fatal("a failed login gave a token")
	}
	s = c.State()
	if s.LastErr == nil || s.LastErr.Error() != "login service down" || !s.LastErrAt.Equal(clock.Now()) || s.Failures != 1 || !s.RetryAt.After(clock.Now()) {
		t.Fatalf("State after a failed login = %+v", s)
	}
}
