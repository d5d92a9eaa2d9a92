package osdm

import (
	"net/http"
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/internal/osdmspec"
)

// The request builders below are what the converter sends; each test
// marshals one and validates it against both specs, proving our writer
// produces spec-valid JSON.

func exampleOfferSearch() OfferCollectionRequest {
	departure := time.Date(2026, 5, 4, 8, 30, 0, 0, time.FixedZone("CEST", 2*3600))
	age := 30
	return OfferCollectionRequest{
		TripSearchCriteria: &TripSearchCriteria{
			DepartureTime: &departure,
			Origin:        NewStopPlaceRef(UICStation("8500010")),
			Destination:   NewStopPlaceRef(UICStation("8503000")),
			Parameters:    OnlyVehicles("708"),
		},
		AnonymousPassengerSpecifications: []AnonymousPassengerSpecification{
			{ExternalRef: "p1", Type: PassengerAdult, Age: &age},
			{ExternalRef: "p2", Type: PassengerChild, DateOfBirth: "2018-03-01"},
		},
		OfferSearchCriteria: &OfferSearchCriteria{
			RequestedOfferParts: []OfferPartType{OfferPartReservation},
			TravelClasses:       []TravelClass{TravelClassSecond},
		},
	}
}

func exampleBooking() BookingRequest {
	age := 30
	return BookingRequest{
		Offers: []OfferSelection{{OfferID: "offer-708-2nd", PassengerRefs: []string{"p1"}}},
		PassengerSpecifications: []PassengerSpecification{{
			ExternalRef: "p1", Type: PassengerAdult, Age: &age,
			Detail: &PersonDetail{FirstName: "Anna", LastName: "Muster"},
		}},
		ExternalRef: "legacy-msg-1",
	}
}

// osdmHeaders are the headers the converter sends on a state-changing call.
func osdmHeaders() http.Header {
	return http.Header{
		"Content-Type":    {ContentTypeJSON},
		"Accept":          {ContentTypeJSON},
		"Idempotency-Key": {"6f1c8a4e-2b7d-5e3f-9a10-4c5d6e7f8a9b"},
		"Traceparent":     {"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"},
	}
}

func TestRequestsValidateAgainstSpec(t *testing.T) {
	refundDate := time.Date(2026, 5, 2, 9, 0, 0, 0, time.UTC)
	cases := []struct {
		name   string
		method string
		path   string
		body   any
		header http.Header
	}{
		{"offer search", http.MethodPost, PathOffers, exampleOfferSearch(), http.Header{"Content-Type": {ContentTypeJSON}}},
		{"minimal offer search", http.MethodPost, PathOffers, OfferCollectionRequest{
			AnonymousPassengerSpecifications: []AnonymousPassengerSpecification{{ExternalRef: "p1", Type: PassengerAdult}},
		}, nil},
		{"booking", http.MethodPost, PathBookings, exampleBooking(), osdmHeaders()},
		{"booking without names", http.MethodPost, PathBookings, BookingRequest{
			Offers:                  []OfferSelection{{OfferID: "o", PassengerRefs: []string{"p1"}}},
			PassengerSpecifications: []PassengerSpecification{{ExternalRef: "p1", Type: PassengerAdult}},
		}, osdmHeaders()},
		{"fulfilment", http.MethodPost, "/bookings/bk-1/fulfillments", FulfillmentPostRequest{}, osdmHeaders()},
		{"refund offer", http.MethodPost, "/bookings/bk-1/refund-offers", RefundOfferRequest{
			FulfillmentIDs: []string{"ful-1"}, OverruleCode: OverruleTechnicalFailure, RefundDate: &refundDate,
		}, osdmHeaders()},
		{"refund offer without reason", http.MethodPost, "/bookings/bk-1/refund-offers", RefundOfferRequest{FulfillmentIDs: []string{"ful-1"}}, osdmHeaders()},
		{"refund confirm", http.MethodPatch, "/bookings/bk-1/refund-offers/ro-1", RefundOfferPatchRequest{Status: RefundConfirmed}, osdmHeaders()},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			body := osdmspec.Marshal(t, tc.body)
			for _, v := range []osdmspec.Version{osdmspec.V39, osdmspec.V310} {
				osdmspec.ValidateRequest(t, v, tc.method, tc.path, tc.header, body)
			}
		})
	}
}

func TestRequestShapes(t *testing.T) {
	// The exact JSON the mapping and sandbox authors rely on.
	got := string(osdmspec.Marshal(t, exampleOfferSearch()))
	want := `{"tripSearchCriteria":{"departureTime":"2026-05-04T08:30:00+02:00",` +
		`"origin":{"objectType":"StopPlaceRef","stopPlaceRef":"urn:uic:stn:8500010"},` +
		`"destination":{"objectType":"StopPlaceRef","stopPlaceRef":"urn:uic:stn:8503000"},` +
		`"parameters":{"dataFilter":{"vehicleFilter":{"exclude":false,"vehicleNumbers":["708"]}}}},` +
		`"offerSearchCriteria":{"requestedOfferParts":["RESERVATION"],"travelClasses":["SECOND"]},` +
		`"anonymousPassengerSpecifications":[{"externalRef":"p1","type":"ADULT","age":30},` +
		`{"externalRef":"p2","type":"CHILD","dateOfBirth":"2018-03-01"}]}`
	if got != want {
		t.Errorf("offer search JSON\n got %s\nwant %s", got, want)
	}
	if got := string(osdmspec.Marshal(t, FulfillmentPostRequest{})); got != `{}` {
		t.Errorf("fulfilment body = %s, want {}", got)
	}
	if got := string(osdmspec.Marshal(t, RefundOfferPatchRequest{Status: RefundConfirmed})); got != `{"status":"CONFIRMED"}` {
		t.Errorf("refund patch body = %s", got)
	}
}

// TestSpecRejectsWhatWeMustNotSend guards the builders' assumptions: these
// near-misses are invalid, so the validation above is meaningful.
func TestSpecRejectsWhatWeMustNotSend(t *testing.T) {
	noObjectType := exampleOfferSearch()
	noObjectType.TripSearchCriteria.Origin.ObjectType = ""
	halfName := exampleBooking()
	halfName.PassengerSpecifications[0].Detail = nil
	for name, body := range map[string][]byte{
		"place without objectType":        osdmspec.Marshal(t, noObjectType),
		"offer search without passengers": osdmspec.Marshal(t, OfferCollectionRequest{}),
		"booking without offers":          osdmspec.Marshal(t, BookingRequest{PassengerSpecifications: halfName.PassengerSpecifications}),
	} {
		path := PathOffers
		if name == "booking without offers" {
			path = PathBookings
		}
		r := &failRecorder{}
		osdmspec.ValidateRequest(r, osdmspec.V39, http.MethodPost, path, nil, body)
		if !r.failed {
			t.Errorf("%s: the spec accepted %s", name, body)
		}
	}
}
