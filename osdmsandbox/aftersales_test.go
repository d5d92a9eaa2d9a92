package osdmsandbox_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/caddy-osdm/caddy-osdm/osdm"
	"github.com/caddy-osdm/caddy-osdm/osdmsandbox"
)

// partialRefundOffer asks for a refund offer of some passengers.
func (h *harness) partialRefundOffer(bookingID, fulfillmentID string, overrule osdm.OverruleCode, pax ...string) result {
	h.t.Helper()
	return h.call(http.MethodPost, "/bookings/"+bookingID+"/refund-offers", "",
		osdm.RefundOfferRequest{FulfillmentIDs: []string{fulfillmentID}, OverruleCode: overrule,
			RefundSpecifications: []osdm.RefundSpecification{{FulfillmentID: fulfillmentID, PassengerIDs: pax}}})
}

// TestPartialRefund: a refund offer with refundSpecifications refunds the
// passengers named, priced by their share, frees their places only, and
// never refunds a passenger twice; a whole refund afterwards refunds
// the rest.
func TestPartialRefund(t *testing.T) {
	h := newHarness(t, osdmsandbox.Config{Capacity: 40})
	offer := offerOf(t, h.search(offerRequest("708", nil, adult("p1"), adult("p2"), child("p3"))), osdm.TravelClassSecond, osdm.AccommodationSeat)
	b := h.book(offer, adult("p1"), adult("p2"), child("p3"))
	f := h.fulfil(b.ID)
	pax := b.BookedOffers[0].Reservations[0].PassengerIDs
	if len(pax) != 3 || h.availability("708", osdm.TravelClassSecond, osdm.AccommodationSeat) != 37 {
		t.Fatalf("passengers %v", pax)
	}

	r := h.partialRefundOffer(b.ID, f.ID, "", pax[1])
	var ro osdm.RefundOfferCollectionResponse
	r.decode(t, &ro)
	// An adult seat is 5.00: the fee is 10 % of it.
	if r.status != 200 || ro.RefundOffers[0].RefundFee.Amount != 50 || ro.RefundOffers[0].RefundableAmount.Amount != 450 ||
		!strings.Contains(ro.RefundOffers[0].Summary, pax[1]) {
		t.Fatalf("partial refund offer %d %s", r.status, r.body)
	}
	// A second offer for the same passenger, made before the first is confirmed.
	var other osdm.RefundOfferCollectionResponse
	h.partialRefundOffer(b.ID, f.ID, osdm.OverruleTechnicalFailure, pax[1]).decode(t, &other)
	if c := h.confirmRefund(b.ID, ro.RefundOffers[0].ID); c.status != 200 {
		t.Fatalf("confirm: %d %s", c.status, c.body)
	}
	got := h.getBooking(b.ID)
	res := got.BookedOffers[0].Reservations[0]
	if res.Status != osdm.BookingPartFulfilled || res.RefundAmount == nil || res.RefundAmount.Amount != 450 ||
		got.Fulfillments[0].Status != osdm.FulfillmentFulfilled {
		t.Errorf("after the partial refund: %+v", res.BookingPart)
	}
	var held []string
	for _, rp := range res.PlaceAllocation.ReservedPlaces {
		held = append(held, rp.PassengerIDs...)
	}
	if strings.Join(held, ",") != pax[0]+","+pax[2] {
		t.Errorf("places held for %v, want %s and %s", held, pax[0], pax[2])
	}
	if n := h.availability("708", osdm.TravelClassSecond, osdm.AccommodationSeat); n != 38 {
		t.Errorf("availability %d after freeing one place", n)
	}
	// No passenger is refunded twice: neither by the offer made before
	// nor by a new one.
	h.confirmRefund(b.ID, other.RefundOffers[0].ID).problem(t, http.StatusConflict, osdmsandbox.CodeBookingCancelled)
	h.partialRefundOffer(b.ID, f.ID, "", pax[1]).problem(t, http.StatusConflict, osdmsandbox.CodeBookingCancelled)
	h.partialRefundOffer(b.ID, f.ID, "", "pax-9").problem(t, http.StatusNotFound, osdmsandbox.CodeResourceNotFound)
	h.call(http.MethodPost, "/bookings/"+b.ID+"/refund-offers", "", osdm.RefundOfferRequest{FulfillmentIDs: []string{f.ID},
		RefundSpecifications: []osdm.RefundSpecification{{FulfillmentID: "f-other", PassengerIDs: pax[:1]}}}).
		problem(t, http.StatusNotFound, osdmsandbox.CodeResourceNotFound)

	// The whole refund now refunds the two left: 5.00 + 2.50 less 10 %.
	whole := h.refundOffer(b.ID, f.ID, "")
	if whole.RefundableAmount.Amount != 675 || whole.RefundFee.Amount != 75 {
		t.Errorf("whole refund after a partial one: %+v", whole)
	}
	if c := h.confirmRefund(b.ID, whole.ID); c.status != 200 {
		t.Fatalf("confirm whole: %d %s", c.status, c.body)
	}
	got = h.getBooking(b.ID)
	res = got.BookedOffers[0].Reservations[0]
	if res.Status != osdm.BookingPartRefunded || res.RefundAmount.Amount != 450+675 || got.Fulfillments[0].Status != osdm.FulfillmentRefunded {
		t.Errorf("after the whole refund: %+v", res.BookingPart)
	}
	if n := h.availability("708", osdm.TravelClassSecond, osdm.AccommodationSeat); n != 40 {
		t.Errorf("availability %d after the whole refund", n)
	}
}

// TestPartialRefundEveryPassenger: refunding every passenger one by one
// leaves the booking refunded, and deleting a part of them by booking
// part id works as naming them.
func TestPartialRefundEveryPassenger(t *testing.T) {
	h := newHarness(t, osdmsandbox.Config{Capacity: 40})
	offer := offerOf(t, h.search(offerRequest("708", nil, adult("p1"), adult("p2"))), osdm.TravelClassSecond, osdm.AccommodationSeat)
	b := h.book(offer, adult("p1"), adult("p2"))
	f := h.fulfil(b.ID)
	pax := b.BookedOffers[0].Reservations[0].PassengerIDs
	var ro osdm.RefundOfferCollectionResponse
	h.partialRefundOffer(b.ID, f.ID, "", pax[0]).decode(t, &ro)
	h.confirmRefund(b.ID, ro.RefundOffers[0].ID)
	part := b.BookedOffers[0].Reservations[0].ID
	r := h.call(http.MethodPost, "/bookings/"+b.ID+"/refund-offers", "", osdm.RefundOfferRequest{FulfillmentIDs: []string{f.ID},
		RefundSpecifications: []osdm.RefundSpecification{{FulfillmentID: f.ID, BookingPartIDs: []string{part}}}})
	r.decode(t, &ro)
	if ro.RefundOffers[0].RefundableAmount.Amount != 450 {
		t.Fatalf("refund of the part's last passenger: %s", r.body)
	}
	h.confirmRefund(b.ID, ro.RefundOffers[0].ID)
	got := h.getBooking(b.ID)
	if got.Fulfillments[0].Status != osdm.FulfillmentRefunded || h.debugStatus(b.ID) != "REFUNDED" ||
		h.availability("708", osdm.TravelClassSecond, osdm.AccommodationSeat) != 40 {
		t.Errorf("after refunding both: %+v %s", got.Fulfillments[0], h.debugStatus(b.ID))
	}
}
