package osdmspec

import (
	"net/http"
	"testing"
)

const minimalOfferRequest = `{"anonymousPassengerSpecifications":[{"externalRef":"p1","type":"ADULT","age":30}]}`

const searchOfferRequest = `{
  "tripSearchCriteria": {
    "origin": {"objectType": "StopPlaceRef", "stopPlaceRef": "urn:uic:stn:8500010"},
    "destination": {"objectType": "StopPlaceRef", "stopPlaceRef": "urn:uic:stn:8503000"},
    "departureTime": "2026-05-04T08:30:00+02:00",
    "parameters": {"dataFilter": {"vehicleFilter": {"exclude": false, "vehicleNumbers": ["IC 708"]}}}
  },
  "anonymousPassengerSpecifications": [{"externalRef": "p1", "type": "ADULT", "age": 30}],
  "offerSearchCriteria": {"requestedOfferParts": ["RESERVATION"], "travelClasses": ["SECOND"]}
}`

func TestValidateRequestAcceptsValidOfferSearch(t *testing.T) {
	for _, v := range []Version{V39, V310} {
		for name, body := range map[string]string{"minimal": minimalOfferRequest, "search": searchOfferRequest} {
			t.Run(string(v)+"/"+name, func(t *testing.T) {
				r := &recorder{}
				ValidateRequest(r, v, http.MethodPost, "/offers", nil, []byte(body))
				if r.Failed() {
					t.Fatalf("valid request refused:\n%s", r.text())
				}
			})
		}
	}
}

func TestValidateRequestRejectsInvalidOfferSearch(t *testing.T) {
	cases := []struct {
		name  string
		body  string
		wants []string
	}{
		{"wrong type", `{"anonymousPassengerSpecifications":[{"externalRef":"p1","type":"ADULT","age":"thirty"}]}`,
			[]string{"/anonymousPassengerSpecifications/0/age"}},
		{"missing required field", `{"anonymousPassengerSpecifications":[{"type":"ADULT"}]}`,
			[]string{"/anonymousPassengerSpecifications/0", "externalRef"}},
		{"missing required top-level field", `{"offerSearchCriteria":{}}`,
			[]string{"anonymousPassengerSpecifications"}},
		{"unknown value of closed enum", `{"anonymousPassengerSpecifications":[{"externalRef":"p1","type":"ADULT"}],"offerSearchCriteria":{"requestedOfferParts":["SEATS"]}}`,
			[]string{"/offerSearchCriteria/requestedOfferParts/0"}},
		{"unknown property", `{"anonymousPassengerSpecifications":[{"externalRef":"p1","type":"ADULT","nickname":"x"}]}`,
			[]string{"/anonymousPassengerSpecifications/0", "nickname"}},
		{"bad date-time", `{"anonymousPassengerSpecifications":[{"externalRef":"p1","type":"ADULT"}],"tripSearchCriteria":{"origin":{"objectType":"StopPlaceRef","stopPlaceRef":"a"},"destination":{"objectType":"StopPlaceRef","stopPlaceRef":"b"},"departureTime":"2026-05-04 08:30"}}`,
			[]string{"/tripSearchCriteria/departureTime"}},
		{"unknown place objectType", `{"anonymousPassengerSpecifications":[{"externalRef":"p1","type":"ADULT"}],"tripSearchCriteria":{"origin":{"objectType":"Station","stopPlaceRef":"a"},"destination":{"objectType":"StopPlaceRef","stopPlaceRef":"b"}}}`,
			[]string{"/tripSearchCriteria/origin"}},
		{"place without objectType", `{"anonymousPassengerSpecifications":[{"externalRef":"p1","type":"ADULT"}],"tripSearchCriteria":{"origin":{"stopPlaceRef":"a"},"destination":{"objectType":"StopPlaceRef","stopPlaceRef":"b"}}}`,
			[]string{"/tripSearchCriteria/origin", "objectType"}},
		{"stop place ref missing its field", `{"anonymousPassengerSpecifications":[{"externalRef":"p1","type":"ADULT"}],"tripSearchCriteria":{"origin":{"objectType":"StopPlaceRef"},"destination":{"objectType":"StopPlaceRef","stopPlaceRef":"b"}}}`,
			[]string{"/tripSearchCriteria/origin", "stopPlaceRef"}},
		{"not JSON", `{"anonymousPassengerSpecifications":`, []string{"body"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			mustFail(t, func(tb testing.TB) {
				ValidateRequest(tb, V39, http.MethodPost, "/offers", nil, []byte(tc.body))
			}, tc.wants...)
		})
	}
}

func TestValidateRequestChecksHeadersAndRoutes(t *testing.T) {
	body := []byte(`{}`)
	ok := http.Header{"Content-Type": {"application/json"}, "Idempotency-Key": {"0b9d4f3e-8a51-5c1e-9d2a-3f6b7c8d9e0f"}}
	r := &recorder{}
	ValidateRequest(r, V39, http.MethodPost, "/bookings/b-1/fulfillments", ok, body)
	if r.Failed() {
		t.Fatalf("valid fulfilment request refused:\n%s", r.text())
	}
	bad := ok.Clone()
	bad.Set("Idempotency-Key", "msg-42")
	mustFail(t, func(tb testing.TB) {
		ValidateRequest(tb, V39, http.MethodPost, "/bookings/b-1/fulfillments", bad, body)
	}, "Idempotency-Key")
	mustFail(t, func(tb testing.TB) {
		ValidateRequest(tb, V39, http.MethodPost, "/trip-offers", nil, body)
	}, "no operation")
	noType := http.Header{}
	mustFail(t, func(tb testing.TB) {
		ValidateRequest(tb, V39, http.MethodPost, "/offers", noType, []byte(minimalOfferRequest))
	}, "body")
}

func TestValidateResponse(t *testing.T) {
	offers := []byte(`{"offers":[],"problems":[{"code":"urn:uic:problem:NO_OFFER","type":"https://osdm.io/errors/no_offer","title":"no offer","status":200}]}`)
	r := &recorder{}
	ValidateResponse(r, V39, http.MethodPost, "/offers", 200, nil, offers)
	if r.Failed() {
		t.Fatalf("valid response refused:\n%s", r.text())
	}
	problem := []byte(`{"code":"urn:uic:problem:BOOKING_NOT_FOUND","title":"not found","status":404,"instance":"https://osdm.example/bookings/x"}`)
	r = &recorder{}
	ValidateResponse(r, V39, http.MethodGet, "/bookings/x", 404, nil, problem)
	if r.Failed() {
		t.Fatalf("valid problem refused:\n%s", r.text())
	}
	mustFail(t, func(tb testing.TB) {
		ValidateResponse(tb, V39, http.MethodPost, "/offers", 200, nil, []byte(`{"offers":{}}`))
	}, "/offers")
	mustFail(t, func(tb testing.TB) {
		ValidateResponse(tb, V39, http.MethodGet, "/bookings/x", 404, nil, []byte(`{"status":404,"instance":"/bookings/x"}`))
	}, "/instance")
	mustFail(t, func(tb testing.TB) {
		ValidateResponse(tb, V39, http.MethodPost, "/offers", 200, http.Header{"Content-Type": {"text/plain"}}, offers)
	}, "text/plain")
}

func TestValidateSchemaAlternativeSystemProposal(t *testing.T) {
	problem := []byte(`{
	  "code": "urn:uic:problem:ALTERNATIVE_SYSTEM_PROPOSAL",
	  "type": "https://osdm.io/errors/alternative_system_proposal",
	  "title": "Offer must be requested from another system",
	  "status": 200,
	  "pointers": [{"responsePointer": "#/trips[1]/legs[1]/id"}],
	  "alternativeSystemProposals": [{
	    "reservationSystemId": 80,
	    "systemOperatorCode": "urn:uic:rics:1185",
	    "scope": [{"vehicleNumber": "462", "travelClass": "FIRST"}],
	    "priority": 1
	  }]
	}`)
	r := &recorder{}
	ValidateSchema(r, V310, "Problem", problem)
	if r.Failed() {
		t.Fatalf("valid v3.10 problem refused:\n%s", r.text())
	}
	// 3.9 has no alternativeSystemProposals and Problem is closed there.
	mustFail(t, func(tb testing.TB) { ValidateSchema(tb, V39, "Problem", problem) }, "alternativeSystemProposals")
	mustFail(t, func(tb testing.TB) {
		ValidateSchema(tb, V310, "AlternativeSystemProposal", []byte(`{"reservationSystemId":80}`))
	}, "systemOperatorCode")
	mustFail(t, func(tb testing.TB) {
		ValidateSchema(tb, V310, "AlternativeSystemProposal", []byte(`{"systemOperatorCode":"urn:uic:rics:1185","scope":[{"travelClass":"FIRST"}]}`))
	}, "/scope/0", "vehicleNumber")
	mustFail(t, func(tb testing.TB) { ValidateSchema(tb, V39, "NoSuchSchema", []byte(`{}`)) }, "NoSuchSchema")
	mustFail(t, func(tb testing.TB) { ValidateSchema(tb, "4.0", "Problem", []byte(`{}`)) }, "unknown version")
}
