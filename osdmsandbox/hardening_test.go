package osdmsandbox_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/osdm"
	"github.com/caddy-osdm/caddy-osdm/osdmsandbox"
)

// TestPathSplitBeforeDecode: the path is split at its slashes before its
// segments are percent-decoded, as a real server routes: b-X%2F is the
// booking "b-X/", which does not exist, not booking b-X; and %2F does not
// make a path with more segments reach another operation.
func TestPathSplitBeforeDecode(t *testing.T) {
	h := newHarness(t, osdmsandbox.Config{})
	o := offerOf(t, h.search(offerRequest("IC1", []osdm.TravelClass{osdm.TravelClassSecond})), osdm.TravelClassSecond, osdm.AccommodationSeat)
	b := h.book(o)
	if r := h.send(http.MethodGet, "/bookings/"+b.ID, nil, nil); r.status != http.StatusOK {
		t.Fatalf("GET the booking: %d %s", r.status, r.body)
	}
	for _, path := range []string{
		"/bookings/" + b.ID + "%2F",
		"/bookings/" + b.ID + "%2f",
		"/bookings/" + b.ID + "%2Ffulfillments",
	} {
		r := h.send(http.MethodGet, path, nil, nil)
		if r.status != http.StatusNotFound || !strings.Contains(string(r.body), "RESOURCE_NOT_FOUND") {
			t.Errorf("GET %s: %d %s, want 404 RESOURCE_NOT_FOUND", path, r.status, r.body)
		}
	}
	// An escaped id is still found: %2D is "-".
	if r := h.send(http.MethodGet, "/bookings/"+strings.Replace(b.ID, "-", "%2D", 1), nil, nil); r.status != http.StatusOK {
		t.Errorf("GET with an escaped -: %d %s", r.status, r.body)
	}
	if r := h.send(http.MethodPost, "/bookings%2F"+b.ID+"/fulfillments", nil, nil); r.status != http.StatusNotFound {
		t.Errorf("POST /bookings%%2F<id>/fulfillments: %d %s", r.status, r.body)
	}
}

// TestPastDepartureRefused: a search for a train that left more than
// DepartureTolerance ago is answered 400 OFFER_SEARCH_CRITERIA_OUT_OF_BOUNDS,
// on both search forms; an offer cannot be booked once its train has left.
func TestPastDepartureRefused(t *testing.T) {
	h := newHarness(t, osdmsandbox.Config{})
	now := h.clock.Now()
	search := func(dep time.Time) result {
		req := offerRequest("IC1", []osdm.TravelClass{osdm.TravelClassSecond})
		req.TripSearchCriteria.DepartureTime = &dep
		return h.call(http.MethodPost, "/offers", "", req)
	}
	for name, dep := range map[string]time.Time{
		"yesterday":            now.Add(-24 * time.Hour),
		"an hour ago":          now.Add(-time.Hour),
		"6 minutes ago":        now.Add(-6 * time.Minute),
		"days ago, day search": time.Date(now.Year(), now.Month(), now.Day()-3, 0, 0, 0, 0, cet),
	} {
		search(dep).problem(t, http.StatusBadRequest, osdm.CodeOfferOutOfBounds)
		q := "originCode=urn:uic:stn:8500010&destinationCode=urn:uic:stn:8503000&vehicleNumbers=IC1&passenger=p1,ADULT,30&departureTime=" +
			strings.ReplaceAll(dep.Format(time.RFC3339), "+", "%2B")
		if r := h.send(http.MethodGet, "/trip-offers?"+q, nil, nil); r.status != http.StatusBadRequest || !strings.Contains(string(r.body), "OFFER_SEARCH_CRITERIA_OUT_OF_BOUNDS") {
			t.Errorf("%s: GET /trip-offers: %d %s", name, r.status, r.body)
		}
		_ = name
	}
	// 4 minutes ago is within the tolerance, and the offer can be booked
	// only until the departure plus the tolerance.
	r := search(now.Add(-4 * time.Minute))
	if r.status != http.StatusOK {
		t.Fatalf("4 minutes ago: %d %s", r.status, r.body)
	}
	var resp osdm.OfferCollectionResponse
	r.decode(t, &resp)
	o := offerOf(t, resp, osdm.TravelClassSecond, osdm.AccommodationSeat)
	if !o.PreBookableUntil.Equal(now.Add(time.Minute)) {
		t.Fatalf("preBookableUntil %v, want departure + %s", o.PreBookableUntil, osdmsandbox.DepartureTolerance)
	}
	h.clock.Advance(2 * time.Minute)
	h.call(http.MethodPost, "/bookings", "", bookingRequest(o, adult("p1"))).problem(t, http.StatusNotFound, osdm.CodeOfferNotFound)
}

// TestLongIDsShortenedInProblems: an id of the path, however long, is
// quoted in the problem's detail by its first 64 bytes (whole
// characters) and "...", not echoed whole.
func TestLongIDsShortenedInProblems(t *testing.T) {
	h := newHarness(t, osdmsandbox.Config{})
	long := strings.Repeat("a", 5000)
	p := h.raw(http.MethodGet, "/bookings/"+long, nil, nil).problem(t, http.StatusNotFound, osdm.CodeResourceNotFound)
	if want := `no booking "` + long[:64] + `"...`; p.Detail != want {
		t.Errorf("detail %q, want %q", p.Detail, want)
	}
	// é is two bytes: the cut falls between characters, never inside one.
	p = h.raw(http.MethodGet, "/fulfillments/a"+strings.Repeat("é", 100), nil, nil).problem(t, http.StatusNotFound, osdm.CodeResourceNotFound)
	if want := `no fulfillment "a` + strings.Repeat("é", 31) + `"...`; p.Detail != want {
		t.Errorf("detail %q, want %q", p.Detail, want)
	}
	// A short one is quoted whole.
	p = h.raw(http.MethodGet, "/bookings/b-1", nil, nil).problem(t, http.StatusNotFound, osdm.CodeResourceNotFound)
	if p.Detail != `no booking "b-1"` {
		t.Errorf("detail %q", p.Detail)
	}
}
