package tokenauth

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/internal/testclock"
)

// manualTimers stands in for time.AfterFunc: it records the timers a
// TokenCache arms, and the test fires them.
type manualTimers struct {
	mu    sync.Mutex
	armed []*manualTimer
}

type manualTimer struct {
	d       time.Duration
	fire    func()
	stopped atomic.Bool
}

func (t *manualTimer) Stop() bool { return !t.stopped.Swap(true) }

func (m *manualTimers) afterFunc(d time.Duration, f func()) stopper {
	m.mu.Lock()
	defer m.mu.Unlock()
	t := &manualTimer{d: d, fire: f}
	m.armed = append(m.armed, t)
	return t
}

func (m *manualTimers) list() []*manualTimer {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]*manualTimer(nil), m.armed...)
}

// freshCache is a cache on a fake clock that counts its reads, with
// manual timers.
func freshCache(lifetime time.Duration) (*TokenCache, *testclock.Clock, *fakeSource, *manualTimers, *atomic.Int64) {
	clock := testclock.New(testNow)
	reads := new(atomic.Int64)
	src := &fakeSource{clock: clock, lifetime: lifetime, started: make(chan struct{}, 4)}
	c := NewTokenCache(src, CacheConfig{Now: func() time.Time { reads.Add(1); return clock.Now() }})
	timers := &manualTimers{}
	c.afterFunc = timers.afterFunc
	return c, clock, src, timers, reads
}

func TestCacheFreshHitsReadNoClockUntilTheRefreshTimer(t *testing.T) {
	c, clock, src, timers, reads := freshCache(time.Hour)
	ctx := context.Background()
	first := mustToken(t, c)
	<-src.started

	// Refresh ahead is 10% of the hour: the timer ends the fresh time at
	// 54 minutes.
	armed := timers.list()
	if len(armed) != 1 || armed[0].d != 54*time.Minute {
		t.Fatalf("armed %d timers (first: %+v), want one of 54m", len(armed), armed)
	}
	before := reads.Load()
	for range 100 {
		if tok := mustToken(t, c); tok != first {
			t.Fatalf("got %v, want the cached token", tok)
		}
	}
	if n := reads.Load() - before; n != 0 {
		t.Fatalf("100 fresh hits read the clock %d times, want 0", n)
	}

	// The timer fires when the refresh is due: hits read the clock again,
	// keep serving the token, and start one refresh.
	src.gate = make(chan struct{})
	clock.Advance(55 * time.Minute)
	armed[0].fire()
	if tok, err := c.Token(ctx); tok != first || err != nil {
		t.Fatalf("after the timer got %v, %v; want the current token during the refresh", tok, err)
	}
	<-src.started
	if reads.Load() == before {
		t.Fatal("a hit after the timer did not read the clock")
	}
	close(src.gate)
	waitFor(t, func() bool { tok, _ := c.Token(ctx); return tok != first })
	if got := src.calls.Load(); got != 2 {
		t.Fatalf("%d login calls, want 2", got)
	}

	// The new token is armed in turn; the old timer is stopped.
	armed = timers.list()
	if len(armed) != 2 || !armed[0].stopped.Load() || armed[1].stopped.Load() {
		t.Fatalf("timers after the refresh: %d, first stopped %v; want 2, the first stopped and the second running", len(armed), armed[0].stopped.Load())
	}
}

func TestCacheInvalidateEndsTheFreshTime(t *testing.T) {
	c, _, src, timers, _ := freshCache(time.Hour)
	first := mustToken(t, c)
	<-src.started
	c.Invalidate(first)
	if !timers.list()[0].stopped.Load() {
		t.Fatal("the invalidated token's timer still runs")
	}
	if tok := mustToken(t, c); tok == first {
		t.Fatal("an invalidated token was served from its fresh time")
	}
	if got := src.calls.Load(); got != 2 {
		t.Fatalf("%d login calls, want 2", got)
	}
}

func TestCacheCloseStopsTheTimer(t *testing.T) {
	c, _, src, timers, _ := freshCache(time.Hour)
	mustToken(t, c)
	<-src.started
	c.Close()
	if !timers.list()[0].stopped.Load() {
		t.Fatal("Close left the timer running")
	}
}

func TestCacheWithATestClockArmsNoTimer(t *testing.T) {
	clock := testclock.New(testNow)
	c := NewTokenCache(&fakeSource{clock: clock, lifetime: time.Hour}, CacheConfig{Now: clock.Now})
	mustToken(t, c)
	if e := c.cur.Load(); e.fresh.Load() || e.timer != nil {
		t.Fatal("a cache on a test clock armed a timer it cannot drive")
	}
}

func TestCacheOnTheRealClockIsArmed(t *testing.T) {
	src := &fakeSource{clock: testclock.New(time.Now()), lifetime: time.Hour}
	c := NewTokenCache(src, CacheConfig{})
	defer c.Close()
	mustToken(t, c)
	if e := c.cur.Load(); !e.fresh.Load() || e.timer == nil {
		t.Fatal("a cache on the real clock did not arm the fresh time")
	}
}
