package osdmlegacy

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/legacysandbox"
	"github.com/caddy-osdm/caddy-osdm/osdm"
)

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
	e := newBookEnv(t, memKind, nil)
	o := e.offer("9203")
	e.legacy.inject(fault{kind: legacy.KindBookingRequest, what: "lost"})
	e.call(e.f, "POST", "/bookings", bookingBodyOf(o))
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
