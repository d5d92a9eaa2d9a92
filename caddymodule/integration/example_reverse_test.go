package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/command"
	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/harness"
	"github.com/caddy-osdm/caddy-osdm/legacy"
)

// TestExampleChainReverse runs the reverse chain of Caddyfile.example in
// process: an OSDM client with the access token of osdm-token searches at
// the hermes provider (osdm_access -> osdm_legacy -> legacy_sandbox), and
// a legacy client books and cancels through /partners/hermes (osdm_convert
// -> osdm_token -> the same provider), in XML and in JSON.
func TestExampleChainReverse(t *testing.T) {
	c := startExampleChain(t)

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
	for _, bearer := range []string{"", "Bearer " + token} {
		h := http.Header{}
		if bearer != "" {
			h.Set("Authenticate", bearer)
		}
		status, body, _ := harness.Do(t, http.MethodPost, c.hermesBase+"/osdm/offers", "application/json", search, h)
		if bearer == "" {
			if status != http.StatusUnauthorized {
				t.Fatalf("offers without a token: %d %s", status, body)
			}
			continue
		}
		var got struct {
			Offers []struct {
				OfferID string `json:"offerId"`
			} `json:"offers"`
		}
		if err := json.Unmarshal([]byte(body), &got); status != http.StatusOK || err != nil || len(got.Offers) != 1 {
			t.Fatalf("offers with the token: %d %s", status, body)
		}
	}

	for _, f := range testFormats {
		t.Run(f.String(), func(t *testing.T) {
			journey := journeyOn("9203")
			places := secondClassSeats(legacy.Tariff{Code: 1, Count: 2})
			status, r := c.send(t, "hermes", f, &legacy.AvailabilityRequest{
				Header: legacy.Header{MessageID: harness.MsgID(t, f, "a")}, Journey: journey, Places: places,
			})
			av := must[*legacy.AvailabilityReply](t, status, r, http.StatusOK)
			if len(av.Offers) != 1 || av.Offers[0].OfferRef == "" || av.Journey.TrainNumber != "9203" {
				t.Fatalf("availability %+v", av)
			}
			status, r = c.send(t, "hermes", f, &legacy.BookingRequest{
				Header: legacy.Header{MessageID: harness.MsgID(t, f, "b")}, Journey: journey, Places: places,
				OfferRef: av.Offers[0].OfferRef, Passengers: []legacy.Passenger{{FirstName: "Anna", LastName: "Muller"}},
			})
			bk := must[*legacy.BookingReply](t, status, r, http.StatusOK)
			if bk.Status != "FULFILLED" || !strings.HasPrefix(bk.BookingRef, "bk-") || len(bk.Places) != 2 || bk.TicketControlNumber == "" {
				t.Fatalf("booking %+v", bk)
			}
			status, r = c.send(t, "hermes", f, &legacy.CancelRequest{
				Header: legacy.Header{MessageID: harness.MsgID(t, f, "c")}, BookingRef: bk.BookingRef,
			})
			cr := must[*legacy.CancelReply](t, status, r, http.StatusOK)
			if cr.Status != "REFUNDED" || cr.BookingRef != bk.BookingRef || cr.RefundAmount == nil {
				t.Fatalf("cancel %+v", cr)
			}
		})
	}
}
