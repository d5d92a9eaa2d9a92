package converter

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/legacy"
)

func testJourney() legacy.Journey {
	return legacy.Journey{TrainNumber: "9203", DepartureDate: "2026-12-01", DepartureTime: "07:56", From: "8727100", To: "8500010"}
}

func testPlaces() legacy.PlaceRequest {
	return legacy.PlaceRequest{TravelClass: 2, ServiceCode: 1, Tariffs: []legacy.Tariff{{Code: 1, Count: 1}}}
}

func availabilityRequest(id string) legacy.Request {
	return &legacy.AvailabilityRequest{Header: legacy.Header{MessageID: id}, Journey: testJourney(), Places: testPlaces()}
}

func bookingRequest(id, offerRef string) legacy.Request {
	return &legacy.BookingRequest{Header: legacy.Header{MessageID: id}, Journey: testJourney(), Places: testPlaces(), OfferRef: offerRef,
		Passengers: []legacy.Passenger{{FirstName: "Anna", LastName: "Müller"}}}
}

func cancelRequest(id, ref string, reason *int) legacy.Request {
	return &legacy.CancelRequest{Header: legacy.Header{MessageID: id}, BookingRef: ref, ReasonCode: reason}
}

// messageKind is a kind of legacy exchange and the steps it makes.
type messageKind struct {
	name  string
	cfg   Config
	req   func(id string) legacy.Request
	steps []Step
	// bookingRef is the booking a failure reply must name: "" none,
	// "created" the one made during the exchange, else that id.
	bookingRef func(step Step, mode failMode) string
}

func messageKinds() []messageKind {
	none := func(Step, failMode) string { return "" }
	reason := 1
	return []messageKind{
		{name: "availability", req: availabilityRequest, steps: []Step{StepOffers}, bookingRef: none},
		{name: "availability trip-offers", cfg: Config{OfferSearch: OfferSearchTripOffers}, req: availabilityRequest, steps: []Step{StepTripOffers}, bookingRef: none},
		{name: "informationOnly booking", req: func(id string) legacy.Request {
			r := bookingRequest(id, "").(*legacy.BookingRequest)
			r.InformationOnly = true
			return r
		}, steps: []Step{StepOffers}, bookingRef: none},
		{name: "booking with OfferRef", req: func(id string) legacy.Request { return bookingRequest(id, "offer-9203-2nd-seat") },
			steps: []Step{StepBooking, StepFulfillments}, bookingRef: func(s Step, m failMode) string {
				if s == StepFulfillments {
					return "created"
				}
				return ""
			}},
		{name: "booking without OfferRef", req: func(id string) legacy.Request { return bookingRequest(id, "") },
			steps: []Step{StepOffers, StepBooking, StepFulfillments}, bookingRef: func(s Step, m failMode) string {
				if s == StepFulfillments {
					return "created"
				}
				return ""
			}},
		{name: "cancel with reason (refund)", req: func(id string) legacy.Request { return cancelRequest(id, "b-fulfilled", &reason) },
			steps: []Step{StepReadBooking, StepRefundOffers, StepRefundOffer}, bookingRef: func(Step, failMode) string { return "b-fulfilled" }},
		{name: "cancel without reason (refund)", req: func(id string) legacy.Request { return cancelRequest(id, "b-fulfilled", nil) },
			steps: []Step{StepReadBooking, StepRefundOffers, StepRefundOffer}, bookingRef: func(Step, failMode) string { return "b-fulfilled" }},
		{name: "cancel unconfirmed (delete)", req: func(id string) legacy.Request { return cancelRequest(id, "b-pre", nil) },
			steps: []Step{StepReadBooking, StepDeleteBooking}, bookingRef: func(Step, failMode) string { return "b-pre" }},
	}
}

// codeOfMode is the NegativeReply code an ordinary call failing in mode m gives.
func codeOfMode(m failMode) legacy.Code {
	switch m {
	case failProblem:
		return legacy.CodePartnerRejected
	case failTimeout:
		return legacy.CodePartnerTimeout
	}
	return legacy.CodePartnerUnavailable
}

// TestPartnerFailsEachStep fails every step of every message kind in every
// way, always: each ends in the right NegativeReply, and no booking is
// left behind at the partner unreported.
func TestPartnerFailsEachStep(t *testing.T) {
	for _, k := range messageKinds() {
		for _, step := range k.steps {
			for _, mode := range failModes {
				t.Run(fmt.Sprintf("%s/%s/%s", k.name, step, mode), func(t *testing.T) {
					id := "M-" + strings.ReplaceAll(string(step), "_", "-")
					p := newFakePartner(t, id)
					p.fail[step] = &injection{mode: mode}
					res := testConverter(t, k.cfg).Convert(context.Background(), k.req(id), p)
					checkReply(t, res)
					checkNoLostBooking(t, p, res)
					if step == StepDeleteBooking && mode == failGarbage {
						// A 2xx to DELETE says it is done, whatever the body.
						if c, isCancel := res.Reply.(*legacy.CancelReply); !isCancel || c.Status != legacy.StatusCancelled {
							t.Errorf("reply %s %+v, want a CANCELLED CancelReply", res.Reply.Kind(), res.Reply)
						}
						return
					}
					n := negativeOf(t, res)
					wantCode, wantRetry := codeOfMode(mode), codeOfMode(mode).Retryable()
					switch step {
					case StepFulfillments:
						switch mode {
						case failProblem, fail5xx, failTransport:
							// Nothing was confirmed: the booking is deleted again.
							wantCode, wantRetry = legacy.CodeBookingRolledBack, mode != failProblem
						case failGarbage, failTimeout:
							// The partner confirmed, so it refuses the
							// DELETE: booking again would sell twice.
							wantRetry = false
						}
					case StepRefundOffer:
						wantRetry = true
						if !strings.Contains(n.Text, "ro-b-fulfilled") {
							t.Errorf("text does not name the refund offer: %s", n.Text)
						}
					}
					if n.Code != wantCode || n.Retryable != wantRetry {
						t.Errorf("reply %s retryable %v, want %s retryable %v: %s", n.Code, n.Retryable, wantCode, wantRetry, n.Text)
					}
					wantRef := k.bookingRef(step, mode)
					if wantRef == "created" {
						wantRef = "b-1"
					}
					if n.BookingRef != wantRef {
						t.Errorf("BookingRef %q, want %q", n.BookingRef, wantRef)
					}
					if mode == failProblem || mode == fail5xx {
						if n.PartnerProblem == "" {
							t.Error("no PartnerProblem for a failure with a problem")
						}
					}
				})
			}
		}
	}
}

// TestFulfilmentRetry: an uncertain fulfilment failure is retried once with
// the same Idempotency-Key (the fake partner checks it) and the booking
// goes through; a refusal is not retried but rolled back.
func TestFulfilmentRetry(t *testing.T) {
	for _, mode := range failModes {
		t.Run(string(mode), func(t *testing.T) {
			p := newFakePartner(t, "R-1")
			p.fail[StepFulfillments] = &injection{mode: mode, times: 1}
			res := testConverter(t, Config{}).Convert(context.Background(), bookingRequest("R-1", "offer-9203-2nd-seat"), p)
			checkReply(t, res)
			checkNoLostBooking(t, p, res)
			if mode == failProblem {
				if want := []Step{StepBooking, StepFulfillments, StepDeleteBooking}; !reflect.DeepEqual(p.steps(), want) {
					t.Errorf("steps %v, want %v", p.steps(), want)
				}
				if n := negativeOf(t, res); n.Code != legacy.CodeBookingRolledBack || n.Retryable || n.BookingRef != "b-1" {
					t.Errorf("reply %+v", n)
				}
				return
			}
			if want := []Step{StepBooking, StepFulfillments, StepFulfillments}; !reflect.DeepEqual(p.steps(), want) {
				t.Errorf("steps %v, want %v", p.steps(), want)
			}
			br, isBooking := res.Reply.(*legacy.BookingReply)
			if !isBooking || br.BookingRef != "b-1" || br.Status != legacy.StatusFulfilled {
				t.Fatalf("reply %s %+v, want a FULFILLED BookingReply for b-1", res.Reply.Kind(), res.Reply)
			}
		})
	}
}

// TestRollbackDeleteFails: fulfilment fails for good and the DELETE fails
// too: the reply still names the booking and says what to do.
func TestRollbackDeleteFails(t *testing.T) {
	for _, mode := range failModes {
		t.Run(string(mode), func(t *testing.T) {
			p := newFakePartner(t, "D-1")
			p.fail[StepFulfillments] = &injection{mode: fail5xx}
			p.fail[StepDeleteBooking] = &injection{mode: mode}
			res := testConverter(t, Config{}).Convert(context.Background(), bookingRequest("D-1", "offer-9203-2nd-seat"), p)
			checkReply(t, res)
			checkNoLostBooking(t, p, res)
			n := negativeOf(t, res)
			if mode == failGarbage {
				// A 2xx to DELETE says it is done, whatever the body.
				if n.Code != legacy.CodeBookingRolledBack {
					t.Errorf("reply %+v, want BOOKING_ROLLED_BACK", n)
				}
				return
			}
			// Retryable unless the partner refused the DELETE itself.
			if n.Code != legacy.CodePartnerUnavailable || n.BookingRef != "b-1" || n.Retryable != (mode != failProblem) {
				t.Errorf("reply %+v", n)
			}
			for _, want := range []string{"may still exist", "expires by itself at 2026-11-21T10:30:00Z", "CancelRequest for BookingRef b-1"} {
				if !strings.Contains(n.Text, want) {
					t.Errorf("text lacks %q: %s", want, n.Text)
				}
			}
		})
	}
}

// TestRollbackAfterDeadline: the exchange's deadline runs out during
// fulfilment; the rollback DELETE is still made, on a live context.
func TestRollbackAfterDeadline(t *testing.T) {
	s := &scripted{t: t, answers: []scriptedAnswer{
		{step: StepBooking, status: 200, body: readFile(t, "testdata/golden/booking_offer_ref", "booking.json")},
		{step: StepFulfillments, wait: true},
		{step: StepFulfillments, status: 503, body: []byte(`{"title":"busy"}`)},
		{step: StepDeleteBooking, status: 204},
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	res := testConverter(t, Config{}).Convert(ctx, bookingRequest("T-1", "offer-9203-2nd-seat"), s)
	if want := []Step{StepBooking, StepFulfillments, StepFulfillments, StepDeleteBooking}; !reflect.DeepEqual(s.steps(), want) {
		t.Fatalf("steps %v, want %v (the retry and the DELETE, past the deadline)", s.steps(), want)
	}
	for i := 2; i <= 3; i++ {
		if err := s.ctxErrs[i]; err != nil {
			t.Errorf("call %d (%s) ran on a dead context: %v", i+1, s.calls[i].Step, err)
		}
		if dl, has := s.ctxs[i].Deadline(); !has || dl.After(time.Now().Add(RollbackGrace)) {
			t.Errorf("call %d's context has no deadline within RollbackGrace: %v %v", i+1, dl, has)
		}
	}
	if n := negativeOf(t, res); n.Code != legacy.CodeBookingRolledBack || n.BookingRef != "b-4711" || !n.Retryable {
		t.Errorf("reply %+v", n)
	}
}

// checkReply asserts the status rule and that the reply is a valid legacy
// message in both forms.
func checkReply(t testing.TB, res *Result) {
	t.Helper()
	checkStatus(t, res)
	for _, f := range []legacy.Format{legacy.XML, legacy.JSON} {
		out, err := legacy.Encode(f, res.Reply)
		if err != nil {
			t.Fatalf("Encode %v: %v", f, err)
		}
		if _, err := legacy.DecodeReply(f, out); err != nil {
			t.Errorf("the %v reply is not a valid legacy reply: %v\n%s", f, err, out)
		}
	}
}

// checkNoLostBooking asserts data-safety rule 3 on the fake partner's
// state: a booking made during the exchange is deleted, or named by the
// reply, or (when the converter never learned its id) unconfirmed and the
// reply says it expires by itself. A BookingReply names a confirmed
// booking; BOOKING_ROLLED_BACK a deleted one.
func checkNoLostBooking(t testing.TB, p *fakePartner, res *Result) {
	t.Helper()
	named := ""
	text := ""
	switch r := res.Reply.(type) {
	case *legacy.BookingReply:
		named = r.BookingRef
		if b := p.bookings[named]; b == nil || b.state != "fulfilled" {
			t.Errorf("BookingReply for %s, which is not confirmed at the partner", named)
		}
	case *legacy.NegativeReply:
		named, text = r.BookingRef, r.Text
		if r.Code == legacy.CodeBookingRolledBack {
			if b := p.bookings[named]; b == nil || b.state != "deleted" {
				t.Errorf("BOOKING_ROLLED_BACK for %q, which is not deleted at the partner", named)
			}
		}
	}
	for id, b := range p.bookings {
		if !b.created || b.state == "deleted" || id == named {
			continue
		}
		if b.state == "prebooked" && named == "" && strings.Contains(text, "expires by itself") {
			continue
		}
		t.Errorf("booking %s (%s) is left at the partner and the reply does not name it: %s %+v", id, b.state, res.Reply.Kind(), res.Reply)
	}
}

// TestRollbackBookingGoneAlready: a DELETE answered "not found" or
// "already cancelled" leaves nothing behind: BOOKING_ROLLED_BACK.
func TestRollbackBookingGoneAlready(t *testing.T) {
	for _, gone := range []*Answer{
		problemAnswer(404, "urn:uic:problem:BOOKING_NOT_FOUND", "no booking b-4711"),
		problemAnswer(409, "urn:uic:problem:BOOKING_ALREADY_CANCELLED", "b-4711 was deleted"),
	} {
		s := &scripted{t: t, answers: []scriptedAnswer{
			{step: StepBooking, status: 200, body: readFile(t, "testdata/golden/booking_offer_ref", "booking.json")},
			{step: StepFulfillments, status: 400, body: problemAnswer(400, "urn:uic:problem:CONFIRMATION_INFORMATION_MISSING", "").Body},
			{step: StepDeleteBooking, status: gone.Status, body: gone.Body},
		}}
		res := testConverter(t, Config{}).Convert(context.Background(), bookingRequest("G-1", "offer-9203-2nd-seat"), s)
		checkReply(t, res)
		if n := negativeOf(t, res); n.Code != legacy.CodeBookingRolledBack || n.BookingRef != "b-4711" {
			t.Errorf("DELETE answered %d: reply %+v", gone.Status, n)
		}
	}
}
