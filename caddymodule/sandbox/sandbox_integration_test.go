package sandbox

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2/caddyconfig"
	_ "github.com/caddyserver/caddy/v2/modules/standard"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/harness"
	"github.com/caddy-osdm/caddy-osdm/internal/osdmspec"
	"github.com/caddy-osdm/caddy-osdm/osdm"
	"github.com/caddy-osdm/caddy-osdm/osdmsandbox"
)

// osdmClient calls the sandbox over HTTP and checks every request and
// answer against the OSDM 3.9 spec.
type osdmClient struct {
	t    *testing.T
	base string // with the route prefix, e.g. http://127.0.0.1:1234/osdm
}

func (c *osdmClient) do(method, path, key string, body any, out any) (int, http.Header) {
	c.t.Helper()
	var raw []byte
	if body != nil {
		raw, _ = json.Marshal(body)
	}
	var h http.Header
	if key != "" {
		h = http.Header{osdm.HeaderIdempotencyKey: {key}}
	}
	client := harness.OSDMClient{Base: c.base, Version: osdmspec.V39, CheckRequests: true}
	// Caddy's own headers (Server...) are fine; the spec checks Content-Type.
	a := client.Do(c.t, method, path, string(raw), h)
	if out != nil {
		if err := json.Unmarshal(a.Body, out); err != nil {
			c.t.Fatalf("%s %s: %d %s: %v", method, path, a.Status, a.Body, err)
		}
	}
	return a.Status, a.Header
}

// TestSandboxIntegration runs osdm_sandbox in a real Caddy behind a path
// prefix and goes through offers, booking, fulfilment and refund over HTTP.
func TestSandboxIntegration(t *testing.T) {
	base := harness.ServeSite(t, harness.Options(), func(port int) string {
		return harness.SandboxRoute("/osdm", "external_inventory 462 80 1080") + "\trespond \"not the sandbox\" 418\n"
	})
	c := &osdmClient{t: t, base: base + "/osdm"}

	// A week from today: the sandbox refuses departures already past.
	week := time.Now().AddDate(0, 0, 7)
	dep := time.Date(week.Year(), week.Month(), week.Day(), 0, 0, 0, 0, time.FixedZone("", 3600))
	search := osdm.OfferCollectionRequest{
		TripSearchCriteria: &osdm.TripSearchCriteria{
			DepartureTime: &dep,
			Origin:        osdm.NewStopPlaceRef("urn:uic:stn:8500010"),
			Destination:   osdm.NewStopPlaceRef("urn:uic:stn:8503000"),
			Parameters:    osdm.OnlyVehicles("708"),
		},
		AnonymousPassengerSpecifications: []osdm.AnonymousPassengerSpecification{{ExternalRef: "p1", Type: osdm.PassengerAdult}},
		OfferSearchCriteria:              &osdm.OfferSearchCriteria{TravelClasses: []osdm.TravelClass{osdm.TravelClassSecond}},
	}
	var offers osdm.OfferCollectionResponse
	if status, _ := c.do(http.MethodPost, "/offers", "", search, &offers); status != http.StatusOK || len(offers.Offers) != 1 {
		t.Fatalf("offers: %d %+v", status, offers)
	}
	if got := offers.Trips[0].StartTime.Format("15:04"); got != "08:30" {
		t.Errorf("configured train departs %s", got)
	}

	const key = "d9428888-122b-11e1-b85c-61cd3cbb3210"
	bookReq := osdm.BookingRequest{
		Offers:                  []osdm.OfferSelection{{OfferID: offers.Offers[0].OfferID, PassengerRefs: []string{"p1"}}},
		PassengerSpecifications: []osdm.PassengerSpecification{{ExternalRef: "p1", Type: osdm.PassengerAdult}},
	}
	var booked, again osdm.BookingResponse
	if status, _ := c.do(http.MethodPost, "/bookings", key, bookReq, &booked); status != http.StatusOK {
		t.Fatalf("booking: %d", status)
	}
	if _, h := c.do(http.MethodPost, "/bookings", key, bookReq, &again); h.Get(osdmsandbox.HeaderReplayed) != "true" || again.Booking.ID != booked.Booking.ID {
		t.Errorf("resent booking: %+v %v", again.Booking, h)
	}
	id := booked.Booking.ID

	var ful osdm.FulfillmentCollectionResponse
	if status, _ := c.do(http.MethodPost, "/bookings/"+id+"/fulfillments", "", osdm.FulfillmentPostRequest{}, &ful); status != http.StatusOK ||
		ful.Fulfillments[0].Status != osdm.FulfillmentFulfilled {
		t.Fatalf("fulfil: %d %+v", status, ful)
	}
	status, _ := c.do(http.MethodDelete, "/bookings/"+id, "", nil, nil)
	if status != http.StatusConflict {
		t.Errorf("DELETE of a fulfilled booking: %d", status)
	}

	var refund osdm.RefundOfferCollectionResponse
	c.do(http.MethodPost, "/bookings/"+id+"/refund-offers", "", osdm.RefundOfferRequest{
		FulfillmentIDs: []string{ful.Fulfillments[0].ID}, OverruleCode: osdm.OverruleTechnicalFailure,
	}, &refund)
	if len(refund.RefundOffers) != 1 || refund.RefundOffers[0].RefundFee.Amount != 0 {
		t.Fatalf("refund offer %+v", refund)
	}
	var confirmed osdm.RefundOfferResponse
	c.do(http.MethodPatch, "/bookings/"+id+"/refund-offers/"+refund.RefundOffers[0].ID, "", osdm.RefundOfferPatchRequest{Status: osdm.RefundConfirmed}, &confirmed)
	if confirmed.RefundOffer == nil || confirmed.RefundOffer.Status != osdm.RefundConfirmed {
		t.Fatalf("confirm %+v", confirmed)
	}
	var final osdm.BookingResponse
	c.do(http.MethodGet, "/bookings/"+id, "", nil, &final)
	if s := final.Booking.BookedOffers[0].Reservations[0].Status; s != osdm.BookingPartRefunded {
		t.Errorf("final status %s", s)
	}

	// The debug listing shows the partner's state.
	resp, err := http.Get(base + "/osdm/_sandbox/bookings")
	if err != nil {
		t.Fatal(err)
	}
	var list []osdmsandbox.BookingInfo
	err = json.NewDecoder(resp.Body).Decode(&list)
	resp.Body.Close()
	if err != nil || len(list) != 1 || list[0].Status != "REFUNDED" || list[0].IdempotencyKeys[0] != key {
		t.Errorf("debug listing %+v %v", list, err)
	}

	// The external train answers a proposal (v3.10), outside the route the
	// sandbox is not involved.
	search.TripSearchCriteria.Parameters = osdm.OnlyVehicles("462")
	raw, _ := json.Marshal(search)
	resp, err = http.Post(base+"/osdm/offers", osdm.ContentTypeJSON, bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	osdmspec.ValidateResponse(t, osdmspec.V310, http.MethodPost, "/offers", resp.StatusCode, resp.Header, body)
	if !strings.Contains(string(body), osdm.CodeAlternativeSystemProposal) {
		t.Errorf("external train: %s", body)
	}
	if resp, err := http.Get(base + "/elsewhere"); err != nil || resp.StatusCode != http.StatusTeapot {
		t.Errorf("outside the route: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
}

// osdm_sandbox's glue hands the sandbox the call as the client sent it
// (its escaped path and query, its header, its body read up to one byte
// past the limit) and writes the answer: a body over the limit, even
// without a Content-Length, is a 413 problem; a body the sandbox cannot
// read is a 400 that points at the member; the query reaches the
// search.
func TestSandboxIntegrationCall(t *testing.T) {
	base := harness.ServeSite(t, harness.Options(), func(port int) string {
		return harness.SandboxRoute("/osdm")
	})
	post := func(body io.Reader, length int64) (*http.Response, osdm.Problem) {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, base+"/osdm/offers", body)
		if err != nil {
			t.Fatal(err)
		}
		req.ContentLength = length // -1: chunked, no Content-Length
		req.Header.Set("Content-Type", osdm.ContentTypeJSON)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var p osdm.Problem
		raw, _ := io.ReadAll(resp.Body)
		if err := json.Unmarshal(raw, &p); err != nil {
			t.Fatalf("%d %s: %v", resp.StatusCode, raw, err)
		}
		return resp, p
	}

	big := `{"x":"` + strings.Repeat("a", osdmsandbox.MaxBodyBytes) + `"}`
	resp, p := post(strings.NewReader(big), -1)
	if resp.StatusCode != http.StatusRequestEntityTooLarge || p.Code != osdm.CodeMalformedRequest ||
		resp.Header.Get("Content-Type") != osdm.ContentTypeProblem || resp.Header.Get("Content-Length") == "" {
		t.Errorf("a chunked body over the limit: %d %s %v", resp.StatusCode, p.Code, resp.Header)
	}

	dup := `{"anonymousPassengerSpecifications":[{"externalRef":"p1","externalRef":"p2","type":"ADULT"}]}`
	resp, p = post(strings.NewReader(dup), int64(len(dup)))
	if resp.StatusCode != http.StatusBadRequest || p.Code != osdm.CodeMalformedRequest ||
		len(p.Pointers) != 1 || p.Pointers[0].RequestPointer != "#/anonymousPassengerSpecifications/0/externalRef" {
		t.Errorf("a member given twice: %d %+v", resp.StatusCode, p)
	}

	// The query is the sandbox's: an unknown parameter of GET
	// /trip-offers is named.
	get, err := http.Get(base + "/osdm/trip-offers?originCode=8500010&colour=blue")
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(get.Body)
	get.Body.Close()
	if get.StatusCode != http.StatusBadRequest || !strings.Contains(string(raw), `unknown query parameter \"colour\"`) {
		t.Errorf("GET /trip-offers with an unknown parameter: %d %s", get.StatusCode, raw)
	}
}

// A Caddyfile whose osdm_sandbox block has a bad subdirective does not
// load, and the error names the line.
func TestSandboxIntegrationBadCaddyfile(t *testing.T) {
	cf := `{
	admin off
}

http://127.0.0.1:0 {
	osdm_sandbox {
		capacity 10
		external_inventory 462 80
	}
}
`
	_, _, err := caddyconfig.GetAdapter("caddyfile").Adapt([]byte(cf), map[string]any{"filename": "Caddyfile"})
	if err == nil || !strings.Contains(err.Error(), "Caddyfile:8") {
		t.Fatalf("err = %v, want one naming Caddyfile:8", err)
	}
}
