package osdmsandbox_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/internal/osdmspec"
	"github.com/caddy-osdm/caddy-osdm/internal/testclock"
	"github.com/caddy-osdm/caddy-osdm/osdm"
	"github.com/caddy-osdm/caddy-osdm/osdmsandbox"
)

// t0 is the fake clock's start; departures are some days later.
var t0 = time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)

// cet is the offset of the stations searched.
var cet = time.FixedZone("CET", 3600)

// departure is the departure time the tests search for.
var departure = time.Date(2026, 12, 1, 8, 30, 0, 0, cet)

// harness drives a Sandbox through its http.Handler and checks every
// request and response against the OSDM spec.
type harness struct {
	t     testing.TB
	sb    *osdmsandbox.Sandbox
	clock *testclock.Clock
}

func newHarness(t testing.TB, cfg osdmsandbox.Config) *harness {
	t.Helper()
	clock := testclock.New(t0)
	cfg.Now = clock.Now
	sb, err := osdmsandbox.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &harness{t: t, sb: sb, clock: clock}
}

// result is an answer of the sandbox.
type result struct {
	status int
	header http.Header
	body   []byte
}

// decode parses the body into v.
func (r result) decode(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.body, v); err != nil {
		t.Fatalf("answer %d %s: %v", r.status, r.body, err)
	}
}

// problem parses a problem+json answer and checks its status and code.
func (r result) problem(t testing.TB, status int, code string) osdm.Problem {
	t.Helper()
	if r.status != status || r.header.Get("Content-Type") != osdm.ContentTypeProblem {
		t.Fatalf("got %d %s %s, want %d problem %s", r.status, r.header.Get("Content-Type"), r.body, status, code)
	}
	var p osdm.Problem
	r.decode(t, &p)
	if p.Code != code || p.Status == nil || *p.Status != status || p.Title == "" || p.Detail == "" {
		t.Fatalf("problem %+v, want code %s status %d with title and detail", p, code, status)
	}
	return p
}

// specPath is path as the spec names it: without a prefix and with the
// camelCase refundOffers of older partners in its spec spelling.
func specPath(path string) string {
	path = strings.Replace(path, "/refundOffers", "/refund-offers", 1)
	for _, start := range []string{"/offers", "/bookings"} {
		if i := strings.Index(path, start); i > 0 {
			return path[i:]
		}
	}
	return path
}

// call sends an OSDM request whose body (a Go value, marshalled) and
// headers must be valid against the spec, and checks the answer.
func (h *harness) call(method, path, idempotencyKey string, body any) result {
	h.t.Helper()
	header := http.Header{}
	var raw []byte
	if body != nil {
		var err error
		if raw, err = json.Marshal(body); err != nil {
			h.t.Fatal(err)
		}
		header.Set("Content-Type", osdm.ContentTypeJSON)
	}
	if idempotencyKey != "" {
		header.Set(osdm.HeaderIdempotencyKey, idempotencyKey)
	}
	osdmspec.ValidateRequest(h.t, osdmspec.V39, method, specPath(path), header, raw)
	return h.raw(method, path, header, raw)
}

// raw sends any request and checks the answer against the spec: the
// operation's response when the path is one of the spec, else the Problem
// schema for errors.
func (h *harness) raw(method, path string, header http.Header, body []byte) result {
	h.t.Helper()
	r := h.send(method, path, header, body)
	h.validate(method, path, r)
	return r
}

// send makes a request without checking the answer.
func (h *harness) send(method, path string, header http.Header, body []byte) result {
	req := httptest.NewRequest(method, path, bytes.NewReader(body))
	for k, v := range header {
		req.Header[k] = v
	}
	rec := httptest.NewRecorder()
	h.sb.ServeHTTP(rec, req)
	return result{status: rec.Code, header: rec.Header(), body: rec.Body.Bytes()}
}

// validate checks an answer against the 3.9 spec.
func (h *harness) validate(method, path string, r result) {
	h.t.Helper()
	// Problem.alternativeSystemProposals exists only in v3.10.
	version := osdmspec.V39
	if isAlternativeSystemProposal(r) {
		version = osdmspec.V310
	}
	switch {
	case strings.Contains(path, "/trip-offers") && r.status == http.StatusOK:
		// Not an operation of the spec, but the same answer as POST /offers.
		osdmspec.ValidateSchema(h.t, version, "OfferCollectionResponse", r.body)
	case isAlternativeSystemProposal(r):
		osdmspec.ValidateResponse(h.t, version, method, specPath(path), r.status, r.header, r.body)
	case inSpec(method, path):
		osdmspec.ValidateResponse(h.t, osdmspec.V39, method, specPath(path), r.status, r.header, r.body)
	case r.status >= 400:
		osdmspec.ValidateSchema(h.t, osdmspec.V39, "Problem", r.body)
	}
}

// inSpec reports whether method and path name an operation of the spec.
func inSpec(method, path string) bool {
	return osdmsandbox.InSpec(method, strings.SplitN(specPath(path), "?", 2)[0])
}

// validateV310Problem checks a problem alone against the v3.10 schema.
func validateV310Problem(t testing.TB, p osdm.Problem) {
	t.Helper()
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	osdmspec.ValidateSchema(t, osdmspec.V310, "Problem", b)
}

func isAlternativeSystemProposal(r result) bool {
	return bytes.Contains(r.body, []byte(osdm.CodeAlternativeSystemProposal))
}

// offerRequest searches train at departure for the passengers (ADULT
// p1 when none given).
func offerRequest(train string, classes []osdm.TravelClass, pax ...osdm.AnonymousPassengerSpecification) osdm.OfferCollectionRequest {
	if len(pax) == 0 {
		pax = []osdm.AnonymousPassengerSpecification{adult("p1")}
	}
	dep := departure
	req := osdm.OfferCollectionRequest{
		TripSearchCriteria: &osdm.TripSearchCriteria{
			DepartureTime: &dep,
			Origin:        osdm.NewStopPlaceRef("urn:uic:stn:8500010"),
			Destination:   osdm.NewStopPlaceRef("urn:uic:stn:8503000"),
			Parameters:    osdm.OnlyVehicles(train),
		},
		AnonymousPassengerSpecifications: pax,
		OfferSearchCriteria: &osdm.OfferSearchCriteria{
			RequestedOfferParts: []osdm.OfferPartType{osdm.OfferPartReservation},
			TravelClasses:       classes,
		},
	}
	return req
}

func adult(ref string) osdm.AnonymousPassengerSpecification {
	age := 30
	return osdm.AnonymousPassengerSpecification{ExternalRef: ref, Type: osdm.PassengerAdult, Age: &age}
}

func child(ref string) osdm.AnonymousPassengerSpecification {
	age := 8
	return osdm.AnonymousPassengerSpecification{ExternalRef: ref, Type: osdm.PassengerChild, Age: &age}
}

// search posts an offer search and returns the 200 answer.
func (h *harness) search(req osdm.OfferCollectionRequest) osdm.OfferCollectionResponse {
	h.t.Helper()
	r := h.call(http.MethodPost, "/offers", "", req)
	if r.status != http.StatusOK {
		h.t.Fatalf("POST /offers: %d %s", r.status, r.body)
	}
	var resp osdm.OfferCollectionResponse
	r.decode(h.t, &resp)
	return resp
}

// offerOf returns the offer of a class and accommodation.
func offerOf(t testing.TB, resp osdm.OfferCollectionResponse, class osdm.TravelClass, acc osdm.AccommodationType) osdm.Offer {
	t.Helper()
	for _, o := range resp.Offers {
		if o.OfferSummary.OverallTravelClass == class && o.OfferSummary.OverallAccommodationType == acc {
			return o
		}
	}
	t.Fatalf("no %s %s offer in %+v", class, acc, resp.Offers)
	return osdm.Offer{}
}

// bookingRequest books offer o for all its passengers.
func bookingRequest(o osdm.Offer, pax ...osdm.AnonymousPassengerSpecification) osdm.BookingRequest {
	if len(pax) == 0 {
		pax = []osdm.AnonymousPassengerSpecification{adult("p1")}
	}
	req := osdm.BookingRequest{
		Offers:      []osdm.OfferSelection{{OfferID: o.OfferID, PassengerRefs: o.PassengerRefs}},
		ExternalRef: "legacy-msg-1",
	}
	for _, p := range pax {
		req.PassengerSpecifications = append(req.PassengerSpecifications, osdm.PassengerSpecification{
			ExternalRef: p.ExternalRef, Type: p.Type, Age: p.Age,
			Detail: &osdm.PersonDetail{FirstName: "Anna", LastName: "Muster"},
		})
	}
	return req
}

// book books offer o and returns the booking.
func (h *harness) book(o osdm.Offer, pax ...osdm.AnonymousPassengerSpecification) *osdm.Booking {
	h.t.Helper()
	r := h.call(http.MethodPost, "/bookings", "", bookingRequest(o, pax...))
	if r.status != http.StatusOK {
		h.t.Fatalf("POST /bookings: %d %s", r.status, r.body)
	}
	var resp osdm.BookingResponse
	r.decode(h.t, &resp)
	return resp.Booking
}

// getBooking reads a booking.
func (h *harness) getBooking(id string) *osdm.Booking {
	h.t.Helper()
	r := h.call(http.MethodGet, "/bookings/"+id, "", nil)
	if r.status != http.StatusOK {
		h.t.Fatalf("GET /bookings/%s: %d %s", id, r.status, r.body)
	}
	var resp osdm.BookingResponse
	r.decode(h.t, &resp)
	return resp.Booking
}

// fulfil fulfils a booking and returns its fulfilment.
func (h *harness) fulfil(id string) osdm.Fulfillment {
	h.t.Helper()
	r := h.call(http.MethodPost, "/bookings/"+id+"/fulfillments", "", osdm.FulfillmentPostRequest{})
	if r.status != http.StatusOK {
		h.t.Fatalf("POST fulfillments: %d %s", r.status, r.body)
	}
	var resp osdm.FulfillmentCollectionResponse
	r.decode(h.t, &resp)
	if len(resp.Fulfillments) != 1 {
		h.t.Fatalf("fulfillments: %s", r.body)
	}
	return resp.Fulfillments[0]
}

// refundOffer asks for a refund offer.
func (h *harness) refundOffer(bookingID, fulfillmentID string, overrule osdm.OverruleCode) osdm.RefundOffer {
	h.t.Helper()
	r := h.call(http.MethodPost, "/bookings/"+bookingID+"/refund-offers", "",
		osdm.RefundOfferRequest{FulfillmentIDs: []string{fulfillmentID}, OverruleCode: overrule})
	if r.status != http.StatusOK {
		h.t.Fatalf("POST refund-offers: %d %s", r.status, r.body)
	}
	var resp osdm.RefundOfferCollectionResponse
	r.decode(h.t, &resp)
	if len(resp.RefundOffers) != 1 {
		h.t.Fatalf("refund offers: %s", r.body)
	}
	return resp.RefundOffers[0]
}

// confirmRefund confirms a refund offer.
func (h *harness) confirmRefund(bookingID, refundOfferID string) result {
	h.t.Helper()
	return h.call(http.MethodPatch, "/bookings/"+bookingID+"/refund-offers/"+refundOfferID, "",
		osdm.RefundOfferPatchRequest{Status: osdm.RefundConfirmed})
}

// availability is the numericAvailability of a class and accommodation.
func (h *harness) availability(train string, class osdm.TravelClass, acc osdm.AccommodationType) int {
	h.t.Helper()
	o := offerOf(h.t, h.search(offerRequest(train, nil)), class, acc)
	return *o.ReservationOfferParts[0].NumericAvailability
}

// status finds a booking's status in the debug listing.
func (h *harness) debugStatus(id string) string {
	h.t.Helper()
	for _, b := range h.sb.Bookings() {
		if b.ID == id {
			return b.Status
		}
	}
	return ""
}
