package tokenauth

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/internal/benchcpu"
	"github.com/caddy-osdm/caddy-osdm/internal/testclock"
)

// fakeSource hands out numbered tokens living `lifetime`, optionally
// blocking until released, or failing with err.
type fakeSource struct {
	clock    *testclock.Clock
	lifetime time.Duration
	calls    atomic.Int64
	gate     chan struct{} // if not nil, each call waits for a receive
	started  chan struct{} // if not nil, gets a value when a call starts
	mu       sync.Mutex
	err      error
}

func (s *fakeSource) Token(ctx context.Context) (*Token, error) {
	n := s.calls.Add(1)
	if s.started != nil {
		s.started <- struct{}{}
	}
	if s.gate != nil {
		select {
		case <-s.gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	s.mu.Lock()
	err := s.err
	s.mu.Unlock()
	if err != nil {
		return nil, err
	}
	return &Token{AccessToken: fmt.Sprintf("tok-%d", n), Expiry: s.clock.Now().Add(s.lifetime)}, nil
}

func (s *fakeSource) setErr(err error) { s.mu.Lock(); s.err = err; s.mu.Unlock() }

// waitingCtx counts the callers that reached the point of waiting for a
// login: TokenCache selects on ctx.Done() there, and nowhere on its hit path.
type waitingCtx struct {
	context.Context
	waiting *atomic.Int64
}

func (c waitingCtx) Done() <-chan struct{} {
	c.waiting.Add(1)
	return c.Context.Done()
}

func TestCacheColdStampedeMakesOneLogin(t *testing.T) {
	clock := testclock.New(testNow)
	src := &fakeSource{clock: clock, lifetime: time.Minute, gate: make(chan struct{})}
	c := NewTokenCache(src, CacheConfig{Now: clock.Now})
	o := &countingObserver{}
	c.SetObserver(o)
	const n = 1000
	var waiting atomic.Int64
	ctx := waitingCtx{context.Background(), &waiting}
	var done sync.WaitGroup
	done.Add(n)
	results := make([]*Token, n)
	errs := make([]error, n)
	for i := range n {
		go func() {
			defer done.Done()
			results[i], errs[i] = c.Token(ctx)
		}()
	}
	// The login answers only once every caller waits for it.
	waitFor(t, func() bool { return waiting.Load() == n })
	close(src.gate)
	done.Wait()
	if got := src.calls.Load(); got != 1 {
		t.Fatalf("%d login calls for %d concurrent cold requests, want 1", got, n)
	}
	if o.hits.Load() != 0 {
		t.Fatalf("%d callers were served from the cache; all %d must have been cold", o.hits.Load(), n)
	}
	for i := range n {
		if errs[i] != nil || results[i] != results[0] {
			t.Fatalf("caller %d got %v, %v; want the shared token", i, results[i], errs[i])
		}
	}
}

func TestCacheRefreshAheadInBackground(t *testing.T) {
	clock := testclock.New(testNow)
	src := &fakeSource{clock: clock, lifetime: 100 * time.Second, started: make(chan struct{}, 1)}
	c := NewTokenCache(src, CacheConfig{Now: clock.Now})
	ctx := context.Background()
	first, err := c.Token(ctx)
	if err != nil {
		t.Fatal(err)
	}
	<-src.started

	// 10% of 100 s is 10 s: nothing happens before 90 s.
	clock.Advance(89 * time.Second)
	if tok, _ := c.Token(ctx); tok != first || src.calls.Load() != 1 {
		t.Fatalf("at 89 s: token %v, %d calls; want the first token and no refresh", tok, src.calls.Load())
	}

	// At 91 s the cached token is still served and a refresh starts; the
	// refresh is held so that we can see readers are not blocked by it.
	src.gate = make(chan struct{})
	clock.Advance(2 * time.Second)
	if tok, err := c.Token(ctx); tok != first || err != nil {
		t.Fatalf("at 91 s: got %v, %v; want the current token during the refresh", tok, err)
	}
	<-src.started
	for range 100 {
		if tok, _ := c.Token(ctx); tok != first {
			t.Fatal("reader saw another token during the refresh")
		}
	}
	if got := src.calls.Load(); got != 2 {
		t.Fatalf("%d login calls, want 2 (one refresh, however many readers)", got)
	}
	close(src.gate)

	// Once the refresh is done, the new token is served.
	waitFor(t, func() bool { tok, _ := c.Token(ctx); return tok != first })
	tok, _ := c.Token(ctx)
	if tok.AccessToken != "tok-2" {
		t.Fatalf("after refresh got %q, want tok-2", tok.AccessToken)
	}
}

// waitFor polls cond, yielding between tries; it fails the test if cond is
// never true. It waits for background goroutines, not for time to pass.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition never became true")
		}
		time.Sleep(time.Millisecond)
	}
}

func TestRefreshAhead(t *testing.T) {
	for _, tc := range []struct {
		configured, lifetime, want time.Duration
	}{
		{0, time.Hour, 6 * time.Minute},                   // 10%
		{0, 100 * time.Second, 10 * time.Second},          // 10%
		{0, 30 * time.Second, 5 * time.Second},            // at least 5 s
		{0, 4 * time.Second, 2 * time.Second},             // never more than half
		{0, 2 * time.Second, time.Second},                 // 2 s tokens are still cached for 1 s
		{time.Minute, time.Hour, time.Minute},             // configured
		{time.Minute, 90 * time.Second, 45 * time.Second}, // configured, capped at half
	} {
		if got := RefreshAhead(tc.configured, tc.lifetime); got != tc.want {
			t.Errorf("RefreshAhead(%s, %s) = %s, want %s", tc.configured, tc.lifetime, got, tc.want)
		}
	}
}

func TestCacheShortLivedTokenIsCached(t *testing.T) {
	clock := testclock.New(testNow)
	src := &fakeSource{clock: clock, lifetime: 2 * time.Second}
	c := NewTokenCache(src, CacheConfig{Now: clock.Now})
	ctx := context.Background()
	first, _ := c.Token(ctx)
	clock.Advance(900 * time.Millisecond)
	if tok, _ := c.Token(ctx); tok != first || src.calls.Load() != 1 {
		t.Fatal("a 2 s token was not reused within its first second")
	}
	clock.Advance(1200 * time.Millisecond) // expired
	tok, err := c.Token(ctx)
	if err != nil || tok == first {
		t.Fatalf("expired token served: %v, %v", tok, err)
	}
}

func TestCacheBackoffAfterFailures(t *testing.T) {
	clock := testclock.New(testNow)
	loginErr := &LoginError{Partner: "sncf", Status: 503, Code: "temporarily_unavailable"}
	src := &fakeSource{clock: clock, lifetime: time.Minute}
	src.setErr(loginErr)
	c := NewTokenCache(src, CacheConfig{Now: clock.Now, MinBackoff: time.Second, MaxBackoff: 4 * time.Second})
	ctx := context.Background()

	// attempt makes one call and reports whether it reached the login service.
	attempt := func() (bool, error) {
		before := src.calls.Load()
		_, err := c.Token(ctx)
		return src.calls.Load() > before, err
	}
	// Failure n waits between half and all of min(1 s * 2^(n-1), 4 s).
	for n, full := range []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 4 * time.Second} {
		called, err := attempt()
		if !called {
			t.Fatalf("failure %d: the login service was not asked", n+1)
		}
		var le *LoginError
		if !errors.As(err, &le) || le.Code != "temporarily_unavailable" {
			t.Fatalf("failure %d: got %v, want the LoginError", n+1, err)
		}
		clock.Advance(full/2 - time.Millisecond)
		called, err = attempt()
		if called {
			t.Fatalf("failure %d: login retried %s later, within the backoff", n+1, full/2-time.Millisecond)
		}
		if !errors.As(err, &le) || !strings.Contains(err.Error(), "next login attempt in") {
			t.Fatalf("during backoff got %v, want the last LoginError and the wait", err)
		}
		clock.Advance(full/2 + 2*time.Millisecond) // past the longest jittered wait
	}

	// Recovery resets the backoff.
	src.setErr(nil)
	if called, err := attempt(); !called || err != nil {
		t.Fatalf("after the backoff: called=%v err=%v", called, err)
	}
	src.setErr(loginErr)
	c.Invalidate(mustToken(t, c))
	attempt()
	clock.Advance(time.Second + time.Millisecond)
	if called, _ := attempt(); !called {
		t.Fatal("after a success the backoff did not start again at MinBackoff")
	}
}

func mustToken(t *testing.T, c *TokenCache) *Token {
	t.Helper()
	tok, err := c.Token(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func TestCacheInvalidateOnlyTheCachedToken(t *testing.T) {
	clock := testclock.New(testNow)
	src := &fakeSource{clock: clock, lifetime: time.Hour}
	c := NewTokenCache(src, CacheConfig{Now: clock.Now})
	a := mustToken(t, c)
	c.Invalidate(&Token{AccessToken: a.AccessToken, Expiry: a.Expiry}) // equal, but another generation
	if mustToken(t, c) != a || src.calls.Load() != 1 {
		t.Fatal("Invalidate dropped a token it was not given")
	}
	c.Invalidate(a)
	b := mustToken(t, c)
	if b == a || src.calls.Load() != 2 {
		t.Fatalf("after Invalidate(a) got %v with %d calls", b, src.calls.Load())
	}
	// Requests that failed with a are late: b must survive them.
	c.Invalidate(a)
	if mustToken(t, c) != b || src.calls.Load() != 2 {
		t.Fatal("a stale Invalidate dropped the new token")
	}
}

func TestCacheCallerContextEndsOnlyItsWait(t *testing.T) {
	clock := testclock.New(testNow)
	src := &fakeSource{clock: clock, lifetime: time.Hour, gate: make(chan struct{}), started: make(chan struct{}, 1)}
	c := NewTokenCache(src, CacheConfig{Now: clock.Now})
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { _, err := c.Token(ctx); errc <- err }()
	<-src.started
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	// The login goes on for the others.
	close(src.gate)
	if tok := mustToken(t, c); tok.AccessToken != "tok-1" || src.calls.Load() != 1 {
		t.Fatalf("got %v after %d calls; the cancelled caller's login was not kept", tok, src.calls.Load())
	}
}

func TestCacheClose(t *testing.T) {
	clock := testclock.New(testNow)
	src := &fakeSource{clock: clock, lifetime: time.Hour, gate: make(chan struct{})}
	c := NewTokenCache(src, CacheConfig{Now: clock.Now})
	c.Close()
	if _, err := c.Token(context.Background()); !errors.Is(err, context.Canceled) {
		t.Fatalf("after Close got %v, want context.Canceled", err)
	}
}

type countingObserver struct {
	hits, logins, failed atomic.Int64
}

func (o *countingObserver) CacheHit() { o.hits.Add(1) }
func (o *countingObserver) LoginDone(_ time.Duration, err error) {
	o.logins.Add(1)
	if err != nil {
		o.failed.Add(1)
	}
}

func TestCacheObserver(t *testing.T) {
	clock := testclock.New(testNow)
	src := &fakeSource{clock: clock, lifetime: time.Hour}
	c := NewTokenCache(src, CacheConfig{Now: clock.Now})
	o := &countingObserver{}
	c.SetObserver(o)
	for range 3 {
		mustToken(t, c)
	}
	if o.logins.Load() != 1 || o.hits.Load() != 2 || o.failed.Load() != 0 {
		t.Fatalf("logins=%d hits=%d failed=%d, want 1, 2, 0", o.logins.Load(), o.hits.Load(), o.failed.Load())
	}
}

// BenchmarkCacheHitParallel is the hot path of every proxied request.
// Target: <= 100 ns/op and 0 allocs/op.
func BenchmarkCacheHitParallel(b *testing.B) {
	src := &fakeSource{clock: testclock.New(time.Now()), lifetime: 24 * time.Hour}
	c := NewTokenCache(src, CacheConfig{})
	ctx := context.Background()
	benchcpu.Parallel(b, func() error {
		_, err := c.Token(ctx)
		return err
	})
}
