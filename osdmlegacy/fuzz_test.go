package osdmlegacy

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/caddy-osdm/caddy-osdm/legacy"
)

// offerSearchSeeds are valid and refused offer searches: the fuzzer
// starts from them.
var offerSearchSeeds = []string{
	namedTrainSearch,
	`{"tripSearchCriteria": {"origin": {"objectType": "StopPlaceRef", "stopPlaceRef": "8727100"}, "destination": {"objectType": "StopPlaceRef", "stopPlaceRef": "8814001"}, "arrivalTime": "2026-12-01T10:00:00", "parameters": {"numberOfResultsBefore": 2, "numberOfResultsAfter": 0, "dataFilter": {"vehicleFilter": {"vehicleNumbers": ["9306"]}}}}, "anonymousPassengerSpecifications": [{"externalRef": "a", "type": "SENIOR", "dateOfBirth": "1950-02-03"}]}`,
	`{"tripSpecifications": [{"legs": [{"timedLeg": {"start": {"stopPlaceRef": {"objectType": "StopPlaceRef", "stopPlaceRef": "urn:uic:stn:8727100"}, "serviceDeparture": {"timetabledTime": "2026-12-01T07:16:00+01:00"}}, "end": {"stopPlaceRef": {"objectType": "StopPlaceRef", "stopPlaceRef": "urn:uic:stn:8814001"}, "serviceArrival": {"timetabledTime": "2026-12-01T08:38:00+01:00"}}, "service": {"vehicleNumbers": ["9301"], "carriers": [{"ref": "urn:uic:rics:1187"}]}}}]}], "offerSearchCriteria": {"travelClasses": ["SECOND", "FIRST"], "requestedOfferParts": ["ALL"], "currency": "EUR"}, "anonymousPassengerSpecifications": [{"externalRef": "a", "type": "ADULT", "age": 30}, {"externalRef": "b", "type": "CHILD", "age": null}]}`,
	`{"tripSearchCriteria": {"origin": {"objectType": "GeoPositionRef"}, "destination": {"objectType": "StopPlaceRef", "stopPlaceRef": "x"}, "vias": [{}]}, "anonymousPassengerSpecifications": []}`,
	`{"anonymousPassengerSpecifications": [{"externalRef": "a", "type": "ADULT", "age": 30, "age": 31}]}`,
	`[1, 2, {"a": "\u00e9\ud83d\ude00"}]`,
	`{"tripSearchCriteria": {"origin": {"objectType": "StopPlaceRef", "stopPlaceRef": "8727100"}, "destination": {"objectType": "StopPlaceRef", "stopPlaceRef": "8814001"}, "departureTime": "2026-12-01T06:00:00.5-05:00", "parameters": {"dataFilter": {"vehicleFilter": {"exclude": false, "vehicleNumbers": ["1", "22", "333", "4444", "55555", "666666"]}}}}, "anonymousPassengerSpecifications": [{"externalRef": "a", "type": "DOG", "cards": [{}]}]}`,
	// trip specifications with changes: a transfer leg between, three
	// trains, a leg that does not start where the one before ends
	`{"tripSpecifications": [{"legs": [{"timedLeg": {"start": {"stopPlaceRef": {"objectType": "StopPlaceRef", "stopPlaceRef": "urn:uic:stn:8711300"}, "serviceDeparture": {"timetabledTime": "2026-12-01T07:00:00+01:00"}}, "end": {"stopPlaceRef": {"objectType": "StopPlaceRef", "stopPlaceRef": "urn:uic:stn:8721202"}, "serviceArrival": {"timetabledTime": "2026-12-01T08:50:00+01:00"}}, "service": {"vehicleNumbers": ["9571"], "carriers": [{"ref": "urn:uic:rics:1187"}]}}}, {"transferLeg": {"start": {"objectType": "StopPlaceRef", "stopPlaceRef": "urn:uic:stn:8721202"}, "end": {"objectType": "StopPlaceRef", "stopPlaceRef": "urn:uic:stn:8721202"}}}, {"timedLeg": {"start": {"stopPlaceRef": {"objectType": "StopPlaceRef", "stopPlaceRef": "urn:uic:stn:8721202"}, "serviceDeparture": {"timetabledTime": "2026-12-01T09:10:00+01:00"}}, "end": {"stopPlaceRef": {"objectType": "StopPlaceRef", "stopPlaceRef": "urn:uic:stn:8500010"}, "serviceArrival": {"timetabledTime": "2026-12-01T10:30:00+01:00"}}, "service": {"vehicleNumbers": ["96003"], "carriers": [{"ref": "urn:uic:rics:1187"}]}}}]}], "anonymousPassengerSpecifications": [{"externalRef": "a", "type": "ADULT", "age": 30}]}`,
	`{"tripSpecifications": [{"legs": [{"timedLeg": {"start": {"stopPlaceRef": {"objectType": "StopPlaceRef", "stopPlaceRef": "urn:uic:stn:8711300"}, "serviceDeparture": {"timetabledTime": "2026-12-01T07:00:00+01:00"}}, "end": {"stopPlaceRef": {"objectType": "StopPlaceRef", "stopPlaceRef": "urn:uic:stn:8721202"}, "serviceArrival": {"timetabledTime": "2026-12-01T08:50:00+01:00"}}, "service": {"vehicleNumbers": ["9571"], "carriers": [{"ref": "urn:uic:rics:1187"}]}}}, {"timedLeg": {"start": {"stopPlaceRef": {"objectType": "StopPlaceRef", "stopPlaceRef": "urn:uic:stn:8721202"}, "serviceDeparture": {"timetabledTime": "2026-12-01T09:10:00+01:00"}}, "end": {"stopPlaceRef": {"objectType": "StopPlaceRef", "stopPlaceRef": "urn:uic:stn:8500010"}, "serviceArrival": {"timetabledTime": "2026-12-01T10:30:00+01:00"}}, "service": {"vehicleNumbers": ["96003"], "carriers": [{"ref": "urn:uic:rics:1187"}]}}}, {"timedLeg": {"start": {"stopPlaceRef": {"objectType": "StopPlaceRef", "stopPlaceRef": "urn:uic:stn:8500010"}, "serviceDeparture": {"timetabledTime": "2026-12-01T11:00:00+01:00"}}, "end": {"stopPlaceRef": {"objectType": "StopPlaceRef", "stopPlaceRef": "urn:uic:stn:8503000"}, "serviceArrival": {"timetabledTime": "2026-12-01T12:00:00+01:00"}}, "service": {"vehicleNumbers": ["7"], "carriers": [{"ref": "urn:uic:rics:1187"}]}}}]}], "anonymousPassengerSpecifications": [{"externalRef": "a", "type": "ADULT", "age": 30}]}`,
	`{"tripSpecifications": [{"legs": [{"timedLeg": {"start": {"stopPlaceRef": {"objectType": "StopPlaceRef", "stopPlaceRef": "urn:uic:stn:8711300"}, "serviceDeparture": {"timetabledTime": "2026-12-01T07:00:00+01:00"}}, "end": {"stopPlaceRef": {"objectType": "StopPlaceRef", "stopPlaceRef": "urn:uic:stn:8721202"}, "serviceArrival": {"timetabledTime": "2026-12-01T08:50:00+01:00"}}, "service": {"vehicleNumbers": ["9571"], "carriers": [{"ref": "urn:uic:rics:1187"}]}}}, {"timedLeg": {"start": {"stopPlaceRef": {"objectType": "StopPlaceRef", "stopPlaceRef": "urn:uic:stn:8711300"}, "serviceDeparture": {"timetabledTime": "2026-12-01T09:10:00+01:00"}}, "end": {"stopPlaceRef": {"objectType": "StopPlaceRef", "stopPlaceRef": "urn:uic:stn:8500010"}, "serviceArrival": {"timetabledTime": "2026-12-01T10:30:00+01:00"}}, "service": {"vehicleNumbers": ["96003"], "carriers": [{"ref": "urn:uic:rics:1187"}]}}}]}], "anonymousPassengerSpecifications": [{"externalRef": "a", "type": "ADULT", "age": 30}]}`,
}

// FuzzOfferSearchReader holds the offer-search reader to its contract on
// any body: it never panics; it refuses with a 4xx problem whose pointer
// (if any) is a JSON pointer into the request; it refuses every body
// encoding/json cannot read as one JSON value; and what it accepts keeps
// the restrictions: a UIC origin and destination that differ, 1..9
// passengers with distinct refs, trains of 1..5 letters or digits, a time.
func FuzzOfferSearchReader(f *testing.F) {
	for _, s := range offerSearchSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		q, p := readOfferRequest(body)
		if p != nil {
			if q != nil {
				t.Fatal("both a request and a problem")
			}
			if p.Status < 400 || p.Status > 499 || p.Code == "" || p.Detail == "" {
				t.Fatalf("problem %+v", p)
			}
			for _, ptr := range p.Pointers {
				if ptr.RequestPointer != "" && !strings.HasPrefix(ptr.RequestPointer, "#") {
					t.Fatalf("pointer %q", ptr.RequestPointer)
				}
			}
			if !utf8.ValidString(p.Detail) {
				t.Fatalf("detail is not UTF-8: %q", p.Detail)
			}
			if _, err := json.Marshal(p.Body()); err != nil {
				t.Fatal(err)
			}
			return
		}
		var v any
		if err := json.Unmarshal(body, &v); err != nil {
			t.Fatalf("accepted a body encoding/json refuses: %v", err)
		}
		if _, ok := uicStation(q.origin); !ok || q.origin == q.destination {
			t.Fatalf("origin %q destination %q", q.origin, q.destination)
		}
		if _, ok := uicStation(q.destination); !ok {
			t.Fatalf("destination %q", q.destination)
		}
		if n := len(q.passengers); n < 1 || n > maxPassengers {
			t.Fatalf("%d passengers", n)
		}
		refs := map[string]bool{}
		for _, pa := range q.passengers {
			if pa.ref == "" || refs[pa.ref] || pa.typ == "" {
				t.Fatalf("passenger %+v", pa)
			}
			refs[pa.ref] = true
		}
		for _, n := range q.named {
			if !legacy.ValidTrainNumber(n.train) {
				t.Fatalf("train %q", n.train)
			}
		}
		if q.at == nil || len(q.classes) == 0 {
			t.Fatalf("no time or class: %+v", q)
		}
		if q.spec && q.legs == nil && len(q.named) != 1 {
			t.Fatalf("trip specification with %d trains", len(q.named))
		}
		if q.legs != nil {
			// A journey with changes: two trains or more, each boarded
			// where the one before is left, from the origin to the
			// destination.
			if !q.spec || len(q.legs) < 2 || len(q.named) != len(q.legs) || q.legs[0].origin != q.origin || q.legs[len(q.legs)-1].destination != q.destination {
				t.Fatalf("journey %+v", q.legs)
			}
			for i, l := range q.legs {
				if l.origin == l.destination || i > 0 && q.legs[i-1].destination != l.origin || l.train.departure == nil {
					t.Fatalf("leg %d: %+v", i, l)
				}
			}
		}
	})
}

// TestOfferSearchSeedsThroughServe runs the fuzz seeds through the whole
// façade: whatever the body, the answer is a problem or offers, never a
// 5xx without a legacy system to blame.
func TestOfferSearchSeedsThroughServe(t *testing.T) {
	f := newTestFacade(t, Config{}, Deps{})
	for _, s := range offerSearchSeeds {
		a := search(f, faultSender(nil, &SendError{Kind: ErrLegacyDown}), s)
		if a.Status >= 500 && a.Status != http.StatusServiceUnavailable {
			t.Errorf("%s: %d %s", s, a.Status, a.Body)
		}
	}
}
