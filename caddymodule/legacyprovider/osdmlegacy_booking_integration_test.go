package legacyprovider

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/harness"
	"github.com/caddy-osdm/caddy-osdm/internal/osdmspec"
	"github.com/caddy-osdm/caddy-osdm/internal/redistest"
	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/legacysandbox"
	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// The booking side of osdm_legacy through a real Caddy: every row of the
// mapping table, a SIGKILL between the BookingRequest and its recorded
// result, and two Caddy processes on one Redis.

// bkLegacy is the legacy system of these tests: a legacy sandbox on a real
// HTTP server on 127.0.0.1, in the test process (so it outlives a killed
// Caddy), which records what reached it and can hold back the answer to a
// BookingRequest after the booking was made.
type bkLegacy struct {
	sb   *legacysandbox.Sandbox
	addr string

	mu   sync.Mutex
	seen []bkSeen
	// hold, when set, receives once a message of holdKind (default
	// BookingRequest) has been carried out; its answer is then never
	// written (the connection stays until the caller dies).
	hold     chan string
	holdKind legacy.Kind
	// holdSkip messages of holdKind are answered before the one held.
	holdSkip int
	// propose, when set, is a train whose BookingRequests get a
	// ReplacementProposal (another system sells it), as if it had become
	// another system's after the search.
	propose string
	// drop, when set, is a kind of message that is recorded, not carried
	// out, and whose connection is closed unanswered: the legacy system
	// cannot be reached for it.
	drop legacy.Kind
}

type bkSeen struct {
	kind   legacy.Kind
	id     string
	header http.Header
}

func startBKLegacy(t *testing.T) *bkLegacy {
	t.Helper()
	return startBKLegacyWith(t, legacysandbox.Config{})
}

// startBKLegacyWith is startBKLegacy with the sandbox of cfg.
func startBKLegacyWith(t *testing.T, cfg legacysandbox.Config) *bkLegacy {
	t.Helper()
	l := &bkLegacy{sb: newSandbox(t, cfg)}
	l.addr = harness.ServeLocal(t, l)
	return l
}

// newSandbox is the legacy sandbox of cfg; an invalid cfg fails t.
func newSandbox(t *testing.T, cfg legacysandbox.Config) *legacysandbox.Sandbox {
	t.Helper()
	sb, err := legacysandbox.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return sb
}

// readMessage reads r's body, puts it back for the next reader, and
// returns it with the kind and messageId of the legacy message it holds
// (both empty when it holds none).
func readMessage(r *http.Request) (body []byte, kind legacy.Kind, id string) {
	body, _ = io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	if f, err := legacy.FormatOf(r.Header.Get("Content-Type")); err == nil {
		if req, err := legacy.Decode(f, body); err == nil {
			kind, id = req.Kind(), req.MessageID()
		}
	}
	return body, kind, id
}

func (l *bkLegacy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, kind, id := readMessage(r)
	l.mu.Lock()
	l.seen = append(l.seen, bkSeen{kind: kind, id: id, header: r.Header.Clone()})
	hold, holdKind := l.hold, l.holdKind
	if holdKind == "" {
		holdKind = legacy.KindBookingRequest
	}
	if kind == holdKind && hold != nil && l.holdSkip > 0 {
		l.holdSkip--
		hold = nil
	} else if kind == holdKind {
		l.hold = nil
	}
	propose, drop := l.propose, l.drop
	l.mu.Unlock()
	if drop != "" && kind == drop {
		if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
			_ = conn.Close()
		}
		return
	}
	if propose != "" && kind == legacy.KindBookingRequest {
		if req, err := legacy.Decode(legacy.XML, body); err == nil && req.(*legacy.BookingRequest).Journey.TrainNumber == propose {
			rp := &legacy.ReplacementProposal{Header: legacy.ReplyTo(req, time.Now()),
				Alternatives: []legacy.Alternative{{ReservationSystem: 80, Operator: "1080", TrainNumber: propose}}}
			out, _ := legacy.Encode(legacy.XML, rp)
			w.Header().Set("Content-Type", legacy.XML.ContentType())
			_, _ = w.Write(out)
			return
		}
	}
	if hold != nil && kind == holdKind {
		l.sb.ServeHTTP(newDiscardWriter(), r) // booked; the answer is lost
		hold <- id
		<-r.Context().Done()
		return
	}
	l.sb.ServeHTTP(w, r)
}

func (l *bkLegacy) messages() []bkSeen {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]bkSeen(nil), l.seen...)
}

// held lists the bookings the legacy system holds, by BookingRef.
func (l *bkLegacy) held() map[string]legacysandbox.BookingInfo {
	out := map[string]legacysandbox.BookingInfo{}
	for _, b := range l.sb.Bookings() {
		if b.Status == legacy.StatusConfirmed {
			out[b.BookingRef] = b
		}
	}
	return out
}

// discardWriter is a ResponseWriter that keeps nothing.
type discardWriter struct{ h http.Header }

func newDiscardWriter() *discardWriter               { return &discardWriter{h: http.Header{}} }
func (d *discardWriter) Header() http.Header         { return d.h }
func (d *discardWriter) Write(b []byte) (int, error) { return len(b), nil }
func (d *discardWriter) WriteHeader(int)             {}

// bkCaddyfile is a Caddy with osdm_legacy at /osdm/ in front of the
// legacy system at legacyAddr.
func bkCaddyfile(port int, legacyAddr, storeLine, extra string) string {
	return harness.Options() + harness.Site(port, harness.LegacyRoute("/osdm", legacyAddr,
		"partner hermes-test", "refund_fee 10%", "timeout 2s", "settle_interval 200ms", storeLine+extra))
}

// bkAccessToken is the bearer bkClient's calls carry.
const bkAccessToken = "secret-access-token-xyz"

// bkClient calls one Caddy's OSDM routes and checks every answer against
// the spec.
type bkClient struct {
	t    *testing.T
	base string
	// http sends the calls (nil: http.DefaultClient).
	http *http.Client
}

func (c *bkClient) do(method, path, body, key string) (int, http.Header, []byte) {
	c.t.Helper()
	var h http.Header
	if key != "" {
		h = http.Header{"Idempotency-Key": {key}}
	}
	client := harness.OSDMClient{Base: c.base + "/osdm", Version: osdmspec.V39,
		Header: http.Header{"Authorization": {"Bearer " + bkAccessToken}}, HTTP: c.http}
	a := client.Send(c.t, method, path, body, h)
	if a.Status != http.StatusNoContent {
		specPath := path
		// The nested fulfilment path is not the spec's: check it as the spec's.
		if parts := strings.Split(path, "/"); len(parts) == 5 && parts[1] == "bookings" && parts[3] == "fulfillments" {
			specPath = "/fulfillments/" + parts[4]
		}
		osdmspec.ValidateResponse(c.t, osdmspec.V39, method, specPath, a.Status, a.Header, a.Body)
	}
	return a.Status, a.Header, a.Body
}

// ok calls and decodes a 2xx answer into v.
func (c *bkClient) ok(method, path, body, key string, want int, v any) {
	c.t.Helper()
	status, _, got := c.do(method, path, body, key)
	if status != want {
		c.t.Fatalf("%s %s: %d, want %d: %s", method, path, status, want, got)
	}
	if v != nil {
		if err := json.Unmarshal(got, v); err != nil {
			c.t.Fatalf("%s %s: %v: %s", method, path, err, got)
		}
	}
}

// problem calls and returns the problem answered.
func (c *bkClient) problem(method, path, body string, want int) osdm.Problem {
	c.t.Helper()
	status, h, got := c.do(method, path, body, "")
	var p osdm.Problem
	if status != want || h.Get("Content-Type") != osdm.ContentTypeProblem || json.Unmarshal(got, &p) != nil {
		c.t.Fatalf("%s %s: %d %s %s, want a %d problem", method, path, status, h.Get("Content-Type"), got, want)
	}
	return p
}

// offer searches train for tomorrow, two passengers, and returns the
// second class offer.
func (c *bkClient) offer(train string) osdm.Offer {
	c.t.Helper()
	var resp osdm.OfferCollectionResponse
	c.ok("POST", "/offers", offerSearch(train), "", 200, &resp)
	if len(resp.Offers) != 1 {
		c.t.Fatalf("search for train %s: %d offers", train, len(resp.Offers))
	}
	return resp.Offers[0]
}

// offerSearch is the body of a search for train tomorrow, second class,
// two passengers.
func offerSearch(train string) string {
	day := time.Now().AddDate(0, 0, 1).Format(time.DateOnly)
	return `{"tripSearchCriteria": {"origin": {"objectType": "StopPlaceRef", "stopPlaceRef": "urn:uic:stn:8500010"},
	  "destination": {"objectType": "StopPlaceRef", "stopPlaceRef": "urn:uic:stn:8503000"},
	  "departureTime": "` + day + `T00:00:00+01:00",
	  "parameters": {"dataFilter": {"vehicleFilter": {"exclude": false, "vehicleNumbers": ["` + train + `"]}}}},
	 "offerSearchCriteria": {"travelClasses": ["SECOND"]},
	 "anonymousPassengerSpecifications": [{"externalRef": "p1", "type": "ADULT", "age": 40}, {"externalRef": "p2", "type": "CHILD", "age": 7}]}`
}

func bookingOf(offerID string) string {
	return `{"offers": [{"offerId": "` + offerID + `", "passengerRefs": ["p1", "p2"]}],
	 "passengerSpecifications": [
	   {"externalRef": "p1", "type": "ADULT", "age": 40, "detail": {"firstName": "Ada", "lastName": "Lovelace"}},
	   {"externalRef": "p2", "type": "CHILD", "age": 7}]}`
}

// TestOSDMLegacyIntegrationBookingRows runs each booking-side row of the
// mapping table through a real Caddy (osdm_legacy -> reverse_proxy -> the
// legacy sandbox over HTTP), with the legacy messages each sends.
func TestOSDMLegacyIntegrationBookingRows(t *testing.T) {
	l := startBKLegacy(t)
	c := serveBK(t, l, "")
	countKinds := func(from int) map[legacy.Kind]int {
		n := map[legacy.Kind]int{}
		for _, m := range l.messages()[from:] {
			n[m.kind]++
		}
		return n
	}

	// POST /bookings -> BookingRequest -> PREBOOKED; the same key again:
	// the same answer, no second message.
	o := c.offer("708")
	before := len(l.messages())
	key := uuid.NewString()
	var br osdm.BookingResponse
	c.ok("POST", "/bookings", bookingOf(o.OfferID), key, 200, &br)
	b := br.Booking
	if n := countKinds(before); n[legacy.KindBookingRequest] != 1 || len(l.messages()) != before+1 {
		t.Errorf("POST /bookings sent %v", n)
	}
	m := l.messages()[before]
	if m.id != b.ID+".book" || m.header.Get("Authorization") != "" || m.header.Get("Idempotency-Key") != "" {
		t.Errorf("BookingRequest %s, headers %v", m.id, m.header)
	}
	res := b.BookedOffers[0].Reservations[0]
	if res.Status != osdm.BookingPartPrebooked || b.ConfirmationTimeLimit == nil || res.ConfirmableUntil == nil || res.PlaceAllocation == nil {
		t.Errorf("booking %+v", b)
	}
	status, h, again := c.do("POST", "/bookings", bookingOf(o.OfferID), key)
	var br2 osdm.BookingResponse
	_ = json.Unmarshal(again, &br2)
	if status != 200 || h.Get("Idempotent-Replayed") != "true" || br2.Booking.ID != b.ID || len(l.messages()) != before+1 {
		t.Errorf("repeat: %d %v, %d messages", status, h, len(l.messages())-before)
	}
	if p := c.problem("POST", "/bookings", strings.Replace(bookingOf(o.OfferID), "Lovelace", "Byron", 1), 404); p.Code == "" {
		t.Errorf("the offer booked twice: %+v", p)
	}

	// GET of the booking and its passenger; PATCH a passenger: a
	// PassengerDataRequest.
	before = len(l.messages())
	var gb osdm.BookingResponse
	c.ok("GET", "/bookings/"+b.ID, "", "", 200, &gb)
	if gb.Booking.BookingCode != b.BookingCode {
		t.Errorf("GET booking %+v", gb.Booking)
	}
	pid := b.Passengers[1].ID
	var pr osdm.PassengerResponse
	c.ok("PATCH", "/bookings/"+b.ID+"/passengers/"+pid, `{"detail": {"firstName": "Ada", "lastName": "King", "contact": {"email": "ada@example.org"}}}`, uuid.NewString(), 200, &pr)
	c.ok("GET", "/bookings/"+b.ID+"/passengers/"+pid, "", "", 200, &pr)
	if pr.Passenger.Detail == nil || pr.Passenger.Detail.LastName != "King" {
		t.Errorf("passenger %+v", pr.Passenger)
	}
	if n := countKinds(before); n[legacy.KindPassengerDataRequest] != 1 || len(l.messages()) != before+1 {
		t.Errorf("a passenger change sent %v", n)
	}
	before = len(l.messages())

	// POST fulfillments: no message; FULFILLED, control number; GET it.
	var fr osdm.FulfillmentCollectionResponse
	c.ok("POST", "/bookings/"+b.ID+"/fulfillments", "{}", uuid.NewString(), 200, &fr)
	fu := fr.Fulfillments[0]
	tcn := ""
	for _, hb := range l.held() {
		if hb.MessageIDs[0] == b.ID+".book" {
			tcn = hb.TicketControlNumber
		}
	}
	if fu.Status != osdm.FulfillmentFulfilled || fu.ControlNumber != tcn || tcn == "" {
		t.Errorf("fulfilment %+v, legacy control number %q", fu, tcn)
	}
	var gf osdm.FulfillmentResponse
	c.ok("GET", "/fulfillments/"+fu.ID, "", "", 200, &gf)
	c.ok("GET", "/bookings/"+b.ID+"/fulfillments/"+fu.ID, "", "", 200, &gf)
	if len(l.messages()) != before {
		t.Errorf("reads and a fulfilment sent %d legacy messages", len(l.messages())-before)
	}
	c.problem("DELETE", "/bookings/"+b.ID, "", 409)

	// Refund: a whole refund quoted (no message), confirmed with a
	// CancelRequest; a partial refund by booking part refused.
	p := c.problem("POST", "/bookings/"+b.ID+"/refund-offers", `{"fulfillmentIds": ["`+fu.ID+`"], "refundSpecifications": [{"fulfillmentId": "`+fu.ID+`", "bookingPartIds": ["x"]}]}`, 422)
	if !strings.Contains(p.Detail, "names passengers") {
		t.Errorf("partial refund by booking part: %+v", p)
	}
	var rr osdm.RefundOfferCollectionResponse
	c.ok("POST", "/bookings/"+b.ID+"/refund-offers", `{"fulfillmentIds": ["`+fu.ID+`"]}`, uuid.NewString(), 200, &rr)
	ro := rr.RefundOffers[0]
	if ro.Status != osdm.RefundProposed || ro.RefundFee.Amount == 0 || len(l.messages()) != before {
		t.Errorf("refund offer %+v", ro)
	}
	var gr osdm.RefundOfferResponse
	c.ok("GET", "/bookings/"+b.ID+"/refund-offers/"+ro.ID, "", "", 200, &gr)
	c.ok("PATCH", "/bookings/"+b.ID+"/refund-offers/"+ro.ID, `{"status": "CONFIRMED"}`, uuid.NewString(), 200, &gr)
	if n := countKinds(before); n[legacy.KindCancelRequest] != 1 || gr.RefundOffer.Status != osdm.RefundConfirmed {
		t.Errorf("refund confirmation sent %v, refund offer %+v", n, gr.RefundOffer)
	}
	if len(l.held()) != 0 {
		t.Errorf("the legacy system still holds %d bookings after the refund", len(l.held()))
	}

	// DELETE before fulfilment -> CancelRequest -> 204.
	var b2 osdm.BookingResponse
	c.ok("POST", "/bookings", bookingOf(c.offer("709").OfferID), "", 200, &b2)
	before = len(l.messages())
	c.ok("DELETE", "/bookings/"+b2.Booking.ID, "", "", 204, nil)
	if n := countKinds(before); n[legacy.KindCancelRequest] != 1 || len(l.held()) != 0 {
		t.Errorf("DELETE sent %v, legacy holds %d", n, len(l.held()))
	}

}

// TestOSDMLegacyIntegrationHoldReleased: a PREBOOKED booking not
// fulfilled within hold is released by the sweeper of a real Caddy with a
// CancelRequest; the booking reads RELEASED and cannot be fulfilled.
func TestOSDMLegacyIntegrationHoldReleased(t *testing.T) {
	l := startBKLegacy(t)
	c := serveBK(t, l, "\n\t\t\thold 2s")
	var b osdm.BookingResponse
	c.ok("POST", "/bookings", bookingOf(c.offer("710").OfferID), "", 200, &b)
	waitReleased(c, l, b.Booking, 0)
	p := c.problem("POST", "/bookings/"+b.Booking.ID+"/fulfillments", "{}", 409)
	if !strings.Contains(p.Detail, "released") {
		t.Errorf("fulfilment of a released booking: %+v", p)
	}
}

// TestChildProcess is not a test: it is the child process of the
// harness (the child Caddy of the SIGKILL and two-instance tests).
// bookUnanswered books offerID through c in the background and returns
// the BookingRequest's messageId once the legacy system has carried it
// out; its answer is never written (the caller kills the Caddy that
// waits for it).
func (l *bkLegacy) bookUnanswered(t *testing.T, c *bkClient, offerID string) string {
	t.Helper()
	held := make(chan string, 1)
	l.mu.Lock()
	l.hold = held
	l.mu.Unlock()
	go func() {
		req, _ := http.NewRequest("POST", c.base+"/osdm/bookings", strings.NewReader(bookingOf(offerID)))
		req.Header.Set("Content-Type", "application/json")
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	select {
	case id := <-held:
		return id
	case <-time.After(waitDeadline):
		t.Fatal("the BookingRequest never reached the legacy system")
		return ""
	}
}

func TestChildProcess(t *testing.T) { harness.ChildProcess(t) }

// waitDeadline bounds the waits for what a Caddy does on its own, or for a
// message to reach the legacy system: a restarted Caddy settles at once
// and then every settle_interval (200ms), and a lease lasts the call's
// timeout (2s), so it takes a few seconds on a quiet machine; a loaded CI
// machine under the race detector can take many times that. The tests
// assert that it happens with no request, not how soon: each logs how
// long it took.
const waitDeadline = 2 * time.Minute

// TestOSDMLegacyIntegrationSIGKILLSettles: Caddy is killed (SIGKILL)
// after the legacy system booked and before the answer was recorded, and
// the legacy system, which keeps few replies, forgets the messageId after
// a few searches. The restarted Caddy settles the intent from its bolt
// file: it asks with a SynchroRequest (answered from the legacy system's
// booking records) and never sends the BookingRequest again; the booking
// is PREBOOKED, the legacy system holds exactly it, and it can be deleted.
func TestOSDMLegacyIntegrationSIGKILLSettles(t *testing.T) {
	l := startBKLegacyWith(t, legacysandbox.Config{MaxEntries: 4})
	p, c := newBKProcess(t, l.addr, "")
	child := p.start("first")
	o := c.offer("708")
	// An offer searched before the kill: the id carries it, and the
	// restarted Caddy verifies it with the key in the bolt file.
	before := c.offer("709")

	msgID := l.bookUnanswered(t, c, o.OfferID)
	child.Kill()
	if len(l.held()) != 1 {
		t.Fatalf("the legacy system holds %d bookings, want the one whose answer was lost", len(l.held()))
	}
	bookingID, _, _ := strings.Cut(msgID, ".")
	for i := range 4 { // other systems search: the reply to msgID is forgotten
		l.sb.Handle(t.Context(), &legacy.AvailabilityRequest{Header: legacy.Header{MessageID: fmt.Sprintf("other-%d", i)},
			Journey: legacy.Journey{TrainNumber: "708", DepartureDate: time.Now().AddDate(0, 0, 1).Format(time.DateOnly), From: "8500010", To: "8503000"},
			Places:  legacy.PlaceRequest{TravelClass: 2, ServiceCode: 1, Tariffs: []legacy.Tariff{{Code: 1, Count: 1}}}})
	}

	// No request at all after the restart: settlement starts with the
	// configuration, and asks about the BookingRequest within
	// settle_interval (200ms) plus the call's timeout (2s).
	p.start("restarted")
	restarted := time.Now()
	for asked := false; !asked; {
		for _, m := range l.messages() {
			asked = asked || m.kind == legacy.KindSynchroRequest && strings.HasPrefix(m.id, msgID+".")
		}
		if !asked {
			if time.Since(restarted) > waitDeadline {
				t.Fatalf("the intent the dead Caddy left was not settled %v after the restart, with no request", time.Since(restarted))
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	// The answer is recorded just after it arrives: until then a GET says
	// a message is under way.
	var gb osdm.BookingResponse
	for {
		status, _, body := c.do("GET", "/bookings/"+bookingID, "", "")
		if status == http.StatusOK {
			_ = json.Unmarshal(body, &gb)
			break
		}
		if status != http.StatusConflict || time.Since(restarted) > waitDeadline {
			t.Fatalf("GET of the booking %v after the restart: %d %s", time.Since(restarted), status, body)
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("settled %v after the restart, with no request", time.Since(restarted))
	if s := gb.Booking.BookedOffers[0].Reservations[0].Status; s != osdm.BookingPartPrebooked {
		t.Errorf("settled booking %s, want PREBOOKED", s)
	}
	sent, asked := 0, 0
	for _, m := range l.messages() {
		if m.id == msgID {
			sent++
		}
		if m.kind == legacy.KindSynchroRequest && strings.HasPrefix(m.id, msgID+".") {
			asked++
		}
	}
	held2 := l.held()
	if sent != 1 || asked == 0 || len(held2) != 1 {
		t.Errorf("BookingRequest %s sent %d times, asked about %d times, legacy holds %d bookings; want 1, at least 1, 1", msgID, sent, asked, len(held2))
	}
	for ref, hb := range held2 {
		if hb.MessageIDs[0] != msgID {
			t.Errorf("legacy booking %s came from %v", ref, hb.MessageIDs)
		}
	}
	c.ok("DELETE", "/bookings/"+bookingID, "", "", 204, nil)
	if len(l.held()) != 0 {
		t.Errorf("the legacy system holds %d bookings after DELETE", len(l.held()))
	}
	var br osdm.BookingResponse
	c.ok("POST", "/bookings", bookingOf(before.OfferID), uuid.NewString(), 200, &br)
	if br.Booking.BookedOffers[0].OfferID != before.OfferID || len(l.held()) != 1 {
		t.Errorf("the offer searched before the restart booked as %+v; the legacy system holds %d", br.Booking.BookedOffers[0], len(l.held()))
	}
}

// TestOSDMLegacyIntegrationSIGKILLReleasesHold: Caddy is killed
// (SIGKILL) while a booking is PREBOOKED; its hold ends while Caddy is
// down. Started again, with no request at all, it releases the places at
// the legacy system (one CancelRequest) within settle_interval (200ms)
// plus the call's timeout (2s).
func TestOSDMLegacyIntegrationSIGKILLReleasesHold(t *testing.T) {
	l := startBKLegacy(t)
	p, c := newBKProcess(t, l.addr, "\n\t\t\thold 1s")
	child := p.start("first")
	var b osdm.BookingResponse
	c.ok("POST", "/bookings", bookingOf(c.offer("710").OfferID), "", 200, &b)
	child.Kill()
	if len(l.held()) != 1 {
		t.Fatalf("the legacy system holds %d bookings, want the PREBOOKED one", len(l.held()))
	}
	time.Sleep(1500 * time.Millisecond) // the hold ends while Caddy is down

	p.start("restarted")
	restarted := time.Now()
	for len(l.held()) != 0 {
		if time.Since(restarted) > waitDeadline {
			t.Fatalf("the legacy system still holds %d bookings %v after the restart, with no request", len(l.held()), time.Since(restarted))
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("released %v after the restart, with no request", time.Since(restarted))
	cancels := 0
	for _, m := range l.messages() {
		if m.kind == legacy.KindCancelRequest && m.id == b.Booking.ID+".cancel.1" {
			cancels++
		}
	}
	if cancels != 1 {
		t.Errorf("release sent %d CancelRequests, want 1", cancels)
	}
	// The release is recorded just after the CancelReply arrives.
	for {
		var gb osdm.BookingResponse
		c.ok("GET", "/bookings/"+b.Booking.ID, "", "", 200, &gb)
		s := gb.Booking.BookedOffers[0].Reservations[0].Status
		if s == osdm.BookingPartReleased {
			break
		}
		if time.Since(restarted) > waitDeadline {
			t.Fatalf("the booking is %s %v after the restart, want RELEASED", s, time.Since(restarted))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestOSDMLegacyIntegrationTwoInstancesRedis: two Caddy processes on one
// Redis: an offer searched on one is booked on the other (both verify the
// ids with the one key in Redis), and a booking made on one is fulfilled
// and refunded on the other.
func TestOSDMLegacyIntegrationTwoInstancesRedis(t *testing.T) {
	// The test Redis need not persist: the store says accept_volatile.
	twoInstancesOnRedis(t, "addresses "+redistest.Shared(t)+"\n\t\t\taccept_volatile")
}

// TestOSDMLegacyIntegrationSentinelAndCluster: the reverse chain of
// TestOSDMLegacyIntegrationTwoInstancesRedis, two instances on one store,
// on a real Redis Sentinel set (redis-server --sentinel) and on a real
// Redis Cluster of three masters, both started by the test.
func TestOSDMLegacyIntegrationSentinelAndCluster(t *testing.T) {
	t.Run("sentinel", func(t *testing.T) {
		sentinels, _ := redistest.Sentinel(t, "bookings")
		twoInstancesOnRedis(t, "addresses "+strings.Join(sentinels, " ")+"\n\t\t\tmaster bookings")
	})
	t.Run("cluster", func(t *testing.T) {
		twoInstancesOnRedis(t, "addresses "+strings.Join(redistest.Cluster(t, 3), " "))
	})
}

// TestOSDMLegacyIntegrationRedisWithoutPersistence: a Redis without
// persistence is refused at start, saying why and what to do; with
// accept_volatile the same configuration starts and books.
func TestOSDMLegacyIntegrationRedisWithoutPersistence(t *testing.T) {
	addr := redistest.Server(t, redistest.Volatile...)
	l := startBKLegacy(t)
	cf := func(port int, extra string) string {
		return withRedisStore(bkCaddyfile(port, l.addr, "store shared", ""), "addresses "+addr+"\n\t\t\t"+extra)
	}
	if err := harness.TryLoad(t, cf(harness.FreePort(t), "prefix p/")); err == nil {
		t.Fatal("Caddy started on a Redis without persistence")
	} else {
		for _, want := range []string{addr, "does not persist", "accept_volatile"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("refusal %q does not say %q", err, want)
			}
		}
	}
	base := harness.Serve(t, func(port int) string { return cf(port, "prefix p/\n\t\t\taccept_volatile") })
	c := &bkClient{t: t, base: base}
	var br osdm.BookingResponse
	c.ok("POST", "/bookings", bookingOf(c.offer("708").OfferID), uuid.NewString(), 200, &br)
	if len(l.held()) != 1 {
		t.Errorf("the legacy system holds %d bookings, want 1", len(l.held()))
	}
}

// withRedisStore is caddyfile (a bkCaddyfile with "store shared") with the
// osdm app's store shared: a redis store whose block is body.
func withRedisStore(caddyfile, body string) string {
	return strings.Replace(caddyfile, "\tauto_https off\n}",
		"\tauto_https off\n\tosdm {\n\t\tstore shared redis {\n\t\t\t"+body+"\n\t\t}\n\t}\n}", 1)
}

// twoInstancesOnRedis runs two Caddy processes whose osdm_legacy keeps its
// state in one named Redis store (redis says where and how): an offer
// searched on one is booked on the other, a booking made on one is
// fulfilled and refunded on the other, and an Idempotency-Key replays
// across them.
func twoInstancesOnRedis(t *testing.T, redis string) {
	l := startBKLegacy(t)
	a, b := newBKRedis(t, l, redis).startTwo("")

	var br osdm.BookingResponse
	key := uuid.NewString()
	body := bookingOf(b.offer("708").OfferID)
	a.ok("POST", "/bookings", body, key, 200, &br)
	id := br.Booking.ID
	var fr osdm.FulfillmentCollectionResponse
	b.ok("POST", "/bookings/"+id+"/fulfillments", "{}", uuid.NewString(), 200, &fr)
	var rr osdm.RefundOfferCollectionResponse
	b.ok("POST", "/bookings/"+id+"/refund-offers", `{"fulfillmentIds": ["`+fr.Fulfillments[0].ID+`"]}`, uuid.NewString(), 200, &rr)
	var cr osdm.RefundOfferResponse
	b.ok("PATCH", "/bookings/"+id+"/refund-offers/"+rr.RefundOffers[0].ID, `{"status": "CONFIRMED"}`, uuid.NewString(), 200, &cr)
	var gb osdm.BookingResponse
	a.ok("GET", "/bookings/"+id, "", "", 200, &gb)
	if s := gb.Booking.BookedOffers[0].Reservations[0].Status; s != osdm.BookingPartRefunded || cr.RefundOffer.Status != osdm.RefundConfirmed {
		t.Errorf("instance a reads %s after the refund on b (%s)", s, cr.RefundOffer.Status)
	}
	if len(l.held()) != 0 {
		t.Errorf("the legacy system holds %d bookings after the refund", len(l.held()))
	}
	// The other way: searched on a, booked on b.
	var br2 osdm.BookingResponse
	b.ok("POST", "/bookings", bookingOf(a.offer("709").OfferID), uuid.NewString(), 200, &br2)
	if len(l.held()) != 1 {
		t.Errorf("the legacy system holds %d bookings, want the one booked on b", len(l.held()))
	}
	b.ok("DELETE", "/bookings/"+br2.Booking.ID, "", "", 204, nil)
	// The booking's Idempotency-Key on the other instance: the same answer
	// replayed from Redis, nothing sent.
	n := len(l.messages())
	status, h, got := b.do("POST", "/bookings", body, key)
	var again osdm.BookingResponse
	_ = json.Unmarshal(got, &again)
	if status != 200 || h.Get("Idempotent-Replayed") != "true" || again.Booking == nil || again.Booking.ID != id || len(l.messages()) != n {
		t.Errorf("replay on b: %d %v", status, h)
	}
}
