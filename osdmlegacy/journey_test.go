package osdmlegacy

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/caddy-osdm/caddy-osdm/internal/osdmspec"
	"github.com/caddy-osdm/caddy-osdm/internal/testrig"

	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/legacysandbox"
	"github.com/caddy-osdm/caddy-osdm/osdm"
	"github.com/caddy-osdm/caddy-osdm/timetable"
)

// bookedJourney books a journey over trains for the offer's passengers
// and returns its id.
func (e *bookEnv) bookedJourney(trains ...string) string {
	e.t.Helper()
	jo := e.journeyOffer(trains...)
	return e.book(&offerRecord{ID: jo.ID, Passengers: jo.Legs[0].Passengers}).ID
}

// fulfilledJourney is bookedJourney, fulfilled.
func (e *bookEnv) fulfilledJourney(trains ...string) string {
	e.t.Helper()
	id := e.bookedJourney(trains...)
	decodeOK[osdm.FulfillmentCollectionResponse](e.t, e.call(e.f, "POST", "/bookings/"+id+"/fulfillments", "{}"), 200)
	return id
}

// journeyOffer is a sealed offer of a journey of trains (each as e.offer
// makes it, in one trip).
func (e *bookEnv) journeyOffer(trains ...string) *journeyOffer {
	e.t.Helper()
	jo := &journeyOffer{}
	for i, train := range trains {
		rec := *e.offer(train, adult, child)
		rec.LegID = timedLegID("trip-1", i+1)
		rec.PartID, rec.ProductID = "trip-1-res-21-"+itoa4(i), "trip-1-product-21-"+itoa4(i)
		rec.Partner, rec.ID = "", ""
		jo.Legs = append(jo.Legs, rec)
	}
	s, err := e.f.offers.offerSigner(context.Background())
	if err != nil {
		e.t.Fatal(err)
	}
	jo.ID = s.sealJourney(jo, anonymousClient)
	return jo
}

// journeyBody is the POST /bookings of jo for its two passengers.
func journeyBody(jo *journeyOffer) map[string]any {
	rec := jo.Legs[0]
	rec.ID = jo.ID
	return bookingBodyOf(&rec)
}

// held counts the bookings the legacy system holds.
func (e *bookEnv) held() int {
	n := 0
	for _, b := range e.sb.Bookings() {
		if b.Status == legacy.StatusConfirmed {
			n++
		}
	}
	return n
}

// The answer to the second train's BookingRequest is lost: the journey is
// not answered booked, the operator sees it pending, and settlement (on
// another instance, or after a restart) rolls it back with no request:
// nothing held, the store agreeing with the legacy system.
func TestJourneyLostSecondLegRolledBack(t *testing.T) {
	for _, kind := range []storeKind{memKind, boltKind, redisKind} {
		t.Run(string(kind), func(t *testing.T) {
			e := newBookEnv(t, kind, nil)
			jo := e.journeyOffer("708", "709")
			e.legacy.inject(fault{kind: legacy.KindBookingRequest}, fault{kind: legacy.KindBookingRequest, what: "lost"})
			a := e.call(e.f, "POST", "/bookings", journeyBody(jo), withKey("11111111-1111-4111-8111-111111111111"))
			if a.Status != http.StatusGatewayTimeout || e.held() != 2 {
				t.Fatalf("%d %s; legacy holds %d", a.Status, a.Body, e.held())
			}
			id := a.BookingID
			pending, err := e.f.Status().Pending(context.Background())
			found := false
			for _, p := range pending {
				found = found || p.Kind == "journey" && p.Ref == id
			}
			if err != nil || !found {
				t.Errorf("the operator does not see journey %s pending: %+v %v", id, pending, err)
			}
			recs, err := e.f.Status().Find(context.Background(), id)
			if err != nil || len(recs) != 3 || recs[0].Refs["booking"][0] != id || recs[1].Refs["journey"][0] != id {
				t.Errorf("Find(%s): %+v %v", id, recs, err)
			}
			f := e.otherInstance()
			e.settle(f)
			if e.held() != 0 {
				t.Errorf("the legacy system holds %d bookings after settlement", e.held())
			}
			e.assertAgree(true)
			if a := e.call(f, "GET", "/bookings/"+id, nil); a.Status != http.StatusNotFound {
				t.Errorf("GET of the rolled back journey: %d %s", a.Status, a.Body)
			}
			for _, b := range e.sb.Bookings() {
				if b.ReasonCode == nil || b.Fee != "" && strings.Trim(b.Fee, "0.") != "" {
					t.Errorf("train %s cancelled with reason %v, fee %q", b.Train, b.ReasonCode, b.Fee)
				}
			}
			if rep := e.settle(f); rep.Settled+rep.Unresolved+rep.Errors != 0 {
				t.Errorf("a second settlement found work: %+v", rep)
			}
		})
	}
}

// A retry with the same Idempotency-Key after the call's lease carries on:
// the second train's outcome is asked (SynchroRequest), not booked again,
// and the journey is answered booked.
func TestJourneyRetryCarriesOn(t *testing.T) {
	e := newBookEnv(t, memKind, nil)
	jo := e.journeyOffer("708", "709")
	key := withKey("22222222-2222-4222-8222-222222222222")
	e.legacy.inject(fault{kind: legacy.KindBookingRequest}, fault{kind: legacy.KindBookingRequest, what: "lost"})
	if a := e.call(e.f, "POST", "/bookings", journeyBody(jo), key); a.Status != http.StatusGatewayTimeout {
		t.Fatalf("%d %s", a.Status, a.Body)
	}
	if a := e.call(e.f, "POST", "/bookings", journeyBody(jo), key); a.Status != http.StatusConflict {
		t.Errorf("a retry within the lease: %d %s", a.Status, a.Body)
	}
	e.clock.Advance(e.cfg.Timeout + 1)
	b := decodeOK[osdm.BookingResponse](t, e.call(e.f, "POST", "/bookings", journeyBody(jo), key), 200)
	if n := len(b.Booking.BookedOffers[0].Reservations); n != 2 || e.held() != 2 {
		t.Fatalf("%d reservations; legacy holds %d", n, e.held())
	}
	books := 0
	for _, m := range e.legacy.delivered() {
		if m.Kind() == legacy.KindBookingRequest {
			books++
		}
	}
	if books != 2 {
		t.Errorf("%d BookingRequests reached the legacy system, want 2", books)
	}
	if rep := e.settle(e.f); rep.Settled != 0 || e.held() != 2 {
		t.Errorf("settlement of a journey answered booked: %+v; legacy holds %d", rep, e.held())
	}
	e.assertAgree(true)
}

// A refund offer one train cannot take (its passenger was refunded there
// already) is refused before any train records it.
func TestJourneyRefundRefusedBeforeAnyLeg(t *testing.T) {
	e := newBookEnv(t, memKind, nil)
	jo := e.journeyOffer("708", "709")
	b := e.book(&offerRecord{ID: jo.ID, Passengers: jo.Legs[0].Passengers})
	fr := decodeOK[osdm.FulfillmentCollectionResponse](t, e.call(e.f, "POST", "/bookings/"+b.ID+"/fulfillments", "{}"), 200)
	fu1, fu2 := fr.Fulfillments[0].ID, fr.Fulfillments[1].ID
	spec := func(fids ...string) string {
		body := `{"fulfillmentIds": ["` + strings.Join(fids, `", "`) + `"], "refundSpecifications": [`
		for i, fid := range fids {
			if i > 0 {
				body += ", "
			}
			body += `{"fulfillmentId": "` + fid + `", "passengerIds": ["p1"]}`
		}
		return body + "]}"
	}
	ro := decodeOK[osdm.RefundOfferCollectionResponse](t, e.call(e.f, "POST", "/bookings/"+b.ID+"/refund-offers", spec(fu2)), 200)
	decodeOK[osdm.RefundOfferResponse](t, e.call(e.f, "PATCH", "/bookings/"+b.ID+"/refund-offers/"+ro.RefundOffers[0].ID, `{"status": "CONFIRMED"}`), 200)
	if a := e.call(e.f, "POST", "/bookings/"+b.ID+"/refund-offers", spec(fu1, fu2)); a.Status != http.StatusConflict || !strings.Contains(string(a.Body), "train 709") {
		t.Fatalf("%d %s", a.Status, a.Body)
	}
	for id, r := range e.records() {
		if r.Offer.Train == "708" && len(r.RefundOffers) != 0 {
			t.Errorf("leg %s of train 708 kept refund offers %+v of a refused request", id, r.RefundOffers)
		}
	}
	g := decodeOK[osdm.BookingResponse](t, e.call(e.f, "GET", "/bookings/"+b.ID, nil), 200)
	if len(g.Booking.RefundOffers) != 1 || g.Booking.RefundOffers[0].Status != osdm.RefundConfirmed {
		t.Errorf("the booking's refund offers: %+v", g.Booking.RefundOffers)
	}
}

// specLegJSON is a timed leg of a trip specification tomorrow.
func specLegJSON(train, from, dep, to, arr string) string {
	at := func(hm string) string { return tomorrow() + "T" + hm + ":00Z" }
	return osdmspec.TimedLeg("1185", train, from, at(dep), to, at(arr))
}

// The answer to the CancelRequest of the second old train is lost while
// an exchange is confirmed: settlement carries the confirmation on, with
// no request: the old trains given back, the new ones the journey's.
func TestJourneyExchangeConfirmationSettled(t *testing.T) {
	for _, kind := range []storeKind{memKind, redisKind} {
		t.Run(string(kind), func(t *testing.T) {
			e := newBookEnv(t, kind, nil)
			jo := e.journeyOffer("708", "709")
			b := e.book(&offerRecord{ID: jo.ID, Passengers: jo.Legs[0].Passengers})
			fr := decodeOK[osdm.FulfillmentCollectionResponse](t, e.call(e.f, "POST", "/bookings/"+b.ID+"/fulfillments", "{}"), 200)
			body := `{"fulfillmentIds": ["` + fr.Fulfillments[0].ID + `", "` + fr.Fulfillments[1].ID + `"],
				"tripSpecifications": [{"legs": [` + specLegJSON("710", "8500010", "12:00", "8503000", "13:00") + `, ` + specLegJSON("711", "8503000", "13:30", "8509000", "15:00") + `]}],
				"anonymousPassengerSpecifications": [{"externalRef": "p-adult", "type": "ADULT", "age": 30}, {"externalRef": "p-child", "type": "CHILD", "age": 8}]}`
			xr := decodeOK[osdm.ExchangeOfferCollectionResponse](t, e.call(e.f, "POST", "/bookings/"+b.ID+"/exchange-offers", body), 200)
			sel := `{"exchangeOffers": [{"offerId": "` + xr.ExchangeOffers[0].OfferID + `", "passengerRefs": ["p-adult", "p-child"]}]}`
			op := decodeOK[osdm.ExchangeOperationResponse](t, e.call(e.f, "POST", "/bookings/"+b.ID+"/exchange-operations", sel), 200)
			if op.ExchangeOperation.Status != osdm.ExchangePrebooked || e.held() != 4 {
				t.Fatalf("exchange %+v; legacy holds %d", op.ExchangeOperation, e.held())
			}
			e.legacy.inject(fault{kind: legacy.KindCancelRequest}, fault{kind: legacy.KindCancelRequest, what: "lost"})
			if a := e.call(e.f, "POST", "/bookings/"+b.ID+"/fulfillments", "{}"); a.Status != http.StatusGatewayTimeout {
				t.Fatalf("%d %s", a.Status, a.Body)
			}
			f := e.otherInstance()
			e.settle(f)
			held := map[string]bool{}
			for _, lb := range e.sb.Bookings() {
				if lb.Status == legacy.StatusConfirmed {
					held[lb.Train] = true
				}
			}
			if len(held) != 2 || !held["710"] || !held["711"] {
				t.Errorf("the legacy system holds %v after settlement, want the new trains only", held)
			}
			e.assertAgree(true)
			g := decodeOK[osdm.BookingResponse](t, e.call(f, "GET", "/bookings/"+b.ID, nil), 200)
			r := g.Booking.BookedOffers[0].Reservations
			if len(r) != 2 || r[0].Status != osdm.BookingPartFulfilled || !strings.Contains(r[1].Summary, "711") || len(g.Booking.Fulfillments) != 2 {
				t.Errorf("the journey after settlement: %+v", g.Booking.BookedOffers[0])
			}
		})
	}
}

// A journey and its legs are the client's that booked it: another
// client's calls about it, its fulfilments and its offer are answered as
// unknown ids; the owner's work on any instance.
func TestJourneyOwner(t *testing.T) {
	e := newBookEnv(t, boltKind, nil)
	ctx := context.Background()
	serve := func(f *Facade, client, method, path string, body any) *Answer {
		t.Helper()
		h, b := testrig.JSONRequest(t, body)
		return f.ServeClient(ctx, client, e.legacy, method, path, h, b)
	}
	jo := e.journeyOffer("708", "709")
	s, _ := e.f.offers.offerSigner(ctx)
	jo.ID = s.sealJourney(jo, "alpine")
	body := journeyBody(jo)
	if a := serve(e.f, "coastal", "POST", "/bookings", body); a.Status != http.StatusNotFound || a.Problem.Code != osdm.CodeOfferNotFound {
		t.Fatalf("coastal booking alpine's journey offer: %d %s", a.Status, a.Body)
	}
	b := decodeOK[osdm.BookingResponse](t, serve(e.f, "alpine", "POST", "/bookings", body), 200).Booking
	fr := decodeOK[osdm.FulfillmentCollectionResponse](t, serve(e.f, "alpine", "POST", "/bookings/"+b.ID+"/fulfillments", "{}"), 200)
	other := e.otherInstance()
	for _, client := range []string{"coastal", anonymousClient} {
		for _, path := range []string{"/bookings/" + b.ID, "/fulfillments/" + fr.Fulfillments[1].ID, "/bookings/" + b.ID + "/passengers/p1"} {
			if a := serve(other, client, "GET", path, nil); a.Status != http.StatusNotFound {
				t.Errorf("%q GET %s of alpine's journey: %d %s", client, path, a.Status, a.Body)
			}
		}
		if a := serve(other, client, "POST", "/bookings/"+b.ID+"/refund-offers", `{"fulfillmentIds": ["`+fr.Fulfillments[0].ID+`"]}`); a.Status != http.StatusNotFound {
			t.Errorf("%q refunding alpine's journey: %d %s", client, a.Status, a.Body)
		}
	}
	if a := serve(other, "alpine", "GET", "/bookings/"+b.ID, nil); a.Status != http.StatusOK {
		t.Errorf("alpine on another instance: %d %s", a.Status, a.Body)
	}
	for id, r := range e.records() {
		if r.Client != "alpine" {
			t.Errorf("leg %s recorded for %q", id, r.Client)
		}
	}
}

// gtfsFeed is a GTFS timetable of Paris Nord (A, 8727100), Basel SBB
// (B, 8500010) and Zürich HB (C, 8503000), routes R1 and R2, service S
// (every day of December 2026), trips.txt lines
// "route,service,trip,train", stop_times.txt lines
// "trip,arrival,departure,stop,sequence" and transfers.txt (with its
// header; none when "").
func gtfsFeed(t *testing.T, trips, stopTimes, transfers string) Timetable {
	t.Helper()
	fs := fstest.MapFS{
		"agency.txt":     {Data: []byte("agency_id,agency_name,agency_url,agency_timezone\nA,A,http://a,Europe/Paris\n")},
		"stops.txt":      {Data: []byte("stop_id,stop_code,stop_name\nA,8727100,Paris Nord\nB,8500010,Basel SBB\nC,8503000,Zürich HB\n")},
		"routes.txt":     {Data: []byte("route_id,route_type\nR1,2\nR2,2\n")},
		"calendar.txt":   {Data: []byte("service_id,monday,tuesday,wednesday,thursday,friday,saturday,sunday,start_date,end_date\nS,1,1,1,1,1,1,1,20261201,20261231\n")},
		"trips.txt":      {Data: []byte("route_id,service_id,trip_id,trip_short_name\n" + trips)},
		"stop_times.txt": {Data: []byte("trip_id,arrival_time,departure_time,stop_id,stop_sequence\n" + stopTimes)},
	}
	if transfers != "" {
		fs["transfers.txt"] = &fstest.MapFile{Data: []byte(transfers)}
	}
	tt, err := timetable.LoadFS(fs, timetable.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return GTFS(tt)
}

// changeFeed is a gtfsFeed: train 9001 Paris Nord 08:00 -> Basel 10:00
// (route R1), trains 9002 Basel 10:05 -> Zürich 11:00 and 9003 Basel
// 10:30 -> Zürich 11:30 (route R2), with transfers.txt's rows.
func changeFeed(t *testing.T, transfers string) Timetable {
	return gtfsFeed(t, "R1,S,T1,9001\nR2,S,T2,9002\nR2,S,T3,9003\n",
		"T1,08:00:00,08:00:00,A,1\nT1,10:00:00,10:00:00,B,2\nT2,10:05:00,10:05:00,B,1\nT2,11:00:00,11:00:00,C,2\nT3,10:30:00,10:30:00,B,1\nT3,11:30:00,11:30:00,C,2\n",
		transfers)
}

// A trip specification's changes are checked with the transfers.txt
// rules the planner applies, those naming trips or routes included: the
// journey a search offers may be asked for by its legs, and one the feed
// forbids is refused.
func TestSearchTripSpecificationChangeRules(t *testing.T) {
	const hdr = "from_stop_id,to_stop_id,transfer_type,min_transfer_time,from_trip_id,to_trip_id,from_route_id,to_route_id\n"
	leg := func(train, dep, arr, from, to string) string {
		return `{"timedLeg": {"start": {"stopPlaceRef": {"objectType": "StopPlaceRef", "stopPlaceRef": "urn:uic:stn:` + from + `"}, "serviceDeparture": {"timetabledTime": "2026-12-01T` + dep + `:00+01:00"}},
		  "end": {"stopPlaceRef": {"objectType": "StopPlaceRef", "stopPlaceRef": "urn:uic:stn:` + to + `"}, "serviceArrival": {"timetabledTime": "2026-12-01T` + arr + `:00+01:00"}},
		  "service": {"vehicleNumbers": ["` + train + `"], "carriers": [{"ref": "urn:uic:rics:1185"}]}}}`
	}
	spec := func(second string) string {
		return `{"tripSpecifications": [{"legs": [` + leg("9001", "08:00", "10:00", "8727100", "8500010") + `, ` + second + `]}],
		  "offerSearchCriteria": {"travelClasses": ["SECOND"]},
		  "anonymousPassengerSpecifications": [{"externalRef": "a", "type": "ADULT", "age": 30}]}`
	}
	to9002 := leg("9002", "10:05", "11:00", "8500010", "8503000")
	to9003 := leg("9003", "10:30", "11:30", "8500010", "8503000")
	cases := []struct {
		name, transfers, second string
		ok                      bool
	}{
		{"trip pair's 5 minutes beat the station's 15", hdr + "B,B,2,900,,,,\nB,B,2,300,T1,T2,,\n", to9002, true},
		{"a timed transfer: the train waits", hdr + "B,B,1,,T1,T2,,\n", to9002, true},
		{"the station's 15 minutes", hdr + "B,B,2,900,,,,\n", to9002, false},
		{"route pair forbids", hdr + "B,B,3,,,,R1,R2\n", to9003, false},
		{"trip pair forbids", hdr + "B,B,3,,T1,T3,,\n", to9003, false},
		{"no rule: min_transfer", hdr, to9003, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, ss, _ := facadeWithSandbox(t, Config{}, legacysandbox.Config{}, changeFeed(t, c.transfers))
			a := search(f, ss.sender(), spec(c.second))
			if c.ok {
				if resp := validOffers(t, a); len(resp.Trips) != 1 || len(resp.Trips[0].Legs) != 3 {
					t.Fatalf("%s", a.Body)
				}
				return
			}
			if a.Status != http.StatusUnprocessableEntity {
				t.Fatalf("%d %s", a.Status, a.Body)
			}
			if p := validProblem(t, a); p.Code != osdm.CodeOfferOutOfBounds || !strings.Contains(p.Detail, "change") || ss.sent.Load() != 0 ||
				len(p.Pointers) == 0 || p.Pointers[0].RequestPointer != "#/tripSpecifications[0]/legs[1]/timedLeg/start" {
				t.Errorf("%+v; %d legacy messages sent", p, ss.sent.Load())
			}
		})
	}
}

// A search by arrival time fills the trips left beside the direct trains
// with the journeys with changes that arrive closest to the time asked,
// as the planner ranks them, not the earliest.
func TestSearchArrivalKeepsTheLatestJourneys(t *testing.T) {
	tt := gtfsFeed(t, "R1,S,D0,9100\nR1,S,D1,9101\nR1,S,T1,9001\nR2,S,T2,9002\nR1,S,T3,9003\nR2,S,T4,9004\n",
		"D0,06:00:00,06:00:00,A,1\nD0,10:30:00,10:30:00,C,2\nD1,07:00:00,07:00:00,A,1\nD1,13:55:00,13:55:00,C,2\n"+
			"T1,08:00:00,08:00:00,A,1\nT1,09:00:00,09:00:00,B,2\nT2,09:30:00,09:30:00,B,1\nT2,11:00:00,11:00:00,C,2\n"+
			"T3,10:00:00,10:00:00,A,1\nT3,11:00:00,11:00:00,B,2\nT4,11:30:00,11:30:00,B,1\nT4,13:00:00,13:00:00,C,2\n", "")
	f, ss, _ := facadeWithSandbox(t, Config{MaxTrips: 3}, legacysandbox.Config{}, tt)
	body := `{"tripSearchCriteria": {"origin": {"objectType": "StopPlaceRef", "stopPlaceRef": "urn:uic:stn:8727100"},
	    "destination": {"objectType": "StopPlaceRef", "stopPlaceRef": "urn:uic:stn:8503000"}, "arrivalTime": "2026-12-01T14:00:00+01:00"},
	  "offerSearchCriteria": {"travelClasses": ["SECOND"]},
	  "anonymousPassengerSpecifications": [{"externalRef": "a", "type": "ADULT", "age": 30}]}`
	resp := validOffers(t, search(f, ss.sender(), body))
	var got []string
	for _, tr := range resp.Trips {
		var trains []string
		for _, l := range tr.Legs {
			if l.TimedLeg != nil {
				trains = append(trains, l.TimedLeg.Service.VehicleNumbers...)
			}
		}
		got = append(got, strings.Join(trains, "+"))
	}
	if strings.Join(got, " ") != "9100 9003+9004 9101" {
		t.Errorf("trips %v, want the direct trains 9100 and 9101 and the journey arriving at 13:00 (9003+9004), not the one at 11:00 (9001+9002)", got)
	}
}
