package tokenauth

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"
)

// Defaults of TokenCache.
const (
	// MinRefreshAhead is the smallest automatic refresh-ahead time.
	MinRefreshAhead = 5 * time.Second
	// DefaultMinBackoff is the wait after the first failed login.
	DefaultMinBackoff = time.Second
	// DefaultMaxBackoff caps the wait between failed logins.
	DefaultMaxBackoff = 2 * time.Minute
	// DefaultLoginTimeout bounds one login call.
	DefaultLoginTimeout = 30 * time.Second
)

// CacheObserver is told what the cache does, e.g. to count it in metrics.
// Its methods must be fast and safe for concurrent use.
type CacheObserver interface {
	// CacheHit is called when a token is served without waiting for a login.
	CacheHit()
	// LoginDone is called after each login call with its duration and result.
	LoginDone(d time.Duration, err error)
}

// CacheConfig configures a TokenCache. The zero value is usable.
type CacheConfig struct {
	// RefreshAhead is how long before expiry a background refresh starts.
	// Zero means 10% of the token's lifetime, at least MinRefreshAhead.
	// Either way it is capped at half the lifetime, so that tokens living
	// only a few seconds are still cached.
	RefreshAhead time.Duration
	// MinBackoff and MaxBackoff bound the exponential wait after failed
	// logins; zero means DefaultMinBackoff and DefaultMaxBackoff.
	MinBackoff, MaxBackoff time.Duration
	// LoginTimeout bounds one login call; zero means DefaultLoginTimeout.
	LoginTimeout time.Duration
	// Now is the clock; nil means time.Now.
	Now Clock
}

// cacheEntry is a cached token; readers load it atomically. Only fresh
// changes after it is stored.
type cacheEntry struct {
	tok       *Token
	obtained  int64 // unix nanoseconds
	expiry    int64 // unix nanoseconds
	refreshAt int64 // unix nanoseconds
	// fresh is set from when the entry is stored until a timer says its
	// refresh is due: while it is set, a hit needs no clock read, which
	// is most of the cost of a hit.
	fresh atomic.Bool
	timer stopper // clears fresh; nil when fresh was never set
}

// stopper is a timer that can be stopped: *time.Timer, or a test's.
type stopper interface{ Stop() bool }

// loginCall is one login in flight, shared by everyone waiting for it.
type loginCall struct {
	done chan struct{}
	tok  *Token
	err  error
}

// TokenCache is a TokenSource that keeps the token of an underlying source
// until it expires, refreshes it in the background ahead of expiry, makes
// at most one login call at a time however many callers wait, and backs off
// exponentially (with jitter) after failed logins. Readers keep using the
// current valid token during a refresh; the hit path takes no lock.
type TokenCache struct {
	src TokenSource
	cfg CacheConfig
	now Clock
	// afterFunc arms the timer that ends an entry's fresh time. It is
	// nil with a test's clock, which does not drive timers: every hit
	// then reads the clock.
	afterFunc func(time.Duration, func()) stopper
	observer  atomic.Pointer[observerBox]

	cur      atomic.Pointer[cacheEntry]
	inflight atomic.Bool  // a login call is running
	retryAt  atomic.Int64 // unix nanoseconds before which no login is tried

	mu        sync.Mutex // guards call, failures, lastErr, lastErrAt
	call      *loginCall
	failures  int
	lastErr   error
	lastErrAt time.Time

	ctx    context.Context // parent of login calls, cancelled by Close
	cancel context.CancelFunc
}

type observerBox struct{ o CacheObserver }

// NewTokenCache returns a cache in front of src.
func NewTokenCache(src TokenSource, cfg CacheConfig) *TokenCache {
	if cfg.MinBackoff <= 0 {
		cfg.MinBackoff = DefaultMinBackoff
	}
	if cfg.MaxBackoff <= 0 {
		cfg.MaxBackoff = DefaultMaxBackoff
	}
	if cfg.MaxBackoff < cfg.MinBackoff {
		cfg.MaxBackoff = cfg.MinBackoff
	}
	if cfg.LoginTimeout <= 0 {
		cfg.LoginTimeout = DefaultLoginTimeout
	}
	ctx, cancel := context.WithCancel(context.Background())
	c := &TokenCache{src: src, cfg: cfg, now: cfg.Now.orNow(), ctx: ctx, cancel: cancel}
	if cfg.Now == nil {
		c.afterFunc = func(d time.Duration, f func()) stopper { return time.AfterFunc(d, f) }
	}
	return c
}

// SetObserver replaces the observer (nil for none). A cache that outlives
// a configuration reload is given the new configuration's metrics this way.
func (c *TokenCache) SetObserver(o CacheObserver) {
	if o == nil {
		c.observer.Store(nil)
		return
	}
	c.observer.Store(&observerBox{o})
}

// Token returns the cached token if it is still valid, starting a
// background refresh once it is due; otherwise it waits for a login (one
// for all waiting callers) or until ctx ends. During backoff after a failed
// login it fails at once with that login's error.
func (c *TokenCache) Token(ctx context.Context) (*Token, error) {
	e := c.cur.Load()
	if e != nil && e.fresh.Load() {
		c.hit()
		return e.tok, nil
	}
	now := c.now().UnixNano()
	if e != nil && now < e.expiry {
		if now >= e.refreshAt && !c.inflight.Load() && now >= c.retryAt.Load() {
			c.startLogin()
		}
		c.hit()
		return e.tok, nil
	}
	return c.wait(ctx)
}

// hit tells the observer about a token served from the cache.
func (c *TokenCache) hit() {
	if ob := c.observer.Load(); ob != nil {
		ob.o.CacheHit()
	}
}

// Invalidate drops tok if it is still the cached token, e.g. after the
// partner answered 401 to it. A token that was already replaced is left
// alone, so that many requests failing with the same old token cause one
// login, not one each.
func (c *TokenCache) Invalidate(tok *Token) {
	if e := c.cur.Load(); e != nil && e.tok == tok && c.cur.CompareAndSwap(e, nil) {
		e.stopTimer()
	}
}

// Close cancels a login in flight and stops the cached token's timer;
// later logins fail.
func (c *TokenCache) Close() {
	c.cancel()
	if e := c.cur.Load(); e != nil {
		e.stopTimer()
	}
}

// wait joins the login in flight or starts one.
func (c *TokenCache) wait(ctx context.Context) (*Token, error) {
	c.mu.Lock()
	nowT := c.now()
	now := nowT.UnixNano()
	if e := c.cur.Load(); e != nil && now < e.expiry {
		c.mu.Unlock()
		return e.tok, nil
	}
	call := c.call
	if call == nil {
		if retry := c.retryAt.Load(); now < retry && c.lastErr != nil {
			err := c.lastErr
			c.mu.Unlock()
			return nil, fmt.Errorf("%w (next login attempt in %s)", err, time.Duration(retry-now).Round(time.Millisecond))
		}
		call = c.startLoginLocked()
	}
	c.mu.Unlock()
	select {
	case <-call.done:
		return call.tok, call.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// startLogin starts a background refresh unless one is running.
func (c *TokenCache) startLogin() {
	c.mu.Lock()
	if c.call == nil {
		c.startLoginLocked()
	}
	c.mu.Unlock()
}

// startLoginLocked starts a login call; c.mu must be held and c.call nil.
// The call runs on its own context, so that the caller who happened to
// start it cannot cancel it for everyone else.
func (c *TokenCache) startLoginLocked() *loginCall {
	call := &loginCall{done: make(chan struct{})}
	c.call = call
	c.inflight.Store(true)
	go c.login(call)
	return call
}

func (c *TokenCache) login(call *loginCall) {
	ctx, cancel := context.WithTimeout(c.ctx, c.cfg.LoginTimeout)
	start := c.now()
	tok, err := c.src.Token(ctx)
	cancel()
	end := c.now()
	if ob := c.observer.Load(); ob != nil {
		ob.o.LoginDone(end.Sub(start), err)
	}

	c.mu.Lock()
	if err == nil {
		if old := c.cur.Load(); old != nil {
			old.stopTimer()
		}
		e := c.entryFor(tok, end)
		c.armFresh(e, end)
		c.cur.Store(e)
		c.failures = 0
		c.lastErr = nil
		c.retryAt.Store(0)
	} else {
		c.failures++
		c.lastErr, c.lastErrAt = err, end
		c.retryAt.Store(end.Add(c.backoff(c.failures)).UnixNano())
	}
	call.tok, call.err = tok, err
	c.call = nil
	c.inflight.Store(false)
	c.mu.Unlock()
	close(call.done)
}

// entryFor computes when tok, received at now, is refreshed.
func (c *TokenCache) entryFor(tok *Token, now time.Time) *cacheEntry {
	lifetime := tok.Expiry.Sub(now)
	ahead := RefreshAhead(c.cfg.RefreshAhead, lifetime)
	return &cacheEntry{
		tok:       tok,
		obtained:  now.UnixNano(),
		expiry:    tok.Expiry.UnixNano(),
		refreshAt: tok.Expiry.Add(-ahead).UnixNano(),
	}
}

// armFresh lets hits on e, received at now, skip the clock until its
// refresh is due; then a timer clears the flag, and hits go back to
// reading the clock, which starts the refresh. A token due for refresh at
// once is not armed. The timer runs on the monotonic clock: should the
// wall clock jump or the machine sleep past the refresh, the partner's
// 401 to the old token still gets a new one (Invalidate).
func (c *TokenCache) armFresh(e *cacheEntry, now time.Time) {
	d := time.Duration(e.refreshAt - now.UnixNano())
	if c.afterFunc == nil || d <= 0 {
		return
	}
	e.fresh.Store(true)
	e.timer = c.afterFunc(d, func() { e.fresh.Store(false) })
}

// stopTimer stops e's timer, if it has one. The timer is set before e is
// stored, so any reader of e sees it.
func (e *cacheEntry) stopTimer() {
	if e.timer != nil {
		e.timer.Stop()
	}
}

// RefreshAhead is how long before expiry a token of the given lifetime is
// refreshed: configured, or 10% of the lifetime but at least
// MinRefreshAhead, and never more than half the lifetime.
func RefreshAhead(configured, lifetime time.Duration) time.Duration {
	ahead := configured
	if ahead <= 0 {
		ahead = max(lifetime/10, MinRefreshAhead)
	}
	return min(ahead, lifetime/2)
}

// backoff is the wait after the n-th failed login in a row: MinBackoff
// doubled per failure up to MaxBackoff, with the upper half jittered so
// that many instances do not retry in step.
func (c *TokenCache) backoff(n int) time.Duration {
	d := c.cfg.MinBackoff
	for i := 1; i < n && d < c.cfg.MaxBackoff; i++ {
		d *= 2
	}
	d = min(d, c.cfg.MaxBackoff)
	return d/2 + rand.N(d/2+1)
}

// Interface guard.
var _ TokenSource = (*TokenCache)(nil)
