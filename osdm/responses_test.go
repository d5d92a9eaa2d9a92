package osdm

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/internal/osdmspec"
)

// The 3.9 spec has no whole-message examples (only scalar ones), so the
// responses in testdata/ are handwritten. Each is first validated against
// the spec, then parsed into our types, then re-marshalled and validated
// again: the types read what partners send and write what the sandbox
// may send.

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// parseValid validates raw as the response of method+path, parses it into
// v, and validates v re-marshalled.
func parseValid(t *testing.T, version osdmspec.Version, method, path string, status int, raw []byte, v any) {
	t.Helper()
	osdmspec.ValidateResponse(t, version, method, path, status, nil, raw)
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("unmarshal: %v", err)
	}
	osdmspec.ValidateResponse(t, version, method, path, status, nil, osdmspec.Marshal(t, v))
}

func TestParseOfferCollectionResponse(t *testing.T) {
	var resp OfferCollectionResponse
	parseValid(t, osdmspec.V39, http.MethodPost, PathOffers, http.StatusOK, readTestdata(t, "offers-response.json"), &resp)
	if len(resp.Offers) != 1 || len(resp.Trips) != 1 {
		t.Fatalf("offers %d trips %d", len(resp.Offers), len(resp.Trips))
	}
	o := resp.Offers[0]
	if o.OfferID != "offer-708-2nd" || o.OfferSummary.OverallTravelClass != TravelClassSecond ||
		o.OfferSummary.OverallServiceClass.Type != ServiceClassStandard {
		t.Errorf("offer: %+v", o)
	}
	if want := time.Date(2026, 5, 1, 10, 30, 0, 0, time.UTC); !o.PreBookableUntil.Equal(want) {
		t.Errorf("preBookableUntil %v", o.PreBookableUntil)
	}
	part := o.ReservationOfferParts[0]
	if part.ObjectType != ObjectTypeReservationOfferPart || part.ID != "rop-1" || *part.NumericAvailability != 42 {
		t.Errorf("reservation part: %+v", part)
	}
	if d, _ := part.Price.Decimal(); d != "5.00" || part.Price.Currency != "CHF" {
		t.Errorf("price %s %s", d, part.Price.Currency)
	}
	if p := o.Product(part.Products[0].ProductID); p == nil || p.TravelClass != TravelClassSecond {
		t.Errorf("product lookup: %+v", p)
	}
	if ap := part.AvailablePlaces[0]; ap.AccommodationType != AccommodationSeat || ap.TripLegCoverage.LegID != "leg-1" {
		t.Errorf("available place: %+v", ap)
	}
	leg := resp.Trips[0].Legs[0].TimedLeg
	if leg.Service.VehicleNumbers[0] != "708" || leg.Start.StopPlaceRef.StopPlaceRef != "urn:uic:stn:8500010" {
		t.Errorf("leg: %+v", leg)
	}
	if _, off := leg.Start.ServiceDeparture.TimetabledTime.Zone(); off != 2*3600 {
		t.Errorf("departure offset %d, want +02:00 kept", off)
	}
}

func TestParseBookingResponse(t *testing.T) {
	var resp BookingResponse
	raw := readTestdata(t, "booking-response.json")
	parseValid(t, osdmspec.V39, http.MethodPost, PathBookings, http.StatusOK, raw, &resp)
	osdmspec.ValidateResponse(t, osdmspec.V39, http.MethodGet, "/bookings/bk-1", http.StatusOK, nil, raw)
	b := resp.Booking
	if b.ID != "bk-1" || b.BookingCode != "ABC123" || b.Passengers[0].Detail.LastName != "Muster" {
		t.Fatalf("booking: %+v", b)
	}
	if b.ConfirmationTimeLimit == nil || b.ProvisionalPrice.Amount != 500 {
		t.Errorf("limit/price: %v %+v", b.ConfirmationTimeLimit, b.ProvisionalPrice)
	}
	r := b.BookedOffers[0].Reservations[0]
	if r.Status != BookingPartPrebooked || r.ObjectType != ObjectTypeReservation {
		t.Errorf("reservation: %+v", r.BookingPart)
	}
	place := r.PlaceAllocation.ReservedPlaces[0]
	if place.CoachNumber != "12" || place.PlaceNumbers[0] != "45" || place.VehicleNumber != "708" {
		t.Errorf("place: %+v", place)
	}
	if f := b.Fulfillments[0]; f.ID != "ful-1" || f.Status != FulfillmentConfirmed || f.ControlNumber != "CN-77" {
		t.Errorf("fulfillment: %+v", f)
	}
}

func TestParseFulfillmentAndRefundResponses(t *testing.T) {
	var ful FulfillmentCollectionResponse
	parseValid(t, osdmspec.V39, http.MethodPost, "/bookings/bk-1/fulfillments", http.StatusOK, readTestdata(t, "fulfillments-response.json"), &ful)
	if f := ful.Fulfillments[0]; f.Status != FulfillmentFulfilled || f.BookingParts[0].ID != "res-1" {
		t.Errorf("fulfillment: %+v", f)
	}

	var offers RefundOfferCollectionResponse
	parseValid(t, osdmspec.V39, http.MethodPost, "/bookings/bk-1/refund-offers", http.StatusOK, readTestdata(t, "refund-offers-response.json"), &offers)
	ro := offers.RefundOffers[0]
	if ro.ID != "ro-1" || ro.Status != RefundProposed || ro.AppliedOverruleCode != OverruleTechnicalFailure {
		t.Errorf("refund offer: %+v", ro)
	}
	if d, _ := ro.RefundableAmount.Decimal(); d != "5.00" {
		t.Errorf("refundable %s", d)
	}

	var confirmed RefundOfferResponse
	parseValid(t, osdmspec.V39, http.MethodPatch, "/bookings/bk-1/refund-offers/ro-1", http.StatusOK, readTestdata(t, "refund-offer-response.json"), &confirmed)
	if confirmed.RefundOffer.Status != RefundConfirmed || confirmed.RefundOffer.ConfirmedOn == nil {
		t.Errorf("confirmed: %+v", confirmed.RefundOffer)
	}
}

func TestParseProblems(t *testing.T) {
	var p Problem
	parseValid(t, osdmspec.V39, http.MethodGet, "/bookings/bk-404", http.StatusNotFound, readTestdata(t, "problem-not-found.json"), &p)
	if p.Code != "urn:uic:problem:BOOKING_NOT_FOUND" || *p.Status != 404 || p.IsAlternativeSystemProposal() {
		t.Errorf("problem: %+v", p)
	}
	if got := p.Error(); got != "OSDM problem: urn:uic:problem:BOOKING_NOT_FOUND: status 404: Booking not found: no booking bk-404" {
		t.Errorf("Error() = %q", got)
	}

	// Alternative system proposals are v3.10 only.
	var resp OfferCollectionResponse
	raw := readTestdata(t, "offers-response-alternative-system.json")
	parseValid(t, osdmspec.V310, http.MethodPost, PathOffers, http.StatusOK, raw, &resp)
	asp := resp.Problems[0]
	if !asp.IsAlternativeSystemProposal() || len(asp.AlternativeSystemProposals) != 1 {
		t.Fatalf("problem: %+v", asp)
	}
	prop := asp.AlternativeSystemProposals[0]
	if *prop.ReservationSystemID != 80 || prop.SystemOperatorCode != "urn:uic:rics:1181" ||
		prop.Scope[0].VehicleNumber != "462" || prop.Scope[0].TravelClass != TravelClassFirst || *prop.Priority != 1 {
		t.Errorf("proposal: %+v", prop)
	}
	osdmspec.ValidateSchema(t, osdmspec.V310, "Problem", osdmspec.Marshal(t, asp))
	// The same problem as a 4xx problem+json body.
	osdmspec.ValidateResponse(t, osdmspec.V310, http.MethodPost, PathOffers, http.StatusConflict, nil, osdmspec.Marshal(t, asp))
}

func TestTolerantReader(t *testing.T) {
	raw := []byte(`{
	  "futureTopLevel": {"x": 1},
	  "booking": {
	    "id": "bk-9", "createdOn": "2026-05-01T10:01:00Z", "newField": [1, 2],
	    "passengers": [{"id": "x", "externalRef": "p1", "type": "ROBOT"}],
	    "bookedOffers": [{"offerId": "o", "reservations": [{"objectType": "Reservation", "id": "r",
	      "status": "TELEPORTED", "refundable": "MAYBE", "price": {"currency": "EUR", "amount": 1, "vats": []},
	      "placeAllocation": {"accommodationType": "HAMMOCK", "accommodationSubType": "DECK",
	        "reservedPlaces": [{"id": "p", "passengerIds": ["x"], "vehicleNumber": "1", "coachNumber": "2", "placeProperties": ["WINDOW"]}],
	        "tripLegCoverage": {"tripId": "t", "legId": "l"}}}]}],
	    "fulfillments": [{"id": "f", "status": "SHREDDED", "bookingRef": "bk-9", "createdOn": "2026-05-01T10:01:00Z", "fulfillmentParts": []}]
	  }
	}`)
	var resp BookingResponse
	if err := json.Unmarshal(raw, &resp); err != nil {
		t.Fatalf("unknown fields/values broke parsing: %v", err)
	}
	b := resp.Booking
	r := b.BookedOffers[0].Reservations[0]
	checks := map[string][2]string{
		"passenger type":     {string(b.Passengers[0].Type), "ROBOT"},
		"part status":        {string(r.Status), "TELEPORTED"},
		"refundable":         {string(r.Refundable), "MAYBE"},
		"accommodation":      {string(r.PlaceAllocation.AccommodationType), "HAMMOCK"},
		"accommodation sub":  {string(r.PlaceAllocation.AccommodationSubType), "DECK"},
		"fulfillment status": {string(b.Fulfillments[0].Status), "SHREDDED"},
	}
	for what, c := range checks {
		if c[0] != c[1] {
			t.Errorf("%s = %q, want the unknown value %q kept", what, c[0], c[1])
		}
	}
	// A kept unknown value is written back unchanged.
	out := string(osdmspec.Marshal(t, r.PlaceAllocation))
	if want := `{"accommodationType":"HAMMOCK","accommodationSubType":"DECK",`; out[:len(want)] != want {
		t.Errorf("re-marshal: %s", out)
	}
}
