package integration

import (
	"bytes"
	"context"
	"maps"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/command"
	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/harness"
	"github.com/caddy-osdm/caddy-osdm/legacy"
)

// TestLegacySystemGetsNoConsumerCredentials runs Caddyfile.example's
// reverse chain (osdm_access -> osdm_legacy -> reverse_proxy with
// transport osdm -> the legacy system) and reads what the legacy system
// received, from its own access log: an OSDM consumer's search with its
// access token in Authenticate, and Authorization and a cookie besides,
// and a legacy booking through /partners/hermes (osdm_convert ->
// osdm_token -> the same provider) reach the legacy system as legacy
// messages without any of the consumer's headers: no Authenticate, no
// Authorization, no Cookie.
func TestLegacySystemGetsNoConsumerCredentials(t *testing.T) {
	legacyLog := filepath.Join(t.TempDir(), "legacy-access.log")
	c := startExampleChainWith(t, chainOptions{edit: func(cf string) string {
		site := "http://127.0.0.1:8090 {\n\tbind 127.0.0.1\n"
		if strings.Count(cf, site) != 1 {
			t.Fatalf("Caddyfile.example no longer has the legacy sandbox site this test edits")
		}
		return strings.Replace(cf, site, site+"\tlog {\n\t\toutput file "+legacyLog+"\n\t\tformat json\n\t}\n", 1)
	}})

	var out bytes.Buffer
	err := command.RunToken(context.Background(), command.TokenOptions{
		TokenURL: c.hermesBase + "/oauth/token", KeyFile: filepath.Join(c.keyDir, "hermes.pem"), Kid: "hermes-demo-1",
		Issuer: "https://reservations.example-railway.eu", Subject: "example-railway",
	}, &out)
	if err != nil {
		t.Fatal(err)
	}
	token := strings.TrimSpace(out.String())
	day := time.Now().AddDate(0, 0, 7).Format(time.DateOnly)
	search := `{"tripSearchCriteria": {"origin": {"objectType": "StopPlaceRef", "stopPlaceRef": "urn:uic:stn:8727100"},
	  "destination": {"objectType": "StopPlaceRef", "stopPlaceRef": "urn:uic:stn:8500010"}, "departureTime": "` + day + `T06:00:00+01:00",
	  "parameters": {"dataFilter": {"vehicleFilter": {"exclude": false, "vehicleNumbers": ["9203"]}}}},
	 "offerSearchCriteria": {"travelClasses": ["SECOND"]},
	 "anonymousPassengerSpecifications": [{"externalRef": "p1", "type": "ADULT", "age": 40}]}`
	h := http.Header{
		"Authenticate":  {"Bearer " + token},
		"Authorization": {"Basic Y29uc3VtZXI6c2VjcmV0"},
		"Cookie":        {"session=consumer-session-secret"},
	}
	if status, body, _ := harness.Do(t, http.MethodPost, c.hermesBase+"/osdm/offers", "application/json", search, h); status != http.StatusOK {
		t.Fatalf("offers: %d %s", status, body)
	}
	journey, places := journeyOn("9203"), secondClassSeats(legacy.Tariff{Code: 1, Count: 1})
	status, r := c.send(t, "hermes", legacy.XML, &legacy.AvailabilityRequest{
		Header: legacy.Header{MessageID: "CRED-a"}, Journey: journey, Places: places,
	})
	av := must[*legacy.AvailabilityReply](t, status, r, http.StatusOK)
	status, r = c.send(t, "hermes", legacy.XML, &legacy.BookingRequest{
		Header: legacy.Header{MessageID: "CRED-b"}, Journey: journey, Places: places,
		OfferRef: av.Offers[0].OfferRef, Passengers: []legacy.Passenger{{FirstName: "Anna", LastName: "Muller"}},
	})
	must[*legacy.BookingReply](t, status, r, http.StatusOK)

	type line struct {
		Msg     string `json:"msg"`
		Request struct {
			Method  string              `json:"method"`
			Headers map[string][]string `json:"headers"`
		} `json:"request"`
	}
	// The access line is written after the answer: wait for the three
	// messages (a search, and the availability and booking requests).
	var lines []line
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
		lines = lines[:0]
		for _, l := range harness.JSONLines[line](t, legacyLog) {
			if l.Msg == "handled request" && l.Request.Method == http.MethodPost {
				lines = append(lines, l)
			}
		}
		if len(lines) >= 3 || time.Now().After(deadline) {
			break
		}
	}
	if len(lines) < 3 {
		t.Fatalf("the legacy system's access log has %d messages, want 3 or more:\n%s", len(lines), harness.ReadFiles(t, legacyLog))
	}
	for _, l := range lines {
		for name := range l.Request.Headers {
			switch strings.ToLower(name) {
			case "authenticate", "authorization", "cookie", "proxy-authorization":
				t.Errorf("the legacy system received %s (headers %v)", name, slices.Sorted(maps.Keys(l.Request.Headers)))
			}
		}
	}
	logs := string(harness.ReadFiles(t, legacyLog))
	for _, secret := range []string{token[strings.LastIndexByte(token, '.')+1:], "Y29uc3VtZXI6c2VjcmV0", "consumer-session-secret"} {
		if strings.Contains(logs, secret) {
			t.Errorf("the legacy system's log holds a credential of the consumer's (%d bytes)", len(secret))
		}
	}
}
