package osdmsandbox_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/internal/osdmspec"
	"github.com/caddy-osdm/caddy-osdm/osdm"
	"github.com/caddy-osdm/caddy-osdm/osdmsandbox"
)

func TestConcurrentBookingsNeverOversell(t *testing.T) {
	const capacity, buyers = 5, 24
	h := newHarness(t, osdmsandbox.Config{Capacity: capacity})
	offers := make([]osdm.Offer, buyers)
	for i := range offers {
		offers[i] = offerOf(t, h.search(offerRequest("708", []osdm.TravelClass{osdm.TravelClassSecond})), osdm.TravelClassSecond, osdm.AccommodationSeat)
	}
	header := http.Header{"Content-Type": {"application/json"}}
	var wg sync.WaitGroup
	results := make([]result, buyers)
	for i := range offers {
		body, _ := json.Marshal(bookingRequest(offers[i]))
		osdmspec.ValidateRequest(t, osdmspec.V39, http.MethodPost, "/bookings", header, body)
		wg.Go(func() { results[i] = h.send(http.MethodPost, "/bookings", header, body) })
	}
	wg.Wait()

	booked, seats := 0, map[string]bool{}
	for _, r := range results {
		h.validate(http.MethodPost, "/bookings", r)
		switch r.status {
		case http.StatusOK:
			booked++
			var resp osdm.BookingResponse
			r.decode(t, &resp)
			place := resp.Booking.BookedOffers[0].Reservations[0].PlaceAllocation.ReservedPlaces[0]
			seat := place.CoachNumber + "/" + place.PlaceNumbers[0]
			if seats[seat] {
				t.Errorf("seat %s sold twice", seat)
			}
			seats[seat] = true
		default:
			r.problem(t, http.StatusConflict, osdm.CodeInsufficientAvailability)
		}
	}
	if booked != capacity || len(h.sb.Bookings()) != capacity {
		t.Errorf("%d booked, %d held, want exactly the %d places", booked, len(h.sb.Bookings()), capacity)
	}
}

func TestRoutes(t *testing.T) {
	h := newHarness(t, osdmsandbox.Config{})

	p := h.raw(http.MethodGet, "/nothing/here", nil, nil).problem(t, http.StatusNotFound, osdm.CodeResourceNotFound)
	if !strings.Contains(p.Detail, "/nothing/here") {
		t.Errorf("detail %q", p.Detail)
	}
	h.raw(http.MethodGet, "/bookings/b-1/tickets", nil, nil).problem(t, http.StatusNotFound, osdm.CodeResourceNotFound)
	h.raw(http.MethodGet, "/offers/o-1", nil, nil).problem(t, http.StatusNotFound, osdm.CodeResourceNotFound)

	for _, tc := range []struct{ method, path, allow string }{
		{http.MethodGet, "/offers", "POST"},
		{http.MethodPut, "/bookings/b-1", "DELETE, GET, PATCH"},
		{http.MethodPut, "/bookings/b-1/refund-offers/ro-1", "DELETE, GET, PATCH"},
		{http.MethodPost, "/bookings/b-1/passengers/pax-1", "GET, PATCH"},
		// The spec's path, none of whose methods the sandbox serves: they
		// are answered 501, so Allow lists them.
		{http.MethodPut, "/bookings/b-1/purchaser", "GET, PATCH, POST"},
		{http.MethodPost, "/trip-offers", "GET"},
	} {
		r := h.raw(tc.method, tc.path, nil, nil)
		r.problem(t, http.StatusMethodNotAllowed, osdm.CodeOperationNotPermitted)
		if got := r.header.Get("Allow"); got != tc.allow {
			t.Errorf("%s %s: Allow %q, want %q", tc.method, tc.path, got, tc.allow)
		}
	}

	// Any prefix before the OSDM path is ignored, as behind route /osdm/*.
	r := h.call(http.MethodPost, "/osdm/v3/offers", "", offerRequest("708", nil))
	var resp osdm.OfferCollectionResponse
	r.decode(t, &resp)
	if r.status != http.StatusOK || len(resp.Offers) != 2 {
		t.Fatalf("prefixed search: %d %s", r.status, r.body)
	}
	bookingResp := h.call(http.MethodPost, "/osdm/v3/bookings", "", bookingRequest(resp.Offers[0]))
	var booked osdm.BookingResponse
	bookingResp.decode(t, &booked)
	if r := h.call(http.MethodGet, "/osdm/v3/bookings/"+booked.Booking.ID, "", nil); r.status != http.StatusOK {
		t.Errorf("prefixed GET: %d %s", r.status, r.body)
	}

	// Every answer is marked not cacheable.
	if r.header.Get("Cache-Control") != "no-store" {
		t.Errorf("Cache-Control %q", r.header.Get("Cache-Control"))
	}
}

func TestDebugListing(t *testing.T) {
	h := newHarness(t, osdmsandbox.Config{})
	offer := offerOf(t, h.search(offerRequest("708", nil, adult("p1"), adult("p2"))), osdm.TravelClassSecond, osdm.AccommodationSeat)
	b := h.book(offer, adult("p1"), adult("p2"))

	r := h.raw(http.MethodGet, "/_sandbox/bookings", nil, nil)
	if r.status != http.StatusOK || r.header.Get("Content-Type") != osdm.ContentTypeJSON {
		t.Fatalf("debug: %d %s", r.status, r.body)
	}
	var list []osdmsandbox.BookingInfo
	r.decode(t, &list)
	if len(list) != 1 {
		t.Fatalf("list %s", r.body)
	}
	got := list[0]
	if got.ID != b.ID || got.Status != "PREBOOKED" || got.OfferIDs[0] != offer.OfferID || got.Trains[0] != "708" ||
		got.Places != 2 || !got.CreatedOn.Equal(t0) || !got.ConfirmationTimeLimit.Equal(*b.ConfirmationTimeLimit) {
		t.Errorf("listed %+v", got)
	}
	// An empty sandbox lists [], not null.
	empty := newHarness(t, osdmsandbox.Config{}).raw(http.MethodGet, "/_sandbox/bookings", nil, nil)
	if strings.TrimSpace(string(empty.body)) != "[]" {
		t.Errorf("empty list %s", empty.body)
	}
}

func TestRetention(t *testing.T) {
	h := newHarness(t, osdmsandbox.Config{Retention: time.Hour, BookingTTL: time.Minute})
	resp := h.search(offerRequest("708", nil))
	deleted := h.book(resp.Offers[0])
	h.call(http.MethodDelete, "/bookings/"+deleted.ID, "", nil)
	expired := h.book(resp.Offers[1])

	h.clock.Advance(time.Hour)
	if got := h.debugStatus(deleted.ID); got != "" {
		t.Errorf("deleted booking still held after the retention: %q", got)
	}
	if got := h.debugStatus(expired.ID); got != "RELEASED" {
		t.Errorf("released booking %q before its retention ended", got)
	}
	h.clock.Advance(time.Minute)
	h.call(http.MethodGet, "/bookings/"+expired.ID, "", nil).problem(t, http.StatusNotFound, osdm.CodeResourceNotFound)

	// A fulfilled booking is kept until its train has arrived, plus retention.
	kept := h.book(h.search(offerRequest("708", nil)).Offers[0])
	h.fulfil(kept.ID)
	h.clock.Advance(2 * time.Hour)
	h.getBooking(kept.ID)
	h.clock.Advance(departure.Sub(t0) + 24*time.Hour)
	h.call(http.MethodGet, "/bookings/"+kept.ID, "", nil).problem(t, http.StatusNotFound, osdm.CodeResourceNotFound)
}

func TestMaxEntries(t *testing.T) {
	h := newHarness(t, osdmsandbox.Config{MaxEntries: 3, Capacity: 10})
	var ids []string
	for range 4 {
		resp := h.search(offerRequest("708", []osdm.TravelClass{osdm.TravelClassSecond}))
		ids = append(ids, h.book(resp.Offers[0]).ID)
	}
	// The fourth booking pushed out the first, which gave its place back.
	if n := len(h.sb.Bookings()); n != 3 {
		t.Errorf("%d bookings held, want 3", n)
	}
	h.call(http.MethodGet, "/bookings/"+ids[0], "", nil).problem(t, http.StatusNotFound, osdm.CodeResourceNotFound)
	if got := h.availability("708", osdm.TravelClassSecond, osdm.AccommodationSeat); got != 7 {
		t.Errorf("availability %d, want only the 3 held bookings' places taken", got)
	}
	// Offers: only the newest 3 can be booked.
	h2 := newHarness(t, osdmsandbox.Config{MaxEntries: 3})
	old := h2.search(offerRequest("708", nil))
	h2.search(offerRequest("708", nil))
	h2.call(http.MethodPost, "/bookings", "", bookingRequest(old.Offers[0])).problem(t, http.StatusNotFound, osdm.CodeOfferNotFound)
}

func TestConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		cfg  osdmsandbox.Config
		want string
	}{
		{osdmsandbox.Config{Capacity: -1}, "capacity"},
		{osdmsandbox.Config{Capacity: osdmsandbox.MaxCapacity + 1}, "capacity"},
		{osdmsandbox.Config{OfferTTL: time.Millisecond}, "offer_ttl"},
		{osdmsandbox.Config{Retention: -time.Hour}, "retention"},
		{osdmsandbox.Config{MaxEntries: -5}, "max_entries"},
		{osdmsandbox.Config{Operator: "SBB"}, "operator"},
		{osdmsandbox.Config{ExternalInventory: []osdmsandbox.ExternalInventory{{Train: "462", ReservationSystemID: 80, Operator: "10800"}}}, "RICS"},
		{osdmsandbox.Config{ExternalInventory: []osdmsandbox.ExternalInventory{{Train: "46-2", ReservationSystemID: 80, Operator: "1080"}}}, "train"},
		{osdmsandbox.Config{ExternalInventory: []osdmsandbox.ExternalInventory{{Train: "462", ReservationSystemID: 0, Operator: "1080"}}}, "reservation system"},
		{osdmsandbox.Config{ExternalInventory: []osdmsandbox.ExternalInventory{{Train: "462", ReservationSystemID: 80, Operator: "1080", Status: 500}}}, "status"},
		{osdmsandbox.Config{ExternalInventory: []osdmsandbox.ExternalInventory{
			{Train: "462", ReservationSystemID: 80, Operator: "1080"}, {Train: "462", ReservationSystemID: 81, Operator: "1081"}}}, "twice"},
		{osdmsandbox.Config{Timetable: []osdmsandbox.Schedule{{Train: "708", Departure: "8:30", Arrival: "11:00"}}}, "departure"},
		{osdmsandbox.Config{Timetable: []osdmsandbox.Schedule{{Train: "708", Departure: "08:30", Arrival: "24:00"}}}, "arrival"},
		{osdmsandbox.Config{UnknownTrains: []string{""}}, "unknown_train"},
		// A train in two of the lists would be answered by one and the
		// other line ignored.
		{osdmsandbox.Config{UnknownTrains: []string{"708"}, Timetable: []osdmsandbox.Schedule{{Train: "708", Departure: "08:30", Arrival: "11:00"}}},
			"unknown_train 708 also has a train line with its times: list it in one of them"},
		{osdmsandbox.Config{UnknownTrains: []string{"462"}, ExternalInventory: []osdmsandbox.ExternalInventory{{Train: "462", ReservationSystemID: 80, Operator: "1080"}}},
			"unknown_train 462 is also an external_inventory train: list it in one of them"},
		{osdmsandbox.Config{Timetable: []osdmsandbox.Schedule{{Train: "462", Departure: "08:30", Arrival: "11:00"}}, ExternalInventory: []osdmsandbox.ExternalInventory{{Train: "462", ReservationSystemID: 80, Operator: "1080"}}},
			"train 462 is also an external_inventory train, which is never sold here: list it in one of them"},
	} {
		if _, err := osdmsandbox.New(tc.cfg); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want one about %s", tc.cfg, err, tc.want)
		}
	}
	sb, err := osdmsandbox.New(osdmsandbox.Config{Operator: "1185"})
	if err != nil || sb.Config().Operator != "urn:uic:rics:1185" || sb.Config().Capacity != osdmsandbox.DefaultCapacity {
		t.Errorf("defaults: %+v %v", sb.Config(), err)
	}
}
