package osdmlegacy

import (
	"context"
	"errors"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/legacysandbox"
	"github.com/caddy-osdm/caddy-osdm/osdm"
	"github.com/caddy-osdm/caddy-osdm/store"
	"github.com/caddy-osdm/caddy-osdm/store/storetest"
)

// TestSettlementDropsStaleMarks: marks left by a crash between the mark
// and the record (nothing was sent) are deleted once a live call could no
// longer be writing them, a mark that does not read at once; fresher ones
// are left.
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
	if err := e.f.journeys.markJourneyOpen(ctx, "jn-AAAAAAAAAAAAAAAAAAAAAA", 0, old); err != nil {
		t.Fatal(err)
	}
	if rep, _ := e.f.Settle(ctx); rep.Stale != 0 {
		t.Errorf("fresh marks dropped: %+v", rep)
	}
	e.clock.Advance(2*e.cfg.Timeout + time.Second)
	if rep, _ := e.f.Settle(ctx); rep.Stale != 3 {
		t.Errorf("stale marks: %+v", rep)
	}
	for _, kind := range []string{kindIntent, kindHold, kindJourneyOpen} {
		if m, _ := e.f.settlement.listMarks(ctx, kind); len(m) != 0 {
			t.Errorf("%s marks left: %v", kind, m)
		}
	}
	// A mark that does not read tells no age: it is as stale as can be.
	if err := e.st.Put(ctx, storeKey(e.cfg.Partner, kindHold, "bk-BBBBBBBBBBBBBBBBBBBBBB"), []byte("not a mark"), 0); err != nil {
		t.Fatal(err)
	}
	if rep, _ := e.f.Settle(ctx); rep.Stale != 1 {
		t.Errorf("a hold mark that does not read: %+v", rep)
	}
	if m, _ := e.f.settlement.listMarks(ctx, kindHold); len(m) != 0 {
		t.Errorf("hold marks left: %v", m)
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

// countKind counts the messages of kind among msgs.
func countKind(msgs []legacy.Request, kind legacy.Kind) int {
	n := 0
	for _, m := range msgs {
		if m.Kind() == kind {
			n++
		}
	}
	return n
}

// TestSettlementAsksFirstWhenLegacyForgets: the answer to a BookingRequest
// is lost and the legacy system, keeping few replies, forgets its
// messageId after a few searches. Settlement asks with a SynchroRequest
// (answered from the booking records) and records the booking: one legacy
// booking, never a second BookingRequest.
func TestSettlementAsksFirstWhenLegacyForgets(t *testing.T) {
	for _, kind := range []storeKind{memKind, boltKind, redisKind} {
		t.Run(string(kind), func(t *testing.T) {
			e := newBookEnvWith(t, kind, nil, legacysandbox.Config{MaxEntries: 3})
			o := e.offer("9203", adult, child)
			e.legacy.inject(fault{kind: legacy.KindBookingRequest, what: "lost"})
			if a := e.call(e.f, "POST", "/bookings", bookingBodyOf(o)); a.Status != 504 {
				t.Fatalf("POST /bookings: %d %s", a.Status, a.Body)
			}
			for i := range 4 { // searches at the legacy system push the reply out
				e.sb.Handle(context.Background(), &legacy.AvailabilityRequest{
					Header: legacy.Header{MessageID: "search-" + strconv.Itoa(i)}, Journey: o.Journey(), Places: o.PlaceRequest(),
				})
			}
			rep := e.settle(e.f)
			if rep.Settled != 1 {
				t.Errorf("settlement %+v", rep)
			}
			sent := e.legacy.delivered()
			if countKind(sent, legacy.KindBookingRequest) != 1 || countKind(sent, legacy.KindSynchroRequest) != 1 {
				t.Errorf("messages: %d BookingRequests, %d SynchroRequests; want one of each", countKind(sent, legacy.KindBookingRequest), countKind(sent, legacy.KindSynchroRequest))
			}
			if n := e.heldCount(); n != 1 {
				t.Errorf("the legacy system holds %d bookings, want 1", n)
			}
			for _, r := range e.records() {
				if r.State != statePrebooked || r.Legacy == nil || len(r.Legacy.Places) != 2 {
					t.Errorf("record %s %+v, want PREBOOKED with the two places", r.State, r.Legacy)
				}
			}
			e.assertAgree(true)
		})
	}
}

// TestSettlementSynchroAnswers: what settlement does with each answer to
// its SynchroRequest. A SynchroRequest without an answer sends nothing
// else (the next run asks again); UNKNOWN (the BookingRequest never
// arrived) sends the BookingRequest; a version 1 legacy system that takes
// no SynchroRequest gets the same BookingRequest again; each ends in one
// legacy booking.
func TestSettlementSynchroAnswers(t *testing.T) {
	for _, c := range []struct {
		name      string
		book      string // the BookingRequest's fault
		sync      fault
		bookings  int // BookingRequests that reached the legacy system
		firstPass bool
	}{
		{"synchro lost", "lost", fault{kind: legacy.KindSynchroRequest, what: "slow"}, 1, false},
		{"synchro down", "lost", fault{kind: legacy.KindSynchroRequest, what: "down"}, 1, false},
		{"synchro garbage", "lost", fault{kind: legacy.KindSynchroRequest, what: "garbage"}, 1, false},
		{"synchro refused", "lost", fault{kind: legacy.KindSynchroRequest, what: "negative", code: legacy.CodePartnerUnavailable}, 1, false},
		{"never arrived", "slow", fault{}, 1, true},
		{"version 1 system", "lost", fault{kind: legacy.KindSynchroRequest, what: "negative", code: legacy.CodeUnsupportedMessage}, 2, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newBookEnv(t, memKind, nil)
			o := e.offer("9203")
			e.legacy.inject(fault{kind: legacy.KindBookingRequest, what: c.book})
			e.call(e.f, "POST", "/bookings", bookingBodyOf(o))
			if c.sync.kind != "" {
				e.legacy.inject(c.sync)
			}
			rep := e.settle(e.f)
			if c.firstPass != (rep.Settled == 1) {
				t.Errorf("first settlement %+v", rep)
			}
			if !c.firstPass {
				e.assertAgree(false)
				if rep.Unresolved != 1 {
					t.Errorf("first settlement %+v, want the intent unresolved", rep)
				}
				if rep := e.settle(e.f); rep.Settled != 1 {
					t.Errorf("second settlement %+v", rep)
				}
			}
			if n := countKind(e.legacy.delivered(), legacy.KindBookingRequest); n != c.bookings {
				t.Errorf("%d BookingRequests reached the legacy system, want %d", n, c.bookings)
			}
			if n := e.heldCount(); n != 1 {
				t.Errorf("the legacy system holds %d bookings, want 1", n)
			}
			e.assertAgree(true)
		})
	}
}

// TestSettlementRolledBack: a booking the legacy system rolled back
// (SynchroReply ROLLED_BACK) is recorded as refused: nothing is held, the
// offer can be booked again.
func TestSettlementRolledBack(t *testing.T) {
	e, o := newLostBookingEnv(t)
	var id string
	for rid := range e.records() {
		id = rid
	}
	// Another system (an operator) rolls the booking back first.
	sr := e.sb.Handle(context.Background(), &legacy.SynchroRequest{Header: legacy.Header{MessageID: "op-1"}, OriginalMessageID: id + ".book", Rollback: true})
	if r, ok := sr.(*legacy.SynchroReply); !ok || r.State != legacy.StateRolledBack {
		t.Fatalf("rollback: %#v", sr)
	}
	if rep := e.settle(e.f); rep.Settled != 1 {
		t.Errorf("settlement %+v", rep)
	}
	r := e.records()[id]
	if r.State != stateFailed || r.Failure == nil || r.Failure.Code != legacy.CodeBookingRolledBack || e.heldCount() != 0 {
		t.Errorf("record %s %+v, legacy holds %d", r.State, r.Failure, e.heldCount())
	}
	if n := countKind(e.legacy.delivered(), legacy.KindBookingRequest); n != 1 {
		t.Errorf("%d BookingRequests", n)
	}
	e.assertAgree(true)
	e.book(o)
}

// TestSettlementRolledBackExchange: the new places of an exchange, whose
// BookingRequest's answer was lost, rolled back at the legacy system
// (SynchroReply ROLLED_BACK): the operation is refused as a booking rolled
// back (503, try again), not as a booking cancelled before, since the
// booking stands on its journey; the same exchange offer is then booked.
func TestSettlementRolledBackExchange(t *testing.T) {
	e := newBookEnv(t, memKind, nil)
	id, fid := e.fulfilled(e.offer("9203", adult, child))
	xo := decodeOK[osdm.ExchangeOfferCollectionResponse](t, e.call(e.f, "POST", "/bookings/"+id+"/exchange-offers", exchangeSearch(e.records()[id], fid, "708", nil)), 200)
	body := map[string]any{"exchangeOffers": []any{map[string]any{"offerId": xo.ExchangeOffers[0].OfferID, "passengerRefs": xo.ExchangeOffers[0].PassengerRefs}}}
	e.legacy.inject(fault{kind: legacy.KindBookingRequest, what: "lost"})
	if a := e.call(e.f, "POST", "/bookings/"+id+"/exchange-operations", body); a.Status != 504 {
		t.Fatalf("exchange operation, its answer lost: %d %s", a.Status, a.Body)
	}
	xid := e.records()[id].Exchange.ID
	sr := e.sb.Handle(context.Background(), &legacy.SynchroRequest{Header: legacy.Header{MessageID: "op-1"}, OriginalMessageID: id + "." + stepExchangeBook + ".1", Rollback: true})
	if r, ok := sr.(*legacy.SynchroReply); !ok || r.State != legacy.StateRolledBack {
		t.Fatalf("rollback: %#v", sr)
	}
	if rep := e.settle(e.f); rep.Settled != 1 {
		t.Errorf("settlement %+v", rep)
	}
	r := e.records()[id]
	if r.State != stateFulfilled || r.Offer.Train != "9203" || r.Exchange.State != exchangeFailed || r.Exchange.Failure.Code != legacy.CodeBookingRolledBack {
		t.Errorf("after settlement: %s on train %s, exchange %s %+v", r.State, r.Offer.Train, r.Exchange.State, r.Exchange.Failure)
	}
	// A GET answers the operation as it is, ERROR with the refusal as its
	// problem, not a 503 that says to try again.
	g := decodeOK[osdm.ExchangeOperationResponse](t, e.call(e.f, "GET", "/bookings/"+id+"/exchange-operations/"+xid, nil), 200)
	if g.ExchangeOperation.Status != osdm.ExchangeError || len(g.Problems) != 1 || g.Problems[0].Code != osdm.CodeServiceUnavailable ||
		!strings.Contains(g.Problems[0].Detail, "stands as it was") {
		t.Errorf("the rolled back exchange reads %+v %+v", g.ExchangeOperation.Status, g.Problems)
	}
	e.assertAgree(true)
	if op := decodeOK[osdm.ExchangeOperationResponse](t, e.call(e.f, "POST", "/bookings/"+id+"/exchange-operations", body), 200); op.ExchangeOperation.Status != osdm.ExchangePrebooked {
		t.Errorf("the exchange again: %+v", op.ExchangeOperation)
	}
	e.assertAgree(true)
}

// TestSweeperReleasesExpiredHolds: a PREBOOKED booking not fulfilled
// within hold is released with a CancelRequest; one fulfilled in time is
// left alone; a fulfilment after the hold is refused.
func TestSweeperReleasesExpiredHolds(t *testing.T) {
	e := newBookEnv(t, memKind, func(c *Config) { c.Hold = 10 * time.Minute })
	late := e.book(e.offer("9203"))
	kept := e.book(e.offer("9204"))
	decodeOK[osdm.FulfillmentCollectionResponse](t, e.call(e.f, "POST", "/bookings/"+kept.ID+"/fulfillments", nil), 200)
	e.clock.Advance(9 * time.Minute)
	if rep, _ := e.f.Settle(t.Context()); rep.Released != 0 {
		t.Errorf("released before the hold ran out: %+v", rep)
	}
	e.clock.Advance(time.Minute)
	if a := e.call(e.f, "POST", "/bookings/"+late.ID+"/fulfillments", nil); a.Status != 409 {
		t.Errorf("fulfilment after the hold: %d %s", a.Status, a.Body)
	} else if p := decodeProblem(t, a); p.Code != osdm.CodeBookingExpired {
		t.Errorf("fulfilment after the hold: %+v", p)
	}
	rep, err := e.f.Settle(t.Context())
	if err != nil || rep.Released != 1 {
		t.Errorf("sweep: %+v %v", rep, err)
	}
	recs := e.records()
	if recs[late.ID].State != stateReleased || recs[kept.ID].State != stateFulfilled {
		t.Errorf("states %s %s", recs[late.ID].State, recs[kept.ID].State)
	}
	gb := decodeOK[osdm.BookingResponse](t, e.call(e.f, "GET", "/bookings/"+late.ID, nil), 200)
	if gb.Booking.BookedOffers[0].Reservations[0].Status != osdm.BookingPartReleased {
		t.Errorf("released booking reads %s", gb.Booking.BookedOffers[0].Reservations[0].Status)
	}
	if e.heldCount() != 1 {
		t.Errorf("legacy holds %d, want the fulfilled one", e.heldCount())
	}
	// The work list is empty now.
	marks, _ := e.f.settlement.listMarks(t.Context(), kindHold)
	if len(marks) != 0 {
		t.Errorf("hold marks left: %v", marks)
	}
	e.assertAgree(true)
}

// TestSweeperSurvivesRestart: the hold's state is in the bolt file; a new
// façade on the reopened file (a restart) releases the booking.
func TestSweeperSurvivesRestart(t *testing.T) {
	e := newBookEnv(t, memKind, nil)
	path := filepath.Join(t.TempDir(), "restart.db")
	st, err := store.OpenBolt(path, store.WithClock(e.clock.Now))
	if err != nil {
		t.Fatal(err)
	}
	e.st = st
	e.f = e.facade(st)
	b := e.book(e.offer("9203"))
	st.Close()

	e.clock.Advance(defaultHold + time.Second)
	st2, err := store.OpenBolt(path, store.WithClock(e.clock.Now))
	if err != nil {
		t.Fatal(err)
	}
	defer st2.Close()
	e.st = st2
	f2 := e.facade(st2)
	rep, err := f2.Settle(t.Context())
	if err != nil || rep.Released != 1 {
		t.Fatalf("settlement after restart: %+v %v", rep, err)
	}
	if r := e.records()[b.ID]; r.State != stateReleased {
		t.Errorf("after restart: %s", r.State)
	}
	e.assertAgree(true)
}

// TestTwoInstancesOneStore: a booking made on one instance is fulfilled
// and refunded on another: everything is in the store (memory shared;
// Redis when OSDM_TEST_REDIS is set: two connections, one prefix).
func TestTwoInstancesOneStore(t *testing.T) {
	for _, kind := range []storeKind{memKind, redisKind} {
		t.Run(string(kind), func(t *testing.T) {
			e := newBookEnv(t, kind, nil)
			second := e.st
			if kind == redisKind {
				second = openRedisStore(t, e.redisPrefix)
			}
			a, b := e.f, e.facade(second)
			bk := e.book(e.offer("9203"))
			path := "/bookings/" + bk.ID
			fu := decodeOK[osdm.FulfillmentCollectionResponse](t, e.call(b, "POST", path+"/fulfillments", nil), 200).Fulfillments[0]
			ro := decodeOK[osdm.RefundOfferCollectionResponse](t, e.call(b, "POST", path+"/refund-offers", map[string]any{"fulfillmentIds": []string{fu.ID}}), 200).RefundOffers[0]
			cr := decodeOK[osdm.RefundOfferResponse](t, e.call(b, "PATCH", path+"/refund-offers/"+ro.ID, `{"status":"CONFIRMED"}`), 200)
			if cr.RefundOffer.Status != osdm.RefundConfirmed {
				t.Errorf("refund on the second instance: %+v", cr.RefundOffer)
			}
			gb := decodeOK[osdm.BookingResponse](t, e.call(a, "GET", path, nil), 200)
			if gb.Booking.BookedOffers[0].Reservations[0].Status != osdm.BookingPartRefunded {
				t.Errorf("the first instance reads %s", gb.Booking.BookedOffers[0].Reservations[0].Status)
			}
			e.assertAgree(true)
		})
	}
}

// TestDeleteAfterHoldRanOut: a DELETE that comes before the sweeper does
// cancels at once (204); the sweeper then has nothing to release.
func TestDeleteAfterHoldRanOut(t *testing.T) {
	e := newBookEnv(t, memKind, nil)
	b := e.book(e.offer("9203"))
	e.clock.Advance(defaultHold + time.Minute)
	if a := e.call(e.f, "DELETE", "/bookings/"+b.ID, nil); a.Status != 204 {
		t.Fatalf("DELETE after the hold: %d %s", a.Status, a.Body)
	}
	if rep, _ := e.f.Settle(t.Context()); rep.Released != 0 {
		t.Errorf("sweeper released a deleted booking: %+v", rep)
	}
	if r := e.records()[b.ID]; r.State != stateCancelled || e.heldCount() != 0 {
		t.Errorf("record %s, legacy holds %d", r.State, e.heldCount())
	}
	e.assertAgree(true)
}

// TestSweeperKeepsAFreshHoldMark: the hold mark of an exchange operation
// is written before its record; a sweep that reads the record before it
// is written (FULFILLED, nothing held) leaves a mark younger than twice
// the timeout alone, so the new places are still swept once held. An old
// mark of a booking that holds nothing is dropped.
func TestSweeperKeepsAFreshHoldMark(t *testing.T) {
	e := newBookEnv(t, memKind, nil)
	id, _ := e.fulfilled(e.offer("9203", adult, child))
	e.clock.Advance(time.Hour)
	e.settle(e.f) // the booking's own mark is stale: dropped
	if err := e.f.settlement.markHold(t.Context(), id, e.clock.Now()); err != nil {
		t.Fatal(err)
	}
	e.settle(e.f)
	if marks, _ := e.f.settlement.listMarks(t.Context(), kindHold); len(marks) != 1 {
		t.Fatalf("a fresh hold mark of a fulfilled booking was dropped: %v", marks)
	}
	e.clock.Advance(time.Minute)
	e.settle(e.f)
	if marks, _ := e.f.settlement.listMarks(t.Context(), kindHold); len(marks) != 0 {
		t.Errorf("a stale hold mark kept: %v", marks)
	}
}
