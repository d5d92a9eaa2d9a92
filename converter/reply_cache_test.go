package converter

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/internal/testclock"
	"github.com/caddy-osdm/caddy-osdm/legacy"
)

func okResult(id string) *Result {
	return ok(&legacy.CancelReply{Header: legacy.ReplyHeader{CorrelationID: id}, BookingRef: "b-" + id, Status: legacy.StatusCancelled})
}

func TestReplyCacheSameMessageOnce(t *testing.T) {
	rc := NewReplyCache(10, time.Minute, nil)
	var runs atomic.Int32
	fn := func() *Result { runs.Add(1); return okResult("m1") }
	first, shared1 := rc.Do(context.Background(), "m1", []byte("body"), fn)
	second, shared2 := rc.Do(context.Background(), "m1", []byte("body"), fn)
	if runs.Load() != 1 {
		t.Fatalf("fn ran %d times, want once", runs.Load())
	}
	if shared1 || !shared2 {
		t.Errorf("shared %v %v, want false true", shared1, shared2)
	}
	if first != second {
		t.Error("the resent message got another reply")
	}
	if _, shared := rc.Do(context.Background(), "m2", []byte("body"), fn); shared || runs.Load() != 2 {
		t.Errorf("another messageId was served from the cache (runs %d)", runs.Load())
	}
}

func TestReplyCacheConcurrentDuplicateWaits(t *testing.T) {
	rc := NewReplyCache(10, time.Minute, nil)
	started, release := make(chan struct{}), make(chan struct{})
	var runs atomic.Int32
	fn := func() *Result {
		runs.Add(1)
		close(started)
		<-release
		return okResult("m1")
	}
	firstDone := make(chan *Result)
	go func() {
		res, _ := rc.Do(context.Background(), "m1", []byte("body"), fn)
		firstDone <- res
	}()
	<-started
	const dups = 8
	var wg sync.WaitGroup
	results := make([]*Result, dups)
	for i := range dups {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, shared := rc.Do(context.Background(), "m1", []byte("body"), func() *Result {
				t.Error("a duplicate ran its own exchange")
				return nil
			})
			if !shared {
				t.Error("duplicate not reported as shared")
			}
			results[i] = res
		}()
	}
	close(release)
	wg.Wait()
	first := <-firstDone
	for i, r := range results {
		if r != first {
			t.Errorf("duplicate %d got another reply", i)
		}
	}
	if runs.Load() != 1 {
		t.Errorf("fn ran %d times", runs.Load())
	}
}

func TestReplyCacheDuplicateGivesUpWithItsContext(t *testing.T) {
	rc := NewReplyCache(10, time.Minute, fixedNow)
	started, release := make(chan struct{}), make(chan struct{})
	go rc.Do(context.Background(), "m1", []byte("body"), func() *Result {
		close(started)
		<-release
		return okResult("m1")
	})
	<-started
	defer close(release)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, shared := rc.Do(ctx, "m1", []byte("body"), func() *Result {
		t.Error("a duplicate ran its own exchange")
		return nil
	})
	n := negativeOf(t, res)
	if !shared || n.Code != legacy.CodePartnerTimeout || !n.Retryable || n.Header.CorrelationID != "m1" || res.Status != 504 {
		t.Errorf("reply %+v status %d shared %v", n, res.Status, shared)
	}
}

func TestReplyCacheRefusesReusedMessageID(t *testing.T) {
	rc := NewReplyCache(10, time.Minute, fixedNow)
	rc.Do(context.Background(), "m1", []byte("first body"), func() *Result { return okResult("m1") })
	res, shared := rc.Do(context.Background(), "m1", []byte("other body"), func() *Result {
		t.Error("fn ran for a reused messageId")
		return nil
	})
	n := negativeOf(t, res)
	if n.Code != legacy.CodeInvalidMessage || res.Status != 400 || !shared || n.Header.CorrelationID != "m1" {
		t.Errorf("reply %+v status %d", n, res.Status)
	}
	if want := "messageId m1 was already used for another message; give every message its own messageId."; n.Text != want {
		t.Errorf("text %q", n.Text)
	}
	// The original message still gets its own reply.
	if res, _ := rc.Do(context.Background(), "m1", []byte("first body"), nil); res.Reply.Kind() != legacy.KindCancelReply {
		t.Errorf("the original message lost its reply: %s", res.Reply.Kind())
	}
}

func TestReplyCacheBounded(t *testing.T) {
	rc := NewReplyCache(3, time.Hour, nil)
	runs := map[string]int{}
	do := func(id string) {
		rc.Do(context.Background(), id, []byte(id), func() *Result { runs[id]++; return okResult(id) })
	}
	for i := range 5 {
		do("m" + strconv.Itoa(i))
	}
	if rc.Len() != 3 {
		t.Fatalf("Len %d, want 3", rc.Len())
	}
	do("m4") // newest: still held
	do("m0") // oldest: dropped, runs again
	if runs["m4"] != 1 || runs["m0"] != 2 {
		t.Errorf("runs %v: want m4 once (kept), m0 twice (dropped as oldest)", runs)
	}
	if rc.Len() != 3 {
		t.Errorf("Len %d after more messages, want 3", rc.Len())
	}
}

func TestReplyCacheExpires(t *testing.T) {
	clock := testclock.New(testNow)
	rc := NewReplyCache(10, time.Minute, clock.Now)
	runs := 0
	fn := func() *Result { runs++; return okResult("m1") }
	rc.Do(context.Background(), "m1", []byte("b"), fn)
	clock.Advance(59 * time.Second)
	rc.Do(context.Background(), "m1", []byte("b"), fn)
	if runs != 1 {
		t.Fatalf("runs %d before the ttl, want 1", runs)
	}
	clock.Advance(time.Second)
	if _, shared := rc.Do(context.Background(), "m1", []byte("b"), fn); shared || runs != 2 {
		t.Errorf("runs %d shared %v at the ttl: want the reply expired", runs, shared)
	}
	// Expired entries of other messages are dropped too.
	rc.Do(context.Background(), "m2", []byte("b"), fn)
	clock.Advance(2 * time.Minute)
	rc.Do(context.Background(), "m3", []byte("b"), fn)
	if rc.Len() != 1 {
		t.Errorf("Len %d, want only m3 left", rc.Len())
	}
}

func TestReplyCachePanicFreesWaiters(t *testing.T) {
	rc := NewReplyCache(10, time.Minute, fixedNow)
	started, release := make(chan struct{}), make(chan struct{})
	panicked := make(chan any)
	go func() {
		defer func() { panicked <- recover() }()
		rc.Do(context.Background(), "m1", []byte("b"), func() *Result {
			close(started)
			<-release
			panic("boom")
		})
	}()
	<-started
	type outcome struct {
		res    *Result
		shared bool
	}
	waiter := make(chan outcome)
	go func() {
		res, shared := rc.Do(context.Background(), "m1", []byte("b"), func() *Result { return okResult("m1") })
		waiter <- outcome{res, shared}
	}()
	close(release)
	if p := <-panicked; p != "boom" {
		t.Errorf("panic %v not passed on", p)
	}
	// The waiter either waited for the panicked run (and is freed with a
	// retryable failure) or came after it (and ran its own exchange).
	if w := <-waiter; w.shared {
		if n := negativeOf(t, w.res); n.Code != legacy.CodePartnerUnavailable || !n.Retryable {
			t.Errorf("waiter got %+v", n)
		}
	} else if w.res.Reply.Kind() != legacy.KindCancelReply {
		t.Errorf("waiter ran its own exchange but got %s", w.res.Reply.Kind())
	}
}

func TestReplyCachePanicIsNotCached(t *testing.T) {
	rc := NewReplyCache(10, time.Minute, fixedNow)
	func() {
		defer func() { _ = recover() }()
		rc.Do(context.Background(), "m1", []byte("b"), func() *Result { panic("boom") })
	}()
	if rc.Len() != 0 {
		t.Error("a panicked exchange stays cached")
	}
	if _, shared := rc.Do(context.Background(), "m1", []byte("b"), func() *Result { return okResult("m1") }); shared {
		t.Error("the resend after a panic did not run again")
	}
}
