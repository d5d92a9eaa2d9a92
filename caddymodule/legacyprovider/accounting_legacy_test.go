package legacyprovider

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/harness"
	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/legacysandbox"
	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// The accounting run: mixed after-sales through osdm_legacy in a child
// Caddy that is killed with SIGKILL now and then, in front of a legacy
// system that fails a share of the messages that change a booking (before
// carrying them out, or after, the answer lost). At the end every amount
// a consumer was quoted and confirmed is compared, to the cent, with what
// the legacy system recorded.

// faultyLegacy fails a share of the BookingRequests, CancelRequests and
// PassengerDataRequests that reach the legacy system l: half with a 503
// before l sees them, half carried out by l and answered with garbage.
type faultyLegacy struct {
	l *bkLegacy

	mu             sync.Mutex
	rng            *rand.Rand
	rate           float64
	faulted, total int
	// hold, when set, receives the messageId of the first message of
	// holdKind whose messageId holds holdMatch, once l carried it out; its
	// answer is never written.
	hold      chan string
	holdKind  legacy.Kind
	holdMatch string
}

func (f *faultyLegacy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	_, kind, id := readMessage(r)
	f.mu.Lock()
	if f.hold != nil && kind == f.holdKind && strings.Contains(id, f.holdMatch) {
		hold := f.hold
		f.hold = nil
		f.mu.Unlock()
		f.l.ServeHTTP(newDiscardWriter(), r) // carried out; the answer is held back
		hold <- id
		<-r.Context().Done()
		return
	}
	roll, rate := f.rng.Float64(), f.rate
	changes := kind == legacy.KindBookingRequest || kind == legacy.KindCancelRequest || kind == legacy.KindPassengerDataRequest
	if changes {
		f.total++
		if roll < rate {
			f.faulted++
		}
	}
	f.mu.Unlock()
	switch {
	case !changes || roll >= rate:
		f.l.ServeHTTP(w, r)
	case roll < rate/2:
		http.Error(w, "reservation system busy", http.StatusServiceUnavailable)
	default:
		f.l.ServeHTTP(newDiscardWriter(), r) // carried out; the answer is lost
		w.Header().Set("Content-Type", r.Header.Get("Content-Type"))
		_, _ = w.Write([]byte("<Garbled"))
	}
}

// setRate sets the share of messages failed.
func (f *faultyLegacy) setRate(rate float64) {
	f.mu.Lock()
	f.rate = rate
	f.mu.Unlock()
}

// acctBooking is what the consumer of the accounting run was quoted and
// confirmed for one booking.
type acctBooking struct {
	id, fid   string
	fulfilled bool
	left      []string // passengers not refunded
	exchanged int      // confirmed exchanges
	// paid is what the consumer paid (the booking's price, the exchanges'
	// amounts to pay less their refunds); fees what it was quoted as fees
	// of confirmed refunds and exchanges; quoted the refund offers' quotes.
	paid, fees int64
	quoted     map[string][2]int64 // refund offer id: refundable, fee
}

// acctRun drives the accounting run.
type acctRun struct {
	t     *testing.T
	c     *bkClient
	l     *bkLegacy
	fl    *faultyLegacy
	rng   *rand.Rand
	p     *bkProcess
	child *harness.Child
	kills int
	day   string
}

// call sends one OSDM call with idempotency key key until it gets an
// answer that is not a passing failure (5xx, or a 409 that says to
// retry), and returns it.
func (a *acctRun) call(method, path, body, key string) (int, []byte) {
	a.t.Helper()
	deadline := time.Now().Add(40 * time.Second)
	for {
		status, _, got := a.c.do(method, path, body, key)
		retry := status >= 500 || status == http.StatusConflict && bytes.Contains(bytes.ToLower(got), []byte("retry"))
		if !retry {
			return status, got
		}
		if time.Now().After(deadline) {
			var seen []string
			for _, m := range a.l.messages() {
				if strings.Contains(path, strings.SplitN(m.id, ".", 2)[0]) {
					seen = append(seen, string(m.kind)+" "+m.id)
				}
			}
			var logs []string
			for _, line := range strings.Split(a.child.Output(), "\n") {
				if id := strings.SplitN(strings.TrimPrefix(path, "/bookings/"), "/", 2)[0]; strings.Contains(line, id) {
					logs = append(logs, line)
				}
			}
			var recs []string
			for _, lb := range a.l.sb.Bookings() {
				if strings.Contains(strings.Join(lb.MessageIDs, " "), strings.SplitN(strings.TrimPrefix(path, "/bookings/"), "/", 2)[0]) {
					recs = append(recs, fmt.Sprintf("%s %s price %s refund %s fee %s cancelled %v ids %v", lb.BookingRef, lb.Train, lb.Price, lb.Refund, lb.Fee, lb.CancelledAt, lb.MessageIDs))
				}
			}
			a.t.Fatalf("%s %s: still %d after 40s: %s\nlegacy messages: %v\nlegacy records: %v\nlog:\n%s", method, path, status, got, seen, recs, strings.Join(logs, "\n"))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// step is call, or, when kill names a message kind, the same call in the
// background with Caddy killed once the legacy system carried out that
// message (its answer held back), Caddy restarted, and the call sent
// again with the same key.
func (a *acctRun) step(method, path, body string, kill legacy.Kind, match string) (int, []byte) {
	a.t.Helper()
	key := uuid.NewString()
	if kill != "" {
		a.fl.setRate(0)
		held := make(chan string, 1)
		a.fl.mu.Lock()
		a.fl.hold, a.fl.holdKind, a.fl.holdMatch = held, kill, match
		a.fl.mu.Unlock()
		go func() {
			req, _ := http.NewRequest(method, a.c.base+"/osdm"+path, strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Idempotency-Key", key)
			if resp, err := http.DefaultClient.Do(req); err == nil {
				resp.Body.Close()
			}
		}()
		killed := false
		select {
		case <-held:
			a.child.Kill()
			a.kills, killed = a.kills+1, true
		case <-time.After(5 * time.Second):
			// The call sent no such message (refused before): no kill.
		}
		a.fl.mu.Lock()
		a.fl.hold = nil
		a.fl.mu.Unlock()
		if killed {
			a.child = a.p.start(fmt.Sprintf("run-%d", a.kills))
		}
		a.fl.setRate(acctFaultRate)
	}
	return a.call(method, path, body, key)
}

// killOn is kind when kill is set, "" (no kill) otherwise.
func killOn(kill bool, kind legacy.Kind) legacy.Kind {
	if kill {
		return kind
	}
	return ""
}

// booking reads booking id.
func (a *acctRun) booking(id string) *osdm.Booking {
	a.t.Helper()
	var br osdm.BookingResponse
	status, got := a.call("GET", "/bookings/"+id, "", "")
	if status != 200 || json.Unmarshal(got, &br) != nil {
		a.t.Fatalf("GET booking %s: %d %s", id, status, got)
	}
	return br.Booking
}

// acctFaultRate is the share of the legacy messages that change a booking
// the run fails.
const acctFaultRate = 0.15

// book books three passengers on train and, as the dice say, fulfils it,
// deletes it or leaves it to its hold.
func (a *acctRun) book(train string, kill bool) *acctBooking {
	a.t.Helper()
	var resp osdm.OfferCollectionResponse
	if status, got := a.call("POST", "/offers", legacySearch(train, a.day, threePassengers), ""); status != 200 || json.Unmarshal(got, &resp) != nil || len(resp.Offers) != 1 {
		a.t.Fatalf("search %s: %d %s", train, status, got)
	}
	status, got := a.step("POST", "/bookings", `{"offers": [{"offerId": "`+resp.Offers[0].OfferID+`", "passengerRefs": ["p1", "p2", "p3"]}],
	 "passengerSpecifications": [`+threePassengers+`]}`, killOn(kill, legacy.KindBookingRequest), ".book")
	var br osdm.BookingResponse
	if status != 200 || json.Unmarshal(got, &br) != nil {
		return nil // refused: nothing booked
	}
	b := &acctBooking{id: br.Booking.ID, quoted: map[string][2]int64{}}
	switch roll := a.rng.IntN(8); {
	case roll < 5:
		var fr osdm.FulfillmentCollectionResponse
		status, got := a.step("POST", "/bookings/"+b.id+"/fulfillments", "{}", "", "")
		if status == 200 && json.Unmarshal(got, &fr) == nil {
			bk := a.booking(b.id)
			b.fulfilled, b.fid = true, fr.Fulfillments[0].ID
			b.paid = bk.ConfirmedPrice.Amount
			for _, p := range bk.Passengers {
				b.left = append(b.left, p.ID)
			}
		}
	case roll < 7:
		a.step("DELETE", "/bookings/"+b.id, "", "", "")
	}
	return b
}

// refund quotes and confirms the refund of n passengers of b (all left
// when n is as many).
func (a *acctRun) refund(b *acctBooking, n int, kill bool) {
	a.t.Helper()
	a.rng.Shuffle(len(b.left), func(i, j int) { b.left[i], b.left[j] = b.left[j], b.left[i] })
	pids := b.left[:n]
	body := `{"fulfillmentIds": ["` + b.fid + `"], "refundSpecifications": [{"fulfillmentId": "` + b.fid + `", "passengerIds": ["` + strings.Join(pids, `", "`) + `"]}]}`
	var rr osdm.RefundOfferCollectionResponse
	if status, got := a.call("POST", "/bookings/"+b.id+"/refund-offers", body, uuid.NewString()); status != 200 || json.Unmarshal(got, &rr) != nil {
		a.t.Logf("refund offer of %v of %s: %d %s", pids, b.id, status, got) // an exchange left to its hold
		return
	}
	ro := rr.RefundOffers[0]
	b.quoted[ro.ID] = [2]int64{ro.RefundableAmount.Amount, ro.RefundFee.Amount}
	if status, got := a.step("PATCH", "/bookings/"+b.id+"/refund-offers/"+ro.ID, `{"status": "CONFIRMED"}`, killOn(kill, legacy.KindCancelRequest), b.id+".cancel"); status == 200 {
		b.left = append([]string(nil), b.left[n:]...)
	} else {
		a.t.Logf("refund %s of %s not confirmed: %d %s", ro.ID, b.id, status, got)
	}
}

// exchange quotes an exchange of b to train, books it and, as the dice
// say, confirms it, deletes it or leaves it to its hold.
func (a *acctRun) exchange(b *acctBooking, train string, kill bool) {
	a.t.Helper()
	body := `{"fulfillmentIds": ["` + b.fid + `"],
	 "tripSearchCriteria": {"origin": {"objectType": "StopPlaceRef", "stopPlaceRef": "urn:uic:stn:8500010"},
	  "destination": {"objectType": "StopPlaceRef", "stopPlaceRef": "urn:uic:stn:8503000"},
	  "departureTime": "` + a.day + `",
	  "parameters": {"dataFilter": {"vehicleFilter": {"exclude": false, "vehicleNumbers": ["` + train + `"]}}}},
	 "offerSearchCriteria": {"travelClasses": ["SECOND"]},
	 "anonymousPassengerSpecifications": [` + threePassengers + `]}`
	var xo asExchangeOffers
	if status, got := a.call("POST", "/bookings/"+b.id+"/exchange-offers?embed=EXCHANGEOFFERS", body, uuid.NewString()); status != 200 || json.Unmarshal(got, &xo) != nil || len(xo.ExchangeOffers) != 1 {
		a.t.Logf("exchange offers of %s: %d %s", b.id, status, got) // an exchange left to its hold
		return
	}
	o := xo.ExchangeOffers[0]
	var op asExchangeOperation
	status, got := a.step("POST", "/bookings/"+b.id+"/exchange-operations", `{"exchangeOffers": [{"offerId": "`+o.OfferID+`", "passengerRefs": ["p1", "p2", "p3"]}]}`, killOn(kill && a.kills%2 == 0, legacy.KindBookingRequest), b.id+".xbook")
	if status != 200 || json.Unmarshal(got, &op) != nil {
		return
	}
	switch roll := a.rng.IntN(6); {
	case roll < 4 || kill:
		// The confirmation: the CancelRequest of the old places.
		a.step("POST", "/bookings/"+b.id+"/fulfillments", "{}", killOn(kill && a.kills%2 == 1, legacy.KindCancelRequest), b.id+".cancel")
	case roll < 5:
		a.step("DELETE", "/bookings/"+b.id+"/exchange-operations/"+op.ExchangeOperation.ID, "", "", "")
	default:
		return // left to its hold
	}
	a.sync(b, o.ExchangeFee.Amount, o.AmountToBePaid, o.RefundableAmount)
}

// sync reads b's fulfilments: an exchange confirmed since the last look
// adds its quote (fee, amount to pay or refunded) to what the consumer
// paid, and b's fulfilment is the new one.
func (a *acctRun) sync(b *acctBooking, fee int64, toPay, back *osdm.Price) {
	a.t.Helper()
	bk := a.booking(b.id)
	n := 0
	for _, fu := range bk.Fulfillments {
		switch fu.Status {
		case osdm.FulfillmentExchanged:
			n++
		case osdm.FulfillmentFulfilled:
			b.fid = fu.ID
		}
	}
	if n == b.exchanged {
		return
	}
	if n != b.exchanged+1 {
		a.t.Fatalf("booking %s: %d exchanges confirmed, the run made %d more", b.id, n, n-b.exchanged)
	}
	b.exchanged, b.fees = n, b.fees+fee
	if toPay != nil {
		b.paid += toPay.Amount
	}
	if back != nil {
		b.paid -= back.Amount
	}
}

// TestOSDMLegacyAccountingRun: about 120 mixed operations (bookings
// fulfilled, deleted or left to their hold, partial and whole refunds,
// exchanges confirmed, deleted or left to their hold, passenger changes)
// through osdm_legacy on bolt in a child Caddy, 15 % of the legacy
// messages that change a booking failed (before or after the legacy
// system carried them out) and Caddy killed with SIGKILL during a
// booking, an exchange, a refund and a confirmation, several times. Once
// everything settled, for every booking: each refund's confirmation is
// its quote; the fees the legacy system kept are the refund and exchange
// fees the consumer was quoted and confirmed; what the legacy system kept
// in all (prices less refunds) is what the consumer paid less what it got
// back; places never sold (deleted, held and expired, exchanges dropped)
// cost nothing; and the seats the legacy system holds are those of the
// bookings that stand.
func TestOSDMLegacyAccountingRun(t *testing.T) {
	if testing.Short() {
		t.Skip("the accounting run takes a minute")
	}
	l := startBKLegacyWith(t, legacysandbox.Config{Capacity: 1000, Fares: []legacysandbox.Fare{{TravelClass: 2, ServiceCode: 1, Cents: 1235}}})
	fl := &faultyLegacy{l: l, rng: rand.New(rand.NewPCG(7, 11)), rate: acctFaultRate}
	addr := harness.ServeLocal(t, fl)
	p, c := newBKProcess(t, addr, "\n\t\t\texchange_fee 10%\n\t\t\thold 3s")
	a := &acctRun{t: t, l: l, fl: fl, rng: rand.New(rand.NewPCG(3, 5)), p: p, c: c,
		day: time.Now().AddDate(0, 0, 1).Format(time.DateOnly) + "T00:00:00+01:00"}
	a.child = p.start("run-0")
	trains := []string{"708", "709", "710", "712"}
	var bookings []*acctBooking
	for i := range 120 {
		kill := i%12 == 11
		var live []*acctBooking
		for _, b := range bookings {
			if b.fulfilled && len(b.left) > 0 {
				live = append(live, b)
			}
		}
		roll := a.rng.IntN(10)
		if len(live) == 0 || roll < 3 {
			if b := a.book(trains[a.rng.IntN(len(trains))], kill); b != nil {
				bookings = append(bookings, b)
			}
			continue
		}
		b := live[a.rng.IntN(len(live))]
		switch {
		case roll < 5 && len(b.left) > 1:
			a.refund(b, 1+a.rng.IntN(len(b.left)-1), kill)
		case roll < 6:
			a.refund(b, len(b.left), kill)
		case roll < 9 && len(b.left) == 3:
			a.exchange(b, trains[a.rng.IntN(len(trains))], kill)
		default:
			a.step("PATCH", "/bookings/"+b.id+"/passengers/p1", `{"id": "p1", "externalRef": "p1", "type": "ADULT", "detail": {"firstName": "Ada", "lastName": "Run`+fmt.Sprint(i)+`"}}`, "", "")
		}
	}
	fl.setRate(0)
	// Holds run out (3s) and settlement ends: every booking reads a state
	// with nothing under way, then the confirmed exchanges are counted.
	time.Sleep(5 * time.Second)
	for _, b := range bookings {
		a.sync(b, 0, nil, nil)
	}

	t.Logf("%d bookings, %d of %d legacy messages failed, %d SIGKILLs", len(bookings), fl.faulted, fl.total, a.kills)
	if a.kills < 6 || fl.faulted < 10 {
		t.Errorf("the run was too tame: %d SIGKILLs, %d failed messages", a.kills, fl.faulted)
	}
	legacyOf := map[string][]legacysandbox.BookingInfo{}
	for _, lb := range l.sb.Bookings() {
		if len(lb.MessageIDs) > 0 {
			id, _, _ := strings.Cut(lb.MessageIDs[0], ".")
			legacyOf[id] = append(legacyOf[id], lb)
		}
	}
	for _, b := range bookings {
		bk := a.booking(b.id)
		var refunded, refundFees int64
		for _, ro := range bk.RefundOffers {
			if ro.Status != osdm.RefundConfirmed {
				continue
			}
			refunded += ro.RefundableAmount.Amount
			refundFees += ro.RefundFee.Amount
			if q, ok := b.quoted[ro.ID]; !ok || q != [2]int64{ro.RefundableAmount.Amount, ro.RefundFee.Amount} {
				t.Errorf("booking %s: refund %s quoted %v, confirmed %d + fee %d", b.id, ro.ID, q, ro.RefundableAmount.Amount, ro.RefundFee.Amount)
			}
		}
		var kept, fees int64
		holding := 0
		for _, lb := range legacyOf[b.id] {
			kept += cents(t, lb.Price) - cents(t, lb.Refund)
			fees += cents(t, lb.Fee)
			if lb.CancelledAt == nil {
				holding++
			}
		}
		if fees != b.fees+refundFees {
			t.Errorf("booking %s: the legacy system kept %d cents of fees; the consumer was quoted %d (exchanges) + %d (refunds)", b.id, fees, b.fees, refundFees)
		}
		if kept != b.paid-refunded {
			t.Errorf("booking %s: the legacy system kept %d cents; the consumer paid %d and got %d back", b.id, kept, b.paid, refunded)
		}
		// No orphan nor double booking: a booking that stands holds one
		// legacy booking, any other none.
		stands := 0
		if st := bk.BookedOffers[0].Reservations[0].Status; st == osdm.BookingPartFulfilled {
			stands = 1
		}
		if holding != stands {
			t.Errorf("booking %s (%s): the legacy system holds %d bookings of it", b.id, bk.BookedOffers[0].Reservations[0].Status, holding)
		}
	}
}
