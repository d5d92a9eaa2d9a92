package legacyprovider

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/harness"
	"github.com/caddy-osdm/caddy-osdm/internal/osdmspec"
	"github.com/caddy-osdm/caddy-osdm/internal/redistest"
	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// The after-sales side of osdm_legacy through a real Caddy to the legacy
// sandbox: passenger changes, exchange and partial refunds, with the seats
// at the legacy system checked after each step; a SIGKILL during an
// exchange and during a partial refund; and two Caddy processes on Redis.

// asTaken returns the 2nd class seats taken on train tomorrow at the legacy
// system.
func (l *bkLegacy) taken(train string) int {
	day := time.Now().AddDate(0, 0, 1).Format(time.DateOnly)
	return l.sb.Config().Capacity - l.sb.Available(train, day, legacy.SecondClass, legacy.ServiceSeat)
}

// seats checks the seats taken on trains 708 and 709.
func (l *bkLegacy) seats(t *testing.T, step string, w708, w709 int) {
	t.Helper()
	if a, b := l.taken("708"), l.taken("709"); a != w708 || b != w709 {
		t.Errorf("%s: seats taken on 708 %d, on 709 %d; want %d, %d", step, a, b, w708, w709)
	}
}

// kinds counts the legacy messages from index from on, by kind.
func (l *bkLegacy) kinds(from int) map[legacy.Kind]int {
	n := map[legacy.Kind]int{}
	for _, m := range l.messages()[from:] {
		n[m.kind]++
	}
	return n
}

// sent calls, checks the request against the spec, and decodes a 2xx.
func (c *bkClient) sent(method, path, body string, want int, v any) {
	c.t.Helper()
	var b []byte
	if body != "" {
		b = []byte(body)
	}
	h := http.Header{"Content-Type": {"application/json"}, "Idempotency-Key": {uuid.NewString()}}
	osdmspec.ValidateRequest(c.t, osdmspec.V39, method, path, h, b)
	c.ok(method, path, body, h.Get("Idempotency-Key"), want, v)
}

// exchangeBody is the exchange-offers body of booking b to train tomorrow.
func exchangeBody(b *osdm.Booking, fid, train string) string {
	day := time.Now().AddDate(0, 0, 1).Format(time.DateOnly)
	return `{"fulfillmentIds": ["` + fid + `"],
	 "tripSearchCriteria": {"origin": {"objectType": "StopPlaceRef", "stopPlaceRef": "urn:uic:stn:8500010"},
	  "destination": {"objectType": "StopPlaceRef", "stopPlaceRef": "urn:uic:stn:8503000"},
	  "departureTime": "` + day + `T00:00:00+01:00",
	  "parameters": {"dataFilter": {"vehicleFilter": {"exclude": false, "vehicleNumbers": ["` + train + `"]}}}},
	 "offerSearchCriteria": {"travelClasses": ["SECOND"]},
	 "anonymousPassengerSpecifications": [{"externalRef": "p1", "type": "ADULT", "age": 40}, {"externalRef": "p2", "type": "CHILD", "age": 7}]}`
}

// asExchangeOffers is the part of an ExchangeOfferCollectionResponse the
// tests read.
type asExchangeOffers struct {
	ExchangeOffers []struct {
		OfferID          string      `json:"offerId"`
		PassengerRefs    []string    `json:"passengerRefs"`
		ExchangeFee      osdm.Price  `json:"exchangeFee"`
		ExchangePrice    osdm.Price  `json:"exchangePrice"`
		AmountToBePaid   *osdm.Price `json:"amountToBePaid"`
		RefundableAmount *osdm.Price `json:"refundableAmount"`
	} `json:"exchangeOffers"`
	Trips []osdm.Trip `json:"trips"`
}

// asExchangeOperation is the part of an ExchangeOperationResponse the
// tests read.
type asExchangeOperation struct {
	ExchangeOperation struct {
		ID     string `json:"id"`
		Status string `json:"status"`
	} `json:"exchangeOperation"`
}

// exchange asks booking b for exchange offers to train and books the one
// found: the exchange operation's id.
func (c *bkClient) exchange(b *osdm.Booking, fid, train string) string {
	c.t.Helper()
	var xo asExchangeOffers
	c.sent("POST", "/bookings/"+b.ID+"/exchange-offers?embed=ALL", exchangeBody(b, fid, train), 200, &xo)
	if len(xo.ExchangeOffers) != 1 || len(xo.Trips) != 1 {
		c.t.Fatalf("exchange offers %+v", xo)
	}
	o := xo.ExchangeOffers[0]
	refs, _ := json.Marshal(o.PassengerRefs)
	var op asExchangeOperation
	c.sent("POST", "/bookings/"+b.ID+"/exchange-operations", `{"exchangeOffers": [{"offerId": "`+o.OfferID+`", "passengerRefs": `+string(refs)+`}]}`, 200, &op)
	if op.ExchangeOperation.Status != "PREBOOKED" {
		c.t.Fatalf("exchange operation %+v", op)
	}
	return op.ExchangeOperation.ID
}

// bookFulfilled books train for p1 and p2 and fulfils it.
func (c *bkClient) bookFulfilled(train string) (*osdm.Booking, string) {
	c.t.Helper()
	var br osdm.BookingResponse
	c.sent("POST", "/bookings", bookingOf(c.offer(train).OfferID), 200, &br)
	var fr osdm.FulfillmentCollectionResponse
	c.sent("POST", "/bookings/"+br.Booking.ID+"/fulfillments", "{}", 200, &fr)
	return br.Booking, fr.Fulfillments[0].ID
}

// TestOSDMLegacyIntegrationAfterSales runs each after-sales row of the
// mapping table through a real Caddy to the legacy sandbox: a passenger
// PATCH (PassengerDataRequest; a change of tariff refused, nothing sent),
// an exchange (offers, operation, GET, PATCH, confirmation by the
// fulfilment; another deleted), a partial refund and the refund of the
// rest, with the seats at the legacy system after each step.
func TestOSDMLegacyIntegrationAfterSales(t *testing.T) {
	l := startBKLegacy(t)
	c := serveBK(t, l, "\n\t\t\texchange_fee 10%")
	b, fid := c.bookFulfilled("708")
	l.seats(t, "booked", 2, 0)

	// Passenger PATCH after fulfilment -> PassengerDataRequest.
	n := len(l.messages())
	var pr osdm.PassengerResponse
	c.sent("PATCH", "/bookings/"+b.ID+"/passengers/p2", `{"id": "p2", "externalRef": "p2", "type": "CHILD", "detail": {"firstName": "Byron", "lastName": "King"}}`, 200, &pr)
	if k := l.kinds(n); k[legacy.KindPassengerDataRequest] != 1 || len(l.messages()) != n+1 {
		t.Errorf("passenger PATCH sent %v", k)
	}
	var names []string
	for _, hb := range l.held() {
		for _, nm := range hb.Names {
			names = append(names, nm.FirstName+" "+nm.LastName)
		}
	}
	if strings.Join(names, ",") != "Ada Lovelace,Byron King" {
		t.Errorf("the legacy system holds the names %q", names)
	}
	n = len(l.messages())
	if p := c.problem("PATCH", "/bookings/"+b.ID+"/passengers/p2", `{"id": "p2", "externalRef": "p2", "type": "CHILD", "dateOfBirth": "1980-01-01"}`, 422); !strings.Contains(p.Detail, "tariff") || len(l.messages()) != n {
		t.Errorf("a change of tariff: %+v, %d messages", p, len(l.messages())-n)
	}

	// Exchange to 709: the new places held, the old kept; confirmed by
	// the fulfilment, the old freed.
	n = len(l.messages())
	xid := c.exchange(b, fid, "709")
	if k := l.kinds(n); k[legacy.KindBookingRequest] != 1 || k[legacy.KindCancelRequest] != 0 {
		t.Errorf("exchange offers and operation sent %v", k)
	}
	l.seats(t, "exchange operation", 2, 2)
	var op asExchangeOperation
	c.ok("GET", "/bookings/"+b.ID+"/exchange-operations/"+xid, "", "", 200, &op)
	c.sent("PATCH", "/bookings/"+b.ID+"/exchange-operations/"+xid, `{"requestedFulfillmentType": "ETICKET"}`, 200, &op)
	if op.ExchangeOperation.Status != "PREBOOKED" {
		t.Errorf("exchange operation %+v", op)
	}
	n = len(l.messages())
	var fr osdm.FulfillmentCollectionResponse
	c.sent("POST", "/bookings/"+b.ID+"/fulfillments", "{}", 200, &fr)
	if k := l.kinds(n); k[legacy.KindCancelRequest] != 1 || len(l.messages()) != n+1 {
		t.Errorf("confirmation sent %v", k)
	}
	l.seats(t, "exchange confirmed", 0, 2)
	var gb osdm.BookingResponse
	c.ok("GET", "/bookings/"+b.ID, "", "", 200, &gb)
	if v := gb.Booking.Trips[0].Legs[0].TimedLeg.Service.VehicleNumbers; len(v) != 1 || v[0] != "709" {
		t.Errorf("the booking after the exchange: trip %+v", gb.Booking.Trips[0])
	}
	// The old ticket is void; the new journey has a ticket of its own,
	// with the new legacy booking's control number.
	fu := gb.Booking.Fulfillments
	if len(fu) != 2 || fu[0].ID != fid || fu[0].Status != osdm.FulfillmentExchanged || fu[1].ID == fid ||
		fu[1].ID != fr.Fulfillments[0].ID || fu[1].Status != osdm.FulfillmentFulfilled || fu[1].ControlNumber == fu[0].ControlNumber ||
		fu[1].ControlNumber != l.legacyBooking(t, b.ID+".xbook").TicketControlNumber {
		t.Errorf("fulfilments after the exchange: %+v", fu)
	}
	var old osdm.FulfillmentResponse
	c.ok("GET", "/fulfillments/"+fid, "", "", 200, &old)
	if old.Fulfillment.Status != osdm.FulfillmentExchanged {
		t.Errorf("GET of the exchanged fulfilment: %+v", old.Fulfillment)
	}
	fid = fr.Fulfillments[0].ID
	// Another exchange, deleted: its places freed, 709 kept.
	x2 := c.exchange(b, fid, "708")
	l.seats(t, "second exchange", 2, 2)
	c.ok("DELETE", "/bookings/"+b.ID+"/exchange-operations/"+x2, "", "", 204, nil)
	l.seats(t, "second exchange deleted", 0, 2)

	// Partial refund of the child: one place freed; then the rest.
	n = len(l.messages())
	var rr osdm.RefundOfferCollectionResponse
	c.sent("POST", "/bookings/"+b.ID+"/refund-offers", `{"fulfillmentIds": ["`+fid+`"], "refundSpecifications": [{"fulfillmentId": "`+fid+`", "passengerIds": ["`+b.Passengers[1].ID+`"]}]}`, 200, &rr)
	var cr osdm.RefundOfferResponse
	c.sent("PATCH", "/bookings/"+b.ID+"/refund-offers/"+rr.RefundOffers[0].ID, `{"status": "CONFIRMED"}`, 200, &cr)
	if k := l.kinds(n); k[legacy.KindCancelRequest] != 1 || cr.RefundOffer.Status != osdm.RefundConfirmed {
		t.Errorf("partial refund sent %v, %+v", k, cr.RefundOffer)
	}
	l.seats(t, "partial refund", 0, 1)
	c.problem("POST", "/bookings/"+b.ID+"/refund-offers", `{"fulfillmentIds": ["`+fid+`"], "refundSpecifications": [{"fulfillmentId": "`+fid+`", "passengerIds": ["`+b.Passengers[1].ID+`"]}]}`, 409)
	c.sent("POST", "/bookings/"+b.ID+"/refund-offers", `{"fulfillmentIds": ["`+fid+`"]}`, 200, &rr)
	c.sent("PATCH", "/bookings/"+b.ID+"/refund-offers/"+rr.RefundOffers[0].ID, `{"status": "CONFIRMED"}`, 200, &cr)
	l.seats(t, "the rest refunded", 0, 0)
	c.ok("GET", "/bookings/"+b.ID, "", "", 200, &gb)
	if s := gb.Booking.BookedOffers[0].Reservations[0].Status; s != osdm.BookingPartRefunded || len(l.held()) != 0 {
		t.Errorf("booking %s, legacy holds %d", s, len(l.held()))
	}
}

// waitFor polls GET path until it answers 200 (settlement done), decoding
// it into v.
func (c *bkClient) waitFor(path string, v any) {
	c.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		status, _, body := c.do("GET", path, "", "")
		if status == 200 {
			if err := json.Unmarshal(body, v); err != nil {
				c.t.Fatal(err)
			}
			return
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("GET %s: %d %s after 30s", path, status, body)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// killDuring starts call in the background, waits until the legacy system
// carried out a message of kind (its answer held back), and kills child:
// the messageId of that message.
func (l *bkLegacy) killDuring(t *testing.T, child *harness.Child, kind legacy.Kind, call func()) string {
	t.Helper()
	held := make(chan string, 1)
	l.mu.Lock()
	l.hold, l.holdKind = held, kind
	l.mu.Unlock()
	go call()
	select {
	case id := <-held:
		child.Kill()
		l.mu.Lock()
		l.holdKind = ""
		l.mu.Unlock()
		return id
	case <-time.After(waitDeadline):
		t.Fatalf("no %s reached the legacy system", kind)
	}
	return ""
}

// post sends an OSDM call and forgets the answer (the caller is killed).
func (c *bkClient) post(method, path, body string) func() {
	return func() {
		req, _ := http.NewRequest(method, c.base+"/osdm"+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}
}

// TestOSDMLegacyIntegrationAfterSalesSIGKILL: Caddy is killed after the
// legacy system carried out the BookingRequest of an exchange's new
// places, then the CancelRequest of another exchange's confirmation, then
// a partial refund's CancelRequest, each time before the answer was
// recorded. The restarted Caddy settles from its bolt file (asking
// first): the exchange is PREBOOKED with the new places held once, then
// confirmed; the confirmation ends with the booking on the new journey and
// the old places freed; the partial refund is CONFIRMED with the place
// freed once.
func TestOSDMLegacyIntegrationAfterSalesSIGKILL(t *testing.T) {
	l := startBKLegacy(t)
	p, c := newBKProcess(t, l.addr, "")
	child := p.start("first")
	b, fid := c.bookFulfilled("708")

	// The exchange's BookingRequest.
	var xo asExchangeOffers
	c.sent("POST", "/bookings/"+b.ID+"/exchange-offers?embed=EXCHANGEOFFERS", exchangeBody(b, fid, "709"), 200, &xo)
	o := xo.ExchangeOffers[0]
	msgID := l.killDuring(t, child, legacy.KindBookingRequest, c.post("POST", "/bookings/"+b.ID+"/exchange-operations",
		`{"exchangeOffers": [{"offerId": "`+o.OfferID+`", "passengerRefs": ["p1", "p2"]}]}`))
	l.seats(t, "killed during the exchange", 2, 2)
	child = p.start("second")
	// The fulfilment confirms the exchange once settlement recorded its
	// new places (409 while the intent stands).
	var fr osdm.FulfillmentCollectionResponse
	deadline := time.Now().Add(30 * time.Second)
	for {
		status, _, body := c.do("POST", "/bookings/"+b.ID+"/fulfillments", "{}", uuid.NewString())
		if status == 200 {
			_ = json.Unmarshal(body, &fr)
			break
		}
		if status != http.StatusConflict || time.Now().After(deadline) {
			t.Fatalf("fulfilment after restart: %d %s", status, body)
		}
		time.Sleep(200 * time.Millisecond)
	}
	sent := 0
	for _, m := range l.messages() {
		if m.id == msgID {
			sent++
		}
	}
	if sent != 1 {
		t.Errorf("the exchange's BookingRequest %s sent %d times", msgID, sent)
	}
	l.seats(t, "exchange settled and confirmed", 0, 2)
	fid = fr.Fulfillments[0].ID // the new journey's ticket

	// Back to 708, killed during the confirmation's CancelRequest of 709.
	c.exchange(b, fid, "708")
	l.seats(t, "second exchange", 2, 2)
	l.killDuring(t, child, legacy.KindCancelRequest, c.post("POST", "/bookings/"+b.ID+"/fulfillments", "{}"))
	l.seats(t, "killed during the confirmation", 2, 0)
	child = p.start("after-confirm")
	var gb osdm.BookingResponse
	deadline = time.Now().Add(30 * time.Second)
	for {
		c.ok("GET", "/bookings/"+b.ID, "", "", 200, &gb)
		if v := gb.Booking.Trips[0].Legs[0].TimedLeg.Service.VehicleNumbers; len(v) == 1 && v[0] == "708" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the confirmation was not settled: the booking shows %+v", gb.Booking.Trips[0].Legs[0].TimedLeg.Service)
		}
		time.Sleep(200 * time.Millisecond)
	}
	l.seats(t, "confirmation settled", 2, 0)
	c.sent("POST", "/bookings/"+b.ID+"/fulfillments", "{}", 200, &fr)
	l.seats(t, "fulfilment after settlement", 2, 0)
	fid = fr.Fulfillments[0].ID

	// The partial refund's CancelRequest.
	var rr osdm.RefundOfferCollectionResponse
	c.sent("POST", "/bookings/"+b.ID+"/refund-offers", `{"fulfillmentIds": ["`+fid+`"], "refundSpecifications": [{"fulfillmentId": "`+fid+`", "passengerIds": ["p1"]}]}`, 200, &rr)
	rid := rr.RefundOffers[0].ID
	l.killDuring(t, child, legacy.KindCancelRequest, c.post("PATCH", "/bookings/"+b.ID+"/refund-offers/"+rid, `{"status": "CONFIRMED"}`))
	l.seats(t, "killed during the partial refund", 1, 0)
	p.start("last")
	var ro osdm.RefundOfferResponse
	deadline = time.Now().Add(30 * time.Second)
	for ro.RefundOffer == nil || ro.RefundOffer.Status != osdm.RefundConfirmed {
		if time.Now().After(deadline) {
			t.Fatalf("refund offer not confirmed by settlement: %+v", ro.RefundOffer)
		}
		time.Sleep(200 * time.Millisecond)
		c.waitFor("/bookings/"+b.ID+"/refund-offers/"+rid, &ro)
	}
	l.seats(t, "partial refund settled", 1, 0)
	c.ok("GET", "/bookings/"+b.ID, "", "", 200, &gb)
	if s := gb.Booking.BookedOffers[0].Reservations[0].Status; s != osdm.BookingPartFulfilled {
		t.Errorf("booking after the partial refund: %s", s)
	}
}

// TestOSDMLegacyIntegrationAfterSalesTwoInstancesRedis: two Caddy
// processes on one Redis: an exchange asked on one is confirmed on the
// other; a partial refund quoted on one is confirmed on the other; a
// passenger changed on one reads changed on the other.
func TestOSDMLegacyIntegrationAfterSalesTwoInstancesRedis(t *testing.T) {
	addr := redistest.Shared(t)
	l := startBKLegacy(t)
	// The test Redis need not persist: the store says accept_volatile.
	a, b := newBKRedis(t, l, "addresses "+addr+"\n\t\t\taccept_volatile").startTwo("")

	bk, fid := a.bookFulfilled("708")
	a.exchange(bk, fid, "709")
	l.seats(t, "exchange on a", 2, 2)
	var fr osdm.FulfillmentCollectionResponse
	b.sent("POST", "/bookings/"+bk.ID+"/fulfillments", "{}", 200, &fr)
	l.seats(t, "confirmed on b", 0, 2)
	fid = fr.Fulfillments[0].ID

	var rr osdm.RefundOfferCollectionResponse
	b.sent("POST", "/bookings/"+bk.ID+"/refund-offers", `{"fulfillmentIds": ["`+fid+`"], "refundSpecifications": [{"fulfillmentId": "`+fid+`", "passengerIds": ["p2"]}]}`, 200, &rr)
	var cr osdm.RefundOfferResponse
	a.sent("PATCH", "/bookings/"+bk.ID+"/refund-offers/"+rr.RefundOffers[0].ID, `{"status": "CONFIRMED"}`, 200, &cr)
	l.seats(t, "partial refund confirmed on a", 0, 1)
	b.problem("POST", "/bookings/"+bk.ID+"/refund-offers", `{"fulfillmentIds": ["`+fid+`"], "refundSpecifications": [{"fulfillmentId": "`+fid+`", "passengerIds": ["p2"]}]}`, 409)

	var pr osdm.PassengerResponse
	a.sent("PATCH", "/bookings/"+bk.ID+"/passengers/p1", `{"id": "p1", "externalRef": "p1", "type": "ADULT", "detail": {"firstName": "Grace", "lastName": "Hopper"}}`, 200, &pr)
	b.ok("GET", "/bookings/"+bk.ID+"/passengers/p1", "", "", 200, &pr)
	if pr.Passenger.Detail == nil || pr.Passenger.Detail.LastName != "Hopper" {
		t.Errorf("passenger read on b %+v", pr.Passenger)
	}
	l.seats(t, "end", 0, 1)
}
