package osdmsandbox_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

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
	h.confirmRefund(b.ID, other.RefundOffers[0].ID).problem(t, http.StatusConflict, osdm.CodeBookingAlreadyCancelled)
	h.partialRefundOffer(b.ID, f.ID, "", pax[1]).problem(t, http.StatusConflict, osdm.CodeBookingAlreadyCancelled)
	h.partialRefundOffer(b.ID, f.ID, "", "pax-9").problem(t, http.StatusNotFound, osdm.CodeResourceNotFound)
	h.call(http.MethodPost, "/bookings/"+b.ID+"/refund-offers", "", osdm.RefundOfferRequest{FulfillmentIDs: []string{f.ID},
		RefundSpecifications: []osdm.RefundSpecification{{FulfillmentID: "f-other", PassengerIDs: pax[:1]}}}).
		problem(t, http.StatusNotFound, osdm.CodeResourceNotFound)

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

// exchangeOffers asks for exchange offers of booking b to train in class.
func (h *harness) exchangeOffers(b *osdm.Booking, fulfillmentID, train string, class osdm.TravelClass, pax ...osdm.AnonymousPassengerSpecification) result {
	h.t.Helper()
	search := offerRequest(train, []osdm.TravelClass{class}, pax...)
	return h.call(http.MethodPost, "/bookings/"+b.ID+"/exchange-offers?embed=ALL", "", osdm.ExchangeOfferCollectionRequest{
		FulfillmentIDs: []string{fulfillmentID}, TripSearchCriteria: search.TripSearchCriteria,
		OfferSearchCriteria: search.OfferSearchCriteria, AnonymousPassengerSpecifications: pax})
}

// seatOffer is the exchange offer of seats in an answer.
func seatOffer(t *testing.T, r result) osdm.ExchangeOffer {
	t.Helper()
	var xr osdm.ExchangeOfferCollectionResponse
	r.decode(t, &xr)
	for _, xo := range xr.ExchangeOffers {
		if xo.OfferSummary.OverallAccommodationType == osdm.AccommodationSeat {
			return xo
		}
	}
	t.Fatalf("no seat exchange offer: %d %s", r.status, r.body)
	return osdm.ExchangeOffer{}
}

func (h *harness) exchangeOperation(bookingID string, xo osdm.ExchangeOffer) result {
	h.t.Helper()
	return h.call(http.MethodPost, "/bookings/"+bookingID+"/exchange-operations", "",
		osdm.ExchangeOperationRequest{ExchangeOffers: []osdm.OfferSelection{{OfferID: xo.OfferID, PassengerRefs: xo.PassengerRefs}}})
}

// TestExchange: exchange offers are priced (new price, fee, what to pay or
// refund); an exchange operation holds the new places and leaves the old
// booking standing until the fulfilment confirms it, which replaces the
// old parts and fulfilment and frees the old places; a deleted or lapsed
// operation frees the new places.
func TestExchange(t *testing.T) {
	h := newHarness(t, osdmsandbox.Config{Capacity: 40})
	seats := func(train string, class osdm.TravelClass) int {
		return h.availability(train, class, osdm.AccommodationSeat)
	}
	offer := offerOf(t, h.search(offerRequest("708", nil, adult("p1"), adult("p2"))), osdm.TravelClassSecond, osdm.AccommodationSeat)
	b := h.book(offer, adult("p1"), adult("p2"))
	f := h.fulfil(b.ID)

	// Second class (2 x 5.00) to first (2 x 9.00): fee 1.00, 9.00 to pay.
	xo := seatOffer(t, h.exchangeOffers(b, f.ID, "709", osdm.TravelClassFirst, adult("p1"), adult("p2")))
	if xo.ExchangePrice.Amount != 1800 || xo.ExchangeFee.Amount != 100 || xo.AmountToBePaid == nil || xo.AmountToBePaid.Amount != 900 ||
		xo.RefundableAmount != nil || xo.Fulfillments[0].ID != f.ID {
		t.Fatalf("exchange offer %+v", xo)
	}
	r := h.exchangeOperation(b.ID, xo)
	var op osdm.ExchangeOperationResponse
	r.decode(t, &op)
	if r.status != 200 || op.ExchangeOperation.Status != osdm.ExchangePrebooked || op.ExchangeOperation.TicketTimeLimit == nil {
		t.Fatalf("operation %d %s", r.status, r.body)
	}
	if seats("709", osdm.TravelClassFirst) != 38 || seats("708", osdm.TravelClassSecond) != 38 {
		t.Errorf("pre-booked: 709 first %d, 708 second %d", seats("709", osdm.TravelClassFirst), seats("708", osdm.TravelClassSecond))
	}
	if got := h.getBooking(b.ID); got.Fulfillments[0].Status != osdm.FulfillmentFulfilled || got.BookedOffers[0].Reservations[0].Status != osdm.BookingPartFulfilled {
		t.Errorf("the old booking must stand: %+v", got.Fulfillments)
	}
	h.exchangeOperation(b.ID, xo).problem(t, http.StatusConflict, osdm.CodeOperationNotPermitted)
	opPath := "/bookings/" + b.ID + "/exchange-operations/" + op.ExchangeOperation.ID
	if r := h.call(http.MethodGet, opPath, "", nil); r.status != 200 {
		t.Errorf("GET operation: %d", r.status)
	}
	if r := h.call(http.MethodPatch, opPath, "", osdm.ExchangeOperationPatchRequest{RequestedFulfillmentType: "ETICKET"}); r.status != 200 {
		t.Errorf("PATCH operation: %d %s", r.status, r.body)
	}
	// Deleted: the new places are free again, the old booking stands.
	if r := h.call(http.MethodDelete, opPath, "", nil); r.status != http.StatusNoContent {
		t.Fatalf("DELETE: %d %s", r.status, r.body)
	}
	if seats("709", osdm.TravelClassFirst) != 40 {
		t.Errorf("after DELETE: 709 first %d", seats("709", osdm.TravelClassFirst))
	}
	h.call(http.MethodGet, opPath, "", nil).problem(t, http.StatusNotFound, osdm.CodeResourceNotFound)
	// The offer was used; a new one is needed.
	h.exchangeOperation(b.ID, xo).problem(t, http.StatusNotFound, osdm.CodeOfferNotFound)

	xo = seatOffer(t, h.exchangeOffers(b, f.ID, "709", osdm.TravelClassFirst, adult("p1"), adult("p2")))
	h.exchangeOperation(b.ID, xo).decode(t, &op)
	nf := h.fulfil(b.ID)
	if nf.ID == f.ID || nf.Status != osdm.FulfillmentFulfilled {
		t.Fatalf("confirming fulfilment %+v", nf)
	}
	got := h.getBooking(b.ID)
	if len(got.Fulfillments) != 2 || got.Fulfillments[0].Status != osdm.FulfillmentExchanged || got.Fulfillments[1].ID != nf.ID ||
		got.BookedOffers[0].Reservations[0].Status != osdm.BookingPartExchanged || got.BookedOffers[1].Reservations[0].Status != osdm.BookingPartFulfilled ||
		got.ConfirmedPrice.Amount != 1800 {
		t.Errorf("after the exchange: %+v / %+v", got.Fulfillments, got.BookedOffers)
	}
	if seats("709", osdm.TravelClassFirst) != 38 || seats("708", osdm.TravelClassSecond) != 40 {
		t.Errorf("after the exchange: 709 first %d, 708 second %d", seats("709", osdm.TravelClassFirst), seats("708", osdm.TravelClassSecond))
	}
	var done osdm.ExchangeOperationResponse
	h.call(http.MethodGet, opPath[:strings.LastIndex(opPath, "/")+1]+op.ExchangeOperation.ID, "", nil).decode(t, &done)
	if done.ExchangeOperation.Status != osdm.ExchangeFulfilled || done.ExchangeOperation.Fulfillments[0].ID != nf.ID {
		t.Errorf("operation after: %+v", done.ExchangeOperation)
	}
	h.call(http.MethodDelete, "/bookings/"+b.ID+"/exchange-operations/"+op.ExchangeOperation.ID, "", nil).problem(t, http.StatusConflict, osdm.CodeOperationNotPermitted)
	// Fulfilled again: nothing more happens.
	if again := h.fulfil(b.ID); again.ID != nf.ID {
		t.Errorf("second fulfilment %+v", again)
	}
	// A refund now refunds the new journey.
	if ro := h.refundOffer(b.ID, nf.ID, ""); ro.RefundableAmount.Amount != 1620 {
		t.Errorf("refund after exchange %+v", ro.RefundableAmount)
	}
	// First class back to second: cheaper, 6.20 comes back.
	xo = seatOffer(t, h.exchangeOffers(b, nf.ID, "708", osdm.TravelClassSecond, adult("p1"), adult("p2")))
	if xo.RefundableAmount == nil || xo.RefundableAmount.Amount != 620 || xo.AmountToBePaid != nil || xo.ExchangeFee.Amount != 180 {
		t.Errorf("cheaper exchange %+v", xo)
	}
}

// TestExchangeOffersEmbed: without embed (the spec requires it, clients
// leave it out) the answer embeds ALL; an unknown value is a 400 naming it.
func TestExchangeOffersEmbed(t *testing.T) {
	h := newHarness(t, osdmsandbox.Config{Capacity: 40})
	offer := offerOf(t, h.search(offerRequest("708", nil)), osdm.TravelClassSecond, osdm.AccommodationSeat)
	b := h.book(offer, adult("p1"))
	f := h.fulfil(b.ID)
	search := offerRequest("709", []osdm.TravelClass{osdm.TravelClassSecond}, adult("p1"))
	body := osdm.ExchangeOfferCollectionRequest{
		FulfillmentIDs: []string{f.ID}, TripSearchCriteria: search.TripSearchCriteria,
		OfferSearchCriteria: search.OfferSearchCriteria, AnonymousPassengerSpecifications: []osdm.AnonymousPassengerSpecification{adult("p1")}}
	raw, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	// raw: the spec checker of the harness refuses a request without embed.
	post := func(query string) result {
		return h.raw(http.MethodPost, "/bookings/"+b.ID+"/exchange-offers"+query, http.Header{"Content-Type": {osdm.ContentTypeJSON}}, raw)
	}
	var xr osdm.ExchangeOfferCollectionResponse
	post("").decode(t, &xr)
	if len(xr.ExchangeOffers) == 0 || len(xr.Trips) == 0 {
		t.Errorf("without embed: %d exchange offers, %d trips; want both (ALL)", len(xr.ExchangeOffers), len(xr.Trips))
	}
	xr = osdm.ExchangeOfferCollectionResponse{}
	post("?embed=EXCHANGEOFFERS").decode(t, &xr)
	if len(xr.ExchangeOffers) == 0 || len(xr.Trips) != 0 {
		t.Errorf("embed=EXCHANGEOFFERS: %d exchange offers, %d trips; want offers alone", len(xr.ExchangeOffers), len(xr.Trips))
	}
	post("?embed=SOME").problem(t, http.StatusBadRequest, osdm.CodeInvalidRequest)
}

// TestExchangeRefusals: what cannot be exchanged, and an operation that
// lapses.
func TestExchangeRefusals(t *testing.T) {
	h := newHarness(t, osdmsandbox.Config{Capacity: 40})
	offer := offerOf(t, h.search(offerRequest("708", nil)), osdm.TravelClassSecond, osdm.AccommodationSeat)
	b := h.book(offer, adult("p1"))
	h.exchangeOffers(b, "f-none", "709", osdm.TravelClassSecond, adult("p1")).problem(t, http.StatusConflict, osdm.CodeOperationNotPermitted)
	f := h.fulfil(b.ID)
	h.exchangeOffers(b, "f-other", "709", osdm.TravelClassSecond, adult("p1")).problem(t, http.StatusNotFound, osdm.CodeResourceNotFound)
	h.exchangeOffers(b, f.ID, "709", osdm.TravelClassSecond, adult("p1"), adult("p2")).problem(t, http.StatusBadRequest, osdm.CodeValidationError)
	// An ordinary offer is no exchange offer.
	plain := offerOf(t, h.search(offerRequest("709", nil)), osdm.TravelClassSecond, osdm.AccommodationSeat)
	h.exchangeOperation(b.ID, osdm.ExchangeOffer{OfferID: plain.OfferID, PassengerRefs: plain.PassengerRefs}).problem(t, http.StatusNotFound, osdm.CodeOfferNotFound)
	// A pre-booked operation lapses at its ticketTimeLimit.
	xo := seatOffer(t, h.exchangeOffers(b, f.ID, "709", osdm.TravelClassSecond, adult("p1")))
	// An exchange offer is not sold as a new booking.
	h.call(http.MethodPost, "/bookings", "", osdm.BookingRequest{Offers: []osdm.OfferSelection{{OfferID: xo.OfferID, PassengerRefs: xo.PassengerRefs}},
		PassengerSpecifications: []osdm.PassengerSpecification{{ExternalRef: "p1", Type: osdm.PassengerAdult}}}).problem(t, http.StatusNotFound, osdm.CodeOfferNotFound)
	var op osdm.ExchangeOperationResponse
	h.exchangeOperation(b.ID, xo).decode(t, &op)
	if n := h.availability("709", osdm.TravelClassSecond, osdm.AccommodationSeat); n != 39 {
		t.Errorf("held: %d", n)
	}
	h.clock.Advance(osdmsandbox.DefaultBookingTTL + time.Second)
	h.call(http.MethodGet, "/bookings/"+b.ID+"/exchange-operations/"+op.ExchangeOperation.ID, "", nil).problem(t, http.StatusNotFound, osdm.CodeResourceNotFound)
	if n := h.availability("709", osdm.TravelClassSecond, osdm.AccommodationSeat); n != 40 {
		t.Errorf("after the lapse: %d", n)
	}
	if got := h.fulfil(b.ID); got.ID != f.ID {
		t.Errorf("a fulfilment after the lapse exchanged: %+v", got)
	}
}

// TestRefundAcrossAnExchange: a refund offer made before an exchange is
// not confirmed while the exchange is pre-booked (the exchange would move
// the passengers refunded as well), nor once it is confirmed (the old
// journey's value went to the exchange): nothing is refunded twice and the
// booking holds the new journey's places only.
func TestRefundAcrossAnExchange(t *testing.T) {
	h := newHarness(t, osdmsandbox.Config{Capacity: 40})
	offer := offerOf(t, h.search(offerRequest("708", nil, adult("p1"), adult("p2"))), osdm.TravelClassSecond, osdm.AccommodationSeat)
	b := h.book(offer, adult("p1"), adult("p2"))
	f := h.fulfil(b.ID)
	whole := h.refundOffer(b.ID, f.ID, "")
	one := h.partialRefundOffer(b.ID, f.ID, "", "pax-2")
	if one.status != 200 {
		t.Fatalf("partial refund offer: %d %s", one.status, one.body)
	}
	var partial osdm.RefundOfferCollectionResponse
	one.decode(t, &partial)
	xo := seatOffer(t, h.exchangeOffers(b, f.ID, "709", osdm.TravelClassFirst, adult("p1"), adult("p2")))
	if r := h.exchangeOperation(b.ID, xo); r.status != 200 {
		t.Fatalf("operation %d %s", r.status, r.body)
	}
	h.confirmRefund(b.ID, partial.RefundOffers[0].ID).problem(t, http.StatusConflict, osdm.CodeOperationNotPermitted)
	h.fulfil(b.ID)
	h.confirmRefund(b.ID, whole.ID).problem(t, http.StatusConflict, osdm.CodeOperationNotPermitted)
	h.confirmRefund(b.ID, partial.RefundOffers[0].ID).problem(t, http.StatusConflict, osdm.CodeOperationNotPermitted)
	got := h.getBooking(b.ID)
	for _, bo := range got.BookedOffers {
		for _, res := range bo.Reservations {
			if res.RefundAmount != nil {
				t.Errorf("part %s (%s) refunded %d", res.ID, res.Status, res.RefundAmount.Amount)
			}
		}
	}
	if got.Fulfillments[len(got.Fulfillments)-1].Status != osdm.FulfillmentFulfilled ||
		h.availability("708", osdm.TravelClassSecond, osdm.AccommodationSeat) != 40 || h.availability("709", osdm.TravelClassFirst, osdm.AccommodationSeat) != 38 {
		t.Errorf("after: %+v; 708 second %d, 709 first %d", got.Fulfillments, h.availability("708", osdm.TravelClassSecond, osdm.AccommodationSeat),
			h.availability("709", osdm.TravelClassFirst, osdm.AccommodationSeat))
	}
	// A refund asked now refunds the new journey.
	if ro := h.refundOffer(b.ID, got.Fulfillments[len(got.Fulfillments)-1].ID, ""); h.confirmRefund(b.ID, ro.ID).status != 200 {
		t.Error("the new journey cannot be refunded")
	}
}
