package osdmlegacy

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/store/storetest"

	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/legacysandbox"
	"github.com/caddy-osdm/caddy-osdm/osdm"
)

const namedTrainSearch = `{
  "tripSearchCriteria": {
    "origin": {"objectType": "StopPlaceRef", "stopPlaceRef": "urn:uic:stn:8727100"},
    "destination": {"objectType": "StopPlaceRef", "stopPlaceRef": "8814001"},
    "departureTime": "2026-12-01T06:00:00+01:00",
    "parameters": {"dataFilter": {"vehicleFilter": {"exclude": false, "vehicleNumbers": ["9203"]}}}
  },
  "offerSearchCriteria": {"requestedOfferParts": ["RESERVATION"]},
  "anonymousPassengerSpecifications": [
    {"externalRef": "p1", "type": "ADULT", "age": 30},
    {"externalRef": "p2", "type": "CHILD", "age": 8}
  ]
}`

func facadeWithSandbox(t *testing.T, cfg Config, sbcfg legacysandbox.Config, tt Timetable) (*Facade, *sandboxSender, *storetest.Memory) {
	t.Helper()
	st := storetest.NewMemory()
	st.Now = func() time.Time { return testNow }
	deps := Deps{Store: st, Now: func() time.Time { return testNow }}
	if tt != nil {
		deps.Timetable = tt
	}
	f := newTestFacade(t, cfg, deps)
	ss := &sandboxSender{sb: newSandbox(t, sbcfg), format: legacy.XML}
	return f, ss, st
}

func TestSearchNamedTrain(t *testing.T) {
	for _, format := range []legacy.Format{legacy.XML, legacy.JSON} {
		t.Run(format.String(), func(t *testing.T) {
			f, ss, _ := facadeWithSandbox(t, Config{OfferTTL: 10 * time.Minute}, legacysandbox.Config{}, nil)
			ss.format = format
			a := search(f, ss.sender(), namedTrainSearch)
			resp := validOffers(t, a)
			if len(resp.Offers) != 2 || len(resp.Trips) != 1 {
				t.Fatalf("%d offers, %d trips, want 2 and 1: %s", len(resp.Offers), len(resp.Trips), a.Body)
			}
			if ss.sent.Load() != 2 || a.FanOut != 2 || len(a.Messages) != 2 {
				t.Errorf("%d messages sent, fan-out %d, %d recorded; want 2 (one per class)", ss.sent.Load(), a.FanOut, len(a.Messages))
			}
			for _, m := range a.Messages {
				if m.Kind != legacy.KindAvailabilityRequest || m.Outcome != string(legacy.KindAvailabilityReply) {
					t.Errorf("message %+v", m)
				}
			}
			trip := resp.Trips[0]
			leg := trip.Legs[0].TimedLeg
			if trip.Transfers != 0 || len(trip.Legs) != 1 || leg.Service.VehicleNumbers[0] != "9203" ||
				leg.Start.StopPlaceRef.StopPlaceRef != "urn:uic:stn:8727100" || leg.End.StopPlaceRef.StopPlaceRef != "urn:uic:stn:8814001" {
				t.Errorf("trip %+v", trip)
			}
			if !trip.EndTime.After(trip.StartTime) || trip.StartTime.Format(time.DateOnly) != "2026-12-01" {
				t.Errorf("trip times %s .. %s", trip.StartTime, trip.EndTime)
			}
			// Sandbox fares: 2nd class seat 12.00 (adult 100%, child 50%), 1st 19.00.
			want := map[osdm.TravelClass]int64{osdm.TravelClassSecond: 1800, osdm.TravelClassFirst: 2850}
			for _, o := range resp.Offers {
				part := o.ReservationOfferParts[0]
				tc := o.OfferSummary.OverallTravelClass
				if part.Price.Amount != want[tc] || part.Price.Currency != "EUR" || part.Price.EffectiveScale() != 2 {
					t.Errorf("%s offer price %+v, want %d EUR", tc, part.Price, want[tc])
				}
				if part.NumericAvailability == nil || *part.NumericAvailability != 100 {
					t.Errorf("availability %v, want 100", part.NumericAvailability)
				}
				if !o.PreBookableUntil.Equal(testNow.Add(10*time.Minute)) || len(o.PassengerRefs) != 2 {
					t.Errorf("preBookableUntil %s, passengerRefs %v", o.PreBookableUntil, o.PassengerRefs)
				}
				rec, err := f.offers.openOffer(context.Background(), o.OfferID, testNow)
				if err != nil {
					t.Fatalf("offer %s does not open: %v", o.OfferID, err)
				}
				if rec.Train != "9203" || rec.ServiceDate != "2026-12-01" || rec.OSDMPrice.Amount != want[tc] ||
					len(rec.Passengers) != 2 || rec.Passengers[0].Tariff != 1 || rec.Passengers[1].Tariff != 2 ||
					rec.LegacyOfferRef == "" || rec.TripID != trip.ID {
					t.Errorf("record %+v", rec)
				}
			}
		})
	}
}

func TestSearchTimetableFanOutBounded(t *testing.T) {
	f, ss, _ := facadeWithSandbox(t, Config{MaxTrains: 8, Concurrency: 3, Window: 12 * time.Hour}, legacysandbox.Config{Latency: 5 * time.Millisecond}, hourlyTimetable(12))
	body := strings.Replace(namedTrainSearch, `"parameters": {"dataFilter": {"vehicleFilter": {"exclude": false, "vehicleNumbers": ["9203"]}}}`,
		`"parameters": {"numberOfResultsAfter": 10}`, 1)
	body = strings.Replace(body, `"requestedOfferParts": ["RESERVATION"]`, `"travelClasses": ["SECOND"]`, 1)
	a := search(f, ss.sender(), body)
	resp := validOffers(t, a)
	if len(resp.Trips) != 8 || len(resp.Offers) != 8 || ss.sent.Load() != 8 {
		t.Fatalf("%d trips, %d offers, %d messages; want 8 each (max_trains)", len(resp.Trips), len(resp.Offers), ss.sent.Load())
	}
	if m := ss.maxIn.Load(); m > 3 || m < 2 {
		t.Errorf("at most %d messages in flight, want 2..3 (concurrency 3)", m)
	}
	for i, tr := range resp.Trips {
		if want := itoa4(9301 + i); tr.Legs[0].TimedLeg.Service.VehicleNumbers[0] != want {
			t.Errorf("trip %d is train %s, want %s", i, tr.Legs[0].TimedLeg.Service.VehicleNumbers[0], want)
		}
		if tr.Legs[0].TimedLeg.Start.StopPlaceName != "Paris Nord" {
			t.Errorf("station name %q", tr.Legs[0].TimedLeg.Start.StopPlaceName)
		}
	}
	// The timetable's times are sent as the legacy DepartureTime.
	for _, r := range ss.requests {
		ar := r.(*legacy.AvailabilityRequest)
		if ar.Journey.DepartureTime == "" || ar.Places.TravelClass != 2 {
			t.Errorf("request %+v", ar.Journey)
		}
	}
}

func TestSearchWindowBeforeAfterAndExcluded(t *testing.T) {
	f, ss, _ := facadeWithSandbox(t, Config{}, legacysandbox.Config{}, hourlyTimetable(12))
	body := strings.Replace(namedTrainSearch, `"departureTime": "2026-12-01T06:00:00+01:00"`, `"departureTime": "2026-12-01T10:00:00"`, 1)
	body = strings.Replace(body, `{"exclude": false, "vehicleNumbers": ["9203"]}`, `{"vehicleNumbers": ["9306"]}, "numberOfResultsBefore": 1, "numberOfResultsAfter": 3`, 1)
	body = strings.Replace(body, `"dataFilter": {"vehicleFilter": {"vehicleNumbers": ["9306"]}, "numberOfResultsBefore": 1, "numberOfResultsAfter": 3}`,
		`"dataFilter": {"vehicleFilter": {"vehicleNumbers": ["9306"]}}, "numberOfResultsBefore": 1, "numberOfResultsAfter": 3`, 1)
	body = strings.Replace(body, `"requestedOfferParts": ["RESERVATION"]`, `"travelClasses": ["FIRST"]`, 1)
	a := search(f, ss.sender(), body)
	resp := validOffers(t, a)
	var trains []string
	for _, tr := range resp.Trips {
		trains = append(trains, tr.Legs[0].TimedLeg.Service.VehicleNumbers[0])
	}
	// 10:00 local: 9304 (09:10) before; 9305 (10:10), 9307, 9308 after, 9306 excluded.
	if strings.Join(trains, ",") != "9304,9305,9307,9308" {
		t.Errorf("trains %v, want 9304,9305,9307,9308", trains)
	}
}

func TestSearchInformationOnly(t *testing.T) {
	f, ss, _ := facadeWithSandbox(t, Config{Search: SearchInformationOnly}, legacysandbox.Config{}, nil)
	a := search(f, ss.sender(), namedTrainSearch)
	validOffers(t, a)
	for _, r := range ss.requests {
		br, ok := r.(*legacy.BookingRequest)
		if !ok || !br.InformationOnly {
			t.Fatalf("sent %T %+v, want BookingRequest informationOnly", r, r)
		}
	}
	if len(ss.sb.Bookings()) != 0 {
		t.Error("an information-only search booked places")
	}
}

func TestSearchAlternativeSystemProposal(t *testing.T) {
	f, ss, _ := facadeWithSandbox(t, Config{}, legacysandbox.Config{
		Foreign: []legacysandbox.Foreign{{Train: "9303", System: 80, Operator: "1080"}},
	}, hourlyTimetable(4))
	a := search(f, ss.sender(), strings.Replace(namedTrainSearch, `"9203"`, `"9303"`, 1))
	resp := validOffers(t, a)
	if len(resp.Offers) != 0 || len(resp.Problems) != 1 {
		t.Fatalf("offers %d, problems %d: %s", len(resp.Offers), len(resp.Problems), a.Body)
	}
	p := resp.Problems[0]
	if !p.IsAlternativeSystemProposal() || p.Status == nil || *p.Status != 200 || len(p.AlternativeSystemProposals) != 1 {
		t.Fatalf("problem %+v", p)
	}
	asp := p.AlternativeSystemProposals[0]
	if asp.SystemOperatorCode != "urn:uic:rics:1080" || asp.ReservationSystemID == nil || *asp.ReservationSystemID != 80 ||
		len(asp.Scope) != 1 || asp.Scope[0].VehicleNumber != "9303" {
		t.Errorf("proposal %+v", asp)
	}
	if len(p.Pointers) != 1 || p.Pointers[0].ResponsePointer != "#/trips[0]/legs[0]/id" ||
		p.Pointers[0].RequestPointer != "#/tripSearchCriteria/parameters/dataFilter/vehicleFilter/vehicleNumbers[0]" {
		t.Errorf("pointers %+v", p.Pointers)
	}
	if tr := resp.Trips[0]; tr.Legs[0].TimedLeg.Service.VehicleNumbers[0] != "9303" || tr.StartTime.Hour() != 8 {
		t.Errorf("trip %+v", tr)
	}
	// Without a timetable the sandbox's proposal carries no times: the
	// problem names the train through the request pointer only.
	f, ss, _ = facadeWithSandbox(t, Config{}, legacysandbox.Config{
		Foreign: []legacysandbox.Foreign{{Train: "9203", System: 80, Operator: "1080"}},
	}, nil)
	a = search(f, ss.sender(), namedTrainSearch)
	resp = validOffers(t, a)
	if len(resp.Trips) != 0 || len(resp.Problems) != 1 || resp.Problems[0].Pointers[0].ResponsePointer != "" ||
		resp.Problems[0].Pointers[0].RequestPointer == "" {
		t.Errorf("%s", a.Body)
	}
}

func TestSearchSoldOutAndNotRun(t *testing.T) {
	// Capacity 1: two passengers never fit.
	f, ss, _ := facadeWithSandbox(t, Config{}, legacysandbox.Config{Capacity: 1}, nil)
	a := search(f, ss.sender(), namedTrainSearch)
	p := validProblem(t, a)
	if a.Status != http.StatusConflict || p.Code != osdm.CodeInsufficientAvailability || len(p.Pointers) != 2 {
		t.Errorf("sold out: %d %s %+v", a.Status, p.Code, p.Pointers)
	}
	// Train 000 never runs in the demo timetable.
	body := strings.Replace(namedTrainSearch, `"9203"`, `"000"`, 1)
	a = search(f, ss.sender(), body)
	p = validProblem(t, a)
	if a.Status != http.StatusNotFound || p.Code != osdm.CodeOfferNoResults || len(p.Pointers) != 2 ||
		p.Pointers[0].Code != osdm.CodeTripNotFound || !strings.HasPrefix(p.Pointers[0].RequestPointer, "#/tripSearchCriteria/parameters") {
		t.Errorf("not run: %d %s %+v", a.Status, p.Code, p.Pointers)
	}
	// One train sold out, one running: the offer comes with a problem
	// naming the other.
	f, ss, _ = facadeWithSandbox(t, Config{}, legacysandbox.Config{}, nil)
	body = strings.Replace(namedTrainSearch, `["9203"]`, `["9203", "000"]`, 1)
	a = search(f, ss.sender(), body)
	resp := validOffers(t, a)
	if len(resp.Offers) != 2 || len(resp.Problems) != 2 || resp.Problems[0].Code != osdm.CodeTripNotFound ||
		!strings.Contains(resp.Problems[0].Detail, "train 000") {
		t.Errorf("mixed: %s", a.Body)
	}
}

func TestSearchTimesWithAndWithoutOffset(t *testing.T) {
	cases := []struct{ at, date string }{
		{"2026-12-01T00:30:00", "2026-12-01"},       // local Paris time
		{"2026-11-30T23:30:00Z", "2026-12-01"},      // 00:30 in Paris
		{"2026-12-01T23:30:00-05:00", "2026-12-02"}, // 05:30 in Paris
		{"2026-12-01T23:30:00.250+01:00", "2026-12-01"},
	}
	for _, tc := range cases {
		f, ss, _ := facadeWithSandbox(t, Config{}, legacysandbox.Config{}, nil)
		body := strings.Replace(namedTrainSearch, `"2026-12-01T06:00:00+01:00"`, `"`+tc.at+`"`, 1)
		a := search(f, ss.sender(), body)
		validOffers(t, a)
		if got := ss.requests[0].(*legacy.AvailabilityRequest).Journey.DepartureDate; got != tc.date {
			t.Errorf("%s: legacy DepartureDate %s, want %s", tc.at, got, tc.date)
		}
	}
}

func TestSearchTripSpecification(t *testing.T) {
	f, ss, _ := facadeWithSandbox(t, Config{}, legacysandbox.Config{}, nil)
	body := `{"tripSpecifications": [{"legs": [{"timedLeg": {
	    "start": {"stopPlaceRef": {"objectType": "StopPlaceRef", "stopPlaceRef": "urn:uic:stn:8727100"}, "serviceDeparture": {"timetabledTime": "2026-12-01T07:16:00+01:00"}},
	    "end": {"stopPlaceRef": {"objectType": "StopPlaceRef", "stopPlaceRef": "urn:uic:stn:8814001"}, "serviceArrival": {"timetabledTime": "2026-12-01T08:38:00+01:00"}},
	    "service": {"vehicleNumbers": ["9301"], "carriers": [{"ref": "urn:uic:rics:1187"}]}}}]}],
	  "offerSearchCriteria": {"travelClasses": ["SECOND"]},
	  "anonymousPassengerSpecifications": [{"externalRef": "a", "type": "SENIOR", "dateOfBirth": "1950-01-01"}]}`
	a := search(f, ss.sender(), body)
	resp := validOffers(t, a)
	if len(resp.Offers) != 1 || !resp.Trips[0].StartTime.Equal(time.Date(2026, 12, 1, 6, 16, 0, 0, time.UTC)) ||
		!resp.Trips[0].EndTime.Equal(time.Date(2026, 12, 1, 7, 38, 0, 0, time.UTC)) {
		t.Fatalf("%s", a.Body)
	}
	ar := ss.requests[0].(*legacy.AvailabilityRequest)
	if ar.Journey.TrainNumber != "9301" || ar.Journey.DepartureTime != "07:16" || ar.Places.Tariffs[0] != (legacy.Tariff{Code: 3, Count: 1}) {
		t.Errorf("legacy request %+v %+v", ar.Journey, ar.Places)
	}
	// The carrier the trip specification names goes to the legacy Carrier
	// and comes back in the trip and as the offer part's owner.
	if ar.Journey.Carrier != "1187" {
		t.Errorf("legacy Carrier %q, want 1187", ar.Journey.Carrier)
	}
	if c := resp.Trips[0].Legs[0].TimedLeg.Service.Carriers; len(c) != 1 || c[0].Ref != "urn:uic:rics:1187" {
		t.Errorf("trip carriers %+v", c)
	}
	if p := resp.Offers[0].Products; len(p) != 1 || p[0].Owner != "urn:uic:rics:1187" {
		t.Errorf("products %+v", p)
	}
}

func TestSearchRestrictions(t *testing.T) {
	const place = `{"objectType": "StopPlaceRef", "stopPlaceRef": "urn:uic:stn:8727100"}`
	const dest = `{"objectType": "StopPlaceRef", "stopPlaceRef": "urn:uic:stn:8814001"}`
	tsc := func(extra string) string {
		return `{"tripSearchCriteria": {"origin": ` + place + `, "destination": ` + dest + `, "departureTime": "2026-12-01T06:00:00+01:00"` + extra + `},
		 "anonymousPassengerSpecifications": [{"externalRef": "p1", "type": "ADULT", "age": 30}]}`
	}
	named := `, "parameters": {"dataFilter": {"vehicleFilter": {"exclude": false, "vehicleNumbers": ["9203"]}}}`
	pax := func(list string) string {
		return strings.Replace(tsc(named), `[{"externalRef": "p1", "type": "ADULT", "age": 30}]`, list, 1)
	}
	cases := []struct {
		name    string
		body    string
		status  int
		code    string
		restr   *Restriction
		pointer string
	}{
		{"vias", tsc(named + `, "vias": [{"viaPlace": ` + place + `}]`), 422, osdm.CodeOfferOutOfBounds, &RestrictDirect, "#/tripSearchCriteria/vias"},
		{"return trip", tsc(named + `, "returnSearchParameters": {"departureTime": "2026-12-03T06:00:00Z"}`), 422, osdm.CodeOfferOutOfBounds, &RestrictDirect, "#/tripSearchCriteria/returnSearchParameters"},
		{"inbound", strings.Replace(tsc(named), `"anonymousPassengerSpecifications"`, `"inboundTripIds": ["t1"], "anonymousPassengerSpecifications"`, 1), 422, osdm.CodeOfferOutOfBounds, &RestrictDirect, "#/inboundTripIds"},
		{"transfer leg", `{"tripSpecifications": [{"legs": [{"transferLeg": {}}]}], "anonymousPassengerSpecifications": [{"externalRef": "p1", "type": "ADULT", "age": 30}]}`, 422, osdm.CodeOfferOutOfBounds, &RestrictDirect, "#/tripSpecifications[0]/legs[0]"},
		{"two empty legs", `{"tripSpecifications": [{"legs": [{}, {}]}], "anonymousPassengerSpecifications": [{"externalRef": "p1", "type": "ADULT", "age": 30}]}`, 422, osdm.CodeOfferOutOfBounds, &RestrictDirect, "#/tripSpecifications[0]/legs[0]"},
		{"no train no timetable", tsc(""), 422, osdm.CodeOfferOutOfBounds, &RestrictKnownTrain, "#/tripSearchCriteria/parameters/dataFilter/vehicleFilter"},
		{"train over 5", strings.Replace(tsc(named), `"9203"`, `"920345"`, 1), 422, osdm.CodeOfferOutOfBounds, &RestrictKnownTrain, "#/tripSearchCriteria/parameters/dataFilter/vehicleFilter/vehicleNumbers[0]"},
		{"no time", strings.Replace(tsc(named), `, "departureTime": "2026-12-01T06:00:00+01:00"`, ``, 1), 422, osdm.CodeOfferOutOfBounds, &RestrictKnownTrain, "#/tripSearchCriteria"},
		{"non-UIC place", strings.Replace(tsc(named), `"urn:uic:stn:8727100"`, `"FRPNO"`, 1), 422, osdm.CodeOfferPlaceUnknown, &RestrictUICStations, "#/tripSearchCriteria/origin/stopPlaceRef"},
		{"geo place", strings.Replace(tsc(named), place, `{"objectType": "GeoPositionRef", "latitude": 48.8, "longitude": 2.3}`, 1), 422, osdm.CodeOfferPlaceUnknown, &RestrictUICStations, "#/tripSearchCriteria/origin/objectType"},
		{"admission only", strings.Replace(tsc(named), `"anonymousPassengerSpecifications"`, `"offerSearchCriteria": {"requestedOfferParts": ["ADMISSION"]}, "anonymousPassengerSpecifications"`, 1), 422, osdm.CodeOfferOutOfBounds, &RestrictReservations, "#/offerSearchCriteria/requestedOfferParts"},
		{"ten passengers", pax(`[` + strings.Repeat(`{"externalRef": "x", "type": "ADULT", "age": 30},`, 9) + `{"externalRef": "y", "type": "ADULT", "age": 30}]`), 422, osdm.CodeOfferOutOfBounds, &RestrictPassengers, "#/anonymousPassengerSpecifications[9]"},
		{"no passenger", pax(`[]`), 422, osdm.CodeOfferOutOfBounds, &RestrictPassengers, "#/anonymousPassengerSpecifications"},
		{"type without tariff", pax(`[{"externalRef": "d", "type": "DOG"}]`), 422, osdm.CodeOfferOutOfBounds, &RestrictPassengers, "#/anonymousPassengerSpecifications[0]/type"},
		{"age without tariff", pax(`[{"externalRef": "a", "type": "ADULT", "age": 12}]`), 422, osdm.CodeOfferOutOfBounds, &RestrictPassengers, "#/anonymousPassengerSpecifications[0]/age"},
		{"age needed", pax(`[{"externalRef": "a", "type": "ADULT"}]`), 200, "", nil, ""},
		{"reduction card", pax(`[{"externalRef": "a", "type": "ADULT", "age": 30, "cards": [{"code": "BC50"}]}]`), 422, osdm.CodeOfferOutOfBounds, &RestrictPassengers, "#/anonymousPassengerSpecifications[0]/cards"},
		{"individual offers", strings.Replace(tsc(named), `"anonymousPassengerSpecifications"`, `"offerSearchCriteria": {"offerMode": "INDIVIDUAL"}, "anonymousPassengerSpecifications"`, 1), 422, osdm.CodeOfferOutOfBounds, &RestrictOneOffer, "#/offerSearchCriteria/offerMode"},
		{"too many trains", strings.Replace(tsc(named), `["9203"]`, `["1","2","3","4","5","6","7","8","9"]`, 1), 422, osdm.CodeOfferOutOfBounds, &RestrictKnownTrain, "#/tripSearchCriteria/parameters/dataFilter/vehicleFilter/vehicleNumbers[8]"},
		{"unknown member", strings.Replace(tsc(named), `"departureTime"`, `"departureTim": 1, "departureTime"`, 1), 400, osdm.CodeOfferInvalid, nil, "#/tripSearchCriteria/departureTim"},
		{"duplicate member", strings.Replace(tsc(named), `"departureTime": "2026-12-01T06:00:00+01:00"`, `"departureTime": "2026-12-01T06:00:00+01:00", "departureTime": "2026-12-02T06:00:00+01:00"`, 1), 400, osdm.CodeOfferInvalid, nil, "#/tripSearchCriteria/departureTime"},
		{"wrong type", strings.Replace(tsc(named), `"age": 30`, `"age": "30"`, 1), 400, osdm.CodeOfferInvalid, nil, "#/anonymousPassengerSpecifications[0]/age"},
		{"bad date-time", strings.Replace(tsc(named), `2026-12-01T06:00:00+01:00`, `tomorrow`, 1), 400, osdm.CodeOfferInvalid, nil, "#/tripSearchCriteria/departureTime"},
		{"same externalRef", pax(`[{"externalRef": "a", "type": "ADULT", "age": 30}, {"externalRef": "a", "type": "ADULT", "age": 31}]`), 400, osdm.CodeOfferInvalid, nil, "#/anonymousPassengerSpecifications[1]/externalRef"},
		{"malformed JSON", `{"tripSearchCriteria": `, 400, osdm.CodeOfferInvalid, nil, ""},
		{"trailing data", tsc(named) + `{}`, 400, osdm.CodeOfferInvalid, nil, ""},
		{"no passengers member", `{"tripSearchCriteria": {"origin": ` + place + `, "destination": ` + dest + `, "departureTime": "2026-12-01T06:00:00Z"` + named + `}}`, 400, osdm.CodeOfferInvalid, nil, "#/anonymousPassengerSpecifications"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f, ss, _ := facadeWithSandbox(t, Config{}, legacysandbox.Config{}, nil)
			a := search(f, ss.sender(), tc.body)
			if a.Status != tc.status {
				t.Fatalf("status %d, want %d: %s", a.Status, tc.status, a.Body)
			}
			if tc.status == 200 {
				validOffers(t, a)
				return
			}
			if ss.sent.Load() != 0 {
				t.Errorf("%d legacy messages sent for a refused search", ss.sent.Load())
			}
			p := validProblem(t, a)
			if p.Code != tc.code {
				t.Errorf("code %s, want %s", p.Code, tc.code)
			}
			if tc.restr != nil && (p.Type != tc.restr.TypeURI() || !strings.Contains(p.Detail, "restriction ")) {
				t.Errorf("type %s detail %q, want restriction %d", p.Type, p.Detail, tc.restr.N)
			}
			gotPtr := ""
			if len(p.Pointers) > 0 {
				gotPtr = p.Pointers[0].RequestPointer
			}
			if gotPtr != tc.pointer {
				t.Errorf("pointer %q, want %q (%s)", gotPtr, tc.pointer, p.Detail)
			}
		})
	}
}

// TestSearchNeedsABody: a search without a body, or with white space
// alone, is told it needs one, not that its JSON ends early.
func TestSearchNeedsABody(t *testing.T) {
	f, ss, _ := facadeWithSandbox(t, Config{}, legacysandbox.Config{}, nil)
	for _, body := range []string{"", " \r\n\t"} {
		a := search(f, ss.sender(), body)
		if p := validProblem(t, a); a.Status != 400 || p.Code != osdm.CodeOfferInvalid || p.Detail != "an offer search needs a JSON body (OfferCollectionRequest)" {
			t.Errorf("%q: %d %+v", body, a.Status, p)
		}
	}
}

// faultSender fails every message with err, or answers reply.
func faultSender(reply legacy.Reply, err error) Sender {
	return sendFunc(func(ctx context.Context, req legacy.Request) (legacy.Reply, error) {
		if err != nil {
			return nil, err
		}
		return reply, nil
	})
}

func TestSearchLegacyFaults(t *testing.T) {
	f, _, _ := facadeWithSandbox(t, Config{}, legacysandbox.Config{}, nil)
	cases := []struct {
		name   string
		send   Sender
		status int
		code   string
	}{
		{"down", faultSender(nil, &SendError{Kind: ErrLegacyDown, Err: errors.New("dial tcp 10.0.0.7:8443: connection refused")}), 503, osdm.CodeServiceUnavailable},
		{"slow", faultSender(nil, &SendError{Kind: ErrLegacySlow, Err: context.DeadlineExceeded}), 504, osdm.CodeTimeout},
		{"garbage", faultSender(nil, &SendError{Kind: ErrLegacyGarbage, Err: errors.New("XML syntax error")}), 502, osdm.CodeBadGateway},
		{"unclassified error", faultSender(nil, errors.New("boom")), 503, osdm.CodeServiceUnavailable},
		{"booking reply", faultSender(&legacy.BookingReply{BookingRef: "x"}, nil), 502, osdm.CodeBadGateway},
		{"negative partner unavailable", faultSender(&legacy.NegativeReply{Code: legacy.CodePartnerUnavailable, Text: "db7 down"}, nil), 503, osdm.CodeServiceUnavailable},
		{"negative invalid", faultSender(&legacy.NegativeReply{Code: legacy.CodeInvalidMessage, Text: "bad"}, nil), 502, osdm.CodeBadGateway},
		{"negative unsupported", faultSender(&legacy.NegativeReply{Code: legacy.CodeUnsupportedMessage}, nil), 501, osdm.CodeNotImplemented},
		{"negative no availability", faultSender(&legacy.NegativeReply{Code: legacy.CodeNoAvailability}, nil), 409, osdm.CodeInsufficientAvailability},
		{"negative train not found", faultSender(&legacy.NegativeReply{Code: legacy.CodeTrainNotFound}, nil), 404, osdm.CodeOfferNoResults},
		{"negative timeout", faultSender(&legacy.NegativeReply{Code: legacy.CodePartnerTimeout}, nil), 504, osdm.CodeTimeout},
		{"negative rejected", faultSender(&legacy.NegativeReply{Code: legacy.CodePartnerRejected}, nil), 409, osdm.CodeRejected},
		{"wrong correlation", faultSender(&legacy.AvailabilityReply{Header: legacy.ReplyHeader{CorrelationID: "other"}}, nil), 502, osdm.CodeBadGateway},
		{"bad price", faultSender(&legacy.AvailabilityReply{Journey: legacy.ReplyJourney{DepartureTime: "07:00", ArrivalTime: "08:00"},
			Offers: []legacy.Offer{{TravelClass: 2, ServiceCode: 1, Price: &legacy.Price{Amount: "1e9", Currency: "EUR"}}}}, nil), 502, osdm.CodeBadGateway},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := search(f, tc.send, namedTrainSearch)
			p := validProblem(t, a)
			if a.Status != tc.status || p.Code != tc.code {
				t.Errorf("%d %s, want %d %s: %s", a.Status, p.Code, tc.status, tc.code, p.Detail)
			}
			for _, leak := range []string{"10.0.0.7", "db7", "dial", "XML syntax", "boom"} {
				if strings.Contains(string(a.Body), leak) {
					t.Errorf("answer leaks %q: %s", leak, a.Body)
				}
			}
		})
	}
}

func TestSearchPartialFailureKeepsOffers(t *testing.T) {
	f, ss, _ := facadeWithSandbox(t, Config{}, legacysandbox.Config{}, nil)
	good := ss.sender()
	var n atomic.Int64
	send := sendFunc(func(ctx context.Context, req legacy.Request) (legacy.Reply, error) {
		if req.(*legacy.AvailabilityRequest).Places.TravelClass == 1 {
			n.Add(1)
			return nil, &SendError{Kind: ErrLegacySlow}
		}
		return good.Send(ctx, req)
	})
	a := search(f, send, namedTrainSearch)
	resp := validOffers(t, a)
	if len(resp.Offers) != 1 || len(resp.Problems) != 1 || resp.Problems[0].Code != osdm.CodeTimeout || n.Load() != 1 {
		t.Errorf("%s", a.Body)
	}
}

func TestSearchTimeoutBoundsTheCall(t *testing.T) {
	f, ss, _ := facadeWithSandbox(t, Config{Timeout: 50 * time.Millisecond}, legacysandbox.Config{Latency: time.Second}, nil)
	start := time.Now()
	a := search(f, ss.sender(), namedTrainSearch)
	if d := time.Since(start); d > 900*time.Millisecond {
		t.Errorf("the search took %s despite timeout 50ms", d)
	}
	p := validProblem(t, a)
	if a.Status != http.StatusGatewayTimeout || p.Code != osdm.CodeTimeout {
		t.Errorf("%d %s", a.Status, p.Code)
	}
}

// TestSearchStoreFailureBeforeTheKey: a store that fails when the offer
// key is first read makes that search a 503 with nothing sent and no
// internals shown; the next search reads the key again and answers; once
// a key was read, a store that fails leaves the search that key (counted
// as a store error).
func TestSearchStoreFailureBeforeTheKey(t *testing.T) {
	f, ss, st := facadeWithSandbox(t, Config{}, legacysandbox.Config{}, nil)
	st.Fail = errors.New("disk full at /var/lib/x")
	a := search(f, ss.sender(), namedTrainSearch)
	p := validProblem(t, a)
	if a.Status != http.StatusServiceUnavailable || p.Code != osdm.CodeServiceUnavailable ||
		strings.Contains(string(a.Body), "disk") || a.StoreErrors != 1 {
		t.Errorf("%d %s storeErrors %d", a.Status, a.Body, a.StoreErrors)
	}
	// The cause is kept for the operator's log line, not the client.
	if !errors.Is(a.Cause, st.Fail) {
		t.Errorf("cause %v, want the store's error", a.Cause)
	}
	if n := ss.sent.Load(); n != 0 {
		t.Errorf("%d legacy messages sent without an offer key", n)
	}
	st.Fail = nil
	a = search(f, ss.sender(), namedTrainSearch)
	if resp := validOffers(t, a); len(resp.Offers) != 2 {
		t.Fatalf("after the store came back: %s", a.Body)
	}
	st.Fail = errors.New("store down")
	a = search(f, ss.sender(), namedTrainSearch)
	if resp := validOffers(t, a); len(resp.Offers) != 2 || a.StoreErrors != 1 {
		t.Errorf("with the key held, a store failure changed a search: %d %s", a.Status, a.Body)
	}
}
