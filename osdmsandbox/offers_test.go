package osdmsandbox_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/osdm"
	"github.com/caddy-osdm/caddy-osdm/osdmsandbox"
)

func TestSearchDayTrain(t *testing.T) {
	h := newHarness(t, osdmsandbox.Config{Capacity: 40})
	resp := h.search(offerRequest("708", nil, adult("p1"), child("p2")))

	if len(resp.Trips) != 1 || len(resp.Offers) != 2 || len(resp.Problems) != 0 {
		t.Fatalf("trips %d offers %d problems %v", len(resp.Trips), len(resp.Offers), resp.Problems)
	}
	trip := resp.Trips[0]
	leg := trip.Legs[0].TimedLeg
	if !trip.StartTime.Equal(departure) || !leg.Start.ServiceDeparture.TimetabledTime.Equal(departure) {
		t.Errorf("departure %v, want the time asked %v", trip.StartTime, departure)
	}
	if _, off := leg.Start.ServiceDeparture.TimetabledTime.Zone(); off != 3600 {
		t.Errorf("departure offset %d, want the +01:00 of the search", off)
	}
	if !trip.EndTime.After(trip.StartTime) || leg.Start.StopPlaceName != "Basel SBB" || leg.End.StopPlaceName != "Zürich HB" {
		t.Errorf("trip %+v / %+v", trip, leg)
	}
	if leg.Service.VehicleNumbers[0] != "708" || leg.Service.Carriers[0].Ref != osdmsandbox.DefaultOperator {
		t.Errorf("service %+v", leg.Service)
	}

	second := offerOf(t, resp, osdm.TravelClassSecond, osdm.AccommodationSeat)
	first := offerOf(t, resp, osdm.TravelClassFirst, osdm.AccommodationSeat)
	// Adult 5.00 + child 50 % in second, 9.00 + 4.50 in first.
	if second.OfferSummary.MinimalPrice.Amount != 750 || first.OfferSummary.MinimalPrice.Amount != 1350 {
		t.Errorf("prices %d %d", second.OfferSummary.MinimalPrice.Amount, first.OfferSummary.MinimalPrice.Amount)
	}
	if second.OfferSummary.OverallServiceClass.Type != osdm.ServiceClassStandard || first.OfferSummary.OverallServiceClass.Type != osdm.ServiceClassHigh {
		t.Errorf("service classes %+v %+v", second.OfferSummary, first.OfferSummary)
	}
	if !second.PreBookableUntil.Equal(t0.Add(osdmsandbox.DefaultOfferTTL)) {
		t.Errorf("preBookableUntil %v", second.PreBookableUntil)
	}
	part := second.ReservationOfferParts[0]
	if *part.NumericAvailability != 40 || *part.AvailablePlaces[0].NumericAvailability != 40 ||
		part.AvailablePlaces[0].TripLegCoverage.TripID != trip.ID || part.Price.Amount != 750 {
		t.Errorf("part %+v", part)
	}
	if p := second.Product(part.Products[0].ProductID); p == nil || p.TravelClass != osdm.TravelClassSecond || p.ServiceClass == nil {
		t.Errorf("product %+v", p)
	}
	if strings.Join(second.PassengerRefs, ",") != "p1,p2" || len(resp.AnonymousPassengerSpecifications) != 2 {
		t.Errorf("passengers %v %v", second.PassengerRefs, resp.AnonymousPassengerSpecifications)
	}

	// One class asked, one class offered.
	only := h.search(offerRequest("708", []osdm.TravelClass{osdm.TravelClassSecond}))
	if len(only.Offers) != 1 || only.Offers[0].OfferSummary.OverallTravelClass != osdm.TravelClassSecond {
		t.Errorf("SECOND only: %+v", only.Offers)
	}
}

func TestSearchNightTrainHasCouchettesAndBerths(t *testing.T) {
	h := newHarness(t, osdmsandbox.Config{})
	resp := h.search(offerRequest("402", nil))
	if len(resp.Offers) != 6 {
		t.Fatalf("%d offers, want seat, couchette and berth in two classes", len(resp.Offers))
	}
	for _, acc := range []osdm.AccommodationType{osdm.AccommodationSeat, osdm.AccommodationCouchette, osdm.AccommodationBerth} {
		for _, class := range []osdm.TravelClass{osdm.TravelClassFirst, osdm.TravelClassSecond} {
			o := offerOf(t, resp, class, acc)
			if o.ReservationOfferParts[0].AvailablePlaces[0].AccommodationType != acc {
				t.Errorf("%s %s: %+v", class, acc, o.ReservationOfferParts[0].AvailablePlaces)
			}
		}
	}
	trip := resp.Trips[0]
	if d := trip.EndTime.Sub(trip.StartTime); d < 8*time.Hour || d > 12*time.Hour {
		t.Errorf("night train takes %v", d)
	}
}

func TestTimetable(t *testing.T) {
	h := newHarness(t, osdmsandbox.Config{Timetable: []osdmsandbox.Schedule{{Train: "9203", Departure: "22:10", Arrival: "06:45"}}})

	a, b := h.search(offerRequest("1234", nil)), h.search(offerRequest("1234", nil))
	if !a.Trips[0].EndTime.Equal(b.Trips[0].EndTime) || a.Trips[0].ID != b.Trips[0].ID || a.Trips[0].Duration != b.Trips[0].Duration {
		t.Errorf("the same train differs between searches: %+v %+v", a.Trips[0], b.Trips[0])
	}
	other := h.search(offerRequest("1235", nil))
	if a.Trips[0].Duration == other.Trips[0].Duration && a.Trips[0].Duration == h.search(offerRequest("1236", nil)).Trips[0].Duration {
		t.Errorf("durations do not depend on the train number: %s", a.Trips[0].Duration)
	}

	// A departure at midnight means "that day": a made-up time that day.
	req := offerRequest("1234", nil)
	midnight := time.Date(2026, 12, 1, 0, 0, 0, 0, cet)
	req.TripSearchCriteria.DepartureTime = &midnight
	dep := h.search(req).Trips[0].StartTime
	if dep.Equal(midnight) || dep.Hour() < 6 || dep.Day() != 1 {
		t.Errorf("departure %v for a date-only search", dep)
	}

	// Configured train, overnight.
	sched := h.search(offerRequest("9203", nil)).Trips[0]
	if got := sched.StartTime.Format("2006-01-02 15:04 -07:00"); got != "2026-12-01 22:10 +01:00" {
		t.Errorf("scheduled departure %s", got)
	}
	if got := sched.EndTime.Format("2006-01-02 15:04"); got != "2026-12-02 06:45" || sched.Duration != "PT8H35M" {
		t.Errorf("scheduled arrival %s, duration %s", got, sched.Duration)
	}

	// Search by arrival.
	req = offerRequest("1234", nil)
	arrival := time.Date(2026, 12, 1, 18, 0, 0, 0, cet)
	req.TripSearchCriteria.DepartureTime, req.TripSearchCriteria.ArrivalTime = nil, &arrival
	if trip := h.search(req).Trips[0]; !trip.EndTime.Equal(arrival) || !trip.StartTime.Before(arrival) {
		t.Errorf("arrival search: %v - %v", trip.StartTime, trip.EndTime)
	}

	// No vehicle filter: a train of the sandbox's choosing.
	req = offerRequest("1", nil)
	req.TripSearchCriteria.Parameters = nil
	if resp := h.search(req); len(resp.Trips) != 1 || len(resp.Offers) != 2 {
		t.Errorf("search without train: %+v", resp)
	}
}

func TestSearchErrors(t *testing.T) {
	h := newHarness(t, osdmsandbox.Config{UnknownTrains: []string{"777"}})

	// Spec-valid requests the sandbox refuses.
	for _, tc := range []struct {
		name    string
		mutate  func(*osdm.OfferCollectionRequest)
		status  int
		code    string
		pointer string
	}{
		{"train zero", func(r *osdm.OfferCollectionRequest) { r.TripSearchCriteria.Parameters = osdm.OnlyVehicles("0") },
			http.StatusNotFound, osdm.CodeNoResults, ""},
		{"configured unknown train", func(r *osdm.OfferCollectionRequest) { r.TripSearchCriteria.Parameters = osdm.OnlyVehicles("777") },
			http.StatusNotFound, osdm.CodeNoResults, ""},
		{"no trip criteria", func(r *osdm.OfferCollectionRequest) { r.TripSearchCriteria = nil },
			http.StatusBadRequest, osdm.CodeValidationError, "#/tripSearchCriteria"},
		{"not a UIC station", func(r *osdm.OfferCollectionRequest) {
			r.TripSearchCriteria.Origin = osdm.NewStopPlaceRef("urn:uic:stn:85")
		}, http.StatusBadRequest, osdm.CodeValidationError, "#/tripSearchCriteria/origin"},
		{"same station", func(r *osdm.OfferCollectionRequest) {
			r.TripSearchCriteria.Destination = r.TripSearchCriteria.Origin
		}, http.StatusBadRequest, osdm.CodeValidationError, "#/tripSearchCriteria/destination"},
		{"no time", func(r *osdm.OfferCollectionRequest) { r.TripSearchCriteria.DepartureTime = nil },
			http.StatusBadRequest, osdm.CodeValidationError, "#/tripSearchCriteria/departureTime"},
		{"duplicate passenger", func(r *osdm.OfferCollectionRequest) {
			r.AnonymousPassengerSpecifications = append(r.AnonymousPassengerSpecifications, adult("p1"))
		}, http.StatusBadRequest, osdm.CodeValidationError, "#/anonymousPassengerSpecifications/1/externalRef"},
		{"unknown class", func(r *osdm.OfferCollectionRequest) {
			r.OfferSearchCriteria.TravelClasses = []osdm.TravelClass{"THIRD"}
		}, http.StatusBadRequest, osdm.CodeValidationError, "#/offerSearchCriteria/travelClasses/0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := offerRequest("708", nil)
			tc.mutate(&req)
			p := h.call(http.MethodPost, "/offers", "", req).problem(t, tc.status, tc.code)
			if got := pointerOf(p); got != tc.pointer {
				t.Errorf("pointer %q, want %q", got, tc.pointer)
			}
		})
	}

	jsonHeader := http.Header{"Content-Type": {"application/json"}}
	h.raw(http.MethodPost, "/offers", jsonHeader, []byte(`{"anonymousPassengerSpecifications": [`)).problem(t, http.StatusBadRequest, osdm.CodeMalformedRequest)
	h.raw(http.MethodPost, "/offers", jsonHeader, nil).problem(t, http.StatusBadRequest, osdm.CodeValidationError)
	p := h.raw(http.MethodPost, "/offers", jsonHeader, []byte(`{"anonymousPassengerSpecifications": {}}`)).problem(t, http.StatusBadRequest, osdm.CodeMalformedRequest)
	if pointerOf(p) != "#/anonymousPassengerSpecifications" {
		t.Errorf("type error pointer %q", pointerOf(p))
	}
	h.raw(http.MethodPost, "/offers", http.Header{"Content-Type": {"text/plain"}}, []byte(`{}`)).problem(t, http.StatusUnsupportedMediaType, osdm.CodeMalformedRequest)
	big := append([]byte(`{"x":"`), make([]byte, osdmsandbox.MaxBodyBytes)...)
	h.raw(http.MethodPost, "/offers", jsonHeader, big).problem(t, http.StatusRequestEntityTooLarge, osdm.CodeMalformedRequest)
}

func pointerOf(p osdm.Problem) string {
	if len(p.Pointers) == 0 {
		return ""
	}
	return p.Pointers[0].RequestPointer
}

func TestSearchAdmissionOnly(t *testing.T) {
	h := newHarness(t, osdmsandbox.Config{})
	req := offerRequest("708", nil)
	req.OfferSearchCriteria.RequestedOfferParts = []osdm.OfferPartType{osdm.OfferPartAdmission}
	resp := h.search(req)
	if len(resp.Offers) != 0 || len(resp.Trips) != 1 || len(resp.Problems) != 1 || resp.Problems[0].Code != osdm.CodeParameterNotSupported {
		t.Errorf("admission only: %+v", resp)
	}
}

func TestExternalInventory(t *testing.T) {
	h := newHarness(t, osdmsandbox.Config{ExternalInventory: []osdmsandbox.ExternalInventory{
		{Train: "462", ReservationSystemID: 80, Operator: "1080"},
		{Train: "463", ReservationSystemID: 81, Operator: "urn:uic:rics:1081", Status: http.StatusConflict},
	}})

	// In a 200's problems; the harness validates against v3.10.
	resp := h.search(offerRequest("462", nil))
	if len(resp.Offers) != 0 || len(resp.Problems) != 1 {
		t.Fatalf("external train: %+v", resp)
	}
	asp := resp.Problems[0]
	checkProposal(t, asp, 80, "urn:uic:rics:1080", "462")
	if asp.Status != nil {
		t.Errorf("status %d inside a 200", *asp.Status)
	}
	validateV310Problem(t, asp)

	// As a 4xx problem+json.
	r := h.call(http.MethodPost, "/offers", "", offerRequest("463", nil))
	if r.status != http.StatusConflict || r.header.Get("Content-Type") != osdm.ContentTypeProblem {
		t.Fatalf("4xx form: %d %s", r.status, r.body)
	}
	var p osdm.Problem
	r.decode(t, &p)
	checkProposal(t, p, 81, "urn:uic:rics:1081", "463")
	if p.Status == nil || *p.Status != http.StatusConflict {
		t.Errorf("problem status %v", p.Status)
	}
	validateV310Problem(t, p)

	// One sold here, one elsewhere: offers and the proposal together.
	req := offerRequest("708", nil)
	req.TripSearchCriteria.Parameters = osdm.OnlyVehicles("708", "462")
	both := h.search(req)
	if len(both.Offers) != 2 || len(both.Problems) != 1 || !both.Problems[0].IsAlternativeSystemProposal() {
		t.Errorf("mixed search: %d offers, problems %+v", len(both.Offers), both.Problems)
	}
}

func checkProposal(t *testing.T, p osdm.Problem, system int, operator, train string) {
	t.Helper()
	if !p.IsAlternativeSystemProposal() || p.Code != osdm.CodeAlternativeSystemProposal || len(p.AlternativeSystemProposals) != 1 {
		t.Fatalf("problem %+v", p)
	}
	prop := p.AlternativeSystemProposals[0]
	if *prop.ReservationSystemID != system || prop.SystemOperatorCode != operator ||
		len(prop.Scope) != 1 || prop.Scope[0].VehicleNumber != train || *prop.Priority != 1 {
		t.Errorf("proposal %+v", prop)
	}
}

func TestTripOffers(t *testing.T) {
	h := newHarness(t, osdmsandbox.Config{ExternalInventory: []osdmsandbox.ExternalInventory{{Train: "462", ReservationSystemID: 80, Operator: "1080"}}})
	q := url.Values{
		"originCode":          {"urn:uic:stn:8500010"},
		"destinationCode":     {"urn:uic:stn:8503000"},
		"departureTime":       {departure.Format(time.RFC3339)},
		"vehicleNumbers":      {"708"},
		"travelClasses":       {"SECOND"},
		"requestedOfferParts": {"RESERVATION"},
		"passenger":           {"p1,ADULT,30", "p2,CHILD,8"},
	}
	r := h.raw(http.MethodGet, "/trip-offers?"+q.Encode(), nil, nil)
	if r.status != http.StatusOK {
		t.Fatalf("GET /trip-offers: %d %s", r.status, r.body)
	}
	var resp osdm.OfferCollectionResponse
	r.decode(t, &resp)
	if len(resp.Offers) != 1 || resp.Offers[0].OfferSummary.MinimalPrice.Amount != 750 || !resp.Trips[0].StartTime.Equal(departure) {
		t.Fatalf("trip offers: %s", r.body)
	}
	// Its offers are bookable like those of POST /offers.
	h.book(resp.Offers[0], adult("p1"), child("p2"))

	q.Set("vehicleNumbers", "462")
	r = h.raw(http.MethodGet, "/trip-offers?"+q.Encode(), nil, nil)
	r.decode(t, &resp)
	if r.status != http.StatusOK || len(resp.Problems) != 1 || !resp.Problems[0].IsAlternativeSystemProposal() {
		t.Errorf("external train over GET: %d %s", r.status, r.body)
	}

	for name, edit := range map[string]func(url.Values){
		"unknown parameter": func(v url.Values) { v.Set("searchCriteria", "x") },
		"no passenger":      func(v url.Values) { v.Del("passenger") },
		"bad passenger":     func(v url.Values) { v.Set("passenger", "p1") },
		"bad age":           func(v url.Values) { v.Set("passenger", "p1,ADULT,old") },
		"bad time":          func(v url.Values) { v.Set("departureTime", "2026-12-01 08:30") },
		"no origin":         func(v url.Values) { v.Del("originCode") },
		"bad train":         func(v url.Values) { v.Set("vehicleNumbers", "70-8") },
	} {
		v := url.Values{}
		for k, vals := range q {
			v[k] = append([]string(nil), vals...)
		}
		edit(v)
		p := h.raw(http.MethodGet, "/trip-offers?"+v.Encode(), nil, nil).problem(t, http.StatusBadRequest, osdm.CodeValidationError)
		if len(p.Pointers) != 0 {
			t.Errorf("%s: a JSON pointer for a query parameter: %+v", name, p.Pointers)
		}
	}
	q.Set("vehicleNumbers", "0")
	h.raw(http.MethodGet, "/trip-offers?"+q.Encode(), nil, nil).problem(t, http.StatusNotFound, osdm.CodeNoResults)
}

// A request body is read as the converter reads a partner's answer
// (encoding/json/v2's rules), and what it refuses is a 400
// MALFORMED_REQUEST that points at the member at fault and says what is
// wrong with it, with no Go type in its text.
func TestBodyReadStrictly(t *testing.T) {
	h := newHarness(t, osdmsandbox.Config{})
	good, err := json.Marshal(offerRequest("708", nil, adult("p1")))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(good, []byte(`"externalRef":"p1"`)) || !bytes.Contains(good, []byte(`"anonymousPassengerSpecifications"`)) {
		t.Fatalf("the search does not have the members the cases change: %s", good)
	}
	jsonHeader := http.Header{"Content-Type": {osdm.ContentTypeJSON}}
	h.raw(http.MethodPost, "/offers", jsonHeader, good).decode(t, &osdm.OfferCollectionResponse{})
	for _, tc := range []struct {
		name, old, new    string
		pointer, inDetail string
	}{
		{"a member twice", `"externalRef":"p1"`, `"externalRef":"p1","externalRef":"p2"`,
			"#/anonymousPassengerSpecifications/0/externalRef", "appears twice"},
		{"invalid UTF-8", `"externalRef":"p1"`, "\"externalRef\":\"p\xff1\"",
			"#/anonymousPassengerSpecifications/0/externalRef", "not valid UTF-8"},
		{"a wrong type in an array", `"externalRef":"p1"`, `"externalRef":"p1","age":"ten"`,
			"#/anonymousPassengerSpecifications/0/age", "must be an integer, not a string"},
		{"a fraction for an integer", `"externalRef":"p1"`, `"externalRef":"p1","age":1.5`,
			"#/anonymousPassengerSpecifications/0/age", "must be an integer"},
		{"something after the object", `}`, `} {}`, "", "after top-level value"},
		{"a null array item", `"anonymousPassengerSpecifications":[`, `"anonymousPassengerSpecifications":[null,`,
			"#/anonymousPassengerSpecifications/0", "#/anonymousPassengerSpecifications/0 must not be null"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := []byte(strings.Replace(string(good), tc.old, tc.new, 1))
			if tc.old == "}" {
				body = append(bytes.TrimSpace(good), " {}"...)
			}
			p := h.raw(http.MethodPost, "/offers", jsonHeader, body).problem(t, http.StatusBadRequest, osdm.CodeMalformedRequest)
			if pointerOf(p) != tc.pointer || !strings.Contains(p.Detail, tc.inDetail) || strings.Contains(p.Detail, "osdm.") || strings.Contains(p.Detail, "Go ") {
				t.Errorf("pointer %q detail %q, want %q and %q", pointerOf(p), p.Detail, tc.pointer, tc.inDetail)
			}
		})
	}

	// JSON is UTF-8: another charset is refused, UTF-8 in any case taken.
	p := h.raw(http.MethodPost, "/offers", http.Header{"Content-Type": {"application/json; charset=ISO-8859-1"}}, good).problem(t, http.StatusUnsupportedMediaType, osdm.CodeMalformedRequest)
	if p.Detail != `the body must be UTF-8, not charset "ISO-8859-1"` {
		t.Errorf("latin-1: %q", p.Detail)
	}
	h.raw(http.MethodPost, "/offers", http.Header{"Content-Type": {"application/json; charset=Utf-8"}}, good).decode(t, &osdm.OfferCollectionResponse{})

	// White space alone is no body; a null body is not an empty one.
	for _, body := range []string{"", " \r\n\t"} {
		p := h.raw(http.MethodPost, "/offers", jsonHeader, []byte(body)).problem(t, http.StatusBadRequest, osdm.CodeValidationError)
		if p.Detail != "a JSON body is required" {
			t.Errorf("POST /offers %q: %q", body, p.Detail)
		}
	}
	for _, path := range []string{"/offers", "/bookings"} {
		p := h.raw(http.MethodPost, path, jsonHeader, []byte(" null ")).problem(t, http.StatusBadRequest, osdm.CodeMalformedRequest)
		if p.Detail != "malformed JSON body: the body must be an object, not null" {
			t.Errorf("POST %s null: %q", path, p.Detail)
		}
	}

	// Member names match as the spec writes them: "AnonymousPassengerSpecifications"
	// is not the passengers, so the search has none.
	renamed := bytes.Replace(good, []byte(`"anonymousPassengerSpecifications"`), []byte(`"AnonymousPassengerSpecifications"`), 1)
	if r := h.raw(http.MethodPost, "/offers", jsonHeader, renamed); r.status != http.StatusBadRequest || !strings.Contains(string(r.body), "anonymousPassengerSpecifications") {
		t.Errorf("a member name in another case: %d %s", r.status, r.body)
	}
}
