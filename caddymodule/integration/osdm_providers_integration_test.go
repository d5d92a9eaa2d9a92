package integration

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/harness"
	"github.com/caddy-osdm/caddy-osdm/internal/osdmspec"
	"github.com/caddy-osdm/caddy-osdm/legacysandbox"
	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// The tests of this file drive both OSDM providers, osdm_legacy (in front
// of the legacy sandbox over HTTP) and osdm_sandbox, each in a real Caddy,
// the way the field's consumers drive them; every request and answer is
// checked against the bundled spec.

// osdmProvider is one provider under /osdm of a real Caddy.
type osdmProvider struct {
	name string
	t    *testing.T
	base string // up to and with /osdm
}

// startOSDMProviders starts osdm_legacy (at /legacy, in front of the
// legacy sandbox over HTTP) and osdm_sandbox (at /osdm) in one real
// Caddy, both selling train 708 from Basel SBB to Zürich HB.
func startOSDMProviders(t *testing.T) []*osdmProvider {
	sb, err := legacysandbox.New(legacysandbox.Config{})
	if err != nil {
		t.Fatal(err)
	}
	legacyAddr := harness.ServeLocal(t, sb)
	db := filepath.Join(t.TempDir(), "legacy.db")
	base := harness.ServeSite(t, harness.Options(), func(port int) string {
		return harness.LegacyRoute("/legacy", legacyAddr,
			"partner hermes-test", "refund_fee 10%", "timeout 2s", "settle_interval 200ms", "store bolt "+db) + harness.SandboxRoute("/osdm")
	})
	return []*osdmProvider{
		{name: "osdm_legacy", t: t, base: base + "/legacy"},
		{name: "osdm_sandbox", t: t, base: base + "/osdm"},
	}
}

// discriminatorsOff is body without the objectType members that name a
// request object's own schema (the spec's request schemas do not list
// them): what the request is in the spec's eyes. Discriminators the spec
// has (StopPlaceRef...) stay.
func discriminatorsOff(t *testing.T, body string) []byte {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		t.Fatalf("test body %s: %v", body, err)
	}
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if ot, ok := x[osdm.MemberObjectType].(string); ok && !strings.HasSuffix(ot, "Ref") {
				delete(x, osdm.MemberObjectType)
			}
			for _, m := range x {
				walk(m)
			}
		case []any:
			for _, m := range x {
				walk(m)
			}
		}
	}
	walk(v)
	out, _ := json.Marshal(v)
	return out
}

// call sends one request; the request (without its discriminators) and
// the answer are checked against the spec.
func (p *osdmProvider) call(method, path, body, key string) (int, http.Header, []byte) {
	t := p.t
	t.Helper()
	h := http.Header{}
	if key != "" {
		h.Set(osdm.HeaderIdempotencyKey, key)
	}
	if body != "" {
		osdmspec.ValidateRequest(t, osdmspec.V39, method, path, http.Header{"Content-Type": {osdm.ContentTypeJSON}}, discriminatorsOff(t, body))
	}
	client := harness.OSDMClient{Base: p.base, Version: osdmspec.V39}
	a := client.Do(t, method, path, body, h)
	return a.Status, a.Header, a.Body
}

// ok calls and decodes an answer of status want into v.
func (p *osdmProvider) ok(method, path, body string, want int, v any) {
	p.t.Helper()
	key := ""
	if op, found := osdm.LookupSpec(method, path); found && op.Idempotent {
		key = uuid.NewString()
	}
	status, _, got := p.call(method, path, body, key)
	if status != want {
		p.t.Fatalf("%s: %s %s: %d, want %d: %s", p.name, method, path, status, want, got)
	}
	if v != nil {
		if err := json.Unmarshal(got, v); err != nil {
			p.t.Fatalf("%s: %s %s: %v: %s", p.name, method, path, err, got)
		}
	}
}

// problem calls and returns the problem of status want.
func (p *osdmProvider) problem(method, path, body string, want int) osdm.Problem {
	p.t.Helper()
	status, h, got := p.call(method, path, body, "")
	var pr osdm.Problem
	if status != want || h.Get("Content-Type") != osdm.ContentTypeProblem || json.Unmarshal(got, &pr) != nil {
		p.t.Fatalf("%s: %s %s: %d %s, want a %d problem", p.name, method, path, status, got, want)
	}
	return pr
}

// TestOSDMProvidersAcceptDiscriminators: an objectType naming the
// object's own schema, on every object of every request body either
// provider accepts, is accepted and ignored, through a whole sale, refund
// offer, its deletion and a confirmed refund. osdm_legacy, which refuses
// members the spec does not have, still refuses an objectType naming
// another schema, and names it.
func TestOSDMProvidersAcceptDiscriminators(t *testing.T) {
	for _, p := range startOSDMProviders(t) {
		t.Run(p.name, func(t *testing.T) {
			p.t = t
			search := `{"objectType": "OfferCollectionRequest",
			  "tripSearchCriteria": {"objectType": "TripSearchCriteria",
			    "origin": {"objectType": "StopPlaceRef", "stopPlaceRef": "urn:uic:stn:8500010"},
			    "destination": {"objectType": "StopPlaceRef", "stopPlaceRef": "urn:uic:stn:8503000"},
			    "departureTime": "` + travelDay() + `T08:30:00+01:00",
			    "parameters": {"objectType": "TripParameters", "dataFilter": {"objectType": "TripDataFilter",
			      "vehicleFilter": {"objectType": "VehicleFilter", "exclude": false, "vehicleNumbers": ["708"]}}}},
			  "offerSearchCriteria": {"objectType": "OfferSearchCriteria", "travelClasses": ["SECOND"]},
			  "anonymousPassengerSpecifications": [{"objectType": "AnonymousPassengerSpecification", "externalRef": "p1", "type": "ADULT", "age": 40}]}`
			var offers osdm.OfferCollectionResponse
			p.ok("POST", "/offers", search, 200, &offers)
			if len(offers.Offers) == 0 {
				t.Fatalf("no offers: %+v", offers)
			}
			var booked osdm.BookingResponse
			p.ok("POST", "/bookings", `{"objectType": "BookingRequest",
			  "offers": [{"objectType": "OfferForBookingRequest", "offerId": "`+offers.Offers[0].OfferID+`", "passengerRefs": ["p1"]}],
			  "passengerSpecifications": [{"objectType": "PassengerSpecification", "externalRef": "p1", "type": "ADULT", "age": 40,
			    "detail": {"objectType": "PersonDetail", "firstName": "Ada", "lastName": "Lovelace"}}]}`, 200, &booked)
			b := booked.Booking
			pid := b.Passengers[0].ID
			var pax osdm.PassengerResponse
			p.ok("PATCH", "/bookings/"+b.ID+"/passengers/"+pid, `{"objectType": "Passenger", "id": "`+pid+`", "externalRef": "p1", "type": "ADULT",
			  "detail": {"objectType": "PersonDetail", "firstName": "Ada", "lastName": "King"}}`, 200, &pax)
			if pax.Passenger.Detail == nil || pax.Passenger.Detail.LastName != "King" {
				t.Errorf("passenger %+v", pax.Passenger)
			}
			for _, pr := range pax.Problems {
				if strings.Contains(pr.Detail, "objectType") {
					t.Errorf("objectType reported: %+v", pr)
				}
			}
			var ful osdm.FulfillmentCollectionResponse
			p.ok("POST", "/bookings/"+b.ID+"/fulfillments", `{"objectType": "FulfillmentPostRequest"}`, 200, &ful)
			refund := `{"objectType": "RefundOfferRequest", "fulfillmentIds": ["` + ful.Fulfillments[0].ID + `"]}`
			var ro osdm.RefundOfferCollectionResponse
			p.ok("POST", "/bookings/"+b.ID+"/refund-offers", refund, 200, &ro)

			// DELETE of a proposed refund offer: 204, and it is gone.
			p.ok("DELETE", "/bookings/"+b.ID+"/refund-offers/"+ro.RefundOffers[0].ID, "", 204, nil)
			p.problem("GET", "/bookings/"+b.ID+"/refund-offers/"+ro.RefundOffers[0].ID, "", 404)

			p.ok("POST", "/bookings/"+b.ID+"/refund-offers", refund, 200, &ro)
			rid := ro.RefundOffers[0].ID
			var confirmed osdm.RefundOfferResponse
			p.ok("PATCH", "/bookings/"+b.ID+"/refund-offers/"+rid, `{"objectType": "RefundOfferPatchRequest", "status": "CONFIRMED"}`, 200, &confirmed)
			if confirmed.RefundOffer == nil || confirmed.RefundOffer.Status != osdm.RefundConfirmed {
				t.Fatalf("confirmed %+v", confirmed.RefundOffer)
			}
			// DELETE of a confirmed refund offer: 409, and it stays.
			if pr := p.problem("DELETE", "/bookings/"+b.ID+"/refund-offers/"+rid, "", 409); pr.Code != osdm.CodeOperationNotPermitted {
				t.Errorf("DELETE of a confirmed refund offer: %+v", pr)
			}
			p.ok("GET", "/bookings/"+b.ID+"/refund-offers/"+rid, "", 200, &confirmed)
		})
	}
}

// TestOSDMLegacyRefusesForeignDiscriminator: an objectType naming another
// schema than the object's is refused, with a problem naming the one
// expected; another unknown member is refused as before.
func TestOSDMLegacyRefusesForeignDiscriminator(t *testing.T) {
	p := startOSDMProviders(t)[0]
	body := `{"objectType": "BookingRequest",
	  "tripSearchCriteria": {"origin": {"objectType": "StopPlaceRef", "stopPlaceRef": "urn:uic:stn:8500010"},
	    "destination": {"objectType": "StopPlaceRef", "stopPlaceRef": "urn:uic:stn:8503000"},
	    "departureTime": "` + travelDay() + `T08:30:00+01:00"},
	  "anonymousPassengerSpecifications": [{"externalRef": "p1", "type": "ADULT", "age": 40}]}`
	status, _, got := p.call("POST", "/offers", body, "")
	var pr osdm.Problem
	_ = json.Unmarshal(got, &pr)
	if status != 400 || len(pr.Pointers) != 1 || pr.Pointers[0].RequestPointer != "#/objectType" || !strings.Contains(pr.Detail, `"OfferCollectionRequest"`) {
		t.Errorf("foreign objectType: %d %s", status, got)
	}
}

// TestOSDMProvidersBookWhatWasOffered: each booked reservation has the id
// of the offer part it booked, and states the offer's conditions:
// refundable, exchangeable, its products (flexibility), its trip and
// legs, its price.
func TestOSDMProvidersBookWhatWasOffered(t *testing.T) {
	for _, p := range startOSDMProviders(t) {
		t.Run(p.name, func(t *testing.T) {
			p.t = t
			offers := p.search708(adult)
			if len(offers.Offers[0].ReservationOfferParts) != 1 {
				t.Fatalf("offers %+v", offers.Offers)
			}
			o := offers.Offers[0]
			op := o.ReservationOfferParts[0]
			booked := osdm.BookingResponse{Booking: p.book(o.OfferID)}
			check := func(when string, b *osdm.Booking) {
				if len(b.BookedOffers) != 1 || len(b.BookedOffers[0].Reservations) != 1 {
					t.Fatalf("%s: booked offers %+v", when, b.BookedOffers)
				}
				bo := b.BookedOffers[0]
				r := bo.Reservations[0]
				if bo.OfferID != o.OfferID || r.ID != op.ID {
					t.Errorf("%s: booked offer %s reservation %s, offered %s part %s", when, bo.OfferID, r.ID, o.OfferID, op.ID)
				}
				if r.Refundable != op.Refundable || r.Exchangeable != op.Exchangeable {
					t.Errorf("%s: booked refundable %s exchangeable %s, offered %s %s", when, r.Refundable, r.Exchangeable, op.Refundable, op.Exchangeable)
				}
				if len(bo.Products) != len(o.Products) || len(bo.Products) == 0 || bo.Products[0].ID != o.Products[0].ID ||
					bo.Products[0].Flexibility != o.Products[0].Flexibility || bo.Products[0].TravelClass != o.Products[0].TravelClass {
					t.Errorf("%s: booked products %+v, offered %+v", when, bo.Products, o.Products)
				}
				if r.Price.Amount != op.Price.Amount || r.Price.Currency != op.Price.Currency {
					t.Errorf("%s: booked price %+v, offered %+v", when, r.Price, op.Price)
				}
				if r.TripCoverage == nil || op.TripCoverage == nil || r.TripCoverage.CoveredTripID != op.TripCoverage.CoveredTripID ||
					strings.Join(r.TripCoverage.CoveredLegIDs, ",") != strings.Join(op.TripCoverage.CoveredLegIDs, ",") {
					t.Errorf("%s: booked coverage %+v, offered %+v", when, r.TripCoverage, op.TripCoverage)
				}
			}
			check("POST /bookings", booked.Booking)
			var ful osdm.FulfillmentCollectionResponse
			p.ok("POST", "/bookings/"+booked.Booking.ID+"/fulfillments", `{}`, 200, &ful)
			if refs := ful.Fulfillments[0].BookingParts; len(refs) != 1 || refs[0].ID != op.ID {
				t.Errorf("fulfilment's booking parts %+v, want %s", refs, op.ID)
			}
			var got osdm.BookingResponse
			p.ok("GET", "/bookings/"+booked.Booking.ID, "", 200, &got)
			check("GET after fulfilment", got.Booking)
		})
	}
}

// search708 searches train 708 in second class for the passengers (JSON
// items of anonymousPassengerSpecifications).
func (p *osdmProvider) search708(passengers string) osdm.OfferCollectionResponse {
	p.t.Helper()
	var offers osdm.OfferCollectionResponse
	p.ok("POST", "/offers", `{"tripSearchCriteria": {
	    "origin": {"objectType": "StopPlaceRef", "stopPlaceRef": "urn:uic:stn:8500010"},
	    "destination": {"objectType": "StopPlaceRef", "stopPlaceRef": "urn:uic:stn:8503000"},
	    "departureTime": "`+travelDay()+`T08:30:00+01:00",
	    "parameters": {"dataFilter": {"vehicleFilter": {"exclude": false, "vehicleNumbers": ["708"]}}}},
	  "offerSearchCriteria": {"travelClasses": ["SECOND"]},
	  "anonymousPassengerSpecifications": [`+passengers+`]}`, 200, &offers)
	if len(offers.Offers) == 0 || offers.Offers[0].OfferSummary == nil {
		p.t.Fatalf("%s: no offer for %s: %+v", p.name, passengers, offers)
	}
	return offers
}

// adult is the passenger of the searches that book.
const adult = `{"externalRef": "p1", "type": "ADULT", "age": 40}`

// book books offer for p1, Ada Lovelace.
func (p *osdmProvider) book(offerID string) *osdm.Booking {
	p.t.Helper()
	var booked osdm.BookingResponse
	p.ok("POST", "/bookings", `{"offers": [{"offerId": "`+offerID+`", "passengerRefs": ["p1"]}],
	  "passengerSpecifications": [{"externalRef": "p1", "type": "ADULT", "age": 40, "detail": {"firstName": "Ada", "lastName": "Lovelace"}}]}`, 200, &booked)
	return booked.Booking
}

// offerPrice is the price of the first offer of search708.
func (p *osdmProvider) offerPrice(passengers string) int64 {
	p.t.Helper()
	return p.search708(passengers).Offers[0].OfferSummary.MinimalPrice.Amount
}

// TestOSDMProvidersPassengerPerson: a PERSON pays by its age, given or
// from its date of birth on the travel day, as the typed passenger of
// that age does.
func TestOSDMProvidersPassengerPerson(t *testing.T) {
	seventy := time.Now().AddDate(-70, 0, 0).Format(time.DateOnly)
	for _, p := range startOSDMProviders(t) {
		t.Run(p.name, func(t *testing.T) {
			p.t = t
			for _, tc := range []struct{ person, typed string }{
				{`{"externalRef": "p1", "type": "PERSON", "age": 8}`, `{"externalRef": "p1", "type": "CHILD", "age": 8}`},
				{`{"externalRef": "p1", "type": "PERSON", "age": 40}`, `{"externalRef": "p1", "type": "ADULT", "age": 40}`},
				{`{"externalRef": "p1", "type": "PERSON", "dateOfBirth": "` + seventy + `"}`, `{"externalRef": "p1", "type": "SENIOR", "age": 70}`},
			} {
				if got, want := p.offerPrice(tc.person), p.offerPrice(tc.typed); got != want {
					t.Errorf("%s pays %d, %s %d", tc.person, got, tc.typed, want)
				}
			}
			child := p.offerPrice(`{"externalRef": "p1", "type": "PERSON", "age": 8}`)
			adult := p.offerPrice(`{"externalRef": "p1", "type": "PERSON", "age": 40}`)
			if child >= adult {
				t.Errorf("a PERSON of 8 pays %d, of 40 %d: not mapped by age", child, adult)
			}
		})
	}
}

// TestOSDMProvidersOverruleCodes: every overrule code of the spec is
// refunded without a fee, or (osdm_legacy, where the legacy system needs a
// reason code) refused with a problem that names the reason table.
func TestOSDMProvidersOverruleCodes(t *testing.T) {
	for _, p := range startOSDMProviders(t) {
		t.Run(p.name, func(t *testing.T) {
			p.t = t
			b := p.book(p.search708(adult).Offers[0].OfferID)
			var ful osdm.FulfillmentCollectionResponse
			p.ok("POST", "/bookings/"+b.ID+"/fulfillments", `{}`, 200, &ful)
			accepted := 0
			for _, code := range osdm.OverruleCodes {
				body := `{"fulfillmentIds": ["` + ful.Fulfillments[0].ID + `"], "overruleCode": "` + string(code) + `"}`
				status, _, got := p.call("POST", "/bookings/"+b.ID+"/refund-offers", body, "")
				switch status {
				case 200:
					var ro osdm.RefundOfferCollectionResponse
					if err := json.Unmarshal(got, &ro); err != nil || len(ro.RefundOffers) != 1 ||
						ro.RefundOffers[0].AppliedOverruleCode != code || ro.RefundOffers[0].RefundFee.Amount != 0 {
						t.Errorf("%s: refund offer %s", code, got)
					}
					accepted++
					p.ok("DELETE", "/bookings/"+b.ID+"/refund-offers/"+ro.RefundOffers[0].ID, "", 204, nil)
				case 422:
					var pr osdm.Problem
					_ = json.Unmarshal(got, &pr)
					if p.name != "osdm_legacy" || !strings.Contains(pr.Detail, "reason table") || !strings.Contains(pr.Detail, string(code)) ||
						len(pr.Pointers) != 1 || pr.Pointers[0].RequestPointer != "#/overruleCode" {
						t.Errorf("%s: refused %s", code, got)
					}
				default:
					t.Errorf("%s: %d %s", code, status, got)
				}
			}
			if want := map[string]int{"osdm_legacy": 5, "osdm_sandbox": len(osdm.OverruleCodes)}[p.name]; accepted != want {
				t.Errorf("%d overrule codes accepted, want %d", accepted, want)
			}
		})
	}
}

// TestOSDMProvidersCarrier: a trip specification that names its carrier
// gets that carrier back, in the offer's trip and in the booking's.
func TestOSDMProvidersCarrier(t *testing.T) {
	for _, p := range startOSDMProviders(t) {
		t.Run(p.name, func(t *testing.T) {
			p.t = t
			day := travelDay()
			var offers osdm.OfferCollectionResponse
			p.ok("POST", "/offers", `{"tripSpecifications": [{"legs": [{"timedLeg": {
			    "start": {"stopPlaceRef": {"objectType": "StopPlaceRef", "stopPlaceRef": "urn:uic:stn:8500010"}, "serviceDeparture": {"timetabledTime": "`+day+`T08:30:00+01:00"}},
			    "end": {"stopPlaceRef": {"objectType": "StopPlaceRef", "stopPlaceRef": "urn:uic:stn:8503000"}, "serviceArrival": {"timetabledTime": "`+day+`T11:00:00+01:00"}},
			    "service": {"vehicleNumbers": ["708"], "carriers": [{"ref": "urn:uic:rics:1187"}]}}}]}],
			  "offerSearchCriteria": {"travelClasses": ["SECOND"]},
			  "anonymousPassengerSpecifications": [{"externalRef": "p1", "type": "ADULT", "age": 40}]}`, 200, &offers)
			carrierOf := func(when string, trips []osdm.Trip) {
				if len(trips) != 1 || len(trips[0].Legs) != 1 || trips[0].Legs[0].TimedLeg == nil {
					t.Fatalf("%s: trips %+v", when, trips)
				}
				if c := trips[0].Legs[0].TimedLeg.Service.Carriers; len(c) != 1 || c[0].Ref != "urn:uic:rics:1187" {
					t.Errorf("%s: carriers %+v, want urn:uic:rics:1187", when, c)
				}
			}
			carrierOf("offer", offers.Trips)
			if len(offers.Offers) == 0 {
				t.Fatal("no offer")
			}
			var booked osdm.BookingResponse
			p.ok("POST", "/bookings", `{"offers": [{"offerId": "`+offers.Offers[0].OfferID+`", "passengerRefs": ["p1"]}],
			  "passengerSpecifications": [{"externalRef": "p1", "type": "ADULT", "age": 40, "detail": {"firstName": "Ada", "lastName": "Lovelace"}}]}`, 200, &booked)
			carrierOf("booking", booked.Booking.Trips)
		})
	}
}
