package osdmsandbox_test

import (
	"github.com/caddy-osdm/caddy-osdm/internal/osdmspec"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/osdm"
	"github.com/caddy-osdm/caddy-osdm/osdmsandbox"
)

// patchPassenger sends a PATCH of a passenger as raw JSON.
func (h *harness) patchPassenger(bookingID, passengerID, body string) result {
	h.t.Helper()
	return h.raw(http.MethodPatch, "/bookings/"+bookingID+"/passengers/"+passengerID,
		http.Header{"Content-Type": {osdm.ContentTypeJSON}}, []byte(body))
}

func TestPassengerPatch(t *testing.T) {
	h := newHarness(t, osdmsandbox.Config{})
	b := h.book(h.search(offerRequest("708", nil)).Offers[0])
	pid := b.Passengers[0].ID

	r := h.patchPassenger(b.ID, pid, `{"id":"`+pid+`","externalRef":"p1","type":"ADULT","dateOfBirth":"1990-04-01",
		"detail":{"firstName":" Zoë ","lastName":"Müller-Lüdenscheidt","contact":{"email":"zoe@example.org","phoneNumber":"+41791234567"}},
		"gender":"FEMALE"}`)
	var resp osdm.PassengerResponse
	r.decode(t, &resp)
	got := resp.Passenger
	if r.status != http.StatusOK || got == nil || got.Detail == nil || got.Detail.FirstName != "Zoë" || got.Detail.LastName != "Müller-Lüdenscheidt" ||
		got.DateOfBirth != "1990-04-01" || got.Detail.Contact == nil || got.Detail.Contact.Email != "zoe@example.org" || got.Detail.Contact.PhoneNumber != "+41791234567" {
		t.Fatalf("PATCH: %d %s", r.status, r.body)
	}
	// gender is valid OSDM the sandbox does not keep: said, not silently dropped.
	if len(resp.Problems) != 1 || resp.Problems[0].Code != osdm.CodeParameterNotSupported || resp.Problems[0].Pointers[0].RequestPointer != "#/gender" {
		t.Errorf("problems %+v", resp.Problems)
	}
	// The booking and GET of the passenger show the change.
	if d := h.getBooking(b.ID).Passengers[0].Detail; d.FirstName != "Zoë" || d.Contact.Email != "zoe@example.org" {
		t.Errorf("booking passenger %+v", d)
	}
	var one osdm.PassengerResponse
	h.call(http.MethodGet, "/bookings/"+b.ID+"/passengers/"+pid, "", nil).decode(t, &one)
	if one.Passenger.DateOfBirth != "1990-04-01" {
		t.Errorf("GET passenger %+v", one.Passenger)
	}
	// A member left out stays; a new contact replaces the old one.
	var second osdm.PassengerResponse
	h.patchPassenger(b.ID, pid, `{"detail":{"firstName":"Zoë","lastName":"Meier","contact":{"phoneNumber":"+4915112345678"}}}`).decode(t, &second)
	if d := second.Passenger.Detail; d.LastName != "Meier" || d.Contact.Email != "" || d.Contact.PhoneNumber != "+4915112345678" || second.Passenger.DateOfBirth != "1990-04-01" {
		t.Errorf("second PATCH %+v %+v", second.Passenger, d)
	}

	for _, tc := range []struct {
		name, body string
		status     int
		code       string
		pointer    string
	}{
		{"other id", `{"id":"pax-9"}`, 400, osdm.CodeValidationError, "#/id"},
		{"type", `{"type":"CHILD"}`, 400, osdm.CodeReadOnlyProperty, "#/type"},
		{"externalRef", `{"externalRef":"p9"}`, 400, osdm.CodeReadOnlyProperty, "#/externalRef"},
		{"birth date", `{"dateOfBirth":"1990-13-01"}`, 400, osdm.CodeValidationError, "#/dateOfBirth"},
		{"born tomorrow", `{"dateOfBirth":"2026-11-21"}`, 400, osdm.CodeValidationError, "#/dateOfBirth"},
		{"no last name", `{"detail":{"firstName":"A"}}`, 400, osdm.CodeValidationError, "#/detail/lastName"},
		{"blank name", `{"detail":{"firstName":"  ","lastName":"B"}}`, 400, osdm.CodeValidationError, "#/detail/firstName"},
		{"control character", `{"detail":{"firstName":"A\u0007","lastName":"B"}}`, 400, osdm.CodeValidationError, "#/detail/firstName"},
		{"email", `{"detail":{"firstName":"A","lastName":"B","contact":{"email":"a@b"}}}`, 400, osdm.CodeValidationError, "#/detail/contact/email"},
		{"phone", `{"detail":{"firstName":"A","lastName":"B","contact":{"phoneNumber":"0791234567"}}}`, 400, osdm.CodeValidationError, "#/detail/contact/phoneNumber"},
		{"empty contact", `{"detail":{"firstName":"A","lastName":"B","contact":{}}}`, 400, osdm.CodeValidationError, "#/detail/contact"},
		{"not JSON", `{"detail":`, 400, osdm.CodeMalformedRequest, ""},
	} {
		p := h.patchPassenger(b.ID, pid, tc.body).problem(t, tc.status, tc.code)
		if got := pointerOf(p); got != tc.pointer {
			t.Errorf("%s: pointer %q, want %q", tc.name, got, tc.pointer)
		}
	}
	if d := h.getBooking(b.ID).Passengers[0].Detail; d.LastName != "Meier" {
		t.Errorf("a refused PATCH changed the passenger: %+v", d)
	}
	h.patchPassenger(b.ID, "pax-9", `{}`).problem(t, http.StatusNotFound, osdm.CodeResourceNotFound)
	h.patchPassenger("b-nothing", pid, `{}`).problem(t, http.StatusNotFound, osdm.CodeResourceNotFound)

	// A date of birth that makes the adult a child on the day of travel
	// would change the price: 409, nothing changed.
	p := h.patchPassenger(b.ID, pid, `{"dateOfBirth":"2016-01-01"}`).problem(t, http.StatusConflict, osdm.CodeModificationNotAllowed)
	if pointerOf(p) != "#/dateOfBirth" || !strings.Contains(p.Detail, "ADULT (15 or more)") {
		t.Errorf("tariff move: %+v", p)
	}
	// After fulfilment and before departure, still changeable.
	h.fulfil(b.ID)
	if r := h.patchPassenger(b.ID, pid, `{"dateOfBirth":"1991-01-01"}`); r.status != http.StatusOK {
		t.Errorf("PATCH after fulfilment: %d %s", r.status, r.body)
	}
	// After departure: 409, and the passenger can still be read.
	h.clock.Advance(departure.Add(time.Minute).Sub(h.clock.Now()))
	h.patchPassenger(b.ID, pid, `{"dateOfBirth":"1992-01-01"}`).problem(t, http.StatusConflict, osdm.CodeModificationNotAllowed)
	if r := h.call(http.MethodGet, "/bookings/"+b.ID+"/passengers/"+pid, "", nil); r.status != http.StatusOK {
		t.Errorf("GET after departure: %d", r.status)
	}
	if got := h.getBooking(b.ID).Passengers[0].DateOfBirth; got != "1991-01-01" {
		t.Errorf("date of birth %s", got)
	}
}

func TestRefundOfferGetDelete(t *testing.T) {
	h := newHarness(t, osdmsandbox.Config{})
	b := h.book(h.search(offerRequest("708", nil)).Offers[0])
	f := h.fulfil(b.ID)
	ro := h.refundOffer(b.ID, f.ID, "")
	path := "/bookings/" + b.ID + "/refund-offers/" + ro.ID

	var got osdm.RefundOfferResponse
	h.call(http.MethodGet, path, "", nil).decode(t, &got)
	if got.RefundOffer == nil || got.RefundOffer.ID != ro.ID || got.RefundOffer.Status != osdm.RefundProposed {
		t.Fatalf("GET %+v", got)
	}
	if r := h.call(http.MethodDelete, path, "", nil); r.status != http.StatusNoContent || len(r.body) != 0 {
		t.Fatalf("DELETE: %d %s", r.status, r.body)
	}
	h.call(http.MethodGet, path, "", nil).problem(t, http.StatusNotFound, osdm.CodeResourceNotFound)
	h.confirmRefund(b.ID, ro.ID).problem(t, http.StatusNotFound, osdm.CodeResourceNotFound)
	// Not held (any more): 204, as the spec says.
	if r := h.call(http.MethodDelete, path, "", nil); r.status != http.StatusNoContent {
		t.Errorf("second DELETE: %d %s", r.status, r.body)
	}
	if h.debugStatus(b.ID) != "FULFILLED" {
		t.Errorf("booking %s after deleting its refund offer", h.debugStatus(b.ID))
	}

	// Confirmed: 409, and it stays.
	ro = h.refundOffer(b.ID, f.ID, "")
	path = "/bookings/" + b.ID + "/refund-offers/" + ro.ID
	if r := h.confirmRefund(b.ID, ro.ID); r.status != http.StatusOK {
		t.Fatalf("confirm: %d %s", r.status, r.body)
	}
	h.call(http.MethodDelete, path, "", nil).problem(t, http.StatusConflict, osdm.CodeOperationNotPermitted)
	h.call(http.MethodGet, path, "", nil).decode(t, &got)
	if got.RefundOffer.Status != osdm.RefundConfirmed {
		t.Errorf("after refused DELETE: %+v", got.RefundOffer)
	}
	h.call(http.MethodDelete, "/bookings/b-nothing/refund-offers/"+ro.ID, "", nil).problem(t, http.StatusNotFound, osdm.CodeResourceNotFound)
}

// specified is a tripSpecifications search of train from Basel to Zürich
// with the given times (local or with offset) as raw JSON.
func specified(legs ...string) string {
	return `{"tripSpecifications":[{"legs":[` + strings.Join(legs, ",") + `]}],
		"anonymousPassengerSpecifications":[{"externalRef":"p1","type":"ADULT"}],
		"offerSearchCriteria":{"travelClasses":["SECOND"]}}`
}

func timedLeg(train, from, dep, to, arr string) string {
	return osdmspec.TimedLeg("1185", train, from, dep, to, arr)
}

var transferLeg = osdmspec.TransferLeg

func (h *harness) postOffers(body string) result {
	h.t.Helper()
	return h.raw(http.MethodPost, "/offers", http.Header{"Content-Type": {osdm.ContentTypeJSON}}, []byte(body))
}

func TestTripSpecifications(t *testing.T) {
	h := newHarness(t, osdmsandbox.Config{Timetable: []osdmsandbox.Schedule{{Train: "708", Departure: "08:30", Arrival: "11:00"}}})
	var resp osdm.OfferCollectionResponse
	// Local times of the stops: read in Basel's and Zürich's zone (CET in December).
	r := h.postOffers(specified(timedLeg("9", "8500010", "2026-12-01T07:12:00", "8503000", "2026-12-01T08:05")))
	r.decode(t, &resp)
	if r.status != http.StatusOK || len(resp.Trips) != 1 || len(resp.Offers) != 1 {
		t.Fatalf("%d %s", r.status, r.body)
	}
	leg := resp.Trips[0].Legs[0].TimedLeg
	if got := leg.Start.ServiceDeparture.TimetabledTime.Format(time.RFC3339); got != "2026-12-01T07:12:00+01:00" {
		t.Errorf("departure %s", got)
	}
	if got := leg.End.ServiceArrival.TimetabledTime.Format(time.RFC3339); got != "2026-12-01T08:05:00+01:00" {
		t.Errorf("arrival %s", got)
	}
	if leg.Service.VehicleNumbers[0] != "9" {
		t.Errorf("train %v", leg.Service.VehicleNumbers)
	}
	// The offer books like any other.
	h.book(resp.Offers[0])

	// A configured train at its times, with an offset; at other times a mismatch.
	h.postOffers(specified(timedLeg("708", "8500010", "2026-12-01T08:30:00+01:00", "8503000", "2026-12-01T11:00:00+01:00"))).decode(t, &resp)
	if len(resp.Offers) != 1 {
		t.Errorf("configured train: %+v", resp)
	}
	p := h.postOffers(specified(timedLeg("708", "8500010", "2026-12-01T08:35:00", "8503000", "2026-12-01T11:00:00"))).
		problem(t, http.StatusBadRequest, osdm.CodeScheduleMismatch)
	if pointerOf(p) != "#/tripSpecifications/0/legs/0/timedLeg" {
		t.Errorf("pointer %q", pointerOf(p))
	}

	for _, tc := range []struct {
		name, body string
		code       string
		pointer    string
	}{
		{"second train leaves before the first arrives", specified(timedLeg("9", "8500010", "2026-12-01T07:12", "8503000", "2026-12-01T08:05"),
			timedLeg("11", "8503000", "2026-12-01T08:00", "8000261", "2026-12-01T12:45")),
			osdm.CodeValidationError, "#/tripSpecifications/0/legs/1/timedLeg/start/serviceDeparture/timetabledTime"},
		{"transfer only", specified(`{"transferLeg":{}}`), osdm.CodeParameterNotSupported, "#/tripSpecifications/0/legs/0/transferLeg"},
		{"timed and transfer leg in one", specified(`{"timedLeg":{},"transferLeg":{}}`), osdm.CodeValidationError, "#/tripSpecifications/0/legs/0"},
		{"second train leaves from elsewhere", specified(timedLeg("9", "8500010", "2026-12-01T07:12", "8503000", "2026-12-01T08:05"),
			timedLeg("11", "8507000", "2026-12-01T08:30", "8000261", "2026-12-01T12:45")),
			osdm.CodeValidationError, "#/tripSpecifications/0/legs/1/timedLeg/start/stopPlaceRef"},
		{"a walk to another station", specified(timedLeg("9", "8500010", "2026-12-01T07:12", "8503000", "2026-12-01T08:05"),
			transferLeg("8503000", "8507000", "PT10M"), timedLeg("11", "8507000", "2026-12-01T08:30", "8000261", "2026-12-01T12:45")),
			osdm.CodeParameterNotSupported, "#/tripSpecifications/0/legs/1/transferLeg/end"},
		{"two transfer legs", specified(timedLeg("9", "8500010", "2026-12-01T07:12", "8503000", "2026-12-01T08:05"),
			transferLeg("8503000", "8503000", ""), transferLeg("8503000", "8503000", ""), timedLeg("11", "8503000", "2026-12-01T08:30", "8000261", "2026-12-01T12:45")),
			osdm.CodeParameterNotSupported, "#/tripSpecifications/0/legs/2/transferLeg"},
		{"transfer leg last", specified(timedLeg("9", "8500010", "2026-12-01T07:12", "8503000", "2026-12-01T08:05"), transferLeg("8503000", "8503000", "")),
			osdm.CodeParameterNotSupported, "#/tripSpecifications/0/legs/1/transferLeg"},
		{"bad transfer duration", specified(timedLeg("9", "8500010", "2026-12-01T07:12", "8503000", "2026-12-01T08:05"),
			transferLeg("8503000", "8503000", "10 minutes"), timedLeg("11", "8503000", "2026-12-01T08:30", "8000261", "2026-12-01T12:45")),
			osdm.CodeValidationError, "#/tripSpecifications/0/legs/1/transferLeg/duration"},
		{"change shorter than min_transfer", specified(timedLeg("9", "8500010", "2026-12-01T07:12", "8503000", "2026-12-01T08:05"),
			timedLeg("11", "8503000", "2026-12-01T08:14", "8000261", "2026-12-01T12:45")),
			osdm.CodeScheduleMismatch, "#/tripSpecifications/0/legs/1/timedLeg/start/serviceDeparture/timetabledTime"},
		{"two changes, max_changes 1", specified(timedLeg("9", "8500010", "2026-12-01T07:12", "8503000", "2026-12-01T08:05"),
			timedLeg("11", "8503000", "2026-12-01T08:30", "8000261", "2026-12-01T12:45"), timedLeg("13", "8000261", "2026-12-01T13:30", "8011160", "2026-12-01T17:45")),
			osdm.CodeOfferOutOfBounds, "#/tripSpecifications/0/legs/2/timedLeg"},
		{"empty leg", specified(`{}`), osdm.CodeValidationError, "#/tripSpecifications/0/legs/0"},
		{"no legs", specified(), osdm.CodeValidationError, "#/tripSpecifications/0/legs"},
		{"arrival first", specified(timedLeg("9", "8500010", "2026-12-01T08:12", "8503000", "2026-12-01T08:05")),
			osdm.CodeValidationError, "#/tripSpecifications/0/legs/0/timedLeg/end/serviceArrival/timetabledTime"},
		{"bad time", specified(timedLeg("9", "8500010", "01.12.2026 07:12", "8503000", "2026-12-01T08:05")),
			osdm.CodeValidationError, "#/tripSpecifications/0/legs/0/timedLeg/start/serviceDeparture/timetabledTime"},
		{"vias", `{"tripSearchCriteria":{"origin":{"objectType":"StopPlaceRef","stopPlaceRef":"urn:uic:stn:8500010"},
			"destination":{"objectType":"StopPlaceRef","stopPlaceRef":"urn:uic:stn:8000261"},"departureTime":"2026-12-01T07:00:00",
			"vias":[{"viaPlace":{"objectType":"StopPlaceRef","stopPlaceRef":"urn:uic:stn:8503000"}}]},
			"anonymousPassengerSpecifications":[{"externalRef":"p1","type":"ADULT"}]}`,
			osdm.CodeParameterNotSupported, "#/tripSearchCriteria/vias"},
		{"tripIds", `{"tripIds":["trip-1"],"anonymousPassengerSpecifications":[{"externalRef":"p1","type":"ADULT"}]}`,
			osdm.CodeParameterNotSupported, "#/tripIds"},
	} {
		p := h.postOffers(tc.body).problem(t, http.StatusBadRequest, tc.code)
		if got := pointerOf(p); got != tc.pointer {
			t.Errorf("%s: pointer %q, want %q (%s)", tc.name, got, tc.pointer, p.Detail)
		}
	}
	h.postOffers(specified(timedLeg("000", "8500010", "2026-12-01T07:12", "8503000", "2026-12-01T08:05"))).
		problem(t, http.StatusNotFound, osdm.CodeNoResults)
}

// TestLocalDepartureTime: a departureTime without offset is the local time
// of the origin, whatever zone the origin is in.
func TestLocalDepartureTime(t *testing.T) {
	h := newHarness(t, osdmsandbox.Config{})
	for _, tc := range []struct {
		origin, dest, local, want string
	}{
		{"8500010", "8503000", "2026-12-01T08:30:00", "2026-12-01T08:30:00+01:00"}, // Basel, CET
		{"7015400", "8727100", "2026-12-01T08:30:00", "2026-12-01T08:30:00Z"},      // London, GMT
		{"1000001", "2600001", "2027-07-01T08:30", "2027-07-01T08:30:00+03:00"},    // Helsinki, EEST
	} {
		body := `{"tripSearchCriteria":{"origin":{"objectType":"StopPlaceRef","stopPlaceRef":"urn:uic:stn:` + tc.origin + `"},
			"destination":{"objectType":"StopPlaceRef","stopPlaceRef":"urn:uic:stn:` + tc.dest + `"},"departureTime":"` + tc.local + `",
			"parameters":{"dataFilter":{"vehicleFilter":{"exclude":false,"vehicleNumbers":["708"]}}}},
			"anonymousPassengerSpecifications":[{"externalRef":"p1","type":"ADULT"}]}`
		var resp osdm.OfferCollectionResponse
		r := h.postOffers(body)
		r.decode(t, &resp)
		if r.status != http.StatusOK || len(resp.Trips) != 1 {
			t.Fatalf("%s: %d %s", tc.origin, r.status, r.body)
		}
		if got := resp.Trips[0].StartTime.Format(time.RFC3339); got != tc.want {
			t.Errorf("%s %s: departs %s, want %s", tc.origin, tc.local, got, tc.want)
		}
	}
}

func TestConfirmableUntil(t *testing.T) {
	h := newHarness(t, osdmsandbox.Config{})
	b := h.book(h.search(offerRequest("708", nil)).Offers[0])
	part := b.BookedOffers[0].Reservations[0]
	if part.ConfirmableUntil == nil || b.ConfirmationTimeLimit == nil || !part.ConfirmableUntil.Equal(*b.ConfirmationTimeLimit) {
		t.Fatalf("PREBOOKED part confirmableUntil %v, booking limit %v", part.ConfirmableUntil, b.ConfirmationTimeLimit)
	}
	h.fulfil(b.ID)
	if part := h.getBooking(b.ID).BookedOffers[0].Reservations[0]; part.ConfirmableUntil != nil {
		t.Errorf("FULFILLED part still has confirmableUntil %v", part.ConfirmableUntil)
	}
}

func TestUnservedOperations(t *testing.T) {
	h := newHarness(t, osdmsandbox.Config{})
	for _, tc := range []struct{ method, path string }{
		{http.MethodPatch, "/bookings/b-1"},
		{http.MethodGet, "/bookings/b-1/passengers"},
		{http.MethodPost, "/trips"},
		{http.MethodPatch, "/osdm/fulfillments/f-1"},
		{http.MethodPost, "/osdm/bookings/b-1/release-offers"},
	} {
		p := h.raw(tc.method, tc.path, nil, nil).problem(t, http.StatusNotImplemented, osdm.CodeOperationNotPermitted)
		if !strings.Contains(p.Detail, tc.method) {
			t.Errorf("%s %s: detail %q", tc.method, tc.path, p.Detail)
		}
	}
	h.raw(http.MethodGet, "/osdm/nothing", nil, nil).problem(t, http.StatusNotFound, osdm.CodeResourceNotFound)
}
