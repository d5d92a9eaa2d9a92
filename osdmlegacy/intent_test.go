package osdmlegacy

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// heldCount is the number of bookings the legacy system holds.
func (e *bookEnv) heldCount() int {
	n := 0
	for _, b := range e.sb.Bookings() {
		if b.Status == legacy.StatusConfirmed {
			n++
		}
	}
	return n
}

// newLostBookingEnv is a bookEnv in which a booking of train 9203 was
// asked for and its BookingRequest's answer lost: the booking is an intent
// for settlement. It returns the offer booked.
func newLostBookingEnv(t *testing.T) (*bookEnv, *offerRecord) {
	t.Helper()
	e := newBookEnv(t, memKind, nil)
	o := e.offer("9203")
	e.legacy.inject(fault{kind: legacy.KindBookingRequest, what: "lost"})
	e.call(e.f, "POST", "/bookings", bookingBodyOf(o))
	return e, o
}

// lostFaults are the failures after which a message's outcome is unknown,
// with the status the OSDM call answers.
var lostFaults = []struct {
	what   string
	status int
	code   string
}{
	{"slow", 504, osdm.CodeTimeout},
	{"down", 503, osdm.CodeServiceUnavailable},
	{"lost", 504, osdm.CodeTimeout},
	{"down-after", 503, osdm.CodeServiceUnavailable},
	{"garbage", 502, osdm.CodeBadGateway},
}

// TestBookingRequestFaults: whatever happens to the BookingRequest, the
// store and the legacy system agree at once (an intent stands for a
// booking that may exist), and after settlement exactly: a lost answer is
// settled by resending the same message, which the legacy system answers
// as the first (one booking, never two).
func TestBookingRequestFaults(t *testing.T) {
	for _, lf := range lostFaults {
		t.Run(lf.what, func(t *testing.T) {
			e := newBookEnv(t, memKind, nil)
			o := e.offer("9203")
			e.legacy.inject(fault{kind: legacy.KindBookingRequest, what: lf.what})
			a := e.call(e.f, "POST", "/bookings", bookingBodyOf(o))
			p := decodeProblem(t, a)
			if a.Status != lf.status || p.Code != lf.code || !strings.Contains(p.Detail, "settled") {
				t.Errorf("answer %d %+v, want %d %s saying it is being settled", a.Status, p, lf.status, lf.code)
			}
			e.assertAgree(false)
			rep := e.settle(e.f)
			if rep.Settled != 1 {
				t.Errorf("settlement %+v, want one intent settled", rep)
			}
			e.assertAgree(true)
			if n := e.heldCount(); n != 1 {
				t.Errorf("the legacy system holds %d bookings, want 1", n)
			}
			for _, r := range e.records() {
				if r.State != statePrebooked {
					t.Errorf("record %s after settlement, want PREBOOKED (kept: its hold runs)", r.State)
				}
			}
			// Once more: nothing left to settle.
			if rep := e.settle(e.f); rep.Settled != 0 || rep.Unresolved != 0 {
				t.Errorf("second settlement %+v", rep)
			}
		})
	}
}

// TestBookingRequestRefusals: each NegativeReply code answers its OSDM
// problem, the booking is not found afterwards, the offer can be booked
// again, and nothing is held.
func TestBookingRequestRefusals(t *testing.T) {
	for _, code := range legacy.Codes {
		t.Run(string(code), func(t *testing.T) {
			e := newBookEnv(t, memKind, nil)
			o := e.offer("9203")
			e.legacy.inject(fault{kind: legacy.KindBookingRequest, what: "negative", code: code})
			a := e.call(e.f, "POST", "/bookings", bookingBodyOf(o))
			want := NegativeProblem(&legacy.NegativeReply{Code: code}, "")
			p := decodeProblem(t, a)
			if a.Status != want.Status || p.Code != want.Code || !strings.Contains(p.Detail, "train 9203") {
				t.Errorf("answer %d %+v, want %d %s", a.Status, p, want.Status, want.Code)
			}
			if strings.Contains(string(a.Body), "injected") {
				t.Error("the legacy text leaked into the answer")
			}
			for id, r := range e.records() {
				if r.State != stateFailed {
					t.Errorf("record %s, want FAILED", r.State)
				}
				if a := e.call(e.f, "GET", "/bookings/"+id, nil); a.Status != 404 {
					t.Errorf("GET of a refused booking: %d", a.Status)
				}
			}
			e.assertAgree(true)
			if rep := e.settle(e.f); rep.Settled != 0 {
				t.Errorf("settlement found work: %+v", rep)
			}
			e.book(o) // the offer is free again
			e.assertAgree(true)
		})
	}
}

// TestLostAnswerRetryWithSameKey: the client's retry with the same
// Idempotency-Key asks the legacy system what became of the BookingRequest
// (a SynchroRequest, never the booking again) and gets the booking; one
// legacy booking.
func TestLostAnswerRetryWithSameKey(t *testing.T) {
	e := newBookEnv(t, memKind, nil)
	o := e.offer("9203")
	key := withKey("0d9f3c2e-6a4b-4f7e-9a51-2b8c7d6e5f40")
	e.legacy.inject(fault{kind: legacy.KindBookingRequest, what: "lost"})
	if a := e.call(e.f, "POST", "/bookings", bookingBodyOf(o), key); a.Status != 504 {
		t.Fatalf("first try: %d %s", a.Status, a.Body)
	}
	b := e.book(o, key)
	sent := e.legacy.delivered()
	if len(sent) != 2 || sent[0].MessageID() != b.ID+".book" || sent[1].Kind() != legacy.KindSynchroRequest ||
		sent[1].(*legacy.SynchroRequest).OriginalMessageID != b.ID+".book" {
		t.Errorf("messages %d, want the BookingRequest, then a SynchroRequest about it", len(sent))
	}
	if n := e.heldCount(); n != 1 {
		t.Errorf("legacy bookings %d, want 1", n)
	}
	// And a third time: replayed from the store, nothing sent.
	a := e.call(e.f, "POST", "/bookings", bookingBodyOf(o), key)
	if a.Status != 200 || a.Header.Get(headerReplayed) != "true" || len(e.legacy.delivered()) != 2 {
		t.Errorf("replay: %d %v, messages %d", a.Status, a.Header, len(e.legacy.delivered()))
	}
	e.assertAgree(true)
}

// TestCancelFaults: DELETE whose CancelRequest is lost is settled to
// CANCELLED; refusals saying nothing is held end the booking; another
// refusal leaves it PREBOOKED, and a later DELETE is a new message.
func TestCancelFaults(t *testing.T) {
	for _, lf := range lostFaults {
		t.Run(lf.what, func(t *testing.T) {
			e := newBookEnv(t, memKind, nil)
			b := e.book(e.offer("9203"))
			e.legacy.inject(fault{kind: legacy.KindCancelRequest, what: lf.what})
			if a := e.call(e.f, "DELETE", "/bookings/"+b.ID, nil); a.Status != lf.status {
				t.Errorf("DELETE: %d %s", a.Status, a.Body)
			}
			e.assertAgree(false)
			e.settle(e.f)
			e.assertAgree(true)
			if r := e.records()[b.ID]; r.State != stateCancelled || e.heldCount() != 0 {
				t.Errorf("after settlement: %s, legacy holds %d", r.State, e.heldCount())
			}
			if a := e.call(e.f, "DELETE", "/bookings/"+b.ID, nil); a.Status != 204 {
				t.Errorf("DELETE after settlement: %d", a.Status)
			}
		})
	}
	for _, code := range legacy.Codes {
		t.Run(string(code), func(t *testing.T) {
			e := newBookEnv(t, memKind, nil)
			b := e.book(e.offer("9203"))
			ref := e.records()[b.ID].Legacy.BookingRef
			e.legacy.inject(fault{kind: legacy.KindCancelRequest, what: "negative", code: code})
			a := e.call(e.f, "DELETE", "/bookings/"+b.ID, nil)
			r := e.records()[b.ID]
			if code == legacy.CodeAlreadyCancelled || code == legacy.CodeBookingNotFound {
				// The legacy system says it holds nothing: so does the record.
				if a.Status != 204 || r.State != stateCancelled {
					t.Errorf("DELETE: %d, record %s", a.Status, r.State)
				}
				// (the sandbox still holds it: the injected refusal lied)
				e.sb.Handle(context.Background(), &legacy.CancelRequest{Header: legacy.Header{MessageID: "tidy"}, BookingRef: ref})
				e.assertAgree(true)
				return
			}
			want := NegativeProblem(&legacy.NegativeReply{Code: code}, "")
			if p := decodeProblem(t, a); a.Status != want.Status || p.Code != want.Code {
				t.Errorf("DELETE refused: %d %+v, want %d %s", a.Status, p, want.Status, want.Code)
			}
			if r.State != statePrebooked || r.Pending != nil {
				t.Errorf("record after a refused cancel: %s", r.State)
			}
			e.assertAgree(true)
			if a := e.call(e.f, "DELETE", "/bookings/"+b.ID, nil); a.Status != 204 {
				t.Fatalf("second DELETE: %d %s", a.Status, a.Body)
			}
			sent := e.legacy.delivered()
			if id := sent[len(sent)-1].MessageID(); id != b.ID+".cancel.2" {
				t.Errorf("second CancelRequest messageId %s, want a new attempt", id)
			}
			e.assertAgree(true)
		})
	}
}

// TestRefundConfirmLost: the CancelRequest of a refund confirmation is
// lost; settlement confirms the refund with the CancelReply's amounts.
func TestRefundConfirmLost(t *testing.T) {
	e := newBookEnv(t, memKind, nil)
	b := e.book(e.offer("9203"))
	path := "/bookings/" + b.ID
	fu := decodeOK[osdm.FulfillmentCollectionResponse](t, e.call(e.f, "POST", path+"/fulfillments", nil), 200).Fulfillments[0]
	ro := decodeOK[osdm.RefundOfferCollectionResponse](t, e.call(e.f, "POST", path+"/refund-offers", map[string]any{"fulfillmentIds": []string{fu.ID}}), 200).RefundOffers[0]
	e.legacy.inject(fault{kind: legacy.KindCancelRequest, what: "lost"})
	if a := e.call(e.f, "PATCH", path+"/refund-offers/"+ro.ID, `{"status":"CONFIRMED"}`); a.Status != 504 {
		t.Fatalf("PATCH: %d %s", a.Status, a.Body)
	}
	// While the intent stands, the booking still reads FULFILLED.
	gb := decodeOK[osdm.BookingResponse](t, e.call(e.f, "GET", path, nil), 200)
	if gb.Booking.BookedOffers[0].Reservations[0].Status != osdm.BookingPartFulfilled {
		t.Errorf("booking during the intent: %+v", gb.Booking.BookedOffers[0].Reservations[0].Status)
	}
	e.settle(e.f)
	e.assertAgree(true)
	g := decodeOK[osdm.RefundOfferResponse](t, e.call(e.f, "GET", path+"/refund-offers/"+ro.ID, nil), 200)
	if g.RefundOffer.Status != osdm.RefundConfirmed || g.RefundOffer.RefundableAmount.Amount != ro.RefundableAmount.Amount {
		t.Errorf("refund offer after settlement %+v", g.RefundOffer)
	}
	// The client's retry now gets the confirmation, and nothing is sent.
	n := len(e.legacy.delivered())
	if a := e.call(e.f, "PATCH", path+"/refund-offers/"+ro.ID, `{"status":"CONFIRMED"}`); a.Status != 200 || len(e.legacy.delivered()) != n {
		t.Errorf("retry: %d, messages %d -> %d", a.Status, n, len(e.legacy.delivered()))
	}
}

// TestSettlementReleasesWhatOutlivedItsHold: a booking whose answer was
// lost and whose hold ran out before settlement is made (the resend) and
// released at once: the legacy system holds nothing.
func TestSettlementReleasesWhatOutlivedItsHold(t *testing.T) {
	e, _ := newLostBookingEnv(t)
	e.clock.Advance(defaultHold)
	rep := e.settle(e.f)
	if rep.Settled != 1 || rep.Released != 1 {
		t.Errorf("settlement %+v", rep)
	}
	for _, r := range e.records() {
		if r.State != stateReleased {
			t.Errorf("record %s, want RELEASED", r.State)
		}
	}
	if n := e.heldCount(); n != 0 {
		t.Errorf("legacy holds %d", n)
	}
	e.assertAgree(true)
}

// TestSettlementWaitsForLease: an intent whose call may still be waiting
// is left alone until its lease is over; settlement without a sender says so.
func TestSettlementWaitsForLease(t *testing.T) {
	e, _ := newLostBookingEnv(t)
	// The lost answer ended the lease: settle at once.
	rep, err := e.f.Settle(context.Background())
	if err != nil || rep.Settled != 1 {
		t.Errorf("settlement right after a lost answer: %+v %v", rep, err)
	}
	// A fresh intent (as if its call were still waiting) is left alone.
	rec := e.records()
	for id := range rec {
		_, _ = e.f.bookings.updateBooking(context.Background(), id, func(r *bookingRecord) error {
			r.State, r.Pending = stateCancelling, &pendingMessage{Step: stepCancel, MessageID: id + ".cancel.9", LeaseUntil: e.clock.Now().Add(time.Minute), Revert: statePrebooked}
			return e.f.settlement.markIntent(context.Background(), id+".cancel.9", id, e.clock.Now())
		})
	}
	rep, _ = e.f.Settle(context.Background())
	if rep.Waiting != 1 || rep.Settled != 0 {
		t.Errorf("settlement during a lease: %+v", rep)
	}
	e.f.sender = nil // as a façade built without a Deps.Sender
	if _, err := e.f.Settle(context.Background()); err == nil {
		t.Error("settlement without a sender said nothing")
	}
	_ = http.StatusOK
}
