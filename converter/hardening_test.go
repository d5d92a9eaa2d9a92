package converter

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/internal/testclock"
	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// TestCancelRefusesRefsThatAreNotOneSegment: a BookingRef that is a dot
// segment, or holds a / or \, as written or percent-encoded, would reach
// another resource at a partner or proxy that normalises or decodes paths;
// it is an INVALID_MESSAGE before any OSDM call.
func TestCancelRefusesRefsThatAreNotOneSegment(t *testing.T) {
	for _, ref := range []string{".", "..", "%2e", "%2E%2e", ".%2E", "%252e%252e", "a/b", "b-X%2F", "..%2F..", `a\b`, "%5C", "%25252F"} {
		s := &scripted{t: t}
		res := testConverter(t, Config{}).Convert(context.Background(), cancelRequest("D-1", ref, nil), s)
		checkReply(t, res)
		n := negativeOf(t, res)
		if n.Code != legacy.CodeInvalidMessage || n.Retryable || !strings.Contains(n.Text, "BookingRef") {
			t.Errorf("BookingRef %q: reply %+v", ref, n)
		}
		if len(s.calls) != 0 {
			t.Errorf("BookingRef %q: %d OSDM calls made", ref, len(s.calls))
		}
	}
	// Dots inside a segment are fine.
	for _, ref := range []string{"b.1", "...", "b-%41", ".x"} {
		if why := unsafeSegment(ref); why != "" {
			t.Errorf("%q refused: %s", ref, why)
		}
	}
}

// TestPartnerIDThatIsADotSegmentIsNeverCalled: a booking id ".." from the
// partner is never put into a path (POST /bookings/../fulfillments would
// be POST /fulfillments); the booking is reported, not confirmed.
func TestPartnerIDThatIsADotSegmentIsNeverCalled(t *testing.T) {
	s := &scripted{t: t, answers: []scriptedAnswer{
		{step: StepBooking, status: 200, body: []byte(`{"booking":{"id":"..","createdOn":"2026-11-21T10:00:00Z","passengers":[{"id":"x","externalRef":"p1","type":"ADULT"}]}}`)},
	}}
	res := testConverter(t, Config{}).Convert(context.Background(), bookingRequest("D-2", "offer-1"), s)
	checkReply(t, res)
	if len(s.calls) != 1 {
		t.Fatalf("%d calls, want only POST /bookings", len(s.calls))
	}
	if n := negativeOf(t, res); n.Code == legacy.CodeBookingRolledBack || !strings.Contains(n.Text, "may still exist") {
		t.Errorf("reply %+v", n)
	}
}

// TestPastDeparturesRefused: a departure date before today at the
// departure station, or today more than DepartureTolerance ago, is an
// INVALID_MESSAGE before any OSDM call, for availability and booking
// alike; the day is the departure station's (a Helsinki train at 00:30
// local is "today" there while it is still yesterday in UTC). Dates are
// computed from the injected clock.
func TestPastDeparturesRefused(t *testing.T) {
	now := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC) // 11:00 in Paris, 12:00 in Helsinki
	clock := testclock.New(now)
	day := func(d int) string { return now.AddDate(0, 0, d).Format(time.DateOnly) }
	cases := []struct {
		name       string
		j          legacy.Journey
		past       bool
		wantInText string
	}{
		{"yesterday", legacy.Journey{DepartureDate: day(-1), DepartureTime: "23:59", From: "8727100"}, true, "before today"},
		{"days ago, no time", legacy.Journey{DepartureDate: day(-3), From: "8727100"}, true, "before today"},
		{"today, left an hour ago", legacy.Journey{DepartureDate: day(0), DepartureTime: "10:00", From: "8727100"}, true, "left at 10:00"},
		{"today, left 6 minutes ago", legacy.Journey{DepartureDate: day(0), DepartureTime: "10:54", From: "8727100"}, true, "left at 10:54"},
		{"today, left 4 minutes ago (tolerance)", legacy.Journey{DepartureDate: day(0), DepartureTime: "10:56", From: "8727100"}, false, ""},
		{"today, no time", legacy.Journey{DepartureDate: day(0), From: "8727100"}, false, ""},
		{"today, later", legacy.Journey{DepartureDate: day(0), DepartureTime: "18:00", From: "8727100"}, false, ""},
		{"tomorrow, early", legacy.Journey{DepartureDate: day(1), DepartureTime: "00:01", From: "8727100"}, false, ""},
		{"London 10:30 is still to come", legacy.Journey{DepartureDate: day(0), DepartureTime: "10:30", From: "7015400"}, false, ""},
		{"Helsinki 11:30 has left", legacy.Journey{DepartureDate: day(0), DepartureTime: "11:30", From: "1000001"}, true, "Europe/Helsinki"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.j.TrainNumber, tc.j.To = "9203", "8500010"
			for _, req := range []legacy.Request{
				&legacy.AvailabilityRequest{Header: legacy.Header{MessageID: "P-1"}, Journey: tc.j, Places: testPlaces()},
				&legacy.BookingRequest{Header: legacy.Header{MessageID: "P-2"}, Journey: tc.j, Places: testPlaces(), OfferRef: "offer-1",
					Passengers: []legacy.Passenger{{FirstName: "Anna", LastName: "Müller"}}},
			} {
				step := StepOffers
				if req.Kind() == legacy.KindBookingRequest {
					step = StepBooking
				}
				// A booking retries an uncertain POST /bookings once.
				s := &scripted{t: t, answers: []scriptedAnswer{{step: step, err: errors.New("stop")}, {step: step, err: errors.New("stop")}}}
				if step == StepOffers {
					s.answers = s.answers[:1]
				}
				res := testConverter(t, Config{Now: clock.Now}).Convert(context.Background(), req, s)
				checkReply(t, res)
				n, _ := res.Reply.(*legacy.NegativeReply)
				refused := n != nil && n.Code == legacy.CodeInvalidMessage
				if refused != tc.past {
					t.Fatalf("%s: reply %+v (calls %d), past %v", req.Kind(), res.Reply, len(s.calls), tc.past)
				}
				if tc.past && (len(s.calls) != 0 || !strings.Contains(n.Text, tc.wantInText)) {
					t.Fatalf("%s: %d calls, text %q", req.Kind(), len(s.calls), n.Text)
				}
			}
		})
	}
}

// TestTransportFailureTextIsForPeople: the text of a failed call says
// what failed, at which partner, and whether to retry; the Go error (type
// names, file:line, {id=...}) stays out of it.
func TestTransportFailureTextIsForPeople(t *testing.T) {
	goErr := errors.New("{id=abc123} reverseproxy.statusError (reverseproxy.go:1776): HTTP 502: dial tcp 127.0.0.1:1: connect: connection refused")
	for _, tc := range []struct {
		err  error
		code legacy.Code
	}{
		{goErr, legacy.CodePartnerUnavailable},
		{errors.Join(ErrTimeout, goErr), legacy.CodePartnerTimeout},
	} {
		s := &scripted{t: t, answers: []scriptedAnswer{{step: StepOffers, err: tc.err}}}
		res := testConverter(t, Config{}).Convert(context.Background(), availabilityRequest("T-1"), s)
		n := negativeOf(t, res)
		if n.Code != tc.code || !n.Retryable {
			t.Fatalf("reply %+v", n)
		}
		for _, bad := range []string{"reverseproxy", ".go:", "{id=", "statusError", "dial tcp"} {
			if strings.Contains(n.Text, bad) {
				t.Errorf("text %q holds %q", n.Text, bad)
			}
		}
		for _, want := range []string{"sbb", "POST /offers", "try again"} {
			if !strings.Contains(n.Text, want) {
				t.Errorf("text %q lacks %q", n.Text, want)
			}
		}
	}
}

// TestExpandPath: placeholders are filled path-escaped; a template with
// an unclosed brace, an unknown placeholder or an empty value is refused.
func TestExpandPath(t *testing.T) {
	params := map[string]string{osdm.ParamBookingID: "bk/1 x", osdm.ParamRefundOfferID: "ro-1"}
	got, err := expandPath(osdm.PathRefundOffer, params)
	if err != nil || got != "/bookings/bk%2F1%20x/refund-offers/ro-1" {
		t.Fatalf("expandPath = %q, %v", got, err)
	}
	// An override template of an older partner.
	got, err = expandPath("/booking/{bookingId}/fulfillments", params)
	if err != nil || got != "/booking/bk%2F1%20x/fulfillments" {
		t.Fatalf("override: %q, %v", got, err)
	}
	if got, err := expandPath(osdm.PathOffers, nil); err != nil || got != "/offers" {
		t.Fatalf("no placeholder: %q, %v", got, err)
	}
	for _, bad := range []string{"/bookings/{bookingId", "/bookings/{bookingID}", "/x/{refundOfferId}/{other}"} {
		if got, err := expandPath(bad, params); err == nil {
			t.Errorf("expandPath(%q) = %q, want an error", bad, got)
		}
	}
	if _, err := expandPath(osdm.PathBooking, map[string]string{osdm.ParamBookingID: ""}); err == nil {
		t.Error("empty bookingId accepted")
	}
}
