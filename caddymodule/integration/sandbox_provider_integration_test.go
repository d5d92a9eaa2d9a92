package integration

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/harness"
	"github.com/caddy-osdm/caddy-osdm/internal/osdmspec"
	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/osdm"
	"github.com/caddy-osdm/caddy-osdm/osdmsandbox"
)

// The tests of this file run osdm_sandbox in a real Caddy and walk
// through what a real OSDM provider serves: every answer is
// checked against the OSDM spec, and every problem code against the
// standardised list of OSDM's "Errors and Problems" page.

// standardProblemCodes are the codes of osdm.io/spec/errors-problems:
// its standardised technical and functional errors.
var standardProblemCodes = map[string]bool{}

func init() {
	for _, c := range strings.Fields(`RESOURCE_NOT_FOUND OPERATION_NOT_PERMITTED NO_RESULTS VALIDATION_ERROR
		MALFORMED_REQUEST MISSING_INFORMATION PARAMETER_NOT_SUPPORTED INVALID_INPUT UNKNOWN_ERROR
		PROPERTY_SUBSTITUTED PARTIAL_SUCCESS SERVICE_UNAVAILABLE UNAUTHORIZED
		PLACE_INVALID_CHARACTERS PLACE_NO_RESULTS TRIP_INVALID_CHARACTERS TRIP_SEARCH_CRITERIA_OUTSIDE_BOUNDARY
		TRIP_PLACE_UNKNOWN TRIP_NO_SEARCH_RESULT OFFER_TRIP_NOT_FOUND OFFER_INVALID_CHARACTERS
		OFFER_SEARCH_CRITERIA_OUT_OF_BOUNDS OFFER_PLACE_UNKNOWN OFFER_SCHEDULE_MISMATCH
		BOOKING_RESERVATION_OPTION_NOT_AVAILABLE BOOKING_PASSENGER_PROPERTY_NOT_MODIFIABLE
		BOOKING_OFFERPART_PROPERTY_NOT_MODIFIABLE BOOKING_OFFER_NOT_FOUND BOOKING_INCOMPATIBLE_OFFER_PART
		BOOKING_INFORMATION_MISSING BOOKING_INSUFFICIENT_AVAILABILITY BOOKING_PLACE_NOT_AVAILABLE
		BOOKING_MODIFY_READ_ONLY_PROPERTY BOOKING_BOOKING_ALREADY_CONFIRMED BOOKING_BOOKING_ALREADY_CANCELLED
		BOOKING_MODIFICATION_NOT_ALLOWED CONFIRMATION_PARTIAL_SUCCESS CONFIRMATION_OPERATION_NOT_SUPPORTED
		CONFIRMATION_UNKNOWN_ERROR CONFIRMATION_INFORMATION_MISSING CONFIRMATION_FULFILLMENT_TYPE_NOT_SELECTED
		CONFIRMATION_BOOKING_ALREADY_CONFIRMED CONFIRMATION_BOOKING_ALREADY_FULFILLED CONFIRMATION_BOOKING_ALREADY_CANCELLED`) {
		standardProblemCodes["urn:uic:problem:"+c] = true
	}
}

// sandboxAnswer is an answer of the sandbox over HTTP.
type sandboxAnswer struct{ harness.OSDMAnswer }

// providerClient sends raw JSON to a sandbox behind Caddy and checks
// every answer against the spec: that of the operation when it is one of
// the spec, the Problem schema otherwise; every problem code (of an error
// and inside a 200) must be a standard one.
type providerClient struct {
	t    *testing.T
	base string
}

func (c *providerClient) send(method, path, body string, specOperation bool) sandboxAnswer {
	c.t.Helper()
	client := harness.OSDMClient{Base: c.base, Version: osdmspec.V39}
	a := sandboxAnswer{client.Send(c.t, method, path, body, nil)}
	specPath := strings.TrimPrefix(path, "/osdm")
	switch {
	case specOperation:
		osdmspec.ValidateResponse(c.t, osdmspec.V39, method, specPath, a.Status, a.Header, a.Body)
	case a.Status >= 400:
		osdmspec.ValidateSchema(c.t, osdmspec.V39, "Problem", a.Body)
	}
	c.checkCodes(method, path, a)
	return a
}

// checkCodes fails on a problem code that is not in the standard list.
func (c *providerClient) checkCodes(method, path string, a sandboxAnswer) {
	c.t.Helper()
	var probe struct {
		Code     string `json:"code"`
		Problems []struct {
			Code string `json:"code"`
		} `json:"problems"`
	}
	if len(a.Body) == 0 || json.Unmarshal(a.Body, &probe) != nil {
		return
	}
	codes := []string{}
	if probe.Code != "" {
		codes = append(codes, probe.Code)
	}
	for _, p := range probe.Problems {
		codes = append(codes, p.Code)
	}
	for _, code := range codes {
		if !standardProblemCodes[code] {
			c.t.Errorf("%s %s: problem code %s is not a standard OSDM code", method, path, code)
		}
	}
}

// problem checks a problem answer's status and code and returns it.
func (a sandboxAnswer) problem(t *testing.T, status int, code string) osdm.Problem {
	t.Helper()
	p := a.Problem(t, status)
	if p.Code != code {
		t.Fatalf("got %d %s, want problem %s", a.Status, a.Body, code)
	}
	return p
}

// startProviderSandbox runs osdm_sandbox under /osdm/* in a real Caddy
// (harness.SandboxRoute).
func startProviderSandbox(t *testing.T) *providerClient {
	t.Helper()
	base := harness.ServeSite(t, harness.Options(), func(port int) string { return harness.SandboxRoute("/osdm") })
	return &providerClient{t: t, base: base + "/osdm"}
}

// travelDay is a day a week ahead, as a local date.
func travelDay() string { return time.Now().AddDate(0, 0, 7).Format(time.DateOnly) }

// searchBody is a tripSearchCriteria search of train from Basel SBB to
// Zürich HB leaving at departure (raw, with or without offset).
func searchBody(train, departure string) string {
	return `{"tripSearchCriteria":{"origin":{"objectType":"StopPlaceRef","stopPlaceRef":"urn:uic:stn:8500010"},
		"destination":{"objectType":"StopPlaceRef","stopPlaceRef":"urn:uic:stn:8503000"},"departureTime":"` + departure + `",
		"parameters":{"dataFilter":{"vehicleFilter":{"exclude":false,"vehicleNumbers":["` + train + `"]}}}},
		"offerSearchCriteria":{"travelClasses":["SECOND"]},
		"anonymousPassengerSpecifications":[{"externalRef":"p1","type":"ADULT"}]}`
}

// bookFirst searches train 708, books its seat offer for p1 (Anna Muster)
// and returns the booking.
func (c *providerClient) bookFirst() *osdm.Booking {
	c.t.Helper()
	var offers osdm.OfferCollectionResponse
	c.send(http.MethodPost, "/osdm/offers", searchBody("708", travelDay()+"T08:30:00+01:00"), true).Decode(c.t, http.StatusOK, &offers)
	if len(offers.Offers) == 0 {
		c.t.Fatalf("no offers: %+v", offers)
	}
	var booked osdm.BookingResponse
	c.send(http.MethodPost, "/osdm/bookings", `{"offers":[{"offerId":"`+offers.Offers[0].OfferID+`","passengerRefs":["p1"]}],
		"passengerSpecifications":[{"externalRef":"p1","type":"ADULT","detail":{"firstName":"Anna","lastName":"Muster"}}]}`, true).
		Decode(c.t, http.StatusOK, &booked)
	return booked.Booking
}

// fulfil fulfils booking id and returns its fulfilment id.
func (c *providerClient) fulfil(id string) string {
	c.t.Helper()
	var ful osdm.FulfillmentCollectionResponse
	c.send(http.MethodPost, "/osdm/bookings/"+id+"/fulfillments", `{}`, true).Decode(c.t, http.StatusOK, &ful)
	return ful.Fulfillments[0].ID
}

// Item 1: GET and PATCH of a passenger, before fulfilment only.
func TestSandboxProviderPassengers(t *testing.T) {
	c := startProviderSandbox(t)
	b := c.bookFirst()
	path := "/osdm/bookings/" + b.ID + "/passengers/" + b.Passengers[0].ID

	var got osdm.PassengerResponse
	c.send(http.MethodGet, path, "", true).Decode(t, http.StatusOK, &got)
	if got.Passenger == nil || got.Passenger.Detail == nil || got.Passenger.Detail.LastName != "Muster" {
		t.Fatalf("GET passenger %+v", got.Passenger)
	}
	patch := `{"id":"` + b.Passengers[0].ID + `","externalRef":"p1","type":"ADULT","dateOfBirth":"1985-02-28",
		"detail":{"firstName":"Anna-Lena","lastName":"Muster Meier","contact":{"email":"anna@example.org","phoneNumber":"+41791234567"}}}`
	var patched osdm.PassengerResponse
	c.send(http.MethodPatch, path, patch, true).Decode(t, http.StatusOK, &patched)
	p := patched.Passenger
	if p.DateOfBirth != "1985-02-28" || p.Detail.FirstName != "Anna-Lena" || p.Detail.LastName != "Muster Meier" ||
		p.Detail.Contact == nil || p.Detail.Contact.Email != "anna@example.org" || p.Detail.Contact.PhoneNumber != "+41791234567" {
		t.Fatalf("PATCH answered %+v %+v", p, p.Detail)
	}
	var booking osdm.BookingResponse
	c.send(http.MethodGet, "/osdm/bookings/"+b.ID, "", true).Decode(t, http.StatusOK, &booking)
	if d := booking.Booking.Passengers[0].Detail; d.FirstName != "Anna-Lena" || d.Contact.Email != "anna@example.org" {
		t.Errorf("the booking shows %+v", d)
	}
	c.send(http.MethodPatch, path, `{"detail":{"firstName":"A","lastName":"B","contact":{"email":"not-an-address"}}}`, true).
		problem(t, http.StatusBadRequest, osdm.CodeValidationError)

	// Personal data may be corrected after fulfilment, before departure.
	c.fulfil(b.ID)
	c.send(http.MethodPatch, path, patch, true).Decode(t, http.StatusOK, &patched)
	c.send(http.MethodPatch, path, `{"dateOfBirth":"2020-01-01"}`, true).problem(t, http.StatusConflict, osdm.CodeModificationNotAllowed)
	c.send(http.MethodGet, path, "", true).Decode(t, http.StatusOK, &got)
	if got.Passenger.Detail.FirstName != "Anna-Lena" {
		t.Errorf("after fulfilment %+v", got.Passenger.Detail)
	}
	c.send(http.MethodGet, "/osdm/bookings/"+b.ID+"/passengers/pax-9", "", true).problem(t, http.StatusNotFound, osdm.CodeResourceNotFound)
}

// Item 2: GET and DELETE of a refund offer; 409 once confirmed.
func TestSandboxProviderRefundOffer(t *testing.T) {
	c := startProviderSandbox(t)
	b := c.bookFirst()
	fid := c.fulfil(b.ID)
	newRefundOffer := func() string {
		var ro osdm.RefundOfferCollectionResponse
		c.send(http.MethodPost, "/osdm/bookings/"+b.ID+"/refund-offers", `{"fulfillmentIds":["`+fid+`"]}`, true).Decode(t, http.StatusOK, &ro)
		return "/osdm/bookings/" + b.ID + "/refund-offers/" + ro.RefundOffers[0].ID
	}
	path := newRefundOffer()
	var got osdm.RefundOfferResponse
	c.send(http.MethodGet, path, "", true).Decode(t, http.StatusOK, &got)
	if got.RefundOffer == nil || got.RefundOffer.Status != osdm.RefundProposed {
		t.Fatalf("GET %+v", got)
	}
	if a := c.send(http.MethodDelete, path, "", true); a.Status != http.StatusNoContent {
		t.Fatalf("DELETE: %d %s", a.Status, a.Body)
	}
	c.send(http.MethodGet, path, "", true).problem(t, http.StatusNotFound, osdm.CodeResourceNotFound)
	if a := c.send(http.MethodDelete, path, "", true); a.Status != http.StatusNoContent {
		t.Errorf("DELETE of a refund offer not held: %d %s", a.Status, a.Body)
	}

	path = newRefundOffer()
	c.send(http.MethodPatch, path, `{"status":"CONFIRMED"}`, true).Decode(t, http.StatusOK, &got)
	c.send(http.MethodDelete, path, "", true).problem(t, http.StatusConflict, osdm.CodeOperationNotPermitted)
	c.send(http.MethodGet, path, "", true).Decode(t, http.StatusOK, &got)
	if got.RefundOffer.Status != osdm.RefundConfirmed {
		t.Errorf("after the refused DELETE: %s", got.RefundOffer.Status)
	}
}

// specBody is a tripSpecifications search of the given timed legs.
func specBody(legs ...string) string {
	return `{"tripSpecifications":[{"externalRef":"outward","legs":[` + strings.Join(legs, ",") + `]}],
		"offerSearchCriteria":{"travelClasses":["SECOND"]},
		"anonymousPassengerSpecifications":[{"externalRef":"p1","type":"ADULT"}]}`
}

// specLeg is a timed leg of train from one UIC station to another.
func specLeg(train, from, dep, to, arr string) string {
	return osdmspec.TimedLeg("1185", train, from, dep, to, arr)
}

// Item 3: POST /offers with a specified trip, bookable as any offer.
func TestSandboxProviderTripSpecifications(t *testing.T) {
	c := startProviderSandbox(t)
	day := travelDay()
	var offers osdm.OfferCollectionResponse
	c.send(http.MethodPost, "/osdm/offers", specBody(specLeg("708", "8500010", day+"T08:30:00+01:00", "8503000", day+"T11:00:00+01:00")), true).
		Decode(t, http.StatusOK, &offers)
	if len(offers.Trips) != 1 || len(offers.Offers) != 1 {
		t.Fatalf("offers %+v", offers)
	}
	leg := offers.Trips[0].Legs[0].TimedLeg
	if leg.Service.VehicleNumbers[0] != "708" || leg.Start.ServiceDeparture.TimetabledTime.Format("15:04") != "08:30" ||
		leg.End.ServiceArrival.TimetabledTime.Format("15:04") != "11:00" || leg.End.StopPlaceRef.StopPlaceRef != "urn:uic:stn:8503000" {
		t.Errorf("trip leg %+v", leg)
	}
	var booked osdm.BookingResponse
	c.send(http.MethodPost, "/osdm/bookings", `{"offers":[{"offerId":"`+offers.Offers[0].OfferID+`","passengerRefs":["p1"]}],
		"passengerSpecifications":[{"externalRef":"p1","type":"ADULT"}]}`, true).Decode(t, http.StatusOK, &booked)
	if booked.Booking.Trips[0].StartTime.Format("15:04") != "08:30" {
		t.Errorf("booked trip %+v", booked.Booking.Trips[0])
	}
	// A made-up train runs at the times specified.
	c.send(http.MethodPost, "/osdm/offers", specBody(specLeg("1517", "8500010", day+"T13:07:00+01:00", "8000261", day+"T17:40:00+01:00")), true).
		Decode(t, http.StatusOK, &offers)
	if got := offers.Trips[0].EndTime.Format("15:04"); got != "17:40" || len(offers.Offers) != 1 {
		t.Errorf("made-up train arrives %s, %d offers", got, len(offers.Offers))
	}
	// Train 708 at other times than the partner's: the spec's schedule mismatch.
	c.send(http.MethodPost, "/osdm/offers", specBody(specLeg("708", "8500010", day+"T09:30:00+01:00", "8503000", day+"T12:00:00+01:00")), true).
		problem(t, http.StatusBadRequest, osdm.CodeScheduleMismatch)
}

// Item 4: departure times without an offset are local to the origin.
func TestSandboxProviderLocalTimes(t *testing.T) {
	c := startProviderSandbox(t)
	day := travelDay()
	zurich, _ := osdm.StationLocation("8500010")
	helsinki, _ := osdm.StationLocation("1000001")
	local, _ := time.ParseInLocation("2006-01-02T15:04", day+"T08:30", zurich)
	var offers osdm.OfferCollectionResponse
	// POST /offers: not a date-time with offset, so the request is not
	// checked against the spec's format (OTST sends it so all the same).
	c.send(http.MethodPost, "/osdm/offers", searchBody("708", day+"T08:30:00"), true).Decode(t, http.StatusOK, &offers)
	if !offers.Trips[0].StartTime.Equal(local) || offers.Trips[0].StartTime.Format("15:04") != "08:30" {
		t.Errorf("Basel 08:30 local departs %s, want %s", offers.Trips[0].StartTime.Format(time.RFC3339), local.Format(time.RFC3339))
	}
	// The same clock time in Helsinki is another instant.
	body := strings.NewReplacer("8500010", "1000001", "8503000", "1000002").Replace(searchBody("9", day+"T08:30"))
	c.send(http.MethodPost, "/osdm/offers", body, true).Decode(t, http.StatusOK, &offers)
	want, _ := time.ParseInLocation("2006-01-02T15:04", day+"T08:30", helsinki)
	if !offers.Trips[0].StartTime.Equal(want) {
		t.Errorf("Helsinki 08:30 local departs %s, want %s", offers.Trips[0].StartTime.Format(time.RFC3339), want.Format(time.RFC3339))
	}
	// A trip specification's times, each local to its own stop.
	c.send(http.MethodPost, "/osdm/offers", specBody(specLeg("708", "8500010", day+"T08:30:00", "8503000", day+"T11:00:00")), true).
		Decode(t, http.StatusOK, &offers)
	if !offers.Trips[0].StartTime.Equal(local) || len(offers.Offers) != 1 {
		t.Errorf("specified local trip %+v", offers.Trips[0])
	}
	// GET /trip-offers of older partners, too (not an operation of the spec).
	var old osdm.OfferCollectionResponse
	a := c.send(http.MethodGet, "/osdm/trip-offers?originCode=8500010&destinationCode=8503000&vehicleNumbers=708&passenger=p1,ADULT&departureTime="+day+"T08:30:00", "", false)
	a.Decode(t, http.StatusOK, &old)
	osdmspec.ValidateSchema(t, osdmspec.V39, "OfferCollectionResponse", a.Body)
	if !old.Trips[0].StartTime.Equal(local) {
		t.Errorf("trip-offers departs %s", old.Trips[0].StartTime.Format(time.RFC3339))
	}
	c.send(http.MethodPost, "/osdm/offers", searchBody("708", day+" 08:30"), true).problem(t, http.StatusBadRequest, osdm.CodeValidationError)
}

// Item 5: confirmableUntil on PREBOOKED parts, beside confirmationTimeLimit.
func TestSandboxProviderConfirmableUntil(t *testing.T) {
	c := startProviderSandbox(t)
	b := c.bookFirst()
	part := b.BookedOffers[0].Reservations[0]
	if b.ConfirmationTimeLimit == nil || part.ConfirmableUntil == nil || !part.ConfirmableUntil.Equal(*b.ConfirmationTimeLimit) || part.Status != osdm.BookingPartPrebooked {
		t.Fatalf("PREBOOKED part: confirmableUntil %v, confirmationTimeLimit %v", part.ConfirmableUntil, b.ConfirmationTimeLimit)
	}
	c.fulfil(b.ID)
	var got osdm.BookingResponse
	c.send(http.MethodGet, "/osdm/bookings/"+b.ID, "", true).Decode(t, http.StatusOK, &got)
	if part := got.Booking.BookedOffers[0].Reservations[0]; part.ConfirmableUntil != nil {
		t.Errorf("FULFILLED part keeps confirmableUntil %v", part.ConfirmableUntil)
	}
}

// Item 6: the spec's operations the sandbox does not serve answer 501
// with a problem; other methods 405, other paths 404, both problems.
func TestSandboxProviderUnserved(t *testing.T) {
	c := startProviderSandbox(t)
	for _, op := range []struct{ method, path string }{
		{http.MethodPatch, "/osdm/bookings/b-1"},
		{http.MethodPost, "/osdm/trips"},
		{http.MethodGet, "/osdm/places"},
		{http.MethodPatch, "/osdm/fulfillments/f-1"},
		{http.MethodPost, "/osdm/bookings/b-1/release-offers"},
		{http.MethodPost, "/osdm/bookings/b-1/cancel-fulfillments-offers"},
	} {
		body := ""
		if op.method != http.MethodGet {
			body = `{}`
		}
		c.send(op.method, op.path, body, true).problem(t, http.StatusNotImplemented, osdm.CodeOperationNotPermitted)
	}
	a := c.send(http.MethodPut, "/osdm/bookings/b-1", `{}`, false)
	a.problem(t, http.StatusMethodNotAllowed, osdm.CodeOperationNotPermitted)
	if a.Header.Get("Allow") != "DELETE, GET, PATCH" {
		t.Errorf("Allow %q", a.Header.Get("Allow"))
	}
	c.send(http.MethodGet, "/osdm/tickets/1", "", false).problem(t, http.StatusNotFound, osdm.CodeResourceNotFound)
}

// Item 7: the error situations of the booking flow answer the standard
// codes (checked for every answer by providerClient), and osdm_convert in
// front of the sandbox reads them as the NegativeReply codes of before.
func TestSandboxProviderStandardCodes(t *testing.T) {
	c := startProviderSandbox(t)
	day := travelDay()
	c.send(http.MethodPost, "/osdm/offers", searchBody("000", day+"T08:30:00+01:00"), true).problem(t, http.StatusNotFound, osdm.CodeNoResults)
	c.send(http.MethodPost, "/osdm/offers", searchBody("708", "2020-01-01T08:30:00+01:00"), true).problem(t, http.StatusBadRequest, osdm.CodeOfferOutOfBounds)
	c.send(http.MethodPost, "/osdm/offers", `{"anonymousPassengerSpecifications":[`, true).problem(t, http.StatusBadRequest, osdm.CodeMalformedRequest)
	c.send(http.MethodPost, "/osdm/offers", `{"anonymousPassengerSpecifications":[{"externalRef":"p1","type":"ADULT"}]}`, true).
		problem(t, http.StatusBadRequest, osdm.CodeValidationError)
	c.send(http.MethodPost, "/osdm/bookings", `{"offers":[{"offerId":"o-gone","passengerRefs":["p1"]}],"passengerSpecifications":[{"externalRef":"p1","type":"ADULT"}]}`, true).
		problem(t, http.StatusNotFound, osdm.CodeOfferNotFound)
	c.send(http.MethodGet, "/osdm/bookings/b-none", "", true).problem(t, http.StatusNotFound, osdm.CodeResourceNotFound)

	b := c.bookFirst()
	c.send(http.MethodPost, "/osdm/bookings/"+b.ID+"/refund-offers", `{"fulfillmentIds":["f-1"]}`, true).
		problem(t, http.StatusConflict, osdm.CodeOperationNotPermitted)
	fid := c.fulfil(b.ID)
	c.send(http.MethodDelete, "/osdm/bookings/"+b.ID, "", true).problem(t, http.StatusConflict, osdm.CodeAlreadyFulfilled)
	var ro osdm.RefundOfferCollectionResponse
	c.send(http.MethodPost, "/osdm/bookings/"+b.ID+"/refund-offers", `{"fulfillmentIds":["`+fid+`"]}`, true).Decode(t, http.StatusOK, &ro)
	c.send(http.MethodPatch, "/osdm/bookings/"+b.ID+"/refund-offers/"+ro.RefundOffers[0].ID, `{"status":"CONFIRMED"}`, true)
	c.send(http.MethodPost, "/osdm/bookings/"+b.ID+"/fulfillments", `{}`, true).problem(t, http.StatusConflict, osdm.CodeConfirmationCancelled)
	c.send(http.MethodPost, "/osdm/bookings/"+b.ID+"/refund-offers", `{"fulfillmentIds":["`+fid+`"]}`, true).
		problem(t, http.StatusConflict, osdm.CodeBookingAlreadyCancelled)

	// Two places per class (the refund freed b's): a third passenger finds none.
	c.bookFirst()
	c.bookFirst()
	var offers osdm.OfferCollectionResponse
	c.send(http.MethodPost, "/osdm/offers", searchBody("708", day+"T08:30:00+01:00"), true).Decode(t, http.StatusOK, &offers)
	if len(offers.Offers) != 0 || len(offers.Problems) != 1 || offers.Problems[0].Code != osdm.CodeInsufficientAvailability {
		t.Errorf("sold out: %+v", offers)
	}
}

// Item 7 through osdm_convert: the example chain's partners are
// osdm_sandbox; its standard codes reach the legacy client as the
// NegativeReply codes they always were, the code itself as PartnerProblem.
func TestSandboxProviderStandardCodesThroughConverter(t *testing.T) {
	c := startExampleChain(t)
	f := legacy.XML
	status, r := c.send(t, "alpine", f, &legacy.AvailabilityRequest{
		Header: legacy.Header{MessageID: harness.MsgID(t, f, "none")}, Journey: journeyOn("000"), Places: secondClassSeats(legacy.Tariff{Code: 1, Count: 1}),
	})
	if nr := must[*legacy.NegativeReply](t, status, r, legacy.CodeTrainNotFound.HTTPStatus()); nr.Code != legacy.CodeTrainNotFound || nr.PartnerProblem != osdm.CodeNoResults {
		t.Errorf("unknown train: %+v", nr)
	}
	status, r = c.send(t, "alpine", f, &legacy.CancelRequest{
		Header: legacy.Header{MessageID: harness.MsgID(t, f, "gone")}, BookingRef: "b-0000-1",
	})
	if nr := must[*legacy.NegativeReply](t, status, r, legacy.CodeBookingNotFound.HTTPStatus()); nr.Code != legacy.CodeBookingNotFound || nr.PartnerProblem != osdm.CodeResourceNotFound {
		t.Errorf("unknown booking: %+v", nr)
	}
}

// Item 8: a trip specification of several legs is sold whole: a trip of
// those legs, an offer with a reservation on each train, a booking that
// holds a place on each, refunded as a whole. Vias are refused.
func TestSandboxProviderMultiLeg(t *testing.T) {
	c := startProviderSandbox(t)
	day := travelDay()
	search := specBody(
		specLeg("708", "8500010", day+"T08:30:00+01:00", "8503000", day+"T11:00:00+01:00"),
		`{"transferLeg":{"start":{"objectType":"StopPlaceRef","stopPlaceRef":"urn:uic:stn:8503000"},"end":{"objectType":"StopPlaceRef","stopPlaceRef":"urn:uic:stn:8503000"},"duration":"PT10M"}}`,
		specLeg("9", "8503000", day+"T11:32:00+01:00", "8000261", day+"T15:40:00+01:00"),
	)
	osdmspec.ValidateRequest(t, osdmspec.V39, http.MethodPost, "/offers", nil, []byte(search))
	var offers osdm.OfferCollectionResponse
	c.send(http.MethodPost, "/osdm/offers", search, true).Decode(t, http.StatusOK, &offers)
	// One trip of the legs specified (two trains, the transfer leg between
	// them), and an offer with a reservation on each train.
	if len(offers.Trips) != 1 || len(offers.Trips[0].Legs) != 3 || offers.Trips[0].Legs[1].TransferLeg == nil || offers.Trips[0].Transfers != 1 || len(offers.Offers) != 1 {
		t.Fatalf("trips %+v offers %+v", offers.Trips, offers.Offers)
	}
	trip := offers.Trips[0]
	trip.Legs = []osdm.TripLeg{trip.Legs[0], trip.Legs[2]} // the timed legs
	o := offers.Offers[0]
	if len(o.ReservationOfferParts) != 2 || o.TripCoverage == nil || len(o.TripCoverage.CoveredLegIDs) != 2 {
		t.Fatalf("offer %+v", o)
	}
	var sum int64
	for i, part := range o.ReservationOfferParts {
		if part.TripCoverage == nil || part.TripCoverage.CoveredTripID != trip.ID || len(part.TripCoverage.CoveredLegIDs) != 1 ||
			part.TripCoverage.CoveredLegIDs[0] != trip.Legs[i].ID {
			t.Errorf("part %d covers %+v, trip %s leg %s", i, part.TripCoverage, trip.ID, trip.Legs[i].ID)
		}
		sum += part.Price.Amount
	}
	if o.OfferSummary == nil || o.OfferSummary.MinimalPrice.Amount != sum {
		t.Errorf("offer price %+v, parts sum %d", o.OfferSummary, sum)
	}
	// Booked, it holds a place on each train: one booked offer, a
	// reservation per leg with its offer part's id.
	var booked osdm.BookingResponse
	c.send(http.MethodPost, "/osdm/bookings", `{"offers":[{"offerId":"`+o.OfferID+`","passengerRefs":["p1"]}],
		"passengerSpecifications":[{"externalRef":"p1","type":"ADULT","detail":{"firstName":"Anna","lastName":"Muster"}}]}`, true).
		Decode(t, http.StatusOK, &booked)
	b := booked.Booking
	if len(b.BookedOffers) != 1 || len(b.BookedOffers[0].Reservations) != 2 || len(b.Trips) != 1 || b.Trips[0].ID != trip.ID {
		t.Fatalf("booking %+v", b)
	}
	for i, r := range b.BookedOffers[0].Reservations {
		if r.ID != o.ReservationOfferParts[i].ID || r.PlaceAllocation == nil || r.PlaceAllocation.ReservedPlaces[0].VehicleNumber != trip.Legs[i].TimedLeg.Service.VehicleNumbers[0] {
			t.Errorf("reservation %d: %+v", i, r)
		}
	}
	if b.ProvisionalPrice == nil || b.ProvisionalPrice.Amount != sum {
		t.Errorf("booking price %+v, offered %d", b.ProvisionalPrice, sum)
	}
	list := func() []osdmsandbox.BookingInfo {
		resp, err := http.Get(c.base + "/_sandbox/bookings")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var list []osdmsandbox.BookingInfo
		if err := json.NewDecoder(resp.Body).Decode(&list); err != nil {
			t.Fatal(err)
		}
		return list
	}
	if l := list(); len(l) != 1 || l[0].Places != 2 || strings.Join(l[0].Trains, ",") != "708,9" || len(l[0].OfferIDs) != 1 {
		t.Errorf("held %+v", l)
	}
	// Fulfilled and refunded as a whole: both places are free again.
	fid := c.fulfil(b.ID)
	var ro osdm.RefundOfferCollectionResponse
	c.send(http.MethodPost, "/osdm/bookings/"+b.ID+"/refund-offers", `{"fulfillmentIds":["`+fid+`"]}`, true).Decode(t, http.StatusOK, &ro)
	var confirmed osdm.RefundOfferResponse
	c.send(http.MethodPatch, "/osdm/bookings/"+b.ID+"/refund-offers/"+ro.RefundOffers[0].ID, `{"status":"CONFIRMED"}`, true).
		Decode(t, http.StatusOK, &confirmed)
	if r := confirmed.RefundOffer; r == nil || r.RefundableAmount.Amount+r.RefundFee.Amount != sum {
		t.Errorf("refund %+v of %d", r, sum)
	}
	if l := list(); len(l) != 1 || l[0].Status != "REFUNDED" {
		t.Errorf("after refund %+v", l)
	}
	// Vias of a search criteria are still refused: a consumer names the
	// trains of such a trip in tripSpecifications.
	via := strings.Replace(searchBody("708", day+"T08:30:00+01:00"), `"parameters"`,
		`"vias":[{"viaPlace":{"objectType":"StopPlaceRef","stopPlaceRef":"urn:uic:stn:8503000"}}],"parameters"`, 1)
	c.send(http.MethodPost, "/osdm/offers", via, true).problem(t, http.StatusBadRequest, osdm.CodeParameterNotSupported)
}
