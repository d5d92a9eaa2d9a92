package integration

import (
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/harness"
	"github.com/caddy-osdm/caddy-osdm/internal/osdmspec"
	"github.com/caddy-osdm/caddy-osdm/internal/redistest"
	"github.com/caddy-osdm/caddy-osdm/legacysandbox"
	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// The tests of this file drive both OSDM providers behind osdm_access in a
// real Caddy, with two clients of its osdm_login: a booking and everything
// that hangs off it is the client's that made it.

// ownedProviders is a Caddy whose login service knows clients alpine and
// coastal, with osdm_legacy (in front of the legacy sandbox) at /legacy
// and osdm_sandbox at /osdm, both behind osdm_access.
type ownedProviders struct {
	base   string
	legacy *legacysandbox.Sandbox
	// tokens are the access tokens of alpine and coastal.
	tokens map[string]string
}

// startOwnedProviders starts the Caddy of ownedProviders; osdm_legacy
// keeps its bookings in a bolt file, or in Redis when redis is set.
func startOwnedProviders(t *testing.T, redis string) *ownedProviders {
	f := harness.NewProvFixture(t)
	sb, err := legacysandbox.New(legacysandbox.Config{})
	if err != nil {
		t.Fatal(err)
	}
	legacyAddr := harness.ServeLocal(t, sb)
	store := "store bolt " + filepath.Join(t.TempDir(), "legacy.db")
	var options []string
	if redis != "" {
		store = "store owned"
		options = append(options, "\tosdm {\n\t\tstore owned redis {\n\t\t\taddresses "+redis+
			"\n\t\t\taccept_volatile\n\t\t\tprefix osdm-owned-it/"+harness.RandomHex(8)+"/\n\t\t}\n\t}\n")
	}
	access := fmt.Sprintf("\t\tosdm_access {\n\t\t\tissuer %s\n\t\t\taudience %s\n\t\t}\n", harness.ProvIssuer, harness.ProvIssuer)
	base := harness.ServeSite(t, harness.Options(options...), func(port int) string {
		return f.LoginRoute(f.AlpineClient()+
			"\t\t\tclient coastal {\n\t\t\t\tkey coa-1 "+f.Path("coastal.pub")+"\n\t\t\t}\n") +
			"\troute /legacy/* {\n" + access + "\t\turi strip_prefix /legacy\n\t\tosdm_legacy {\n\t\t\tpartner hermes-test\n\t\t\ttimeout 2s\n\t\t\t" + store +
			"\n\t\t}\n\t\treverse_proxy " + legacyAddr + " {\n\t\t\ttransport osdm\n\t\t}\n\t}\n" +
			"\troute /osdm/* {\n" + access + "\t\tosdm_sandbox {\n\t\t\tcapacity 4\n\t\t\toffer_ttl 15m\n\t\t\ttrain 708 08:30 11:00\n\t\t\ttrain 709 09:30 12:00\n\t\t}\n\t}\n"
	})
	p := &ownedProviders{base: base, legacy: sb, tokens: map[string]string{}}
	now := time.Now()
	for client, identity := range map[string]string{
		"alpine":  f.AlpineToken(now),
		"coastal": f.Identity(jwt.SigningMethodEdDSA, f.Coastal, "coastal", "coa-1", now, nil),
	} {
		status, body, _ := harness.Do(t, http.MethodPost, base+"/oauth/token", harness.FormType, harness.BearerForm(identity).Encode(), nil)
		var tok struct {
			AccessToken string `json:"access_token"`
		}
		if status != http.StatusOK || json.Unmarshal([]byte(body), &tok) != nil || tok.AccessToken == "" {
			t.Fatalf("token of %s: %d %s", client, status, body)
		}
		p.tokens[client] = tok.AccessToken
	}
	return p
}

// ownedClient is one client calling one provider.
type ownedClient struct {
	t      *testing.T
	name   string // the client
	client harness.OSDMClient
}

// as is client calling the provider under prefix (/legacy, /osdm).
func (p *ownedProviders) as(t *testing.T, client, prefix string) *ownedClient {
	return &ownedClient{t: t, name: client, client: harness.OSDMClient{
		Base: p.base + prefix, Version: osdmspec.V39,
		Header: http.Header{"Authenticate": {"Bearer " + p.tokens[client]}},
	}}
}

// call sends one call (with key as Idempotency-Key, if any), its answer
// checked against the spec.
func (c *ownedClient) call(method, path, body, key string) harness.OSDMAnswer {
	c.t.Helper()
	h := http.Header{}
	if key != "" {
		h.Set(osdm.HeaderIdempotencyKey, key)
	}
	return c.client.Do(c.t, method, path, body, h)
}

// ok calls and decodes an answer of status want into v.
func (c *ownedClient) ok(method, path, body string, want int, v any) {
	c.t.Helper()
	key := ""
	if op, found := osdm.LookupSpec(method, path); found && op.Idempotent {
		key = uuid.NewString()
	}
	c.call(method, path, body, key).Decode(c.t, want, v)
}

// idSpelling matches the ids an answer may name, so that two problems
// about two different ids compare equal.
var idSpelling = regexp.MustCompile(`[A-Za-z]+-[A-Za-z0-9_-]{4,}`)

// notFound fails the test unless the call answers the 404 an unknown id
// gets: same status, same problem code and title, same detail but for the
// id, and same headers that matter; it returns the problem's code.
func (c *ownedClient) notFound(what string, a, unknown harness.OSDMAnswer) {
	c.t.Helper()
	if a.Status != http.StatusNotFound {
		c.t.Errorf("%s by %s: %d %s, want 404 as for an unknown id", what, c.name, a.Status, a.Body)
		return
	}
	var got, want osdm.Problem
	if json.Unmarshal(a.Body, &got) != nil || json.Unmarshal(unknown.Body, &want) != nil {
		c.t.Fatalf("%s: problems %s / %s", what, a.Body, unknown.Body)
	}
	if unknown.Status != http.StatusNotFound || got.Code != want.Code || got.Title != want.Title ||
		idSpelling.ReplaceAllString(got.Detail, "ID") != idSpelling.ReplaceAllString(want.Detail, "ID") ||
		a.Header.Get("Content-Type") != unknown.Header.Get("Content-Type") {
		c.t.Errorf("%s by %s: %d %s\nan unknown id: %d %s", what, c.name, a.Status, a.Body, unknown.Status, unknown.Body)
	}
}

// otherID is id with its last characters changed: an id of the same form
// that names nothing.
func otherID(id string) string {
	if len(id) < 4 {
		return id + "x"
	}
	return id[:len(id)-4] + "zzzz"
}

// searchBody708 is the search of train 708 (or another) in second class
// for one adult.
func searchBody708(train string) string {
	return `{"tripSearchCriteria": {
	    "origin": {"objectType": "StopPlaceRef", "stopPlaceRef": "urn:uic:stn:8500010"},
	    "destination": {"objectType": "StopPlaceRef", "stopPlaceRef": "urn:uic:stn:8503000"},
	    "departureTime": "` + travelDay() + `T08:30:00+01:00",
	    "parameters": {"dataFilter": {"vehicleFilter": {"exclude": false, "vehicleNumbers": ["` + train + `"]}}}},
	  "offerSearchCriteria": {"travelClasses": ["SECOND"]},
	  "anonymousPassengerSpecifications": [{"externalRef": "p1", "type": "ADULT", "age": 40}]}`
}

// bookingBody books offerID for p1, Ada Lovelace.
func bookingBody(offerID string) string {
	return `{"offers": [{"offerId": "` + offerID + `", "passengerRefs": ["p1"]}],
	  "passengerSpecifications": [{"externalRef": "p1", "type": "ADULT", "age": 40, "detail": {"firstName": "Ada", "lastName": "Lovelace"}}]}`
}

// TestBookingsBelongToTheirClient: client alpine books (with an
// Idempotency-Key), fulfils, quotes a refund; client coastal, with a valid
// token of its own, gets on each of them the 404 an unknown id gets, and
// changes nothing: not the booking (GET), its fulfilment (GET, both
// paths), its passenger (GET, PATCH: the legacy system gets no
// PassengerDataRequest), its refund offers (POST, GET, confirming
// alpine's), its exchange offers, alpine's offers (booking one), nor
// alpine's Idempotency-Key (coastal reusing it gets no replay of alpine's
// booking). Alpine then does all of it. On both providers; osdm_legacy on
// bolt and on Redis.
func TestBookingsBelongToTheirClient(t *testing.T) {
	for _, store := range []string{"bolt", "redis"} {
		t.Run(store, func(t *testing.T) {
			redis := ""
			if store == "redis" {
				redis = redistest.Shared(t)
			}
			p := startOwnedProviders(t, redis)
			for _, prefix := range []string{"/legacy", "/osdm"} {
				if store == "redis" && prefix == "/osdm" {
					continue // osdm_sandbox keeps nothing in a store
				}
				t.Run(strings.TrimPrefix(prefix, "/"), func(t *testing.T) {
					ownership(t, p, prefix)
				})
			}
		})
	}
}

// ownership is TestBookingsBelongToTheirClient on the provider at prefix.
func ownership(t *testing.T, p *ownedProviders, prefix string) {
	a, b := p.as(t, "alpine", prefix), p.as(t, "coastal", prefix)
	var offers osdm.OfferCollectionResponse
	a.ok("POST", "/offers", searchBody708("708"), 200, &offers)
	if len(offers.Offers) < 1 {
		t.Fatalf("offers %+v", offers)
	}
	key := uuid.NewString()
	var booked osdm.BookingResponse
	a.call("POST", "/bookings", bookingBody(offers.Offers[0].OfferID), key).Decode(t, 200, &booked)
	bk := booked.Booking
	pid := bk.Passengers[0].ID
	var ful osdm.FulfillmentCollectionResponse
	a.ok("POST", "/bookings/"+bk.ID+"/fulfillments", `{}`, 200, &ful)
	fid := ful.Fulfillments[0].ID
	refund := `{"fulfillmentIds": ["` + fid + `"]}`
	var ro osdm.RefundOfferCollectionResponse
	a.ok("POST", "/bookings/"+bk.ID+"/refund-offers", refund, 200, &ro)
	rid := ro.RefundOffers[0].ID
	// Another offer of alpine's, searched, not booked.
	var more osdm.OfferCollectionResponse
	a.ok("POST", "/offers", searchBody708("708"), 200, &more)
	legacyBefore := p.legacy.Bookings()

	unknownBooking := otherID(bk.ID)
	rename := `{"id": "` + pid + `", "externalRef": "p1", "type": "ADULT", "detail": {"firstName": "Mallory", "lastName": "Thief"}}`
	exchange := `{"fulfillmentIds": ["` + fid + `"], "tripSearchCriteria": {
	    "origin": {"objectType": "StopPlaceRef", "stopPlaceRef": "urn:uic:stn:8500010"},
	    "destination": {"objectType": "StopPlaceRef", "stopPlaceRef": "urn:uic:stn:8503000"},
	    "departureTime": "` + travelDay() + `T09:30:00+01:00",
	    "parameters": {"dataFilter": {"vehicleFilter": {"exclude": false, "vehicleNumbers": ["709"]}}}},
	  "offerSearchCriteria": {"travelClasses": ["SECOND"]},
	  "anonymousPassengerSpecifications": [{"externalRef": "p1", "type": "ADULT", "age": 40}]}`
	confirm := `{"status": "CONFIRMED"}`
	type probe struct{ what, method, path, unknownPath, body string }
	probes := []probe{
		{"GET booking", "GET", "/bookings/" + bk.ID, "/bookings/" + unknownBooking, ""},
		{"GET passenger", "GET", "/bookings/" + bk.ID + "/passengers/" + pid, "/bookings/" + unknownBooking + "/passengers/" + pid, ""},
		{"PATCH passenger", "PATCH", "/bookings/" + bk.ID + "/passengers/" + pid, "/bookings/" + unknownBooking + "/passengers/" + pid, rename},
		{"POST refund offer", "POST", "/bookings/" + bk.ID + "/refund-offers", "/bookings/" + unknownBooking + "/refund-offers", refund},
		{"GET refund offer", "GET", "/bookings/" + bk.ID + "/refund-offers/" + rid, "/bookings/" + unknownBooking + "/refund-offers/" + rid, ""},
		{"confirm refund offer", "PATCH", "/bookings/" + bk.ID + "/refund-offers/" + rid, "/bookings/" + unknownBooking + "/refund-offers/" + rid, confirm},
		{"DELETE refund offer", "DELETE", "/bookings/" + bk.ID + "/refund-offers/" + rid, "/bookings/" + unknownBooking + "/refund-offers/" + rid, ""},
		{"POST exchange offers", "POST", "/bookings/" + bk.ID + "/exchange-offers?embed=ALL", "/bookings/" + unknownBooking + "/exchange-offers?embed=ALL", exchange},
		{"POST fulfilments", "POST", "/bookings/" + bk.ID + "/fulfillments", "/bookings/" + unknownBooking + "/fulfillments", `{}`},
		{"DELETE booking", "DELETE", "/bookings/" + bk.ID, "/bookings/" + unknownBooking, ""},
	}
	if prefix == "/legacy" { // osdm_sandbox serves no GET of a fulfilment
		probes = append(probes, probe{"GET fulfilment", "GET", "/fulfillments/" + fid, "/fulfillments/" + otherID(fid), ""})
	}
	for _, pr := range probes {
		key, unknownKey := "", ""
		if op, found := osdm.LookupSpec(pr.method, strings.Split(pr.path, "?")[0]); found && op.Idempotent {
			key, unknownKey = uuid.NewString(), uuid.NewString()
		}
		b.notFound(pr.what, b.call(pr.method, pr.path, pr.body, key), b.call(pr.method, pr.unknownPath, pr.body, unknownKey))
	}
	// Alpine's offer, and alpine's Idempotency-Key with alpine's very
	// request: no replay of alpine's booking, alpine's offer unknown.
	b.notFound("booking alpine's offer", b.call("POST", "/bookings", bookingBody(more.Offers[0].OfferID), ""),
		b.call("POST", "/bookings", bookingBody(otherID(more.Offers[0].OfferID)), ""))
	replay := b.call("POST", "/bookings", bookingBody(offers.Offers[0].OfferID), key)
	if replay.Header.Get("Idempotent-Replayed") != "" || strings.Contains(string(replay.Body), bk.ID) {
		t.Errorf("coastal reusing alpine's Idempotency-Key: %d %s %s", replay.Status, replay.Header, replay.Body)
	}
	b.notFound("alpine's Idempotency-Key", replay, b.call("POST", "/bookings", bookingBody(otherID(offers.Offers[0].OfferID)), uuid.NewString()))

	if prefix == "/legacy" {
		// The legacy system got nothing from coastal's calls: alpine's
		// booking as it was, the name never changed, no further message.
		after := p.legacy.Bookings()
		if len(after) != len(legacyBefore) {
			t.Fatalf("legacy bookings %d, before %d", len(after), len(legacyBefore))
		}
		for i := range after {
			if fmt.Sprint(after[i].MessageIDs) != fmt.Sprint(legacyBefore[i].MessageIDs) || after[i].Status != legacyBefore[i].Status ||
				fmt.Sprint(after[i].Names) != fmt.Sprint(legacyBefore[i].Names) {
				t.Errorf("the legacy system got coastal's call: %+v, before %+v", after[i], legacyBefore[i])
			}
		}
	}

	// Alpine still reads and changes all of it; an exchange search
	// without embed embeds ALL.
	var got osdm.BookingResponse
	a.ok("GET", "/bookings/"+bk.ID, "", 200, &got)
	if got.Booking.ID != bk.ID {
		t.Errorf("alpine's booking %+v", got.Booking)
	}
	var pax osdm.PassengerResponse
	a.ok("PATCH", "/bookings/"+bk.ID+"/passengers/"+pid, `{"id": "`+pid+`", "externalRef": "p1", "type": "ADULT", "detail": {"firstName": "Ada", "lastName": "King"}}`, 200, &pax)
	if pax.Passenger.Detail == nil || pax.Passenger.Detail.LastName != "King" {
		t.Errorf("alpine's passenger %+v", pax.Passenger)
	}
	if prefix == "/legacy" {
		var f osdm.FulfillmentResponse
		a.ok("GET", "/fulfillments/"+fid, "", 200, &f)
	}
	var x osdm.ExchangeOfferCollectionResponse
	(&harness.OSDMClient{Base: a.client.Base, Header: a.client.Header}).Send(t, "POST", "/bookings/"+bk.ID+"/exchange-offers", exchange, nil).Decode(t, 200, &x)
	if len(x.ExchangeOffers) == 0 || len(x.Trips) == 0 {
		t.Errorf("alpine's exchange offers without embed: %d offers, %d trips; want ALL", len(x.ExchangeOffers), len(x.Trips))
	}
	var cr osdm.RefundOfferResponse
	a.ok("PATCH", "/bookings/"+bk.ID+"/refund-offers/"+rid, confirm, 200, &cr)
	if cr.RefundOffer == nil || cr.RefundOffer.Status != osdm.RefundConfirmed {
		t.Errorf("alpine's refund %+v", cr.RefundOffer)
	}
}
