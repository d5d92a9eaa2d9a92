package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/command"
	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/harness"
	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/opstatus"
)

// TestAdminAPI runs Caddyfile.example with its admin endpoint and asks
// admin.api.osdm, while bookings run in both directions: each partner's
// token (never the token) and calls, a partner outage and its recovery;
// a booking found by its BookingRef, its messageId and its OSDM id in
// either direction, names masked; a held booking listed as pending, and
// settlement run on demand; the stores checked; nothing of it on the
// public sites.
func TestAdminAPI(t *testing.T) {
	adminPort := harness.FreePort(t)
	admin := fmt.Sprintf("http://127.0.0.1:%d", adminPort)
	c := startExampleChainWith(t, chainOptions{edit: func(s string) string {
		return strings.Replace(s, "admin localhost:2019", fmt.Sprintf("admin 127.0.0.1:%d", adminPort), 1)
	}})

	// A booking legacy -> OSDM (alpine), and one that crosses both
	// directions (hermes: osdm_convert -> osdm_legacy -> legacy sandbox).
	journey := journeyOn("9203")
	places := secondClassSeats(legacy.Tariff{Code: 1, Count: 1})
	book := func(partner, id string) *legacy.BookingReply {
		status, r := c.send(t, partner, legacy.XML, &legacy.AvailabilityRequest{Header: legacy.Header{MessageID: id + "-a"}, Journey: journey, Places: places})
		av := must[*legacy.AvailabilityReply](t, status, r, http.StatusOK)
		status, r = c.send(t, partner, legacy.XML, &legacy.BookingRequest{
			Header: legacy.Header{MessageID: id + "-b"}, Journey: journey, Places: places,
			OfferRef: av.Offers[0].OfferRef, Passengers: []legacy.Passenger{{FirstName: "Anna", LastName: "Muller"}},
		})
		return must[*legacy.BookingReply](t, status, r, http.StatusOK)
	}
	alpine := book("alpine", "adm-alpine")
	hermes := book("hermes", "adm-hermes")

	var partners []opstatus.Partner
	body := adminGet(t, admin+"/osdm/partners", http.StatusOK, &partners)
	byName := map[string]opstatus.Partner{}
	for _, p := range partners {
		byName[p.Partner] = p
	}
	for _, name := range []string{"alpine", "coastal", "hermes"} {
		p := byName[name]
		if p.Token == nil || !p.Token.Valid || p.Token.Obtained.IsZero() || !p.Token.Expires.After(time.Now()) || p.Calls == nil {
			t.Fatalf("partner %s: %+v (token %+v) in %s", name, p, p.Token, body)
		}
	}
	if got := byName["alpine"].Calls.Total; got < 3 {
		t.Errorf("alpine has %d calls, want the priming search, the availability and the booking", got)
	}
	bearer := strings.TrimPrefix(c.alpine.bearer, "Bearer ")
	if bearer == "" || strings.Contains(body, bearer) {
		t.Fatalf("partners answer holds the access token (or the tap saw none: %q)", bearer)
	}

	// The partner goes away, then comes back.
	c.alpine.setFail(func(*http.Request) bool { return true })
	status, r := c.send(t, "alpine", legacy.XML, &legacy.AvailabilityRequest{Header: legacy.Header{MessageID: "adm-down"}, Journey: journey, Places: places})
	if _, ok := r.(*legacy.NegativeReply); !ok || status < 500 {
		t.Fatalf("availability with the partner down: %d %+v", status, r)
	}
	c.alpine.setFail(nil)
	adminGet(t, admin+"/osdm/partners", http.StatusOK, &partners)
	for _, p := range partners {
		if p.Partner == "alpine" && (p.Calls.LastError == "" || p.Calls.LastErrorAt.IsZero() || p.Calls.InFlight != 0) {
			t.Fatalf("after the outage, alpine: %+v", p.Calls)
		}
	}
	status, r = c.send(t, "alpine", legacy.XML, &legacy.AvailabilityRequest{Header: legacy.Header{MessageID: "adm-up"}, Journey: journey, Places: places})
	must[*legacy.AvailabilityReply](t, status, r, http.StatusOK)

	// A booking, by each of its references.
	for _, ref := range []string{alpine.BookingRef, "adm-alpine-b"} {
		var recs []opstatus.Record
		adminGet(t, admin+"/osdm/bookings/"+ref, http.StatusOK, &recs)
		if len(recs) != 1 || recs[0].Direction != opstatus.LegacyToOSDM || recs[0].Partner != "alpine" ||
			!strings.Contains(strings.Join(recs[0].Refs["message"], " "), "adm-alpine-b") || recs[0].Refs["booking_ref"][0] != alpine.BookingRef {
			t.Fatalf("booking %s: %+v", ref, recs)
		}
	}
	var recs []opstatus.Record
	body = adminGet(t, admin+"/osdm/bookings/"+hermes.BookingRef, http.StatusOK, &recs)
	directions := map[string]opstatus.Record{}
	for _, rec := range recs {
		directions[rec.Direction] = rec
	}
	if len(recs) != 2 || directions[opstatus.OSDMToLegacy].State != "FULFILLED" || directions[opstatus.LegacyToOSDM].Partner != "hermes" {
		t.Fatalf("the hermes booking in both directions: %s", body)
	}
	if p := directions[opstatus.OSDMToLegacy].Passengers; len(p) != 1 || p[0] != "A*** M*****" || strings.Contains(body, "Muller") {
		t.Fatalf("names not masked: %s", body)
	}
	legacyRef := directions[opstatus.OSDMToLegacy].Refs["booking_ref"][0]
	adminGet(t, admin+"/osdm/bookings/"+legacyRef, http.StatusOK, &recs)
	if len(recs) != 1 || recs[0].Refs["booking"][0] != hermes.BookingRef {
		t.Fatalf("by the legacy system's BookingRef %s: %+v", legacyRef, recs)
	}
	adminGet(t, admin+"/osdm/bookings/no-such-booking", http.StatusNotFound, nil)

	// A booking held at hermes and not confirmed: pending, then settled
	// on demand (a hold not yet run out stays).
	booked, h := holdAtHermes(t, c, journey.DepartureDate)
	var pending []opstatus.Pending
	body = adminGet(t, admin+"/osdm/pending", http.StatusOK, &pending)
	held := false
	for _, p := range pending {
		held = held || (p.Kind == "hold" && p.Ref == booked && p.Direction == opstatus.OSDMToLegacy && p.NextAttempt.After(time.Now()))
	}
	if !held || strings.Contains(body, "Lovelace") {
		t.Fatalf("pending does not list the held booking %s (or shows a name): %s", booked, body)
	}
	var settled struct {
		Ran           []struct{ Job string } `json:"ran"`
		PendingBefore int                    `json:"pending_before"`
		PendingAfter  int                    `json:"pending_after"`
	}
	body = adminDo(t, http.MethodPost, admin+"/osdm/settle", http.StatusOK, &settled)
	if len(settled.Ran) < 4 || settled.PendingBefore < 1 || settled.PendingAfter < 1 {
		t.Fatalf("settle: %s", body)
	}
	adminDo(t, http.MethodGet, admin+"/osdm/settle", http.StatusMethodNotAllowed, nil)
	adminDo(t, http.MethodPost, admin+"/osdm/pending", http.StatusMethodNotAllowed, nil)

	var stores []struct {
		Engine, Where, Check string
		Open                 bool
	}
	body = adminGet(t, admin+"/osdm/stores", http.StatusOK, &stores)
	if len(stores) == 0 {
		t.Fatalf("stores: %s", body)
	}
	for _, s := range stores {
		if s.Engine != "bolt" || !s.Open || s.Check != "ok" {
			t.Fatalf("stores: %s", body)
		}
	}

	// caddy osdm-status, as an operator runs it.
	var table strings.Builder
	if err := command.RunStatus(command.StatusOptions{Address: fmt.Sprintf("127.0.0.1:%d", adminPort), Views: []string{"partners", "pending", "stores"}}, &table); err != nil {
		t.Fatalf("osdm-status: %v\n%s", err, table.String())
	}
	for _, want := range []string{"PARTNER", "alpine", "valid", "hold", booked, "bolt", "ok"} {
		if !strings.Contains(table.String(), want) {
			t.Errorf("osdm-status does not show %q:\n%s", want, table.String())
		}
	}
	table.Reset()
	if err := command.RunStatus(command.StatusOptions{Address: fmt.Sprintf("127.0.0.1:%d", adminPort), Views: []string{"booking"}, Ref: hermes.BookingRef}, &table); err != nil ||
		!strings.Contains(table.String(), "A*** M*****") || strings.Contains(table.String(), "Muller") {
		t.Errorf("osdm-status booking: %v\n%s", err, table.String())
	}
	if err := command.RunStatus(command.StatusOptions{Address: fmt.Sprintf("127.0.0.1:%d", adminPort), Views: []string{"booking"}, Ref: "nothing-here"}, io.Discard); err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("osdm-status booking of nothing: %v", err)
	}
	if strings.Contains(table.String(), bearer) {
		t.Fatal("osdm-status shows the access token")
	}

	// Not on the public sites.
	for _, base := range []string{strings.TrimSuffix(c.legacyBase, "/partners/"), c.hermesBase} {
		status, b, _ := harness.Do(t, http.MethodGet, base+"/osdm/partners", "", "", h)
		if status == http.StatusOK || strings.Contains(b, `"token_url"`) {
			t.Fatalf("%s/osdm/partners on a public site: %d %s", base, status, b)
		}
	}
}

// holdAtHermes books train 9203 on day at the hermes provider (osdm_legacy)
// as an OSDM client does, without confirming it: its places stay held. It
// returns the booking id and the client's credentials.
func holdAtHermes(t *testing.T, c *exampleChain, day string) (string, http.Header) {
	t.Helper()
	var out strings.Builder
	if err := command.RunToken(context.Background(), command.TokenOptions{
		TokenURL: c.hermesBase + "/oauth/token", KeyFile: filepath.Join(c.keyDir, "hermes.pem"), Kid: "hermes-demo-1",
		Issuer: "https://reservations.example-railway.eu", Subject: "example-railway",
	}, &out); err != nil {
		t.Fatal(err)
	}
	h := http.Header{"Authenticate": {"Bearer " + strings.TrimSpace(out.String())}}
	search := `{"tripSearchCriteria": {"origin": {"objectType": "StopPlaceRef", "stopPlaceRef": "urn:uic:stn:8727100"},
	  "destination": {"objectType": "StopPlaceRef", "stopPlaceRef": "urn:uic:stn:8500010"}, "departureTime": "` + day + `T06:00:00+01:00",
	  "parameters": {"dataFilter": {"vehicleFilter": {"exclude": false, "vehicleNumbers": ["9203"]}}}},
	 "anonymousPassengerSpecifications": [{"externalRef": "p1", "type": "ADULT", "age": 40}]}`
	status, b, _ := harness.Do(t, http.MethodPost, c.hermesBase+"/osdm/offers", "application/json", search, h)
	var offers struct {
		Offers []struct {
			OfferID string `json:"offerId"`
		} `json:"offers"`
	}
	if err := json.Unmarshal([]byte(b), &offers); status != http.StatusOK || err != nil || len(offers.Offers) == 0 {
		t.Fatalf("offers: %d %s", status, b)
	}
	status, b, _ = harness.Do(t, http.MethodPost, c.hermesBase+"/osdm/bookings", "application/json", `{"offers": [{"offerId": "`+offers.Offers[0].OfferID+`", "passengerRefs": ["p1"]}],
	  "passengerSpecifications": [{"externalRef": "p1", "type": "ADULT", "age": 40, "detail": {"firstName": "Ada", "lastName": "Lovelace"}}]}`, h)
	var booked struct {
		Booking struct {
			ID string `json:"id"`
		} `json:"booking"`
	}
	if err := json.Unmarshal([]byte(b), &booked); status != http.StatusOK || err != nil || booked.Booking.ID == "" {
		t.Fatalf("booking: %d %s", status, b)
	}
	return booked.Booking.ID, h
}

// adminGet is adminDo with GET.
func adminGet(t *testing.T, url string, want int, v any) string {
	t.Helper()
	return adminDo(t, http.MethodGet, url, want, v)
}

// adminDo calls the admin API, wants status want, and decodes the answer
// into v (when not nil); it returns the answer's body.
func adminDo(t *testing.T, method, url string, want int, v any) string {
	t.Helper()
	status, body, _ := harness.Do(t, method, url, "", "", nil)
	if status != want {
		t.Fatalf("%s %s: %d %s, want %d", method, url, status, body, want)
	}
	if v != nil {
		if err := json.Unmarshal([]byte(body), v); err != nil {
			t.Fatalf("%s %s: %v in %s", method, url, err, body)
		}
	}
	return body
}
