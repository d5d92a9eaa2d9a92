package converter

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// safetyCall is one OSDM call of a fuzzed exchange and what it got.
type safetyCall struct {
	call   *Call
	answer *Answer // nil: transport failure
}

// ok2xx reports a call answered with a 2xx.
func (c safetyCall) ok2xx() bool {
	return c.answer != nil && c.answer.Status >= 200 && c.answer.Status < 300
}

// FuzzNoBookingLost lets the partner answer one call of a booking or a
// cancellation with any status and bytes, or not at all, the other calls
// working, and checks the data-safety rules on what
// crossed the wire, whatever the partner said:
//
//   - a booking the partner made (a 2xx POST /bookings whose booking id a
//     BookingRef can carry) is deleted again (DELETE answered 2xx or 404)
//     or named by the reply;
//   - a BookingReply follows a fulfilment the partner answered with a 2xx
//     (FULFILLED only if a fulfilment says so), and is for the booking
//     made; BOOKING_ROLLED_BACK follows a DELETE that worked;
//   - POST /bookings and the fulfilments each use one Idempotency-Key, and
//     there are at most two fulfilment calls;
//   - a CancelReply REFUNDED follows a PATCH answered 2xx, CANCELLED a
//     DELETE answered 2xx, and no booking with live fulfilments is deleted.
func FuzzNoBookingLost(f *testing.F) {
	valid := validAnswers(f)
	unconfirmed := readFile(f, "testdata/golden/cancel_unconfirmed", "booking.json")
	for _, body := range [][]byte{
		nil, []byte("{"), []byte("null"), []byte(`{"booking":{"id":"b-9"}}`), []byte(`{"booking":{"id":""}}`),
		[]byte(`{"fulfillments":[]}`), []byte(`{"fulfillments":[{"id":"f","status":"FULFILLED"}]}`),
		[]byte(`{"problems":[{"code":"BOOKING_NOT_FOUND"}]}`), []byte(`{"refundOffers":[{"id":"r"}]}`),
		valid[StepBooking].Body, valid[StepReadBooking].Body, unconfirmed,
	} {
		for call := range 5 {
			for _, status := range []int{200, 204, 404, 409, 503} {
				for kind := range 4 {
					f.Add(uint8(call), uint8(kind), status, body, false)
				}
			}
			f.Add(uint8(call), uint8(0), 0, []byte(nil), true)
		}
	}
	c := testConverter(f, Config{})
	reason := 1
	f.Fuzz(func(t *testing.T, call, kind uint8, status int, body []byte, transport bool) {
		var req legacy.Request
		readAnswer := valid[StepReadBooking]
		switch kind % 4 {
		case 0:
			req = bookingRequest("FZ-B1", "")
		case 1:
			req = bookingRequest("FZ-B2", "offer-1")
		case 2:
			req = cancelRequest("FZ-C1", "b-4711", &reason)
		default:
			req = cancelRequest("FZ-C2", "b-4711", nil)
			readAnswer = &Answer{Status: http.StatusOK, Header: http.Header{}, Body: unconfirmed}
		}
		var calls []safetyCall
		x := CallerFunc(func(_ context.Context, cl *Call) (*Answer, error) {
			a := valid[cl.Step]
			if cl.Step == StepReadBooking {
				a = readAnswer
			}
			if len(calls) == int(call%5) {
				if transport {
					a = nil
				} else {
					a = &Answer{Status: status, Header: http.Header{}, Body: body}
				}
			}
			calls = append(calls, safetyCall{call: cl, answer: a})
			if a == nil {
				return nil, errors.New("connection reset by peer")
			}
			return a, nil
		})
		res := c.Convert(context.Background(), req, x)
		checkReply(t, res)
		checkBookingSafety(t, req, res, calls)
	})
}

func checkBookingSafety(t *testing.T, req legacy.Request, res *Result, calls []safetyCall) {
	t.Helper()
	named := ""
	switch r := res.Reply.(type) {
	case *legacy.BookingReply:
		named = r.BookingRef
	case *legacy.CancelReply:
		named = r.BookingRef
	case *legacy.NegativeReply:
		named = r.BookingRef
	}
	keys := map[Step]map[string]bool{}
	var made []string
	deleted := map[string]bool{}
	confirmed, fulfilled, fulfilments := false, false, 0
	patched, removed, liveFulfilments := false, false, false
	for _, c := range calls {
		if k := c.call.Header.Get(osdm.HeaderIdempotencyKey); k != "" {
			if keys[c.call.Step] == nil {
				keys[c.call.Step] = map[string]bool{}
			}
			keys[c.call.Step][k] = true
		}
		switch c.call.Step {
		case StepBooking:
			var br osdm.BookingResponse
			if c.ok2xx() && readsAs(c.answer.Body, &br) && br.Booking != nil && validRef(br.Booking.ID) {
				made = append(made, br.Booking.ID)
			}
		case StepFulfillments:
			fulfilments++
			var fr osdm.FulfillmentCollectionResponse
			if c.ok2xx() && readsAs(c.answer.Body, &fr) {
				// A 2xx without fulfilments confirms the booking (202:
				// tickets to follow).
				confirmed = true
				for _, fu := range fr.Fulfillments {
					fulfilled = fulfilled || fu.Status == osdm.FulfillmentFulfilled
				}
			}
		case StepDeleteBooking:
			id := c.call.Path[strings.LastIndexByte(c.call.Path, '/')+1:]
			if c.ok2xx() || c.answer != nil && c.answer.Status == http.StatusNotFound {
				deleted[id] = true
			}
			if c.ok2xx() {
				removed = true
			}
		case StepRefundOffer:
			patched = patched || c.ok2xx()
		case StepReadBooking:
			var br osdm.BookingResponse
			if c.ok2xx() && readsAs(c.answer.Body, &br) && br.Booking != nil {
				for _, fu := range br.Booking.Fulfillments {
					switch fu.Status {
					case osdm.FulfillmentCancelled, osdm.FulfillmentReleased, osdm.FulfillmentRefunded, osdm.FulfillmentExchanged, osdm.FulfillmentExpired:
					default:
						liveFulfilments = liveFulfilments || fu.ID != ""
					}
				}
			}
		}
	}
	for step, k := range keys {
		if len(k) > 1 {
			t.Fatalf("%s used %d Idempotency-Keys in one exchange", step, len(k))
		}
	}
	if fulfilments > 2 {
		t.Fatalf("%d fulfilment calls", fulfilments)
	}
	for _, id := range made {
		if !deleted[id] && named != id {
			t.Fatalf("booking %s was made and not deleted, but the reply %T names %q", id, res.Reply, named)
		}
	}
	switch r := res.Reply.(type) {
	case *legacy.BookingReply:
		if !confirmed || len(made) == 0 || r.BookingRef != made[len(made)-1] || r.Status == legacy.StatusFulfilled && !fulfilled {
			t.Fatalf("BookingReply %s %s (made %v, confirmed %v, fulfilled %v)", r.BookingRef, r.Status, made, confirmed, fulfilled)
		}
	case *legacy.NegativeReply:
		// A booking id no BookingRef can carry is rolled back unnamed.
		if r.Code == legacy.CodeBookingRolledBack && !deleted[r.BookingRef] && (r.BookingRef != "" || len(deleted) == 0) {
			t.Fatalf("BOOKING_ROLLED_BACK for %q, which no DELETE removed", r.BookingRef)
		}
	case *legacy.CancelReply:
		if r.Status == legacy.StatusRefunded && !patched {
			t.Fatal("CancelReply REFUNDED without a confirmed refund offer")
		}
		if r.Status == legacy.StatusCancelled && !removed {
			t.Fatal("CancelReply CANCELLED without a DELETE that worked")
		}
	}
	if _, cancel := req.(*legacy.CancelRequest); cancel && liveFulfilments {
		for _, c := range calls {
			if c.call.Step == StepDeleteBooking {
				t.Fatal("a booking with live fulfilments was deleted instead of refunded")
			}
		}
	}
}

// readsAs reports whether an answer body says what out holds as the OSDM
// spec writes it: member names exactly, no name twice, UTF-8. An answer
// with "Booking" in place of "booking", or "id" twice, says no booking
// was made (the converter reads it so, and asks again with the same
// Idempotency-Key); encoding/json, which reads "Booking" as "booking",
// would find one there.
func readsAs(body []byte, out any) bool {
	return decodeAnswer(body, out) == nil
}
