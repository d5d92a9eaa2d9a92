package legacyprovider

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/harness"
	"github.com/caddy-osdm/caddy-osdm/internal/osdmspec"
	"github.com/caddy-osdm/caddy-osdm/internal/redistest"
	"github.com/caddy-osdm/caddy-osdm/legacysandbox"
)

// startJourneyChain is a legacyChain over harness.ChangeGTFS (no direct
// train from Paris Est to Basel SBB, every journey changes at
// Strasbourg), with osdm_legacy's timeout at 2s.
func startJourneyChain(t *testing.T, transfers bool, extra string, sbcfg legacysandbox.Config) *legacyChain {
	t.Helper()
	return startChainOver(t, func(dir string) string { return harness.ChangeGTFS(t, dir, transfers) }, "2s", extra, sbcfg)
}

// journeySearch is a search from Paris Est to Basel SBB on the travel day
// from at (HH:MM, +01:00), second class, for an adult and a child.
func journeySearch(at string) string {
	return `{"tripSearchCriteria": {"origin": {"objectType": "StopPlaceRef", "stopPlaceRef": "urn:uic:stn:8711300"},
	  "destination": {"objectType": "StopPlaceRef", "stopPlaceRef": "urn:uic:stn:8500010"},
	  "departureTime": "` + harness.TravelDay + `T` + at + `:00+01:00"},
	 "offerSearchCriteria": {"travelClasses": ["SECOND"]},
	 "anonymousPassengerSpecifications": [{"externalRef": "p1", "type": "ADULT", "age": 40}, {"externalRef": "p2", "type": "CHILD", "age": 7}]}`
}

// journeySpec is a trip specification of the given legs, second class,
// for an adult and a child.
func journeySpec(legs ...string) string {
	return `{"tripSpecifications": [{"externalRef": "outward", "legs": [` + strings.Join(legs, ",") + `]}],
	 "offerSearchCriteria": {"travelClasses": ["SECOND"]},
	 "anonymousPassengerSpecifications": [{"externalRef": "p1", "type": "ADULT", "age": 40}, {"externalRef": "p2", "type": "CHILD", "age": 7}]}`
}

// journeyLeg is a timed leg of train from one UIC station to another at
// HH:MM (+01:00) on the travel day.
func journeyLeg(train, from, dep, to, arr string) string {
	at := func(hm string) string { return harness.TravelDay + "T" + hm + ":00+01:00" }
	return osdmspec.TimedLeg("1187", train, from, at(dep), to, at(arr))
}

// Station codes of harness.ChangeGTFS.
const (
	parisEst   = "8711300"
	strasbourg = "8721202"
	baselSBB   = "8500010"
)

// do310 is bkClient.do with the request and answer checked against OSDM
// 3.10 (a problem with alternativeSystemProposals is 3.10's).
func (c *bkClient) do310(method, path, body string) (int, http.Header, []byte) {
	c.t.Helper()
	client := harness.OSDMClient{Base: c.base + "/osdm", Version: osdmspec.V310,
		Header: http.Header{"Authorization": {"Bearer " + bkAccessToken}}}
	a := client.Send(c.t, method, path, body, nil)
	osdmspec.ValidateResponse(c.t, osdmspec.V310, method, path, a.Status, a.Header, a.Body)
	return a.Status, a.Header, a.Body
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

// redisForJourneys is the shared test Redis (OSDM_TEST_REDIS), or a skip.
func redisForJourneys(t *testing.T) string { return redistest.Shared(t) }
