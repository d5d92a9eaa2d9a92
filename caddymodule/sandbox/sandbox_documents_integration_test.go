package sandbox

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/harness"
	"github.com/caddy-osdm/caddy-osdm/internal/osdmspec"
	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// TestSandboxTicketDocuments: through a real Caddy, osdm_sandbox's
// fulfilment carries its ticket as a PDF that poppler reads (train, date,
// booking code, control number, every passenger's last name) with an
// Aztec code a scanner reads; the booking and GET /fulfillments give the
// same bytes each time; every answer validates against the spec.
func TestSandboxTicketDocuments(t *testing.T) {
	base := harness.ServeSite(t, harness.Options(), func(port int) string {
		return harness.SandboxRoute("/osdm")
	})
	c := harness.OSDMClient{Base: base + "/osdm", Version: osdmspec.V39, CheckRequests: true}
	call := func(method, path string, body, out any) {
		t.Helper()
		var raw []byte
		if body != nil {
			raw, _ = json.Marshal(body)
		}
		a := c.Do(t, method, path, string(raw), nil)
		if a.Status != http.StatusOK {
			t.Fatalf("%s %s: %d %s", method, path, a.Status, a.Body)
		}
		if err := json.Unmarshal(a.Body, out); err != nil {
			t.Fatal(err)
		}
	}

	week := time.Now().AddDate(0, 0, 7)
	dep := time.Date(week.Year(), week.Month(), week.Day(), 0, 0, 0, 0, time.FixedZone("", 3600))
	var offers osdm.OfferCollectionResponse
	call(http.MethodPost, "/offers", osdm.OfferCollectionRequest{
		TripSearchCriteria: &osdm.TripSearchCriteria{
			DepartureTime: &dep,
			Origin:        osdm.NewStopPlaceRef("urn:uic:stn:8500010"),
			Destination:   osdm.NewStopPlaceRef("urn:uic:stn:8503000"),
			Parameters:    osdm.OnlyVehicles("708"),
		},
		AnonymousPassengerSpecifications: []osdm.AnonymousPassengerSpecification{
			{ExternalRef: "p1", Type: osdm.PassengerAdult}, {ExternalRef: "p2", Type: osdm.PassengerAdult},
		},
		OfferSearchCriteria: &osdm.OfferSearchCriteria{TravelClasses: []osdm.TravelClass{osdm.TravelClassSecond}},
	}, &offers)
	var booked osdm.BookingResponse
	call(http.MethodPost, "/bookings", osdm.BookingRequest{
		Offers: []osdm.OfferSelection{{OfferID: offers.Offers[0].OfferID, PassengerRefs: []string{"p1", "p2"}}},
		PassengerSpecifications: []osdm.PassengerSpecification{
			{ExternalRef: "p1", Type: osdm.PassengerAdult, Detail: &osdm.PersonDetail{FirstName: "Zoë", LastName: "Ångström-Müller"}},
			{ExternalRef: "p2", Type: osdm.PassengerAdult, Detail: &osdm.PersonDetail{FirstName: "Ἀλέξανδρος", LastName: "Καραμανλής"}},
		},
	}, &booked)
	b := booked.Booking
	var ful osdm.FulfillmentCollectionResponse
	call(http.MethodPost, "/bookings/"+b.ID+"/fulfillments", osdm.FulfillmentPostRequest{}, &ful)
	f, pdf := harness.TicketPDF(t, ful)

	for range 2 {
		var one osdm.FulfillmentResponse
		call(http.MethodGet, "/fulfillments/"+f.ID, nil, &one)
		if len(one.FulfillmentDocuments) != 1 || !bytes.Equal(one.FulfillmentDocuments[0].Content, pdf) {
			t.Error("GET /fulfillments gives another document")
		}
		var got osdm.BookingResponse
		call(http.MethodGet, "/bookings/"+b.ID, nil, &got)
		if len(got.Booking.FulfillmentDocuments) != 1 || !bytes.Equal(got.Booking.FulfillmentDocuments[0].Content, pdf) {
			t.Error("GET /bookings gives another document")
		}
	}

	harness.ReadTicket(t, pdf, f.ControlNumber, b.BookingCode, "IC 708", dep.Format("2006-01-02"), "08:30", b.BookingCode, f.ControlNumber, "Ångström-Müller", "Καραμανλής")
}
