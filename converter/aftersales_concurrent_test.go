package converter

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/internal/redistest"
	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/osdm"
	"github.com/caddy-osdm/caddy-osdm/store"
	"github.com/caddy-osdm/caddy-osdm/store/storetest"
)

// Two after-sales messages on one booking, sent at once to two instances
// sharing the store. The first is held at a step until the second has
// either gone past a step of its own at the partner or is waiting for the
// booking (its lease refused), so the interleaving is forced whichever
// way the journal orders them.

// callerFunc is a Caller made of a function.
type callerFunc func(ctx context.Context, c *Call) (*Answer, error)

func (f callerFunc) Call(ctx context.Context, c *Call) (*Answer, error) { return f(ctx, c) }

// watchedStore tells, by closing waiting, that a booking's lease was
// refused: a message waits for another on the same booking.
type watchedStore struct {
	store.Store
	waiting chan struct{}
	once    sync.Once
}

func (w *watchedStore) PutIfAbsent(ctx context.Context, key string, value []byte, ttl time.Duration) (bool, error) {
	got, err := w.Store.PutIfAbsent(ctx, key, value, ttl)
	if err == nil && !got && strings.Contains(key, "/booking/") {
		w.once.Do(func() { close(w.waiting) })
	}
	return got, err
}

// twoInstances are two journals (two instances of route sbb) on one
// store, in memory or on the shared Redis.
func twoInstances(t *testing.T, onRedis bool) (a, b *Journal, w *watchedStore) {
	t.Helper()
	var s store.Store = storetest.NewMemory()
	if onRedis {
		rs, err := store.OpenRedis(context.Background(), store.RedisOptions{Address: redistest.Shared(t),
			Prefix: fmt.Sprintf("test-aftersales-%d:", time.Now().UnixNano())})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { rs.Close() })
		s = rs
	}
	w = &watchedStore{Store: s, waiting: make(chan struct{})}
	open := func() *Journal {
		j, err := NewJournal(testConverter(t, Config{}), w, JournalConfig{ReplyTTL: time.Minute, Lease: time.Minute, Poll: time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		return j
	}
	return open(), open(), w
}

// either is closed once one of a and b is.
func either(a, b <-chan struct{}) <-chan struct{} {
	out := make(chan struct{})
	go func() {
		select {
		case <-a:
		case <-b:
		}
		close(out)
	}()
	return out
}

// holdAt is x with the calls of step held until open is closed.
func holdAt(x Caller, step Step, open <-chan struct{}) Caller {
	return callerFunc(func(ctx context.Context, c *Call) (*Answer, error) {
		if c.Step == step {
			<-open
		}
		return x.Call(ctx, c)
	})
}

// signalAfter is x closing done once a call of step was answered.
func signalAfter(x Caller, step Step, done chan struct{}) Caller {
	var once sync.Once
	return callerFunc(func(ctx context.Context, c *Call) (*Answer, error) {
		a, err := x.Call(ctx, c)
		if c.Step == step {
			once.Do(func() { close(done) })
		}
		return a, err
	})
}

// concurrently runs the two messages, each through its own journal and
// caller, and returns their results: the second is sent once the first
// has made its first call to the partner.
func concurrently(t *testing.T, ja, jb *Journal, ma, mb legacy.Request, xa, xb Caller) (*Result, *Result) {
	t.Helper()
	var ra, rb *Result
	bodyA, bodyB := encodedBody(t, ma), encodedBody(t, mb)
	started := make(chan struct{})
	var once sync.Once
	first := callerFunc(func(ctx context.Context, c *Call) (*Answer, error) {
		once.Do(func() { close(started) })
		return xa.Call(ctx, c)
	})
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); ra, _ = ja.Do(context.Background(), ma, bodyA, first) }()
	go func() { defer wg.Done(); <-started; rb, _ = jb.Do(context.Background(), mb, bodyB, xb) }()
	wg.Wait()
	return ra, rb
}

func onBothStores(t *testing.T, test func(t *testing.T, onRedis bool)) {
	for _, onRedis := range []bool{false, true} {
		t.Run(map[bool]string{false: "memory", true: "redis"}[onRedis], func(t *testing.T) { test(t, onRedis) })
	}
}

// TestConcurrentPartialCancelsOfEveryPlace: two partial cancellations
// that together name every place, at once: the first answers
// PARTIALLY_REFUNDED, the second, which leaves nothing, REFUNDED (as
// when sent one after the other), each with its place, each passenger
// refunded once.
func TestConcurrentPartialCancelsOfEveryPlace(t *testing.T) {
	onBothStores(t, func(t *testing.T, onRedis bool) {
		ja, jb, w := twoInstances(t, onRedis)
		x := newSandboxCaller(t)
		b := sbBook(t, ja, x, "CP-B", 2)
		read := make(chan struct{})
		ma := &legacy.CancelRequest{Header: legacy.Header{MessageID: "CP-1"}, BookingRef: b.BookingRef, Places: b.Places[:1]}
		mb := &legacy.CancelRequest{Header: legacy.Header{MessageID: "CP-2"}, BookingRef: b.BookingRef, Places: b.Places[1:]}
		// The first is held before its refund offer until the second has
		// read the booking, or waits for it.
		ra, rb := concurrently(t, ja, jb, ma, mb, holdAt(x, StepRefundOffers, either(read, w.waiting)), signalAfter(x, StepReadBooking, read))
		ca, okA := ra.Reply.(*legacy.CancelReply)
		cb, okB := rb.Reply.(*legacy.CancelReply)
		if !okA || !okB {
			t.Fatalf("replies %+v, %+v", ra.Reply, rb.Reply)
		}
		if ca.Status != legacy.StatusPartiallyRefunded || len(ca.Places) != 1 || ca.Places[0] != b.Places[0] {
			t.Errorf("first: %s %v, want PARTIALLY_REFUNDED %v", ca.Status, ca.Places, b.Places[:1])
		}
		if cb.Status != legacy.StatusRefunded || len(cb.Places) != 1 || cb.Places[0] != b.Places[1] {
			t.Errorf("second, which leaves nothing booked: %s %v, want REFUNDED %v", cb.Status, cb.Places, b.Places[1:])
		}
		if n, amount := partnerRefunded(x, b.BookingRef, 2); n != 2 || amount != 900 || ca.RefundAmount.Amount != "4.50" || cb.RefundAmount.Amount != "4.50" {
			t.Errorf("partner refunded %d passengers, %d cents; replies %s + %s", n, amount, ca.RefundAmount.Amount, cb.RefundAmount.Amount)
		}
	})
}

// TestConcurrentCancelOfTheRest: a cancellation of the whole booking
// while a partial one runs: the partial one refunds its place, the whole
// one what is left, naming those places; neither is told the booking is
// cancelled already while places are still held.
func TestConcurrentCancelOfTheRest(t *testing.T) {
	onBothStores(t, func(t *testing.T, onRedis bool) {
		ja, jb, w := twoInstances(t, onRedis)
		x := newSandboxCaller(t)
		b := sbBook(t, ja, x, "CR-B", 3)
		offered, confirmed := make(chan struct{}), make(chan struct{})
		ma := &legacy.CancelRequest{Header: legacy.Header{MessageID: "CR-1"}, BookingRef: b.BookingRef, Places: b.Places[1:2]}
		mb := &legacy.CancelRequest{Header: legacy.Header{MessageID: "CR-2"}, BookingRef: b.BookingRef}
		// The partial one confirms once the whole one has its refund
		// offer (or waits for the booking); the whole one confirms after.
		xa := signalAfter(holdAt(x, StepRefundOffer, either(offered, w.waiting)), StepRefundOffer, confirmed)
		xb := holdAt(signalAfter(x, StepRefundOffers, offered), StepRefundOffer, confirmed)
		ra, rb := concurrently(t, ja, jb, ma, mb, xa, xb)
		ca, okA := ra.Reply.(*legacy.CancelReply)
		if !okA || ca.Status != legacy.StatusPartiallyRefunded || len(ca.Places) != 1 || ca.Places[0] != b.Places[1] {
			t.Errorf("partial: %+v", ra.Reply)
		}
		cb, okB := rb.Reply.(*legacy.CancelReply)
		if !okB || cb.Status != legacy.StatusRefunded || len(cb.Places) != 2 || cb.Places[0] != b.Places[0] || cb.Places[1] != b.Places[2] {
			t.Errorf("the rest: %+v, want REFUNDED %v %v", rb.Reply, b.Places[0], b.Places[2])
		}
		if n, _ := partnerRefunded(x, b.BookingRef, 3); n != 3 {
			t.Errorf("partner refunded %d passengers of 3; holds %v", n, heldBy(x, b.BookingRef))
		}
	})
}

// TestConcurrentExchangeAndPartialCancel: a partial cancellation while an
// exchange is pre-booked: the passenger refunded is not moved to the new
// train as well. The replies and the partner agree: the exchange moved
// both passengers, then one new place was refunded.
func TestConcurrentExchangeAndPartialCancel(t *testing.T) {
	onBothStores(t, func(t *testing.T, onRedis bool) {
		ja, jb, w := twoInstances(t, onRedis)
		x := newSandboxCaller(t)
		b := sbBook(t, ja, x, "CX-B", 2)
		made, confirmed := make(chan struct{}), make(chan struct{})
		mx := exchangeRequest("CX-1", b.BookingRef, "", 2)
		mp := &legacy.CancelRequest{Header: legacy.Header{MessageID: "CX-2"}, BookingRef: b.BookingRef, Places: b.Places[1:]}
		// The cancellation confirms its refund once the exchange operation
		// is made; the exchange confirms once the refund is confirmed (or
		// the cancellation waits for the booking).
		xx := signalAfter(holdAt(x, StepFulfillments, either(confirmed, w.waiting)), StepExchangeOperation, made)
		xp := signalAfter(holdAt(x, StepRefundOffer, made), StepRefundOffer, confirmed)
		rx, rp := concurrently(t, ja, jb, mx, mp, xx, xp)
		br, ok := rx.Reply.(*legacy.BookingReply)
		if !ok || len(br.Places) != 2 || br.Exchange == nil {
			t.Fatalf("exchange: %+v", rx.Reply)
		}
		cr, ok := rp.Reply.(*legacy.CancelReply)
		if !ok || cr.Status != legacy.StatusPartiallyRefunded || len(cr.Places) != 1 || cr.Places[0] != br.Places[1] {
			t.Fatalf("partial cancellation: %+v, exchanged to %v", rp.Reply, br.Places)
		}
		if held := heldBy(x, b.BookingRef); len(held) != 1 || seatsLeft(t, x, "9203") != 40 || seatsLeft(t, x, "9207") != 39 {
			t.Errorf("partner holds %v; seats left 9203 %d, 9207 %d (want 40, 39)", held, seatsLeft(t, x, "9203"), seatsLeft(t, x, "9207"))
		}
		for _, bo := range x.booking(b.BookingRef).BookedOffers {
			for _, res := range bo.Reservations {
				if res.Status == osdm.BookingPartExchanged && res.RefundAmount != nil {
					t.Errorf("the exchanged part %s was refunded too (%d cents)", res.ID, res.RefundAmount.Amount)
				}
			}
		}
	})
}

// TestConcurrentRollbacks: two SynchroRequests with rollback of one
// booking at once (a legacy system that sent it again under a new
// messageId): the booking is refunded once and both answer ROLLED_BACK
// with its amounts; neither says the booking was not refunded.
func TestConcurrentRollbacks(t *testing.T) {
	onBothStores(t, func(t *testing.T, onRedis bool) {
		ja, jb, w := twoInstances(t, onRedis)
		x := newSandboxCaller(t)
		b := sbBook(t, ja, x, "CS-B", 2)
		read, confirmed := make(chan struct{}), make(chan struct{})
		ma := &legacy.SynchroRequest{Header: legacy.Header{MessageID: "CS-1"}, OriginalMessageID: "CS-B", Rollback: true}
		mb := &legacy.SynchroRequest{Header: legacy.Header{MessageID: "CS-2"}, OriginalMessageID: "CS-B", Rollback: true}
		// The first confirms its refund once the second has read the
		// booking (or waits for it); the second asks for its refund offer
		// after that.
		xa := signalAfter(holdAt(x, StepRefundOffer, either(read, w.waiting)), StepRefundOffer, confirmed)
		xb := holdAt(signalAfter(x, StepReadBooking, read), StepRefundOffers, confirmed)
		ra, rb := concurrently(t, ja, jb, ma, mb, xa, xb)
		for i, res := range []*Result{ra, rb} {
			r, ok := res.Reply.(*legacy.SynchroReply)
			if !ok || r.State != legacy.StateRolledBack || r.RefundAmount == nil || r.RefundAmount.Amount != "10.00" {
				t.Errorf("rollback %d: %+v", i+1, res.Reply)
			}
		}
		if n, amount := partnerRefunded(x, b.BookingRef, 2); n != 2 || amount != 1000 {
			t.Errorf("partner refunded %d passengers, %d cents", n, amount)
		}
	})
}

// TestBookingBusyNotRecorded: a message whose booking another message
// holds until its own time is up (its context ends) is answered a
// retryable PARTNER_TIMEOUT, sends nothing and records nothing: its
// resend, once the booking is free, is carried out (the rollback, after
// the partial cancellation, is refused as such).
func TestBookingBusyNotRecorded(t *testing.T) {
	j := testJournal(t, storetest.NewMemory(), nil)
	x := newSandboxCaller(t)
	b := sbBook(t, j, x, "BB-B", 2)
	key := j.bookingLeaseKey(b.BookingRef)
	token, got, err := j.acquireKey(context.Background(), key)
	if err != nil || !got {
		t.Fatal(got, err)
	}
	over, cancel := context.WithCancel(context.Background())
	cancel()
	msgs := []legacy.Request{
		&legacy.CancelRequest{Header: legacy.Header{MessageID: "BB-1"}, BookingRef: b.BookingRef, Places: b.Places[:1]},
		&legacy.SynchroRequest{Header: legacy.Header{MessageID: "BB-2"}, OriginalMessageID: "BB-B", Rollback: true},
	}
	mark := len(x.calls)
	for _, m := range msgs {
		res, _ := j.Do(over, m, encodedBody(t, m), x)
		if n, ok := res.Reply.(*legacy.NegativeReply); !ok || n.Code != legacy.CodePartnerTimeout || !n.Retryable || n.BookingRef != b.BookingRef || !res.unsettled {
			t.Errorf("%s while the booking is held: %+v", m.MessageID(), res.Reply)
		}
	}
	if steps := x.steps(mark); len(steps) != 0 {
		t.Errorf("sent %v", steps)
	}
	j.releaseKey(key, token)
	if cr, ok := sbDo(t, j, x, msgs[0]).Reply.(*legacy.CancelReply); !ok || cr.Status != legacy.StatusPartiallyRefunded {
		t.Errorf("cancellation resent: %+v", cr)
	}
	// Carried out now: the booking was partly refunded since it was made,
	// which a technical rollback does not undo.
	if r, ok := sbDo(t, j, x, msgs[1]).Reply.(*legacy.NegativeReply); !ok || r.Code != legacy.CodeInvalidMessage || !strings.Contains(r.Text, "partly refunded") {
		t.Errorf("rollback resent: %+v", r)
	}
}
