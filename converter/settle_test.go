package converter

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// The tests of this file lose or delay the partner's answer to a
// state-changing call that the partner carried out: the converter asks
// again with the same Idempotency-Key, learns what was done, and reports
// it, instead of leaving a booking or a refund unnamed.

func sameKeys(t *testing.T, s *scripted, i, j int) {
	t.Helper()
	a, b := s.calls[i].Header.Get(osdm.HeaderIdempotencyKey), s.calls[j].Header.Get(osdm.HeaderIdempotencyKey)
	if a == "" || a != b {
		t.Errorf("calls %d and %d carry Idempotency-Keys %q and %q, want the same", i+1, j+1, a, b)
	}
}

// TestBookingAnswerLostFoundAgain: POST /bookings answers garbage; asked
// again, the partner names the booking it made, which is then fulfilled.
func TestBookingAnswerLostFoundAgain(t *testing.T) {
	dir := "testdata/golden/booking_offer_ref"
	s := &scripted{t: t, answers: []scriptedAnswer{
		{step: StepBooking, status: 200, body: []byte(`{"booking":{"id":`)},
		{step: StepBooking, status: 200, body: readFile(t, dir, "booking.json")},
		{step: StepFulfillments, status: 200, body: readFile(t, dir, "fulfillments.json")},
	}}
	res := testConverter(t, Config{}).Convert(context.Background(), bookingRequest("L-1", "offer-9203-2nd-seat"), s)
	br, isBooking := res.Reply.(*legacy.BookingReply)
	if !isBooking || br.BookingRef != "b-4711" {
		t.Fatalf("reply %T %+v", res.Reply, res.Reply)
	}
	sameKeys(t, s, 0, 1)
}

// TestBookingAnswerLateFoundAfterDeadline: POST /bookings answers after
// the exchange's deadline; asked again past it, the partner names the
// booking, which is rolled back and named.
func TestBookingAnswerLateFoundAfterDeadline(t *testing.T) {
	s := &scripted{t: t, answers: []scriptedAnswer{
		{step: StepBooking, wait: true},
		{step: StepBooking, status: 200, body: readFile(t, "testdata/golden/booking_offer_ref", "booking.json")},
		{step: StepDeleteBooking, status: 204},
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	res := testConverter(t, Config{}).Convert(ctx, bookingRequest("L-2", "offer-9203-2nd-seat"), s)
	if want := []Step{StepBooking, StepBooking, StepDeleteBooking}; !reflect.DeepEqual(s.steps(), want) {
		t.Fatalf("steps %v, want %v", s.steps(), want)
	}
	if s.ctxErrs[1] != nil {
		t.Errorf("the second POST /bookings ran on a dead context: %v", s.ctxErrs[1])
	}
	sameKeys(t, s, 0, 1)
	if n := negativeOf(t, res); n.Code != legacy.CodeBookingRolledBack || n.BookingRef != "b-4711" {
		t.Errorf("reply %+v", n)
	}
}

// TestFulfilmentLateConfirmedPastDeadline: the fulfilment answers after
// the deadline; the retry with the same key finds it done: the booking is
// reported booked, not rolled back.
func TestFulfilmentLateConfirmedPastDeadline(t *testing.T) {
	dir := "testdata/golden/booking_offer_ref"
	s := &scripted{t: t, answers: []scriptedAnswer{
		{step: StepBooking, status: 200, body: readFile(t, dir, "booking.json")},
		{step: StepFulfillments, wait: true},
		{step: StepFulfillments, status: 200, body: readFile(t, dir, "fulfillments.json")},
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	res := testConverter(t, Config{}).Convert(ctx, bookingRequest("L-3", "offer-9203-2nd-seat"), s)
	if br, isBooking := res.Reply.(*legacy.BookingReply); !isBooking || br.BookingRef != "b-4711" || br.Status != legacy.StatusFulfilled {
		t.Fatalf("reply %T %+v", res.Reply, res.Reply)
	}
	sameKeys(t, s, 1, 2)
}

// TestRefundConfirmationLostFoundAgain: the PATCH that confirms the refund
// answers garbage; asked again, the partner says it is confirmed: the
// reply is the refund, not a failure.
func TestRefundConfirmationLostFoundAgain(t *testing.T) {
	dir := "testdata/golden/cancel_refund"
	s := &scripted{t: t, answers: []scriptedAnswer{
		{step: StepReadBooking, status: 200, body: readFile(t, dir, "booking.json")},
		{step: StepRefundOffers, status: 200, body: readFile(t, dir, "refund-offers.json")},
		{step: StepRefundOffer, status: 502, body: []byte(`<html>bad gateway</html>`)},
		{step: StepRefundOffer, status: 200, body: readFile(t, dir, "refund-offer.json")},
	}}
	res := testConverter(t, Config{}).Convert(context.Background(), cancelRequest("L-4", "b-4711", nil), s)
	if cr, isCancel := res.Reply.(*legacy.CancelReply); !isCancel || cr.Status != legacy.StatusRefunded {
		t.Fatalf("reply %T %+v", res.Reply, res.Reply)
	}
	sameKeys(t, s, 2, 3)
}

// TestRefundConfirmationUnknown: asked twice, the partner never says: the
// reply names the booking and says the outcome is not known.
func TestRefundConfirmationUnknown(t *testing.T) {
	dir := "testdata/golden/cancel_refund"
	s := &scripted{t: t, answers: []scriptedAnswer{
		{step: StepReadBooking, status: 200, body: readFile(t, dir, "booking.json")},
		{step: StepRefundOffers, status: 200, body: readFile(t, dir, "refund-offers.json")},
		{step: StepRefundOffer, status: 503},
		{step: StepRefundOffer, status: 503},
	}}
	res := testConverter(t, Config{}).Convert(context.Background(), cancelRequest("L-5", "b-4711", nil), s)
	n := negativeOf(t, res)
	if n.BookingRef != "b-4711" || !n.Retryable || !strings.Contains(n.Text, "did not say whether") {
		t.Fatalf("reply %+v", n)
	}
}
