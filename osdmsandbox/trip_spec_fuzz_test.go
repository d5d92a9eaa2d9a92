package osdmsandbox

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// FuzzTripSpecifications reads arbitrary JSON as tripSpecifications: no
// panic, and either a 400 problem pointing into #/tripSpecifications, or
// trips of 1..maxLegs trains that chain: each leaves from the station the
// one before reaches, no earlier than it arrives, and arrives after it
// leaves; a change keeps the transfer leg's duration (or -1 for none).
func FuzzTripSpecifications(f *testing.F) {
	leg := func(train, from, dep, to, arr string) string {
		return `{"externalRef":"l` + train + `","timedLeg":{"start":{"stopPlaceRef":{"objectType":"StopPlaceRef","stopPlaceRef":"urn:uic:stn:` + from + `"},"serviceDeparture":{"timetabledTime":"` + dep + `"}},` +
			`"end":{"stopPlaceRef":{"objectType":"StopPlaceRef","stopPlaceRef":"urn:uic:stn:` + to + `"},"serviceArrival":{"timetabledTime":"` + arr + `"}},"service":{"vehicleNumbers":["` + train + `"]}}}`
	}
	transfer := `{"externalRef":"x","transferLeg":{"start":{"objectType":"StopPlaceRef","stopPlaceRef":"urn:uic:stn:8500010"},"end":{"objectType":"StopPlaceRef","stopPlaceRef":"urn:uic:stn:8500010"},"duration":"PT12M"}}`
	f.Add(`[{"externalRef":"t","legs":[` + leg("9203", "8700011", "2026-12-01T06:22", "8500010", "2026-12-01T09:26") + `,` + transfer + `,` + leg("765", "8500010", "2026-12-01T10:03+01:00", "8503000", "2026-12-01T10:56:00+01:00") + `]}]`)
	f.Add(`[{"legs":[` + leg("9", "8500010", "2026-12-01T07:12", "8503000", "2026-12-01T08:05") + `,` + leg("11", "8503000", "2026-12-01T08:00", "8000261", "2026-12-01T12:45") + `]}]`)
	f.Add(`[{"legs":[` + transfer + `]},{"legs":[]}]`)
	f.Add(`[{"legs":[{"transferLeg":{"start":null,"end":{}},"timedLeg":{}}]}]`)
	f.Add(`[{"legs":[` + leg("1", "8500010", "2026-12-01T07:12", "8503000", "P1D") + `]}]`)
	f.Fuzz(func(t *testing.T, data string) {
		var specs []tripSpecification
		if json.Unmarshal([]byte(data), &specs) != nil {
			return
		}
		trips, p := parseTripSpecifications(specs)
		if p != nil {
			if p.Status != 400 || p.Detail == "" || (p.Code != osdm.CodeValidationError && p.Code != osdm.CodeParameterNotSupported) {
				t.Fatalf("problem %+v", p)
			}
			if len(p.Pointers) != 1 || !strings.HasPrefix(p.Pointers[0].RequestPointer, "#/tripSpecifications") {
				t.Fatalf("pointers %v", p.Pointers)
			}
			return
		}
		if len(trips) != len(specs) {
			t.Fatalf("%d trips of %d specifications", len(trips), len(specs))
		}
		for i, tr := range trips {
			if len(tr.legs) == 0 || len(tr.legs) > maxLegs || tr.externalRef != specs[i].ExternalRef {
				t.Fatalf("trip %d: %+v", i, tr)
			}
			for k, l := range tr.legs {
				if !l.arr.After(l.dep) || l.arr.Sub(l.dep) > 48*time.Hour || l.origin == l.dest || !ValidTrainNumber(l.train) {
					t.Fatalf("trip %d leg %d: %+v", i, k, l)
				}
				if l.hasChange && (k == 0 || l.change.duration < -1) {
					t.Fatalf("trip %d leg %d: change %+v", i, k, l.change)
				}
				if k > 0 {
					prev := tr.legs[k-1]
					if l.origin != prev.dest || l.dep.Before(prev.arr) {
						t.Fatalf("trip %d: leg %d does not follow leg %d: %+v after %+v", i, k, k-1, l, prev)
					}
				}
			}
		}
	})
}
