package osdmlegacy

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/osdm"
	"github.com/caddy-osdm/caddy-osdm/store/storetest"
)

// TestSettlementDropsStaleMarks: marks left by a crash between the mark
// and the record (nothing was sent) are deleted once a live call could no
// longer be writing them; fresher ones are left.
func TestSettlementDropsStaleMarks(t *testing.T) {
	e := newBookEnv(t, memKind, nil)
	ctx := context.Background()
	old := e.clock.Now()
	if err := e.f.settlement.markIntent(ctx, "bk-AAAAAAAAAAAAAAAAAAAAAA.book", "bk-AAAAAAAAAAAAAAAAAAAAAA", old); err != nil {
		t.Fatal(err)
	}
	if err := e.f.settlement.markHold(ctx, "bk-AAAAAAAAAAAAAAAAAAAAAA", old); err != nil {
		t.Fatal(err)
	}
	if rep, _ := e.f.Settle(ctx); rep.Stale != 0 {
		t.Errorf("fresh marks dropped: %+v", rep)
	}
	e.clock.Advance(2*e.cfg.Timeout + time.Second)
	if rep, _ := e.f.Settle(ctx); rep.Stale != 2 {
		t.Errorf("stale marks: %+v", rep)
	}
	for _, kind := range []string{kindIntent, kindHold} {
		if m, _ := e.f.settlement.listMarks(ctx, kind); len(m) != 0 {
			t.Errorf("%s marks left: %v", kind, m)
		}
	}
}

// TestStoreDownSendsNothing: when the store cannot record the intent, the
// BookingRequest never leaves and the answer is a retryable 503 that says
// nothing of the cause.
func TestStoreDownSendsNothing(t *testing.T) {
	e := newBookEnv(t, memKind, nil)
	o := e.offer("9203")
	e.st.(*storetest.Memory).Fail = errors.New("disk on fire at /var/lib/x")
	a := e.call(e.f, "POST", "/bookings", bookingBodyOf(o))
	p := decodeProblem(t, a)
	if a.Status != 503 || p.Code != osdm.CodeServiceUnavailable || a.StoreErrors == 0 || strings.Contains(p.Detail, "fire") {
		t.Errorf("answer %d %+v, store errors %d", a.Status, p, a.StoreErrors)
	}
	if n := e.legacy.attempts(); n != 0 {
		t.Errorf("%d legacy messages sent without a recorded intent", n)
	}
	e.st.(*storetest.Memory).Fail = nil
	e.assertAgree(true)

	// An intent that settlement cannot read stays for the next run.
	e.legacy.inject(fault{kind: "BookingRequest", what: "lost"})
	e.call(e.f, "POST", "/bookings", bookingBodyOf(o))
	e.st.(*storetest.Memory).Fail = errors.New("store down")
	if rep, err := e.f.Settle(context.Background()); err == nil || rep.Errors == 0 {
		t.Errorf("settlement on a failing store: %+v %v", rep, err)
	}
	e.st.(*storetest.Memory).Fail = nil
	if rep := e.settle(e.f); rep.Settled != 1 {
		t.Errorf("settlement once the store is back: %+v", rep)
	}
	e.assertAgree(true)
}

// TestBookingRetention: a booking record expires bookingRetention after
// its train arrived, never while an intent is open.
func TestBookingRetention(t *testing.T) {
	e := newBookEnv(t, memKind, nil)
	o := e.offer("9203")
	e.legacy.inject(fault{kind: "BookingRequest", what: "lost"})
	e.call(e.f, "POST", "/bookings", bookingBodyOf(o))
	e.clock.Advance(bookingRetention + 48*time.Hour)
	if n := len(e.records()); n != 1 {
		t.Fatalf("a record with an open intent expired")
	}
	// Settled: the legacy system has forgotten the message and its train
	// left long ago, so the resend is refused; nothing is held either way.
	e.settle(e.f)
	for _, r := range e.records() {
		if r.Pending != nil || r.State.holdsPlaces() {
			t.Errorf("state %s after settlement", r.State)
		}
	}
	e.assertAgree(true)
	e.clock.Advance(time.Hour + time.Second)
	if n := len(e.records()); n != 0 {
		t.Errorf("a settled booking long after its train is kept: %d records", n)
	}
	e.assertAgree(true)
}
