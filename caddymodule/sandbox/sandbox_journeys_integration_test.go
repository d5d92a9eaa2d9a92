package sandbox

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/harness"
	"github.com/caddy-osdm/caddy-osdm/internal/osdmspec"
	"github.com/caddy-osdm/caddy-osdm/osdm"
	"github.com/caddy-osdm/caddy-osdm/osdmsandbox"
)

// TestSandboxJourneysIntegration runs osdm_sandbox in a real Caddy with a
// GTFS timetable where Paris Gare de Lyon to Zürich HB changes at Basel
// SBB (12 minutes, transfers.txt): a search finds the journeys with a
// change, the best first, as trips of timed and transfer legs; the first
// is booked (a reservation on each train), fulfilled and refunded; a
// trip specification changing in 7 minutes is refused. Every request and
// answer is checked against the OSDM 3.10 spec.
func TestSandboxJourneysIntegration(t *testing.T) {
	feed, err := filepath.Abs("../../osdmsandbox/testdata/journeys")
	if err != nil {
		t.Fatal(err)
	}
	base := harness.ServeSite(t, harness.Options(), func(int) string {
		return "\troute /osdm/* {\n\t\tosdm_sandbox {\n\t\t\ttimetable " + feed + "\n\t\t\tcapacity 2\n\t\t\tmax_trips 3\n\t\t}\n\t}\n"
	})
	c := harness.OSDMClient{Base: base + "/osdm", Version: osdmspec.V310, CheckRequests: true}
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Fatal(err)
	}
	day := time.Now().In(paris).AddDate(0, 0, 7)
	// at is a local time of that day at the stations (all in Paris' zone), with its offset.
	at := func(hm string) string {
		v, err := time.ParseInLocation("2006-01-02 15:04", day.Format(time.DateOnly)+" "+hm, paris)
		if err != nil {
			t.Fatal(err)
		}
		return v.Format(time.RFC3339)
	}
	search := `{"tripSearchCriteria":{"origin":{"objectType":"StopPlaceRef","stopPlaceRef":"urn:uic:stn:8700011"},
		"destination":{"objectType":"StopPlaceRef","stopPlaceRef":"urn:uic:stn:8503000"},"departureTime":"` + at("06:00") + `"},
		"anonymousPassengerSpecifications":[{"externalRef":"p1","type":"ADULT","age":30}],
		"offerSearchCriteria":{"travelClasses":["SECOND"]}}`
	var offers osdm.OfferCollectionResponse
	a := c.Do(t, http.MethodPost, "/offers", search, nil)
	if err := json.Unmarshal(a.Body, &offers); err != nil || a.Status != http.StatusOK {
		t.Fatalf("offers: %d %s", a.Status, a.Body)
	}
	if len(offers.Trips) != 2 || len(offers.Offers) != 2 {
		t.Fatalf("trips %d, offers %d: %s", len(offers.Trips), len(offers.Offers), a.Body)
	}
	trip := offers.Trips[0]
	var legs []string
	for _, l := range trip.Legs {
		switch {
		case l.TimedLeg != nil:
			legs = append(legs, l.ID+":"+l.TimedLeg.Service.VehicleNumbers[0]+"@"+l.TimedLeg.Start.ServiceDeparture.TimetabledTime.Format("15:04"))
		case l.TransferLeg != nil:
			legs = append(legs, l.ID+":"+l.TransferLeg.Duration)
		}
	}
	if got := strings.Join(legs, " "); got != "leg-1:9203@06:22 transfer-1:PT12M leg-2:765@10:03" || trip.Transfers != 1 {
		t.Errorf("first trip: %s", got)
	}
	o := offers.Offers[0]
	if o.TripCoverage.CoveredTripID != trip.ID || len(o.ReservationOfferParts) != 2 {
		t.Fatalf("offer %+v", o)
	}
	sum := o.ReservationOfferParts[0].Price.Amount + o.ReservationOfferParts[1].Price.Amount
	if o.OfferSummary.MinimalPrice.Amount != sum {
		t.Errorf("price %d, parts %d", o.OfferSummary.MinimalPrice.Amount, sum)
	}

	var booked osdm.BookingResponse
	a = c.Do(t, http.MethodPost, "/bookings", `{"offers":[{"offerId":"`+o.OfferID+`","passengerRefs":["p1"]}],
		"passengerSpecifications":[{"externalRef":"p1","type":"ADULT","detail":{"firstName":"Anna","lastName":"Muster"}}]}`, nil)
	if err := json.Unmarshal(a.Body, &booked); err != nil || a.Status != http.StatusOK {
		t.Fatalf("booking: %d %s", a.Status, a.Body)
	}
	b := booked.Booking
	if len(b.BookedOffers[0].Reservations) != 2 || b.ProvisionalPrice.Amount != sum {
		t.Fatalf("booking %s", a.Body)
	}
	var ful osdm.FulfillmentCollectionResponse
	a = c.Do(t, http.MethodPost, "/bookings/"+b.ID+"/fulfillments", `{}`, nil)
	if err := json.Unmarshal(a.Body, &ful); err != nil || a.Status != http.StatusOK {
		t.Fatalf("fulfilment: %d %s", a.Status, a.Body)
	}
	var ro osdm.RefundOfferCollectionResponse
	a = c.Do(t, http.MethodPost, "/bookings/"+b.ID+"/refund-offers", `{"fulfillmentIds":["`+ful.Fulfillments[0].ID+`"]}`, nil)
	if err := json.Unmarshal(a.Body, &ro); err != nil || a.Status != http.StatusOK {
		t.Fatalf("refund offer: %d %s", a.Status, a.Body)
	}
	a = c.Do(t, http.MethodPatch, "/bookings/"+b.ID+"/refund-offers/"+ro.RefundOffers[0].ID, `{"status":"CONFIRMED"}`, nil)
	if a.Status != http.StatusOK {
		t.Fatalf("refund: %d %s", a.Status, a.Body)
	}
	var final osdm.BookingResponse
	a = c.Do(t, http.MethodGet, "/bookings/"+b.ID, "", nil)
	if err := json.Unmarshal(a.Body, &final); err != nil {
		t.Fatal(err)
	}
	for _, r := range final.Booking.BookedOffers[0].Reservations {
		if r.Status != osdm.BookingPartRefunded {
			t.Errorf("reservation %s: %s", r.ID, r.Status)
		}
	}
	resp, err := http.Get(base + "/osdm/_sandbox/bookings")
	if err != nil {
		t.Fatal(err)
	}
	var list []osdmsandbox.BookingInfo
	err = json.NewDecoder(resp.Body).Decode(&list)
	resp.Body.Close()
	if err != nil || len(list) != 1 || strings.Join(list[0].Trains, ",") != "9203,765" || list[0].Status != "REFUNDED" {
		t.Errorf("listing %+v %v", list, err)
	}

	// Both places free again: capacity 2, so two passengers fit on each train.
	two := strings.Replace(search, `{"externalRef":"p1","type":"ADULT","age":30}`, `{"externalRef":"p1","type":"ADULT","age":30},{"externalRef":"p2","type":"ADULT","age":40}`, 1)
	a = c.Do(t, http.MethodPost, "/offers", two, nil)
	if err := json.Unmarshal(a.Body, &offers); err != nil || len(offers.Offers) != 2 {
		t.Errorf("after the refund: %s", a.Body)
	}

	// A change at Basel in 7 minutes is refused.
	spec := `{"tripSpecifications":[{"legs":[` + specLeg("9203", "8700011", at("06:22"), "8500010", at("09:26")) + `,` +
		specLeg("763", "8500010", at("09:33"), "8503000", at("10:26")) + `]}],
		"anonymousPassengerSpecifications":[{"externalRef":"p1","type":"ADULT","age":30}]}`
	a = c.Do(t, http.MethodPost, "/offers", spec, nil)
	var p osdm.Problem
	if err := json.Unmarshal(a.Body, &p); err != nil || a.Status != http.StatusBadRequest || p.Code != osdm.CodeScheduleMismatch {
		t.Errorf("7 minutes at Basel: %d %s", a.Status, a.Body)
	}
}

// specLeg is a timed leg of a trip specification.
func specLeg(train, from, dep, to, arr string) string {
	return osdmspec.TimedLeg("9999", train, from, dep, to, arr)
}
