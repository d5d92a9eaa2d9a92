package osdmsandbox_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/osdm"
	"github.com/caddy-osdm/caddy-osdm/osdmsandbox"
)

func TestBookingLifecycle(t *testing.T) {
	h := newHarness(t, osdmsandbox.Config{Capacity: 40})
	offer := offerOf(t, h.search(offerRequest("708", nil, adult("p1"), child("p2"))), osdm.TravelClassSecond, osdm.AccommodationSeat)

	b := h.book(offer, adult("p1"), child("p2"))
	res := b.BookedOffers[0].Reservations[0]
	if b.ID == "" || b.BookingCode == "" || b.ExternalRef != "legacy-msg-1" || len(b.Passengers) != 2 || b.Passengers[0].Detail.LastName != "Muster" {
		t.Fatalf("booking %+v", b)
	}
	if res.Status != osdm.BookingPartPrebooked || res.Price.Amount != 750 || b.ProvisionalPrice.Amount != 750 ||
		b.ConfirmationTimeLimit == nil || !b.ConfirmationTimeLimit.Equal(t0.Add(osdmsandbox.DefaultBookingTTL)) {
		t.Errorf("provisional booking: %+v / %+v", b, res.BookingPart)
	}
	places := res.PlaceAllocation.ReservedPlaces
	if len(places) != 1 || places[0].VehicleNumber != "708" || places[0].CoachNumber == "" ||
		strings.Join(places[0].PlaceNumbers, ",") != "11,12" || strings.Join(places[0].PassengerIDs, ",") != strings.Join(res.PassengerIDs, ",") {
		t.Errorf("places %+v for passengers %v", places, res.PassengerIDs)
	}
	if len(b.Trips) != 1 || res.TripCoverage.CoveredTripID != b.Trips[0].ID {
		t.Errorf("trips %+v coverage %+v", b.Trips, res.TripCoverage)
	}
	if got := h.availability("708", osdm.TravelClassSecond, osdm.AccommodationSeat); got != 38 {
		t.Errorf("availability after booking 2 places: %d", got)
	}
	if got := h.debugStatus(b.ID); got != "PREBOOKED" {
		t.Errorf("debug status %q", got)
	}

	if again := h.getBooking(b.ID); again.ID != b.ID || again.BookedOffers[0].Reservations[0].Status != osdm.BookingPartPrebooked {
		t.Errorf("GET: %+v", again)
	}

	f := h.fulfil(b.ID)
	if f.Status != osdm.FulfillmentFulfilled || f.BookingRef != b.ID || f.ControlNumber == "" || f.BookingParts[0].ID != res.ID {
		t.Errorf("fulfillment %+v", f)
	}
	fulfilled := h.getBooking(b.ID)
	if r := fulfilled.BookedOffers[0].Reservations[0]; r.Status != osdm.BookingPartFulfilled || r.ConfirmedOn == nil ||
		fulfilled.ConfirmedPrice == nil || len(fulfilled.Fulfillments) != 1 || fulfilled.Fulfillments[0].ID != f.ID {
		t.Errorf("fulfilled booking: %+v", fulfilled)
	}
	// A fulfilment repeated (say, by a retry without a key) issues nothing new.
	if again := h.fulfil(b.ID); again.ID != f.ID || again.ControlNumber != f.ControlNumber {
		t.Errorf("second fulfilment %+v, want %+v", again, f)
	}

	// Without an overrule code the sandbox keeps 10 %.
	ordinary := h.refundOffer(b.ID, f.ID, "")
	if ordinary.Status != osdm.RefundProposed || ordinary.RefundFee.Amount != 75 || ordinary.RefundableAmount.Amount != 675 ||
		ordinary.AppliedOverruleCode != "" || ordinary.Fulfillments[0].ID != f.ID || !ordinary.ValidUntil.After(ordinary.ValidFrom) {
		t.Errorf("ordinary refund offer %+v", ordinary)
	}
	// With one, it refunds everything.
	overruled := h.refundOffer(b.ID, f.ID, osdm.OverruleTechnicalFailure)
	if overruled.RefundFee.Amount != 0 || overruled.RefundableAmount.Amount != 750 || overruled.AppliedOverruleCode != osdm.OverruleTechnicalFailure {
		t.Errorf("overruled refund offer %+v", overruled)
	}
	r := h.confirmRefund(b.ID, overruled.ID)
	var confirmed osdm.RefundOfferResponse
	r.decode(t, &confirmed)
	if r.status != http.StatusOK || confirmed.RefundOffer.Status != osdm.RefundConfirmed || confirmed.RefundOffer.ConfirmedOn == nil ||
		confirmed.RefundOffer.Fulfillments[0].Status != osdm.FulfillmentRefunded {
		t.Fatalf("confirm: %d %s", r.status, r.body)
	}
	refunded := h.getBooking(b.ID)
	if r := refunded.BookedOffers[0].Reservations[0]; r.Status != osdm.BookingPartRefunded || r.RefundAmount == nil || r.RefundAmount.Amount != 750 {
		t.Errorf("refunded part %+v", r.BookingPart)
	}
	if len(refunded.RefundOffers) != 2 || refunded.Fulfillments[0].Status != osdm.FulfillmentRefunded {
		t.Errorf("refunded booking %+v", refunded)
	}
	if got := h.availability("708", osdm.TravelClassSecond, osdm.AccommodationSeat); got != 40 {
		t.Errorf("availability after the refund: %d, want the places back", got)
	}
	if got := h.debugStatus(b.ID); got != "REFUNDED" {
		t.Errorf("debug status %q", got)
	}

	// Confirming twice refunds once; the other offer cannot be confirmed.
	r = h.confirmRefund(b.ID, overruled.ID)
	var twice osdm.RefundOfferResponse
	r.decode(t, &twice)
	if r.status != http.StatusOK || twice.RefundOffer.Status != osdm.RefundConfirmed || !twice.RefundOffer.ConfirmedOn.Equal(*confirmed.RefundOffer.ConfirmedOn) {
		t.Errorf("second PATCH: %d %s", r.status, r.body)
	}
	if got := h.availability("708", osdm.TravelClassSecond, osdm.AccommodationSeat); got != 40 {
		t.Errorf("availability after a second PATCH: %d", got)
	}
	h.confirmRefund(b.ID, ordinary.ID).problem(t, http.StatusConflict, osdm.CodeBookingAlreadyCancelled)
	h.call(http.MethodPost, "/bookings/"+b.ID+"/refund-offers", "", osdm.RefundOfferRequest{FulfillmentIDs: []string{f.ID}}).
		problem(t, http.StatusConflict, osdm.CodeBookingAlreadyCancelled)
	h.call(http.MethodDelete, "/bookings/"+b.ID, "", nil).problem(t, http.StatusConflict, osdm.CodeBookingAlreadyCancelled)
	h.call(http.MethodPost, "/bookings/"+b.ID+"/fulfillments", "", osdm.FulfillmentPostRequest{}).problem(t, http.StatusConflict, osdm.CodeConfirmationCancelled)
}

func TestNightTrainPlaces(t *testing.T) {
	h := newHarness(t, osdmsandbox.Config{Capacity: 100})
	resp := h.search(offerRequest("402", nil, adult("p1"), adult("p2")))
	seat := h.book(offerOf(t, resp, osdm.TravelClassSecond, osdm.AccommodationSeat), adult("p1"), adult("p2"))
	berth := h.book(offerOf(t, resp, osdm.TravelClassFirst, osdm.AccommodationBerth), adult("p1"), adult("p2"))
	s := seat.BookedOffers[0].Reservations[0].PlaceAllocation
	b := berth.BookedOffers[0].Reservations[0].PlaceAllocation
	if b.AccommodationType != osdm.AccommodationBerth || s.AccommodationType != osdm.AccommodationSeat {
		t.Errorf("accommodations %s %s", s.AccommodationType, b.AccommodationType)
	}
	if s.ReservedPlaces[0].CoachNumber == b.ReservedPlaces[0].CoachNumber {
		t.Errorf("seats and berths in the same coach %s", s.ReservedPlaces[0].CoachNumber)
	}
	if berth.ProvisionalPrice.Amount != 2*8900 {
		t.Errorf("first class berths for two: %d", berth.ProvisionalPrice.Amount)
	}
}

func TestBookingErrors(t *testing.T) {
	h := newHarness(t, osdmsandbox.Config{})
	resp := h.search(offerRequest("708", nil, adult("p1"), adult("p2")))
	offer := offerOf(t, resp, osdm.TravelClassSecond, osdm.AccommodationSeat)

	unknown := offer
	unknown.OfferID = "o-nope"
	p := h.call(http.MethodPost, "/bookings", "", bookingRequest(unknown, adult("p1"), adult("p2"))).problem(t, http.StatusNotFound, osdm.CodeOfferNotFound)
	if pointerOf(p) != "#/offers/0/offerId" {
		t.Errorf("pointer %q", pointerOf(p))
	}

	notOffered := bookingRequest(offer, adult("p1"), adult("p2"))
	notOffered.Offers[0].PassengerRefs = []string{"p1", "p9"}
	h.call(http.MethodPost, "/bookings", "", notOffered).problem(t, http.StatusBadRequest, osdm.CodeValidationError)

	unspecified := bookingRequest(offer, adult("p1"))
	p = h.call(http.MethodPost, "/bookings", "", unspecified).problem(t, http.StatusBadRequest, osdm.CodeValidationError)
	if pointerOf(p) != "#/offers/0/passengerRefs/1" {
		t.Errorf("pointer %q", pointerOf(p))
	}

	otherType := bookingRequest(offer, adult("p1"), child("p2"))
	h.call(http.MethodPost, "/bookings", "", otherType).problem(t, http.StatusBadRequest, osdm.CodeValidationError)

	twice := bookingRequest(offer, adult("p1"), adult("p2"))
	twice.Offers = append(twice.Offers, twice.Offers[0])
	h.call(http.MethodPost, "/bookings", "", twice).problem(t, http.StatusBadRequest, osdm.CodeValidationError)

	// Booked once, the offer is gone.
	b := h.book(offer, adult("p1"), adult("p2"))
	p = h.call(http.MethodPost, "/bookings", "", bookingRequest(offer, adult("p1"), adult("p2"))).problem(t, http.StatusNotFound, osdm.CodeOfferNotFound)
	if !strings.Contains(p.Detail, b.ID) {
		t.Errorf("detail %q does not name the booking", p.Detail)
	}

	// Expired: the other offer of the search, after its preBookableUntil.
	h.clock.Advance(osdmsandbox.DefaultOfferTTL)
	first := offerOf(t, resp, osdm.TravelClassFirst, osdm.AccommodationSeat)
	h.call(http.MethodPost, "/bookings", "", bookingRequest(first, adult("p1"), adult("p2"))).problem(t, http.StatusNotFound, osdm.CodeOfferNotFound)

	for _, path := range []string{"/bookings/b-nope", "/bookings/b-nope/fulfillments", "/bookings/b-nope/refund-offers"} {
		switch {
		case strings.HasSuffix(path, "fulfillments"):
			h.call(http.MethodPost, path, "", osdm.FulfillmentPostRequest{}).problem(t, http.StatusNotFound, osdm.CodeResourceNotFound)
		case strings.HasSuffix(path, "refund-offers"):
			h.call(http.MethodPost, path, "", osdm.RefundOfferRequest{FulfillmentIDs: []string{"f"}}).problem(t, http.StatusNotFound, osdm.CodeResourceNotFound)
		default:
			h.call(http.MethodGet, path, "", nil).problem(t, http.StatusNotFound, osdm.CodeResourceNotFound)
			h.call(http.MethodDelete, path, "", nil).problem(t, http.StatusNotFound, osdm.CodeResourceNotFound)
		}
	}
	h.confirmRefund("b-nope", "ro-1").problem(t, http.StatusNotFound, osdm.CodeResourceNotFound)
}

func TestCapacityRunsOut(t *testing.T) {
	h := newHarness(t, osdmsandbox.Config{Capacity: 3})
	two := []osdm.AnonymousPassengerSpecification{adult("p1"), adult("p2")}
	early := h.search(offerRequest("708", nil, two...))
	late := h.search(offerRequest("708", nil, two...))

	h.book(offerOf(t, early, osdm.TravelClassSecond, osdm.AccommodationSeat), two...)
	// Offered before the places went: booking it now finds 1 of 2.
	p := h.call(http.MethodPost, "/bookings", "", bookingRequest(offerOf(t, late, osdm.TravelClassSecond, osdm.AccommodationSeat), two...)).
		problem(t, http.StatusConflict, osdm.CodeInsufficientAvailability)
	if !strings.Contains(p.Detail, "2 places asked, 1 left") {
		t.Errorf("detail %q", p.Detail)
	}
	// A new search no longer offers second class for two; first class is
	// still there.
	now := h.search(offerRequest("708", nil, two...))
	if len(now.Offers) != 1 || now.Offers[0].OfferSummary.OverallTravelClass != osdm.TravelClassFirst {
		t.Errorf("offers after second class ran out: %+v", now.Offers)
	}
	h.book(now.Offers[0], two...)
	full := h.search(offerRequest("708", nil, two...))
	if len(full.Offers) != 0 || len(full.Problems) != 1 || full.Problems[0].Code != osdm.CodeInsufficientAvailability {
		t.Errorf("full train: %+v", full)
	}
	// One place is still left in each class, for one passenger; another
	// day of the same train is empty.
	if one := h.search(offerRequest("708", nil)); len(one.Offers) != 2 || *one.Offers[0].ReservationOfferParts[0].NumericAvailability != 1 {
		t.Errorf("one passenger: %+v", one.Offers)
	}
	nextDay := offerRequest("708", nil, two...)
	d := departure.AddDate(0, 0, 1)
	nextDay.TripSearchCriteria.DepartureTime = &d
	if resp := h.search(nextDay); len(resp.Offers) != 2 || *resp.Offers[0].ReservationOfferParts[0].NumericAvailability != 3 {
		t.Errorf("next day: %+v", resp.Offers)
	}
}

func TestProvisionalBookingExpires(t *testing.T) {
	h := newHarness(t, osdmsandbox.Config{Capacity: 2, BookingTTL: 10 * time.Minute})
	two := []osdm.AnonymousPassengerSpecification{adult("p1"), adult("p2")}
	b := h.book(offerOf(t, h.search(offerRequest("708", nil, two...)), osdm.TravelClassSecond, osdm.AccommodationSeat), two...)
	if resp := h.search(offerRequest("708", []osdm.TravelClass{osdm.TravelClassSecond}, two...)); len(resp.Offers) != 0 {
		t.Fatalf("second class still offered while held: %+v", resp.Offers)
	}

	h.clock.Advance(10 * time.Minute)
	released := h.getBooking(b.ID)
	if r := released.BookedOffers[0].Reservations[0]; r.Status != osdm.BookingPartReleased || released.ConfirmationTimeLimit == nil {
		t.Errorf("expired booking: %+v", r.BookingPart)
	}
	if got := h.debugStatus(b.ID); got != "RELEASED" {
		t.Errorf("debug status %q", got)
	}
	h.call(http.MethodPost, "/bookings/"+b.ID+"/fulfillments", "", osdm.FulfillmentPostRequest{}).problem(t, http.StatusConflict, osdm.CodeConfirmationCancelled)
	h.call(http.MethodPost, "/bookings/"+b.ID+"/refund-offers", "", osdm.RefundOfferRequest{FulfillmentIDs: []string{"f"}}).
		problem(t, http.StatusConflict, osdm.CodeBookingAlreadyCancelled)
	if got := h.availability("708", osdm.TravelClassSecond, osdm.AccommodationSeat); got != 2 {
		t.Errorf("availability after expiry: %d", got)
	}
	// The freed places can be booked again.
	h.book(offerOf(t, h.search(offerRequest("708", nil, two...)), osdm.TravelClassSecond, osdm.AccommodationSeat), two...)
	// Deleting the released booking is allowed and frees nothing twice.
	if r := h.call(http.MethodDelete, "/bookings/"+b.ID, "", nil); r.status != http.StatusNoContent {
		t.Errorf("DELETE released: %d %s", r.status, r.body)
	}
	if resp := h.search(offerRequest("708", []osdm.TravelClass{osdm.TravelClassSecond})); len(resp.Offers) != 0 {
		t.Errorf("offers %+v, want the new booking's places still taken", resp.Offers)
	}
}

func TestExpiredPlacesFreeForBookingWithoutSearch(t *testing.T) {
	// A booking short of places sweeps expired holds before refusing.
	h := newHarness(t, osdmsandbox.Config{Capacity: 1, BookingTTL: time.Minute, OfferTTL: time.Hour})
	a := h.search(offerRequest("708", []osdm.TravelClass{osdm.TravelClassSecond}))
	b := h.search(offerRequest("708", []osdm.TravelClass{osdm.TravelClassSecond}))
	h.book(a.Offers[0])
	h.call(http.MethodPost, "/bookings", "", bookingRequest(b.Offers[0])).problem(t, http.StatusConflict, osdm.CodeInsufficientAvailability)
	h.clock.Advance(time.Minute)
	h.book(b.Offers[0])
}

func TestDeleteBooking(t *testing.T) {
	h := newHarness(t, osdmsandbox.Config{Capacity: 10})
	resp := h.search(offerRequest("708", nil))
	b := h.book(offerOf(t, resp, osdm.TravelClassSecond, osdm.AccommodationSeat))

	r := h.call(http.MethodDelete, "/bookings/"+b.ID, "", nil)
	if r.status != http.StatusNoContent || len(r.body) != 0 {
		t.Fatalf("DELETE: %d %q", r.status, r.body)
	}
	if got := h.availability("708", osdm.TravelClassSecond, osdm.AccommodationSeat); got != 10 {
		t.Errorf("availability after DELETE: %d", got)
	}
	h.call(http.MethodGet, "/bookings/"+b.ID, "", nil).problem(t, http.StatusNotFound, osdm.CodeBookingAlreadyCancelled)
	h.call(http.MethodDelete, "/bookings/"+b.ID, "", nil).problem(t, http.StatusNotFound, osdm.CodeBookingAlreadyCancelled)
	h.call(http.MethodPost, "/bookings/"+b.ID+"/fulfillments", "", osdm.FulfillmentPostRequest{}).problem(t, http.StatusNotFound, osdm.CodeBookingAlreadyCancelled)
	if got := h.debugStatus(b.ID); got != "DELETED" {
		t.Errorf("debug status %q", got)
	}

	fulfilled := h.book(offerOf(t, resp, osdm.TravelClassFirst, osdm.AccommodationSeat))
	f := h.fulfil(fulfilled.ID)
	p := h.call(http.MethodDelete, "/bookings/"+fulfilled.ID, "", nil).problem(t, http.StatusConflict, osdm.CodeAlreadyFulfilled)
	if !strings.Contains(p.Detail, "refund") {
		t.Errorf("detail %q should say to refund", p.Detail)
	}
	if got := h.getBooking(fulfilled.ID); got.Fulfillments[0].ID != f.ID {
		t.Errorf("a refused DELETE changed the booking: %+v", got)
	}
}

func TestRefundErrors(t *testing.T) {
	h := newHarness(t, osdmsandbox.Config{OfferTTL: 5 * time.Minute})
	resp := h.search(offerRequest("708", nil))
	pre := h.book(offerOf(t, resp, osdm.TravelClassSecond, osdm.AccommodationSeat))
	h.call(http.MethodPost, "/bookings/"+pre.ID+"/refund-offers", "", osdm.RefundOfferRequest{FulfillmentIDs: []string{"f"}}).
		problem(t, http.StatusConflict, osdm.CodeOperationNotPermitted)

	b := h.book(offerOf(t, resp, osdm.TravelClassFirst, osdm.AccommodationSeat))
	f := h.fulfil(b.ID)
	p := h.call(http.MethodPost, "/bookings/"+b.ID+"/refund-offers", "", osdm.RefundOfferRequest{FulfillmentIDs: []string{"f-other"}}).
		problem(t, http.StatusNotFound, osdm.CodeResourceNotFound)
	if pointerOf(p) != "#/fulfillmentIds/0" || !strings.Contains(p.Detail, f.ID) {
		t.Errorf("problem %+v", p)
	}
	ro := h.refundOffer(b.ID, f.ID, "")

	// PROPOSED is valid in the spec but cannot be patched to.
	h.call(http.MethodPatch, "/bookings/"+b.ID+"/refund-offers/"+ro.ID, "", osdm.RefundOfferPatchRequest{Status: osdm.RefundProposed}).
		problem(t, http.StatusBadRequest, osdm.CodeValidationError)
	h.confirmRefund(b.ID, "ro-nope").problem(t, http.StatusNotFound, osdm.CodeResourceNotFound)

	h.clock.Advance(5 * time.Minute)
	h.confirmRefund(b.ID, ro.ID).problem(t, http.StatusConflict, osdm.CodeOperationNotPermitted)
	if got := h.getBooking(b.ID).BookedOffers[0].Reservations[0].Status; got != osdm.BookingPartFulfilled {
		t.Errorf("status after a refused refund: %s", got)
	}
	fresh := h.refundOffer(b.ID, f.ID, "")
	if r := h.confirmRefund(b.ID, fresh.ID); r.status != http.StatusOK {
		t.Errorf("fresh refund offer: %d %s", r.status, r.body)
	}
}

func TestCamelCaseRefundPaths(t *testing.T) {
	h := newHarness(t, osdmsandbox.Config{})
	b := h.book(offerOf(t, h.search(offerRequest("708", nil)), osdm.TravelClassSecond, osdm.AccommodationSeat))
	f := h.fulfil(b.ID)
	r := h.call(http.MethodPost, "/bookings/"+b.ID+"/refundOffers", "", osdm.RefundOfferRequest{FulfillmentIDs: []string{f.ID}})
	var offers osdm.RefundOfferCollectionResponse
	r.decode(t, &offers)
	if r.status != http.StatusOK || len(offers.RefundOffers) != 1 {
		t.Fatalf("POST refundOffers: %d %s", r.status, r.body)
	}
	r = h.call(http.MethodPatch, "/bookings/"+b.ID+"/refundOffers/"+offers.RefundOffers[0].ID, "", osdm.RefundOfferPatchRequest{Status: osdm.RefundConfirmed})
	if r.status != http.StatusOK || h.debugStatus(b.ID) != "REFUNDED" {
		t.Errorf("PATCH refundOffers: %d %s", r.status, r.body)
	}
}

// TestGetBookingEmbed: GET /bookings/{bookingId} answers the whole
// booking for any embed the spec lists, and refuses one it does not with
// a 400 naming it, rather than ignoring it.
func TestGetBookingEmbed(t *testing.T) {
	h := newHarness(t, osdmsandbox.Config{})
	b := h.book(h.search(offerRequest("708", nil)).Offers[0])
	for _, q := range []string{"?embed=ALL", "?embed=BOOKING_TRIPS&embed=BOOKING_PASSENGERS", "?embed=NONE"} {
		var got osdm.BookingResponse
		h.call(http.MethodGet, "/bookings/"+b.ID+q, "", nil).decode(t, &got)
		if got.Booking == nil || got.Booking.ID != b.ID {
			t.Errorf("%s: %+v", q, got)
		}
	}
	p := h.raw(http.MethodGet, "/bookings/"+b.ID+"?embed=TRIPS", nil, nil).problem(t, http.StatusBadRequest, osdm.CodeInvalidRequest)
	if !strings.HasPrefix(p.Detail, `embed "TRIPS" is not one of ALL, BOOKING,`) {
		t.Errorf("detail %q", p.Detail)
	}
}
