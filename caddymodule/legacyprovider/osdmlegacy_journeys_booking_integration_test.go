package legacyprovider

import (
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/harness"
	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/legacysandbox"
	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// The booking of journeys with changes through a real Caddy: osdm_legacy
// over harness.ChangeGTFS in front of the legacy sandbox (bkLegacy).

// jyChain is a Caddy (in the test process) for journeys, its client and
// its legacy system.
type jyChain struct {
	*bkClient
	l *bkLegacy
}

func startJourneyBooking(t *testing.T, sbcfg legacysandbox.Config, extra string) *jyChain {
	t.Helper()
	l := startBKLegacyWith(t, sbcfg)
	gtfs := harness.ChangeGTFS(t, t.TempDir(), true)
	return &jyChain{bkClient: serveBK(t, l, "\n\t\t\ttimetable "+gtfs+extra), l: l}
}

// journeyOffer searches from Paris Est at 06:30 and returns the offer of
// the first journey (9571 + 96003).
func (c *bkClient) journeyOffer() osdm.Offer {
	c.t.Helper()
	var resp osdm.OfferCollectionResponse
	c.ok("POST", "/offers", journeySearch("06:30"), "", 200, &resp)
	if len(resp.Offers) == 0 || len(resp.Offers[0].ReservationOfferParts) != 2 {
		c.t.Fatalf("no journey offer: %+v", resp.Offers)
	}
	return resp.Offers[0]
}

// seatsLeft is what the legacy system has left in second class seats of the
// journey's trains on the travel day.
func (l *bkLegacy) seatsLeft(trains ...string) []int {
	var out []int
	for _, tr := range trains {
		out = append(out, l.sb.Available(tr, harness.TravelDay, legacy.SecondClass, legacy.ServiceSeat))
	}
	return out
}

// heldTrains lists the trains of the bookings the legacy system holds.
func (l *bkLegacy) heldTrains() []string {
	var out []string
	for _, b := range l.sb.Bookings() {
		if b.Status == legacy.StatusConfirmed {
			out = append(out, b.Train)
		}
	}
	return out
}

// Booking a two-leg journey books both trains at the legacy system (one
// BookingRequest each, in order); it is fulfilled with one fulfilment per
// train (each its own control number); deleting another journey before
// fulfilment frees both its trains.
func TestOSDMLegacyJourneyBooking(t *testing.T) {
	c := startJourneyBooking(t, legacysandbox.Config{Capacity: 10}, "")
	o := c.journeyOffer()
	var br osdm.BookingResponse
	c.ok("POST", "/bookings", bookingOf(o.OfferID), uuid.NewString(), 200, &br)
	b := br.Booking
	if !strings.HasPrefix(b.ID, "bj-") || len(b.BookedOffers) != 1 || len(b.BookedOffers[0].Reservations) != 2 || len(b.Trips) != 1 || len(b.Trips[0].Legs) != 3 {
		t.Fatalf("booking %+v", b)
	}
	if got := c.l.seatsLeft("9571", "96003"); got[0] != 8 || got[1] != 8 {
		t.Errorf("seats left %v, want 8 on each train", got)
	}
	var books []string
	for _, m := range c.l.messages() {
		if m.kind == legacy.KindBookingRequest {
			books = append(books, m.id)
		}
	}
	trains := c.l.heldTrains()
	if len(books) != 2 || strings.Join(trains, "+") != "9571+96003" {
		t.Errorf("BookingRequests %v; legacy holds %v, want 9571 then 96003", books, trains)
	}
	if b.ProvisionalPrice == nil || b.ProvisionalPrice.Amount != o.OfferSummary.MinimalPrice.Amount {
		t.Errorf("provisional price %+v, want the offer's %+v", b.ProvisionalPrice, o.OfferSummary.MinimalPrice)
	}
	for i, r := range b.BookedOffers[0].Reservations {
		if r.Status != osdm.BookingPartPrebooked || r.ID != o.ReservationOfferParts[i].ID || r.TripCoverage.CoveredLegIDs[0] != o.ReservationOfferParts[i].TripCoverage.CoveredLegIDs[0] {
			t.Errorf("reservation %d: %+v", i, r)
		}
	}
	var gb osdm.BookingResponse
	c.ok("GET", "/bookings/"+b.ID, "", "", 200, &gb)
	if len(gb.Booking.BookedOffers[0].Reservations) != 2 {
		t.Errorf("GET: %+v", gb.Booking)
	}

	var fr osdm.FulfillmentCollectionResponse
	c.ok("POST", "/bookings/"+b.ID+"/fulfillments", "{}", uuid.NewString(), 200, &fr)
	controls := map[string]bool{}
	for _, lb := range c.l.sb.Bookings() {
		controls[lb.TicketControlNumber] = true
	}
	if len(fr.Fulfillments) != 2 || fr.Fulfillments[0].ID == fr.Fulfillments[1].ID ||
		fr.Fulfillments[0].ControlNumber == fr.Fulfillments[1].ControlNumber {
		t.Fatalf("fulfilments %+v, want one per train", fr.Fulfillments)
	}
	for _, fu := range fr.Fulfillments {
		if fu.BookingRef != b.ID || !controls[fu.ControlNumber] || fu.Status != osdm.FulfillmentFulfilled {
			t.Errorf("fulfilment %+v: not the journey's, or a control number the legacy system did not give", fu)
		}
		var one osdm.FulfillmentResponse
		c.ok("GET", "/fulfillments/"+fu.ID, "", "", 200, &one)
		if one.Fulfillment.BookingRef != b.ID {
			t.Errorf("GET /fulfillments/%s: booking %s", fu.ID, one.Fulfillment.BookingRef)
		}
	}
	c.ok("GET", "/bookings/"+b.ID, "", "", 200, &gb)
	if gb.Booking.ConfirmedPrice == nil || gb.Booking.ConfirmedPrice.Amount != o.OfferSummary.MinimalPrice.Amount || len(gb.Booking.Fulfillments) != 2 {
		t.Errorf("fulfilled booking %+v", gb.Booking)
	}

	// An exchange replaces the whole journey: naming one train's
	// fulfilment is refused (restriction 7).
	if p := c.problem("POST", "/bookings/"+b.ID+"/exchange-offers", strings.Replace(journeySearch("07:30"), "{", `{"fulfillmentIds": ["`+fr.Fulfillments[0].ID+`"], `, 1), 422); !strings.HasSuffix(p.Type, ":after-sales") || !strings.Contains(p.Detail, "96003") {
		t.Errorf("exchange of one train of a journey: %+v", p)
	}

	// Another journey, deleted before fulfilment: both trains freed.
	o2 := c.journeyOffer()
	var br2 osdm.BookingResponse
	c.ok("POST", "/bookings", bookingOf(o2.OfferID), "", 200, &br2)
	if got := c.l.seatsLeft("9571", "96003"); got[0] != 6 || got[1] != 6 {
		t.Errorf("seats left %v, want 6 on each train", got)
	}
	c.ok("DELETE", "/bookings/"+br2.Booking.ID, "", "", 204, nil)
	if got := c.l.seatsLeft("9571", "96003"); got[0] != 8 || got[1] != 8 {
		t.Errorf("seats left %v after DELETE, want 8 on each train", got)
	}
	c.problem("GET", "/bookings/bj-AAAAAAAAAAAAAAAAAAAAAA", "", 404)
}

// The legacy system refuses the second train (no places left since the
// search): the journey is not booked (409 naming train 96003 and the
// legacy reason), and the first train is given back at once, with the
// technical reason code and no fee.
func TestOSDMLegacyJourneySecondLegRefused(t *testing.T) {
	c := startJourneyBooking(t, legacysandbox.Config{Capacity: 3}, "")
	o := c.journeyOffer()
	// Another sale takes 96003's places meanwhile.
	rep := c.l.sb.Handle(t.Context(), &legacy.BookingRequest{Header: legacy.Header{MessageID: "other-sale"},
		Journey: legacy.Journey{TrainNumber: "96003", DepartureDate: harness.TravelDay, DepartureTime: "09:10", From: strasbourg, To: baselSBB},
		Places:  legacy.PlaceRequest{TravelClass: 2, ServiceCode: 1, Tariffs: []legacy.Tariff{{Code: 1, Count: 2}}}})
	if _, ok := rep.(*legacy.BookingReply); !ok {
		t.Fatalf("the other sale: %+v", rep)
	}
	p := c.problem("POST", "/bookings", bookingOf(o.OfferID), 409)
	if p.Code != osdm.CodeInsufficientAvailability || !strings.Contains(p.Detail, "train 96003") || !strings.Contains(p.Detail, "NO_AVAILABILITY") {
		t.Errorf("problem %+v, want INSUFFICIENT_AVAILABILITY naming train 96003 and the legacy reason", p)
	}
	if got := c.l.seatsLeft("9571", "96003"); got[0] != 3 || got[1] != 1 {
		t.Errorf("seats left %v, want 9571 whole again (3) and 96003 as the other sale left it (1)", got)
	}
	for _, lb := range c.l.sb.Bookings() {
		if lb.Train != "9571" {
			continue
		}
		if lb.Status != "CANCELLED" || lb.ReasonCode == nil || (lb.Fee != "" && strings.Trim(lb.Fee, "0.") != "") {
			t.Errorf("9571 left as %s, reason %v, fee %q; want cancelled with a reason code and no fee", lb.Status, lb.ReasonCode, lb.Fee)
		}
	}
}

// A train of the journey became another system's after the search: the
// booking is refused with ALTERNATIVE_SYSTEM_PROPOSAL (OSDM 3.10) naming
// that leg's train and the other system, and nothing stays held.
func TestOSDMLegacyJourneyAlternativeSystemAtBooking(t *testing.T) {
	c := startJourneyBooking(t, legacysandbox.Config{}, "")
	o := c.journeyOffer()
	c.l.mu.Lock()
	c.l.propose = "96003"
	c.l.mu.Unlock()
	status, _, body := c.do310("POST", "/bookings", bookingOf(o.OfferID))
	var p osdm.Problem
	if status != 409 || jsonUnmarshal(body, &p) != nil || p.Code != osdm.CodeAlternativeSystemProposal ||
		len(p.AlternativeSystemProposals) != 1 || p.AlternativeSystemProposals[0].SystemOperatorCode != "urn:uic:rics:1080" ||
		p.AlternativeSystemProposals[0].Scope[0].VehicleNumber != "96003" {
		t.Fatalf("%d %s", status, body)
	}
	if held := c.l.heldTrains(); len(held) != 0 {
		t.Errorf("the legacy system holds %v", held)
	}
}

// SIGKILL between the legs of a booking: the legacy system booked the
// first train and the second, whose answer is lost when Caddy dies. The
// restarted Caddy, with no request, rolls the journey back: nothing held,
// and the booking is not found.
func TestOSDMLegacyJourneySIGKILLBetweenLegs(t *testing.T) {
	for _, exchange := range []bool{false, true} {
		name := map[bool]string{false: "booking", true: "exchange"}[exchange]
		t.Run(name+"/bolt", func(t *testing.T) {
			dir := t.TempDir()
			journeySIGKILL(t, dir, "store bolt "+filepath.Join(dir, "legacy.db"), nil, exchange)
		})
		t.Run(name+"/redis", func(t *testing.T) {
			addr := redisForJourneys(t)
			prefix := "osdm-journeys-it/" + harness.RandomHex(8) + "/"
			journeySIGKILL(t, t.TempDir(), "store shared", func(cf string) string {
				return withRedisStore(cf, "addresses "+addr+"\n\t\t\taccept_volatile\n\t\t\tprefix "+prefix)
			}, exchange)
		})
	}
}

// journeySIGKILL kills Caddy between the legs of a journey's booking or,
// with exchange, of the exchange of a booked journey to the next one: the
// restarted Caddy gives back what the dead one booked of them, with no
// request; an exchange leaves the journey as it was.
func journeySIGKILL(t *testing.T, dir, storeLine string, wrap func(string) string, exchange bool) {
	l := startBKLegacy(t)
	gtfs := harness.ChangeGTFS(t, dir, true)
	port := harness.FreePort(t)
	cf := bkCaddyfile(port, l.addr, storeLine, "\n\t\t\ttimetable "+gtfs)
	if wrap != nil {
		cf = wrap(cf)
	}
	child := harness.StartCaddy(t, dir, "first", cf)
	c := &bkClient{t: t, base: fmt.Sprintf("http://127.0.0.1:%d", port)}
	path, body := "/osdm/bookings", bookingOf(c.journeyOffer().OfferID)
	want := "9571+96003" // held when Caddy dies
	var b *osdm.Booking
	if exchange {
		jc := &jyChain{bkClient: c, l: l}
		var fids []string
		b, fids = jc.bookJourney()
		xr := c.exchangeOffers(b, fids, "07:30")
		path, body = "/osdm/bookings/"+b.ID+"/exchange-operations", exchangeOperationOf(xr.ExchangeOffers[0].OfferID)
		want = "9571+96003+9573+96005"
	}
	held := make(chan string, 1)
	l.mu.Lock()
	l.hold, l.holdSkip = held, 1 // the second train's BookingRequest
	l.mu.Unlock()
	var bookingID string
	go func() {
		req, _ := http.NewRequest("POST", c.base+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	select {
	case <-held:
	case <-time.After(waitDeadline):
		t.Fatal("the second BookingRequest never reached the legacy system")
	}
	child.Kill()
	if trains := l.heldTrains(); strings.Join(trains, "+") != want {
		t.Fatalf("the legacy system holds %v, want %s", trains, want)
	}
	if exchange {
		want = "9571+96003"
	} else {
		want = ""
	}
	for _, m := range l.messages() {
		if m.kind == legacy.KindBookingRequest {
			leg, _, _ := strings.Cut(m.id, ".")
			bookingID = leg
		}
	}

	harness.StartCaddy(t, dir, "restarted", cf)
	restarted := time.Now()
	// settle_interval 200ms; the journey's lease and the lost message's are
	// the call's timeout (2s) from when they were taken.
	for strings.Join(l.heldTrains(), "+") != want {
		if time.Since(restarted) > waitDeadline {
			t.Fatalf("the legacy system still holds %v %v after the restart, with no request", l.heldTrains(), time.Since(restarted))
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Logf("rolled back %v after the restart, with no request", time.Since(restarted))
	for _, lb := range l.sb.Bookings() {
		if lb.Status == legacy.StatusConfirmed {
			continue
		}
		if lb.ReasonCode == nil || (lb.Fee != "" && strings.Trim(lb.Fee, "0.") != "") {
			t.Errorf("train %s cancelled with reason %v, fee %q; want the technical reason, no fee", lb.Train, lb.ReasonCode, lb.Fee)
		}
	}
	books := 0
	for _, m := range l.messages() {
		if m.kind == legacy.KindBookingRequest {
			books++
		}
	}
	if want := map[bool]int{false: 2, true: 4}[exchange]; books != want {
		t.Errorf("%d BookingRequests, want %d (none sent again)", books, want)
	}
	_ = bookingID
	if exchange {
		// The journey stands as it was, and is exchanged once more.
		var gb osdm.BookingResponse
		c.ok("GET", "/bookings/"+b.ID, "", "", 200, &gb)
		if got := journeyTrains(&osdm.OfferCollectionResponse{Trips: gb.Booking.Trips}); fmt.Sprint(got) != "[9571+96003]" || len(gb.Booking.Fulfillments) != 2 {
			t.Errorf("booking after the restart: %v", got)
		}
	}
}

// bookJourney books and fulfils the first journey from 06:30 and returns
// the booking and its fulfilment ids (train 9571's, then 96003's).
func (c *jyChain) bookJourney() (*osdm.Booking, []string) {
	c.t.Helper()
	var br osdm.BookingResponse
	c.ok("POST", "/bookings", bookingOf(c.journeyOffer().OfferID), uuid.NewString(), 200, &br)
	var fr osdm.FulfillmentCollectionResponse
	c.ok("POST", "/bookings/"+br.Booking.ID+"/fulfillments", "{}", uuid.NewString(), 200, &fr)
	return br.Booking, []string{fr.Fulfillments[0].ID, fr.Fulfillments[1].ID}
}

// refund asks for the refund offer of body on booking id, confirms it
// and returns it confirmed.
func (c *jyChain) refund(id, body string) osdm.RefundOffer {
	c.t.Helper()
	var rr osdm.RefundOfferCollectionResponse
	c.ok("POST", "/bookings/"+id+"/refund-offers", body, uuid.NewString(), 200, &rr)
	var cr osdm.RefundOfferResponse
	c.ok("PATCH", "/bookings/"+id+"/refund-offers/"+rr.RefundOffers[0].ID, `{"status": "CONFIRMED"}`, uuid.NewString(), 200, &cr)
	if cr.RefundOffer.Status != osdm.RefundConfirmed {
		c.t.Fatalf("refund offer %+v", cr.RefundOffer)
	}
	return *cr.RefundOffer
}

// After the sale: a partial refund of the child on both trains frees one
// seat on each and keeps the fulfilments FULFILLED for the adult; a whole
// refund then frees the rest; a partial refund naming one train's
// fulfilment frees a seat on that train only; passenger data reaches
// both trains' bookings. The refunded amounts are the legacy system's.
func TestOSDMLegacyJourneyRefunds(t *testing.T) {
	c := startJourneyBooking(t, legacysandbox.Config{Capacity: 10}, "")
	b, fids := c.bookJourney()
	if got := c.l.seatsLeft("9571", "96003"); got[0] != 8 || got[1] != 8 {
		t.Fatalf("seats left %v after booking, want 8, 8", got)
	}
	var pr osdm.PassengerResponse
	c.ok("PATCH", "/bookings/"+b.ID+"/passengers/p2", `{"id": "p2", "externalRef": "p2", "type": "CHILD", "detail": {"firstName": "Byron", "lastName": "King"}}`, uuid.NewString(), 200, &pr)
	named := 0
	for _, lb := range c.l.sb.Bookings() {
		for _, n := range lb.Names {
			if n.LastName == "King" {
				named++
			}
		}
	}
	if named != 2 {
		t.Errorf("the child's name reached %d of the 2 trains' bookings", named)
	}

	ro := c.refund(b.ID, `{"fulfillmentIds": ["`+fids[0]+`", "`+fids[1]+`"], "refundSpecifications": [
		{"fulfillmentId": "`+fids[0]+`", "passengerIds": ["p2"]}, {"fulfillmentId": "`+fids[1]+`", "passengerIds": ["p2"]}]}`)
	if got := c.l.seatsLeft("9571", "96003"); got[0] != 9 || got[1] != 9 {
		t.Errorf("seats left %v after refunding the child, want 9, 9", got)
	}
	if len(ro.Fulfillments) != 2 || ro.Fulfillments[0].Status != osdm.FulfillmentFulfilled {
		t.Errorf("partial refund's fulfilments %+v, want both, still FULFILLED", ro.Fulfillments)
	}
	if want := legacyRefunded(t, c.l); ro.RefundableAmount.Amount != want || want == 0 {
		t.Errorf("refundable %d, the legacy system refunded %d", ro.RefundableAmount.Amount, want)
	}
	c.refund(b.ID, `{"fulfillmentIds": ["`+fids[0]+`", "`+fids[1]+`"]}`)
	if got := c.l.seatsLeft("9571", "96003"); got[0] != 10 || got[1] != 10 {
		t.Errorf("seats left %v after the whole refund, want 10, 10", got)
	}
	var gb osdm.BookingResponse
	c.ok("GET", "/bookings/"+b.ID, "", "", 200, &gb)
	for _, r := range gb.Booking.BookedOffers[0].Reservations {
		if r.Status != osdm.BookingPartRefunded {
			t.Errorf("reservation %s is %s after the whole refund", r.ID, r.Status)
		}
	}
	c.problem("POST", "/bookings/"+b.ID+"/refund-offers", `{"fulfillmentIds": ["`+fids[0]+`"]}`, 409)

	// One train only.
	b2, fids2 := c.bookJourney()
	c.refund(b2.ID, `{"fulfillmentIds": ["`+fids2[0]+`"], "refundSpecifications": [{"fulfillmentId": "`+fids2[0]+`", "passengerIds": ["p1"]}]}`)
	if got := c.l.seatsLeft("9571", "96003"); got[0] != 9 || got[1] != 8 {
		t.Errorf("seats left %v after refunding p1 on 9571 only, want 9, 8", got)
	}
	c.problem("POST", "/bookings/"+b2.ID+"/refund-offers", `{"fulfillmentIds": ["fu-AAAAAAAAAAAAAAAAAAAAAA"]}`, 404)
}

// legacyRefunded is what the legacy system refunded over all its
// bookings, in cents.
func legacyRefunded(t *testing.T, l *bkLegacy) int64 {
	t.Helper()
	var sum int64
	for _, lb := range l.sb.Bookings() {
		if lb.Refund == "" {
			continue
		}
		whole, frac, _ := strings.Cut(lb.Refund, ".")
		var w, f int64
		fmt.Sscan(whole, &w)
		fmt.Sscan((frac + "00")[:2], &f)
		sum += w*100 + f
	}
	return sum
}

// exchangeOffers asks for the exchange offers of booking b (fulfilments
// fids) to the journeys from at.
func (c *bkClient) exchangeOffers(b *osdm.Booking, fids []string, at string) osdm.ExchangeOfferCollectionResponse {
	c.t.Helper()
	body := strings.Replace(journeySearch(at), "{", `{"fulfillmentIds": ["`+strings.Join(fids, `", "`)+`"], `, 1)
	var xr osdm.ExchangeOfferCollectionResponse
	c.ok("POST", "/bookings/"+b.ID+"/exchange-offers", body, uuid.NewString(), 200, &xr)
	return xr
}

func exchangeOperationOf(offerID string) string {
	return `{"exchangeOffers": [{"offerId": "` + offerID + `", "passengerRefs": ["p1", "p2"]}]}`
}

// An exchange replaces the whole journey: the new trains are held before
// the old are given back, and only the fulfilment that confirms it gives
// them back; a deleted exchange gives the new trains back and the journey
// stands; a new train refused gives back the new trains booked before it.
func TestOSDMLegacyJourneyExchange(t *testing.T) {
	c := startJourneyBooking(t, legacysandbox.Config{Capacity: 10}, "\n\t\t\texchange_fee 10%")
	b, fids := c.bookJourney()
	xr := c.exchangeOffers(b, fids, "07:30")
	if len(xr.ExchangeOffers) != 2 || len(xr.ExchangeOffers[0].ReservationOfferParts) != 2 || len(xr.ExchangeOffers[0].Fulfillments) != 2 {
		t.Fatalf("exchange offers %+v", xr.ExchangeOffers)
	}
	xo := xr.ExchangeOffers[0] // 9573 + 96005
	var op osdm.ExchangeOperationResponse
	c.ok("POST", "/bookings/"+b.ID+"/exchange-operations", exchangeOperationOf(xo.OfferID), uuid.NewString(), 200, &op)
	if op.ExchangeOperation.Status != osdm.ExchangePrebooked {
		t.Fatalf("exchange operation %+v", op.ExchangeOperation)
	}
	if got := c.l.seatsLeft("9571", "96003", "9573", "96005"); fmt.Sprint(got) != "[8 8 8 8]" {
		t.Errorf("seats left %v while the exchange is held, want old and new trains held", got)
	}
	var fr osdm.FulfillmentCollectionResponse
	c.ok("POST", "/bookings/"+b.ID+"/fulfillments", "{}", uuid.NewString(), 200, &fr)
	if got := c.l.seatsLeft("9571", "96003", "9573", "96005"); fmt.Sprint(got) != "[10 10 8 8]" {
		t.Errorf("seats left %v after confirming, want the old trains free, the new held", got)
	}
	if len(fr.Fulfillments) != 2 || fr.Fulfillments[0].ID == fids[0] || fr.Fulfillments[0].BookingRef != b.ID {
		t.Errorf("fulfilments %+v, want the new trains'", fr.Fulfillments)
	}
	var gb osdm.BookingResponse
	c.ok("GET", "/bookings/"+b.ID, "", "", 200, &gb)
	if got := journeyTrains(&osdm.OfferCollectionResponse{Trips: gb.Booking.Trips}); fmt.Sprint(got) != "[9573+96005]" || gb.Booking.BookedOffers[0].OfferID != xo.OfferID {
		t.Errorf("booking after the exchange: trips %v, offer %s", got, gb.Booking.BookedOffers[0].OfferID)
	}
	var old osdm.FulfillmentResponse
	c.ok("GET", "/fulfillments/"+fids[0], "", "", 200, &old)
	if old.Fulfillment.Status != osdm.FulfillmentExchanged || old.Fulfillment.BookingRef != b.ID {
		t.Errorf("the old train's fulfilment after the exchange: %s of %s", old.Fulfillment.Status, old.Fulfillment.BookingRef)
	}
	var gx osdm.ExchangeOperationResponse
	c.ok("GET", "/bookings/"+b.ID+"/exchange-operations/"+op.ExchangeOperation.ID, "", "", 200, &gx)
	if gx.ExchangeOperation.Status != osdm.ExchangeFulfilled {
		t.Errorf("exchange operation after the fulfilment: %s", gx.ExchangeOperation.Status)
	}

	// Exchanged again, then deleted: the new trains are given back.
	xr = c.exchangeOffers(b, []string{fr.Fulfillments[0].ID, fr.Fulfillments[1].ID}, "08:30")
	c.ok("POST", "/bookings/"+b.ID+"/exchange-operations", exchangeOperationOf(xr.ExchangeOffers[0].OfferID), uuid.NewString(), 200, &op)
	if got := c.l.seatsLeft("9573", "96005", "9575", "96007"); fmt.Sprint(got) != "[8 8 8 8]" {
		t.Errorf("seats left %v, want both journeys held", got)
	}
	c.ok("DELETE", "/bookings/"+b.ID+"/exchange-operations/"+op.ExchangeOperation.ID, "", "", 204, nil)
	if got := c.l.seatsLeft("9573", "96005", "9575", "96007"); fmt.Sprint(got) != "[8 8 10 10]" {
		t.Errorf("seats left %v after DELETE, want the new trains free", got)
	}

	// The second new train is full by the time the exchange books it.
	xr = c.exchangeOffers(b, []string{fr.Fulfillments[0].ID, fr.Fulfillments[1].ID}, "08:30")
	rep := c.l.sb.Handle(t.Context(), &legacy.BookingRequest{Header: legacy.Header{MessageID: "other-sale-x"},
		Journey: legacy.Journey{TrainNumber: "96007", DepartureDate: harness.TravelDay, DepartureTime: "11:10", From: strasbourg, To: baselSBB},
		Places:  legacy.PlaceRequest{TravelClass: 2, ServiceCode: 1, Tariffs: []legacy.Tariff{{Code: 1, Count: 9}}}})
	if _, ok := rep.(*legacy.BookingReply); !ok {
		t.Fatalf("the other sale: %+v", rep)
	}
	p := c.problem("POST", "/bookings/"+b.ID+"/exchange-operations", exchangeOperationOf(xr.ExchangeOffers[0].OfferID), 409)
	if !strings.Contains(p.Detail, "train 96007") || !strings.Contains(p.Detail, "stands as it was") {
		t.Errorf("problem %+v", p)
	}
	if got := c.l.seatsLeft("9573", "96005", "9575", "96007"); fmt.Sprint(got) != "[8 8 10 1]" {
		t.Errorf("seats left %v after the refused exchange, want the journey as it was and 9575 free", got)
	}
	c.ok("GET", "/bookings/"+b.ID, "", "", 200, &gb)
	if got := journeyTrains(&osdm.OfferCollectionResponse{Trips: gb.Booking.Trips}); fmt.Sprint(got) != "[9573+96005]" {
		t.Errorf("booking after the refused exchange: %v", got)
	}
}

// Two Caddy processes on one Redis: a journey searched on one is booked
// on the other, fulfilled and refunded across them; both agree, and the
// legacy system holds nothing at the end.
func TestOSDMLegacyJourneyTwoInstancesRedis(t *testing.T) {
	addr := redisForJourneys(t)
	l := startBKLegacy(t)
	gtfs := harness.ChangeGTFS(t, t.TempDir(), true)
	a, b := newBKRedis(t, l, "addresses "+addr+"\n\t\t\taccept_volatile").startTwo("\n\t\t\ttimetable " + gtfs)
	var br osdm.BookingResponse
	b.ok("POST", "/bookings", bookingOf(a.journeyOffer().OfferID), uuid.NewString(), 200, &br)
	id := br.Booking.ID
	var fr osdm.FulfillmentCollectionResponse
	a.ok("POST", "/bookings/"+id+"/fulfillments", "{}", uuid.NewString(), 200, &fr)
	if len(fr.Fulfillments) != 2 || len(l.heldTrains()) != 2 {
		t.Fatalf("fulfilments %+v; legacy holds %v", fr.Fulfillments, l.heldTrains())
	}
	var rr osdm.RefundOfferCollectionResponse
	b.ok("POST", "/bookings/"+id+"/refund-offers", `{"fulfillmentIds": ["`+fr.Fulfillments[0].ID+`", "`+fr.Fulfillments[1].ID+`"]}`, uuid.NewString(), 200, &rr)
	var cr osdm.RefundOfferResponse
	a.ok("PATCH", "/bookings/"+id+"/refund-offers/"+rr.RefundOffers[0].ID, `{"status": "CONFIRMED"}`, uuid.NewString(), 200, &cr)
	var gb osdm.BookingResponse
	b.ok("GET", "/bookings/"+id, "", "", 200, &gb)
	for _, r := range gb.Booking.BookedOffers[0].Reservations {
		if r.Status != osdm.BookingPartRefunded {
			t.Errorf("instance b reads reservation %s %s after the refund on a", r.ID, r.Status)
		}
	}
	if held := l.heldTrains(); len(held) != 0 {
		t.Errorf("the legacy system holds %v after the refund", held)
	}
}
