package osdmsandbox_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/osdm"
	"github.com/caddy-osdm/caddy-osdm/osdmsandbox"
	"github.com/caddy-osdm/caddy-osdm/timetable"
)

// The stations of testdata/journeys: Paris Gare de Lyon, Basel SBB (12
// minutes to change, transfers.txt), Zürich HB, Bern.
const (
	stnParis  = "8700011"
	stnBasel  = "8500010"
	stnZurich = "8503000"
)

func journeysHarness(t *testing.T, maxChanges *int) *harness {
	t.Helper()
	tt, err := timetable.Load("testdata/journeys", timetable.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return newHarness(t, osdmsandbox.Config{Feed: tt, MaxChanges: maxChanges})
}

// criteria is a search from origin to destination at a local time of
// 1 December 2026, by departure (or arrival), without a vehicle filter.
func criteria(origin, dest, at string, byArrival bool, vehicles ...string) string {
	when := `"departureTime":"2026-12-01T` + at + `:00"`
	if byArrival {
		when = `"arrivalTime":"2026-12-01T` + at + `:00"`
	}
	params := ""
	if len(vehicles) > 0 {
		params = `,"parameters":{"dataFilter":{"vehicleFilter":{"exclude":false,"vehicleNumbers":["` + strings.Join(vehicles, `","`) + `"]}}}`
	}
	return `{"tripSearchCriteria":{"origin":{"objectType":"StopPlaceRef","stopPlaceRef":"urn:uic:stn:` + origin + `"},
		"destination":{"objectType":"StopPlaceRef","stopPlaceRef":"urn:uic:stn:` + dest + `"},` + when + params + `},
		"anonymousPassengerSpecifications":[{"externalRef":"p1","type":"ADULT","age":30}],
		"offerSearchCriteria":{"travelClasses":["SECOND"]}}`
}

// tripShape is a trip as "9203 PLY 06:22 > BSL 09:26 | 12m | 765 ...".
func tripShape(tr osdm.Trip) string {
	var parts []string
	for _, l := range tr.Legs {
		switch {
		case l.TimedLeg != nil:
			parts = append(parts, l.ID+" "+l.TimedLeg.Service.VehicleNumbers[0]+" "+l.TimedLeg.Start.StopPlaceName+" "+
				l.TimedLeg.Start.ServiceDeparture.TimetabledTime.Format("15:04")+" > "+l.TimedLeg.End.StopPlaceName+" "+
				l.TimedLeg.End.ServiceArrival.TimetabledTime.Format("15:04"))
		case l.TransferLeg != nil:
			parts = append(parts, l.ID+" "+l.TransferLeg.Duration+" at "+strings.TrimPrefix(l.TransferLeg.Start.StopPlaceRef, "urn:uic:stn:"))
		}
	}
	return strings.Join(parts, " | ")
}

// A search with no direct train in the window gets journeys with a
// change at Basel no shorter than its 12 minutes (not the 7-minute
// connection onto 763 or 771), the first to arrive first; each offer
// holds a reservation per train, priced the sum; booked, fulfilled and
// refunded, both trains' places come and go together.
func TestJourneysFromTimetable(t *testing.T) {
	h := journeysHarness(t, nil)
	var resp osdm.OfferCollectionResponse
	h.postOffers(criteria(stnParis, stnZurich, "06:00", false)).decode(t, &resp)
	want := []string{
		"leg-1 9203 Paris Gare de Lyon 06:22 > Basel SBB 09:26 | transfer-1 PT12M at 8500010 | leg-2 765 Basel SBB 10:03 > Zürich HB 10:56",
		"leg-1 9205 Paris Gare de Lyon 08:22 > Basel SBB 11:26 | transfer-1 PT12M at 8500010 | leg-2 773 Basel SBB 12:03 > Zürich HB 12:56",
	}
	if len(resp.Trips) != len(want) {
		t.Fatalf("trips %+v", resp.Trips)
	}
	for i, tr := range resp.Trips {
		if got := tripShape(tr); got != want[i] || tr.Transfers != 1 {
			t.Errorf("trip %d: %s, %d transfers\nwant %s", i, got, tr.Transfers, want[i])
		}
	}
	if len(resp.Offers) != 2 {
		t.Fatalf("offers %+v", resp.Offers)
	}
	o := resp.Offers[0]
	trip := resp.Trips[0]
	if o.TripCoverage.CoveredTripID != trip.ID || strings.Join(o.TripCoverage.CoveredLegIDs, ",") != "leg-1,leg-2" || len(o.ReservationOfferParts) != 2 {
		t.Fatalf("offer %+v", o)
	}
	var sum int64
	for i, p := range o.ReservationOfferParts {
		if p.TripCoverage.CoveredTripID != trip.ID || strings.Join(p.TripCoverage.CoveredLegIDs, ",") != []string{"leg-1", "leg-2"}[i] {
			t.Errorf("part %d covers %+v", i, p.TripCoverage)
		}
		sum += p.Price.Amount
	}
	if o.OfferSummary.MinimalPrice.Amount != sum || sum == 0 {
		t.Errorf("minimal price %d, parts %d", o.OfferSummary.MinimalPrice.Amount, sum)
	}
	free := *o.ReservationOfferParts[0].NumericAvailability

	b := h.book(o)
	if len(b.BookedOffers[0].Reservations) != 2 || b.ProvisionalPrice.Amount != sum || len(b.Trips) != 1 || tripShape(b.Trips[0]) != want[0] {
		t.Fatalf("booking %+v", b)
	}
	info := bookingInfo(t, h, b.ID)
	if info.Places != 2 || strings.Join(info.Trains, ",") != "9203,765" {
		t.Errorf("held %+v", info)
	}
	availability := func() (int, int) {
		var again osdm.OfferCollectionResponse
		h.postOffers(criteria(stnParis, stnZurich, "06:00", false)).decode(t, &again)
		parts := again.Offers[0].ReservationOfferParts
		return *parts[0].NumericAvailability, *parts[1].NumericAvailability
	}
	if a, b := availability(); a != free-1 || b != free-1 {
		t.Errorf("after booking: %d and %d places, want %d", a, b, free-1)
	}
	f := h.fulfil(b.ID)
	ro := h.refundOffer(b.ID, f.ID, "")
	if r := h.confirmRefund(b.ID, ro.ID); r.status != http.StatusOK {
		t.Fatalf("refund: %d %s", r.status, r.body)
	}
	if a, b := availability(); a != free || b != free {
		t.Errorf("after the refund: %d and %d places, want %d", a, b, free)
	}
	if s := h.debugStatus(b.ID); s != "REFUNDED" {
		t.Errorf("status %s", s)
	}
}

func bookingInfo(t *testing.T, h *harness, id string) osdmsandbox.BookingInfo {
	t.Helper()
	for _, b := range h.sb.Bookings() {
		if b.ID == id {
			return b
		}
	}
	t.Fatalf("no booking %s", id)
	return osdmsandbox.BookingInfo{}
}

func TestJourneysSearches(t *testing.T) {
	h := journeysHarness(t, nil)
	var resp osdm.OfferCollectionResponse
	// By arrival: reaching Zürich by 13:00, the latest first... in order
	// of arrival.
	h.postOffers(criteria(stnParis, stnZurich, "13:00", true)).decode(t, &resp)
	if len(resp.Trips) != 2 || !strings.Contains(tripShape(resp.Trips[1]), "773 Basel SBB 12:03 > Zürich HB 12:56") {
		t.Errorf("by arrival: %+v", resp.Trips)
	}
	// Direct trains only: none leaves Paris for Zürich between 06:00 and 10:00.
	zero := 0
	h0 := journeysHarness(t, &zero)
	p := h0.postOffers(criteria(stnParis, stnZurich, "06:00", false)).problem(t, http.StatusNotFound, osdm.CodeNoResults)
	if !strings.Contains(p.Detail, "no journey from urn:uic:stn:8700011 to urn:uic:stn:8503000") || !strings.Contains(p.Detail, "at most 0 changes") {
		t.Errorf("detail %q", p.Detail)
	}
	// ...but at 12:00 the direct 9223, with Basel as an intermediate stop.
	h0.postOffers(criteria(stnParis, stnZurich, "12:00", false)).decode(t, &resp)
	if len(resp.Trips) != 1 || tripShape(resp.Trips[0]) != "leg-1 9223 Paris Gare de Lyon 12:22 > Zürich HB 16:26" {
		t.Errorf("direct: %+v", resp.Trips)
	}
	// A train named rides as the timetable has it; one the timetable does
	// not have is not found.
	h.postOffers(criteria(stnBasel, stnZurich, "06:00", false, "765")).decode(t, &resp)
	if len(resp.Trips) != 1 || tripShape(resp.Trips[0]) != "leg-1 765 Basel SBB 10:03 > Zürich HB 10:56" {
		t.Errorf("named: %+v", resp.Trips)
	}
	h.postOffers(criteria(stnBasel, stnZurich, "06:00", false, "708")).problem(t, http.StatusNotFound, osdm.CodeNoResults)
	// GET /trip-offers (older partners) plans the same way.
	var viaGet osdm.OfferCollectionResponse
	h.send(http.MethodGet, "/trip-offers?originCode=8700011&destinationCode=8503000&departureTime=2026-12-01T06:00:00&passenger=p1,ADULT,30", nil, nil).decode(t, &viaGet)
	if len(viaGet.Trips) != 2 || tripShape(viaGet.Trips[0]) != "leg-1 9203 Paris Gare de Lyon 06:22 > Basel SBB 09:26 | transfer-1 PT12M at 8500010 | leg-2 765 Basel SBB 10:03 > Zürich HB 10:56" {
		t.Errorf("GET /trip-offers: %+v", viaGet.Trips)
	}
	// A vehicle filter excluding 765 leaves the second journey.
	excl := strings.Replace(criteria(stnParis, stnZurich, "06:00", false), `"departureTime":"2026-12-01T06:00:00"`,
		`"departureTime":"2026-12-01T06:00:00","parameters":{"dataFilter":{"vehicleFilter":{"exclude":true,"vehicleNumbers":["765"]}}}`, 1)
	h.postOffers(excl).decode(t, &resp)
	if len(resp.Trips) != 1 || !strings.Contains(tripShape(resp.Trips[0]), "9205") {
		t.Errorf("excluding 765: %+v", resp.Trips)
	}
}

// Trip specifications are checked against the timetable: trains at their
// times, changes no shorter than the station's minimum.
func TestJourneysSpecified(t *testing.T) {
	h := journeysHarness(t, nil)
	leg1 := timedLeg("9203", stnParis, "2026-12-01T06:22", stnBasel, "2026-12-01T09:26")
	spec := `{"tripSpecifications":[{"externalRef":"my-trip","legs":[` +
		strings.Replace(leg1, `{"timedLeg"`, `{"externalRef":"a","timedLeg"`, 1) + `,` +
		strings.Replace(transferLeg(stnBasel, stnBasel, "PT15M"), `{"transferLeg"`, `{"externalRef":"x","transferLeg"`, 1) + `,` +
		strings.Replace(timedLeg("765", stnBasel, "2026-12-01T10:03", stnZurich, "2026-12-01T10:56"), `{"timedLeg"`, `{"externalRef":"b","timedLeg"`, 1) +
		`]}],"anonymousPassengerSpecifications":[{"externalRef":"p1","type":"ADULT"}],"offerSearchCriteria":{"travelClasses":["SECOND"]}}`
	var resp osdm.OfferCollectionResponse
	h.postOffers(spec).decode(t, &resp)
	if len(resp.Trips) != 1 || len(resp.Offers) != 1 {
		t.Fatalf("%+v", resp)
	}
	tr := resp.Trips[0]
	if got := tripShape(tr); got != "leg-1 9203 Paris Gare de Lyon 06:22 > Basel SBB 09:26 | transfer-1 PT15M at 8500010 | leg-2 765 Basel SBB 10:03 > Zürich HB 10:56" {
		t.Errorf("trip %s", got)
	}
	if tr.ExternalRef != "my-trip" || tr.Legs[0].ExternalRef != "a" || tr.Legs[1].ExternalRef != "x" || tr.Legs[2].ExternalRef != "b" {
		t.Errorf("external refs %q %+v", tr.ExternalRef, tr.Legs)
	}
	for _, tc := range []struct {
		name, legs, pointer, detail string
	}{
		{"7 minutes at Basel", leg1 + "," + timedLeg("763", stnBasel, "2026-12-01T09:33", stnZurich, "2026-12-01T10:26"), "#/tripSpecifications/0/legs/1/timedLeg/start/serviceDeparture/timetabledTime", "takes at least 12m0s"},
		{"not the timetable's time", timedLeg("9203", stnParis, "2026-12-01T06:25", stnBasel, "2026-12-01T09:26"), "#/tripSpecifications/0/legs/0/timedLeg", "runs 2026-12-01T06:22:00+01:00 to 2026-12-01T09:26:00+01:00"},
		{"not in the timetable", timedLeg("708", stnBasel, "2026-12-01T10:03", stnZurich, "2026-12-01T10:56"), "#/tripSpecifications/0/legs/0/timedLeg", "does not run"},
	} {
		p := h.postOffers(specified(tc.legs)).problem(t, http.StatusBadRequest, osdm.CodeScheduleMismatch)
		if pointerOf(p) != tc.pointer || !strings.Contains(p.Detail, tc.detail) {
			t.Errorf("%s: pointer %q (%s)", tc.name, pointerOf(p), p.Detail)
		}
	}
}

// The UIC test suite's two-leg scenario (a trip specification of two
// trains, Liège -> Bruxelles-Nord -> Mechelen, each leg with its
// externalRef, no transfer leg; two PERSON passengers), on the sandbox's
// own timetable: the trip answered has the consumer's two legs in order,
// with their externalRefs and the trip's, and nothing added; the offer
// has a reservation per leg; booked and refunded as a whole. A change
// shorter than min_transfer is refused.
func TestOwnTimetableTwoLegs(t *testing.T) {
	leg := func(ref, train, from, dep, to, arr string) string {
		return strings.Replace(timedLeg(train, from, dep, to, arr), `{"timedLeg"`, `{"externalRef":"`+ref+`","timedLeg"`, 1)
	}
	spec := func(dep2 string) string {
		return `{"tripSpecifications":[{"externalRef":"4a1f0c52-trip","legs":[` +
			leg("9c0e-leg-1", "429", "8841004", "2026-12-01T07:30:00+02:00", "8812005", "2026-12-01T08:19:00+02:00") + `,` +
			leg("9c0e-leg-2", "4507", "8812005", dep2, "8821121", "2026-12-01T09:01:00+02:00") + `]}],
			"anonymousPassengerSpecifications":[{"externalRef":"00001","type":"PERSON","dateOfBirth":"1999-01-01"},{"externalRef":"00002","type":"PERSON","dateOfBirth":"1999-01-03"}],
			"offerSearchCriteria":{"requestedOfferParts":["RESERVATION","ADMISSION"],"currency":"EUR","travelClasses":["SECOND"],"flexibilities":["FULL_FLEXIBLE","NON_FLEXIBLE"],"offerMode":"COLLECTIVE"}}`
	}
	h := newHarness(t, osdmsandbox.Config{MinTransfer: 10 * time.Minute})
	var resp osdm.OfferCollectionResponse
	h.postOffers(spec("2026-12-01T08:33:00+02:00")).decode(t, &resp)
	if len(resp.Trips) != 1 || len(resp.Offers) != 1 {
		t.Fatalf("%+v", resp)
	}
	tr := resp.Trips[0]
	if got := tripShape(tr); got != "leg-1 429 Station 8841004 07:30 > Station 8812005 08:19 | leg-2 4507 Station 8812005 08:33 > Station 8821121 09:01" {
		t.Errorf("trip %s", got)
	}
	if tr.ExternalRef != "4a1f0c52-trip" || tr.Legs[0].ExternalRef != "9c0e-leg-1" || tr.Legs[1].ExternalRef != "9c0e-leg-2" || tr.Transfers != 1 || tr.Direction != osdm.TripDirectionOutbound {
		t.Errorf("trip %+v", tr)
	}
	o := resp.Offers[0]
	if len(o.ReservationOfferParts) != 2 || o.ReservationOfferParts[0].TripCoverage.CoveredLegIDs[0] != "leg-1" || o.ReservationOfferParts[1].TripCoverage.CoveredLegIDs[0] != "leg-2" {
		t.Fatalf("offer %+v", o)
	}
	sum := o.ReservationOfferParts[0].Price.Amount + o.ReservationOfferParts[1].Price.Amount
	if o.OfferSummary.MinimalPrice.Amount != sum {
		t.Errorf("price %d, parts %d", o.OfferSummary.MinimalPrice.Amount, sum)
	}
	person := osdm.AnonymousPassengerSpecification{ExternalRef: "00001", Type: osdm.PassengerPerson}
	other := osdm.AnonymousPassengerSpecification{ExternalRef: "00002", Type: osdm.PassengerPerson}
	b := h.book(o, person, other)
	if len(b.Trips) != 1 || tripShape(b.Trips[0]) != tripShape(tr) || b.Trips[0].Legs[1].ExternalRef != "9c0e-leg-2" || len(b.BookedOffers[0].Reservations) != 2 {
		t.Fatalf("booking %+v", b)
	}
	f := h.fulfil(b.ID)
	ro := h.refundOffer(b.ID, f.ID, osdm.OverruleCode("PAYMENT_FAILURE"))
	if ro.RefundableAmount.Amount != sum {
		t.Errorf("refund %+v of %d", ro.RefundableAmount, sum)
	}
	if r := h.confirmRefund(b.ID, ro.ID); r.status != http.StatusOK || h.debugStatus(b.ID) != "REFUNDED" {
		t.Errorf("refund: %d %s", r.status, r.body)
	}
	p := h.postOffers(spec("2026-12-01T08:25:00+02:00")).problem(t, http.StatusBadRequest, osdm.CodeScheduleMismatch)
	if pointerOf(p) != "#/tripSpecifications/0/legs/1/timedLeg/start/serviceDeparture/timetabledTime" || !strings.Contains(p.Detail, "at least 10m0s (min_transfer)") {
		t.Errorf("a 6-minute change: %s %s", pointerOf(p), p.Detail)
	}
}

// After the sale of a journey with a change: a partial refund frees the
// refunded passenger's place on both trains; an exchange replaces the
// whole journey by another of two trains, the new places held before the
// old are freed.
func TestJourneysAfterSales(t *testing.T) {
	h := journeysHarness(t, nil)
	two := strings.Replace(criteria(stnParis, stnZurich, "06:00", false), `{"externalRef":"p1","type":"ADULT","age":30}`,
		`{"externalRef":"p1","type":"ADULT","age":30},{"externalRef":"p2","type":"ADULT","age":40}`, 1)
	// seats is, per journey of the 06:00 search, the places left on its two trains.
	seats := func() []int {
		var resp osdm.OfferCollectionResponse
		h.postOffers(criteria(stnParis, stnZurich, "06:00", false)).decode(t, &resp)
		var out []int
		for _, o := range resp.Offers {
			out = append(out, *o.ReservationOfferParts[0].NumericAvailability, *o.ReservationOfferParts[1].NumericAvailability)
		}
		return out
	}
	full := seats()
	var resp osdm.OfferCollectionResponse
	h.postOffers(two).decode(t, &resp)
	o := resp.Offers[0]
	b := h.book(o, adult("p1"), adult("p2"))
	f := h.fulfil(b.ID)
	if got := seats(); got[0] != full[0]-2 || got[1] != full[1]-2 || got[2] != full[2] {
		t.Fatalf("booked: %v of %v", got, full)
	}
	pax := b.BookedOffers[0].Reservations[0].PassengerIDs
	var ro osdm.RefundOfferCollectionResponse
	h.partialRefundOffer(b.ID, f.ID, "", pax[1]).decode(t, &ro)
	// The refunded passenger's share of both trains, less 10 %.
	share := (o.ReservationOfferParts[0].Price.Amount + o.ReservationOfferParts[1].Price.Amount) / 2
	if r := ro.RefundOffers[0]; r.RefundableAmount.Amount+r.RefundFee.Amount != share {
		t.Errorf("partial refund %+v of a share %d", r, share)
	}
	if c := h.confirmRefund(b.ID, ro.RefundOffers[0].ID); c.status != http.StatusOK {
		t.Fatalf("confirm: %d %s", c.status, c.body)
	}
	if got := seats(); got[0] != full[0]-1 || got[1] != full[1]-1 {
		t.Errorf("after the partial refund: %v of %v", got, full)
	}
	for _, r := range h.getBooking(b.ID).BookedOffers[0].Reservations {
		if len(r.PlaceAllocation.ReservedPlaces) != 1 || r.PlaceAllocation.ReservedPlaces[0].PassengerIDs[0] != pax[0] {
			t.Errorf("reservation %s holds %+v", r.ID, r.PlaceAllocation.ReservedPlaces)
		}
	}

	// Exchanged to the 08:22 journey (9205 + 773).
	later := strings.Replace(strings.Replace(criteria(stnParis, stnZurich, "08:00", false), `T08:00:00"`, `T08:00:00+01:00"`, 1),
		`{"tripSearchCriteria"`, `{"fulfillmentIds":["`+f.ID+`"],"tripSearchCriteria"`, 1)
	var xr osdm.ExchangeOfferCollectionResponse
	xa := h.raw(http.MethodPost, "/bookings/"+b.ID+"/exchange-offers?embed=ALL", http.Header{"Content-Type": {osdm.ContentTypeJSON}}, []byte(later))
	xa.decode(t, &xr)
	if len(xr.ExchangeOffers) == 0 || len(xr.ExchangeOffers[0].ReservationOfferParts) != 2 || len(xr.Trips) == 0 || !strings.Contains(tripShape(xr.Trips[0]), "9205") {
		t.Fatalf("exchange offers %d %s", xa.status, xa.body)
	}
	if r := h.exchangeOperation(b.ID, xr.ExchangeOffers[0]); r.status != http.StatusOK {
		t.Fatalf("exchange operation: %d %s", r.status, r.body)
	}
	if got := seats(); got[0] != full[0]-1 || got[1] != full[1]-1 || got[2] != full[2]-1 || got[3] != full[3]-1 {
		t.Errorf("both journeys held while the exchange is pre-booked: %v of %v", got, full)
	}
	h.fulfil(b.ID)
	if got := seats(); got[0] != full[0] || got[1] != full[1] || got[2] != full[2]-1 || got[3] != full[3]-1 {
		t.Errorf("after the exchange: %v of %v", got, full)
	}
	info := bookingInfo(t, h, b.ID)
	if !strings.Contains(strings.Join(info.Trains, ","), "9205,773") {
		t.Errorf("listing %+v", info)
	}
}

// FuzzJourneySearch searches the timetable between any two of its
// stations at any time, with any max_changes: the answer is 200 or 404
// NO_RESULTS; each trip alternates timed and transfer legs, from origin to
// destination, each train leaving where and after the one before arrives;
// each offer has a reservation part per timed leg, priced the sum.
func FuzzJourneySearch(f *testing.F) {
	f.Add(uint8(0), uint8(2), uint8(12), uint8(1), false)
	f.Add(uint8(0), uint8(1), uint8(40), uint8(2), true)
	f.Add(uint8(1), uint8(3), uint8(18), uint8(0), false)
	stations := []string{stnParis, stnBasel, stnZurich, "8507000"}
	tt, err := timetable.Load("testdata/journeys", timetable.Options{})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, o, d, halfHours, changes uint8, byArrival bool) {
		mc := int(changes % 3)
		h := newHarness(t, osdmsandbox.Config{Feed: tt, MaxChanges: &mc})
		origin, dest := stations[int(o)%len(stations)], stations[int(d)%len(stations)]
		if origin == dest {
			return
		}
		at := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(halfHours%48) * 30 * time.Minute).Format("15:04")
		r := h.send(http.MethodPost, "/offers", http.Header{"Content-Type": {osdm.ContentTypeJSON}}, []byte(criteria(origin, dest, at, byArrival)))
		if r.status == http.StatusNotFound {
			return
		}
		var resp osdm.OfferCollectionResponse
		r.decode(t, &resp)
		if r.status != http.StatusOK || len(resp.Trips) == 0 {
			t.Fatalf("%s -> %s at %s: %d %s", origin, dest, at, r.status, r.body)
		}
		legs := map[string][]string{}
		for _, tr := range resp.Trips {
			if len(tr.Legs)%2 != 1 || tr.Transfers != len(tr.Legs)/2 || tr.Transfers > mc {
				t.Fatalf("trip %s: %d legs, %d transfers", tr.ID, len(tr.Legs), tr.Transfers)
			}
			at := "urn:uic:stn:" + origin
			var after time.Time
			for i, l := range tr.Legs {
				if i%2 == 1 {
					if l.TransferLeg == nil || l.TransferLeg.Start.StopPlaceRef != at || l.TransferLeg.End.StopPlaceRef != at {
						t.Fatalf("trip %s leg %d: %+v", tr.ID, i, l)
					}
					continue
				}
				tl := l.TimedLeg
				if tl == nil || tl.Start.StopPlaceRef.StopPlaceRef != at || tl.Start.ServiceDeparture.TimetabledTime.Before(after) ||
					!tl.End.ServiceArrival.TimetabledTime.After(tl.Start.ServiceDeparture.TimetabledTime) {
					t.Fatalf("trip %s leg %d: %+v", tr.ID, i, l)
				}
				at, after = tl.End.StopPlaceRef.StopPlaceRef, tl.End.ServiceArrival.TimetabledTime
				legs[tr.ID] = append(legs[tr.ID], l.ID)
			}
			if at != "urn:uic:stn:"+dest {
				t.Fatalf("trip %s ends at %s", tr.ID, at)
			}
		}
		for _, o := range resp.Offers {
			want := legs[o.TripCoverage.CoveredTripID]
			var sum int64
			for i, p := range o.ReservationOfferParts {
				if i >= len(want) || len(p.TripCoverage.CoveredLegIDs) != 1 || p.TripCoverage.CoveredLegIDs[0] != want[i] {
					t.Fatalf("offer %s part %d covers %+v of %v", o.OfferID, i, p.TripCoverage, want)
				}
				sum += p.Price.Amount
			}
			if len(o.ReservationOfferParts) != len(want) || o.OfferSummary.MinimalPrice.Amount != sum {
				t.Fatalf("offer %s: %d parts for %d trains, price %d of %d", o.OfferID, len(o.ReservationOfferParts), len(want), o.OfferSummary.MinimalPrice.Amount, sum)
			}
		}
	})
}

// The settings of journeys are checked: a train's fixed times cannot sit
// beside a timetable's, and the limits hold.
func TestJourneysConfig(t *testing.T) {
	tt, err := timetable.Load("testdata/journeys", timetable.Options{})
	if err != nil {
		t.Fatal(err)
	}
	three, minus := 3, -1
	for _, c := range []struct {
		cfg  osdmsandbox.Config
		want string
	}{
		{osdmsandbox.Config{Feed: tt, Timetable: []osdmsandbox.Schedule{{Train: "708", Departure: "08:30", Arrival: "11:00"}}}, "train 708: with a GTFS timetable"},
		{osdmsandbox.Config{MaxChanges: &three}, "max_changes 3 must be 0..2"},
		{osdmsandbox.Config{MaxChanges: &minus}, "max_changes -1 must be 0..2"},
		{osdmsandbox.Config{MinTransfer: 7 * time.Hour}, "min_transfer 7h0m0s must be at most 6h0m0s"},
		{osdmsandbox.Config{MinTransfer: -time.Minute}, "min_transfer"},
		{osdmsandbox.Config{MaxTrips: osdmsandbox.MaxMaxTrips + 1}, "max_trips"},
	} {
		if _, err := osdmsandbox.New(c.cfg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.cfg, err, c.want)
		}
	}
	sb, err := osdmsandbox.New(osdmsandbox.Config{Feed: tt})
	if err != nil {
		t.Fatal(err)
	}
	if c := sb.Config(); *c.MaxChanges != osdmsandbox.DefaultMaxChanges || c.MinTransfer != osdmsandbox.DefaultMinTransfer || c.MaxTrips != osdmsandbox.DefaultMaxTrips {
		t.Errorf("defaults %+v", c)
	}
}

// The places of a train are those of its run, the day it started: night
// train 471 leaves Basel at 23:50 on 1 December and Zürich at 00:42 on the
// 2nd; the last seat sold from Basel is gone for a traveller from Zürich.
func TestJourneysRunAfterMidnight(t *testing.T) {
	tt, err := timetable.Load("testdata/journeys", timetable.Options{})
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, osdmsandbox.Config{Feed: tt, Capacity: 1})
	var resp osdm.OfferCollectionResponse
	h.postOffers(criteria(stnBasel, stnZurich, "22:00", false, "471")).decode(t, &resp)
	b := h.book(offerOf(t, resp, osdm.TravelClassSecond, osdm.AccommodationSeat))
	if len(b.Trips) != 1 || b.Trips[0].Legs[0].TimedLeg.End.ServiceArrival.TimetabledTime.Format("01-02 15:04") != "12-02 00:40" {
		t.Fatalf("booking %+v", b.Trips)
	}
	later := strings.Replace(criteria(stnZurich, "8507000", "00:00", false, "471"), "2026-12-01T00:00", "2026-12-02T00:00", 1)
	h.postOffers(later).decode(t, &resp)
	if len(resp.Trips) != 1 || resp.Trips[0].Legs[0].TimedLeg.Start.ServiceDeparture.TimetabledTime.Format("01-02 15:04") != "12-02 00:42" {
		t.Fatalf("from Zürich: %+v", resp.Trips)
	}
	for _, o := range resp.Offers {
		if o.OfferSummary.OverallTravelClass == osdm.TravelClassSecond && o.OfferSummary.OverallAccommodationType == osdm.AccommodationSeat {
			t.Errorf("the seat sold from Basel is offered from Zürich: %+v", o.ReservationOfferParts[0].NumericAvailability)
		}
	}
}
