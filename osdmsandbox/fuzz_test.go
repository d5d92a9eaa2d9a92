package osdmsandbox_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/caddy-osdm/caddy-osdm/osdm"
	"github.com/caddy-osdm/caddy-osdm/osdmsandbox"
)

// FuzzServe sends arbitrary requests: the sandbox must answer every one
// with JSON (or 204 without a body) and a status it documents, never panic.
func FuzzServe(f *testing.F) {
	search, _ := json.Marshal(offerRequest("708", nil, adult("p1"), child("p2")))
	booking, _ := json.Marshal(bookingRequest(osdm.Offer{OfferID: "o-1", PassengerRefs: []string{"p1"}}))
	f.Add(uint8(1), "/offers", "", search)
	f.Add(uint8(1), "/bookings", "", booking)
	f.Add(uint8(0), "/trip-offers", "originCode=8500010&destinationCode=8503000&departureTime=2026-12-01T08:30:00%2B01:00&vehicleNumbers=402&passenger=p1,ADULT,30", []byte(nil))
	f.Add(uint8(2), "/bookings/b-1/refundOffers/ro-1", "", []byte(`{"status":"CONFIRMED"}`))
	f.Add(uint8(3), "/x/bookings/b-1", "", []byte(nil))
	f.Add(uint8(1), "/offers", "", []byte(`{"tripSearchCriteria":{"origin":{"objectType":"StopPlaceRef","stopPlaceRef":"urn:uic:stn:8500010"},"destination":{"objectType":"StopPlaceRef","stopPlaceRef":"urn:uic:stn:8503000"},"arrivalTime":"2999-12-31T23:59:00-14:00"},"anonymousPassengerSpecifications":[{"externalRef":"a","type":"X"}]}`))
	f.Add(uint8(2), "/bookings/b-1/passengers/pax-1", "", []byte(`{"detail":{"firstName":"A","lastName":"B","contact":{"email":"a@b.c"}},"gender":"X"}`))
	f.Add(uint8(3), "/bookings/b-1/refund-offers/ro-1", "", []byte(nil))
	f.Add(uint8(2), "/bookings/b-1", "", []byte(`{}`))
	f.Add(uint8(1), "/offers", "", []byte(`{"tripSpecifications":[{"legs":[{"timedLeg":{"start":{"stopPlaceRef":{"objectType":"StopPlaceRef","stopPlaceRef":"urn:uic:stn:8500010"},"serviceDeparture":{"timetabledTime":"2026-12-01T08:30"}},"end":{"stopPlaceRef":{"objectType":"StopPlaceRef","stopPlaceRef":"urn:uic:stn:8503000"},"serviceArrival":{"timetabledTime":"2026-12-01T11:00"}},"service":{"vehicleNumbers":["708"]}}}]}],"anonymousPassengerSpecifications":[{"externalRef":"a","type":"ADULT"}]}`))
	methods := []string{http.MethodGet, http.MethodPost, http.MethodPatch, http.MethodDelete}
	documented := map[int]bool{200: true, 204: true, 400: true, 404: true, 405: true, 409: true, 413: true, 415: true, 422: true, 501: true}
	f.Fuzz(func(t *testing.T, method uint8, path, query string, body []byte) {
		sb, err := osdmsandbox.New(osdmsandbox.Config{Capacity: 3})
		if err != nil {
			t.Fatal(err)
		}
		req := &http.Request{
			Method: methods[int(method)%len(methods)],
			URL:    &url.URL{Path: path, RawQuery: query},
			Header: http.Header{"Content-Type": {"application/json"}},
			Body:   io.NopCloser(bytes.NewReader(body)),
		}
		rec := httptest.NewRecorder()
		sb.ServeHTTP(rec, req)
		switch {
		case !documented[rec.Code]:
			t.Fatalf("%s %s: status %d: %s", req.Method, path, rec.Code, rec.Body)
		case rec.Code == http.StatusNoContent:
			if rec.Body.Len() != 0 {
				t.Fatalf("204 with a body %q", rec.Body)
			}
		case !json.Valid(rec.Body.Bytes()):
			t.Fatalf("%s %s: %d not JSON: %q", req.Method, path, rec.Code, rec.Body)
		}
	})
}
