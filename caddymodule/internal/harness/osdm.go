package harness

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/caddy-osdm/caddy-osdm/internal/osdmspec"
)

// PostOSDM sends an OSDM request to base+path (checked against the spec)
// and returns the answer (checked too). It carries credentials that must
// never reach a log: an Authorization bearer and a cookie.
func PostOSDM(t testing.TB, base, path string, body string, version osdmspec.Version) (int, http.Header, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, base+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer secret-access-token-xyz")
	req.Header.Set("Cookie", "session=secret-cookie")
	req.Header.Set("Accept-Encoding", "br, gzip")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, _ := io.ReadAll(resp.Body)
	osdmspec.ValidateResponse(t, version, http.MethodPost, path, resp.StatusCode, resp.Header, got)
	return resp.StatusCode, resp.Header, got
}

// OfferSearch is the body of an offer search from Paris Nord to
// Bruxelles-Midi at at, for two passengers, in classes (JSON strings),
// for the train numbers in train (JSON) if any.
func OfferSearch(train, at string, classes string) string {
	filter := ""
	if train != "" {
		filter = `, "parameters": {"dataFilter": {"vehicleFilter": {"exclude": false, "vehicleNumbers": [` + train + `]}}}`
	}
	return `{"tripSearchCriteria": {"origin": {"objectType": "StopPlaceRef", "stopPlaceRef": "urn:uic:stn:8727100"},
	  "destination": {"objectType": "StopPlaceRef", "stopPlaceRef": "urn:uic:stn:8814001"},
	  "departureTime": "` + at + `"` + filter + `},
	 "offerSearchCriteria": {"travelClasses": [` + classes + `]},
	 "anonymousPassengerSpecifications": [{"externalRef": "p1", "type": "ADULT", "age": 40}, {"externalRef": "p2", "type": "CHILD", "age": 7}]}`
}
