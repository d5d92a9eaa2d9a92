package converter

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/store/storetest"

	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// The tests of this file run the journal on a map store; caddymodule's
// journal tests run it on bbolt and Redis, with a real Caddy and a partner
// in its own process.

func testJournal(t *testing.T, s *storetest.Memory, edit func(*JournalConfig)) *Journal {
	t.Helper()
	cfg := JournalConfig{ReplyTTL: time.Minute, Lease: time.Minute, Poll: 5 * time.Millisecond}
	if edit != nil {
		edit(&cfg)
	}
	j, err := NewJournal(testConverter(t, Config{}), s, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// encodedBody is the legacy body a Journal hashes.
func encodedBody(t *testing.T, req legacy.Request) []byte {
	t.Helper()
	b, err := legacy.Encode(legacy.XML, req)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

const (
	offerRefBooking = "testdata/golden/booking_offer_ref"
	fulfilledRead   = "testdata/golden/cancel_reason"
)

// TestJournalReplyOnAnotherInstance: the reply of a booking is in the
// store; another Journal on the same store (another instance, or this one
// after a restart) answers the resend with it and calls nothing.
func TestJournalReplyOnAnotherInstance(t *testing.T) {
	s := storetest.NewMemory()
	req := bookingRequest("J-1", "offer-9203-2nd-seat")
	body := encodedBody(t, req)
	x := &scripted{t: t, answers: []scriptedAnswer{
		{step: StepBooking, status: 200, body: readFile(t, offerRefBooking, "booking.json")},
		{step: StepFulfillments, status: 200, body: readFile(t, offerRefBooking, "fulfillments.json")},
	}}
	first, stored := testJournal(t, s, nil).Do(context.Background(), req, body, x)
	if stored {
		t.Error("the first reply is reported as stored")
	}
	br, isBooking := first.Reply.(*legacy.BookingReply)
	if !isBooking || br.BookingRef != "b-4711" {
		t.Fatalf("first reply %T %+v", first.Reply, first.Reply)
	}
	// The finished record keeps the reply and the booking, not the body
	// of POST /bookings (it is never sent again).
	rec, err := testJournal(t, s, nil).load(context.Background(), "J-1")
	if err != nil || rec == nil || rec.State != stateDone || rec.BookingID != "b-4711" || rec.OfferID != "offer-9203-2nd-seat" || rec.BookingBody != nil {
		t.Fatalf("finished record: %+v %v", rec, err)
	}
	again, stored := testJournal(t, s, nil).Do(context.Background(), req, body, &scripted{t: t})
	if !stored || !reflect.DeepEqual(again.Reply, first.Reply) || again.Status != first.Status || again.Outcome != first.Outcome {
		t.Fatalf("resend: stored %v %+v, want %+v", stored, again.Reply, first.Reply)
	}
	// The same messageId with another body is refused, nothing called.
	other := bookingRequest("J-1", "offer-other")
	res, _ := testJournal(t, s, nil).Do(context.Background(), other, encodedBody(t, other), &scripted{t: t})
	if n := negativeOf(t, res); n.Code != legacy.CodeInvalidMessage {
		t.Errorf("reused messageId: %+v", n)
	}
}

// TestJournalBookingStoreCost holds the cost per booking that
// docs/osdm_convert.md gives: on an Exclusive store (bolt) 3 writes (the
// intent, the booking id, the outcome) and 1 read (the record, under a
// lease kept in memory); on a shared store (Redis) the lease write and
// the read before it more. The reply outlives the lease (as with the
// defaults), so the lease is not freed at the end.
func TestJournalBookingStoreCost(t *testing.T) {
	for _, tc := range []struct {
		exclusive     bool
		writes, reads int
	}{{true, 3, 1}, {false, 4, 2}} {
		s := storetest.NewMemory()
		req := bookingRequest(fmt.Sprintf("J-cost-%v", tc.exclusive), "offer-9203-2nd-seat")
		x := &scripted{t: t, answers: []scriptedAnswer{
			{step: StepBooking, status: 200, body: readFile(t, offerRefBooking, "booking.json")},
			{step: StepFulfillments, status: 200, body: readFile(t, offerRefBooking, "fulfillments.json")},
		}}
		j := testJournal(t, s, func(c *JournalConfig) { c.Exclusive, c.ReplyTTL = tc.exclusive, 10*time.Minute })
		res, _ := j.Do(context.Background(), req, encodedBody(t, req), x)
		if _, ok := res.Reply.(*legacy.BookingReply); !ok {
			t.Fatalf("exclusive %v: reply %T %+v", tc.exclusive, res.Reply, res.Reply)
		}
		if s.Writes() != tc.writes || s.Reads() != tc.reads {
			t.Errorf("exclusive %v: %d writes and %d reads, want %d and %d", tc.exclusive, s.Writes(), s.Reads(), tc.writes, tc.reads)
		}
	}
}

// TestJournalSearchesNotKept: a search changes nothing at the partner and
// costs no store write.
func TestJournalSearchesNotKept(t *testing.T) {
	s := storetest.NewMemory()
	req := &legacy.AvailabilityRequest{Header: legacy.Header{MessageID: "J-A"}, Journey: testJourney(), Places: testPlaces()}
	x := &scripted{t: t, answers: []scriptedAnswer{{step: StepOffers, status: 200, body: readFile(t, "testdata/golden/availability", "offers.json")}}}
	res, _ := testJournal(t, s, nil).Do(context.Background(), req, encodedBody(t, req), x)
	if _, ok := res.Reply.(*legacy.AvailabilityReply); !ok || s.Writes() != 0 {
		t.Fatalf("reply %T, %d store writes", res.Reply, s.Writes())
	}
}

// cutOff runs req through j and ends the exchange's goroutine (as a
// process dying would) when the call of step stop arrives, after
// forwarding the calls before it to x. The lease stays held, as a dead
// process leaves it.
func cutOff(t *testing.T, j *Journal, req legacy.Request, body []byte, x Caller, stop Step) {
	t.Helper()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		dying := CallerFunc(func(ctx context.Context, c *Call) (*Answer, error) {
			if c.Step == stop {
				runtime.Goexit()
			}
			return x.Call(ctx, c)
		})
		// No lease release either: copy Do without its deferred release.
		id := req.MessageID()
		token, got, err := j.acquire(context.Background(), id)
		if err != nil || !got {
			t.Errorf("acquire: %v %v", got, err)
			return
		}
		_ = token
		rec := &exchangeRecord{V: 1, Partner: j.c.partner, MessageID: id, Kind: string(req.Kind()), BodyHash: hashOf(body), State: stateRunning, Created: testNow}
		j.c.convert(context.Background(), req, dying, &journalRun{j: j, rec: rec})
		t.Error("the exchange was not cut off")
	}()
	wg.Wait()
}

// TestJournalResendContinuesCutOffBooking: the process died after
// POST /bookings answered, before the fulfilment. The resend on a new
// process (Exclusive store: the old lease is a dead process's) does not
// search or book again: it reads the booking back and fulfils it.
func TestJournalResendContinuesCutOffBooking(t *testing.T) {
	s := storetest.NewMemory()
	req := bookingRequest("J-2", "")
	body := encodedBody(t, req)
	first := &scripted{t: t, answers: []scriptedAnswer{
		{step: StepOffers, status: 200, body: readFile(t, "testdata/golden/booking_search", "offers.json")},
		{step: StepBooking, status: 200, body: readFile(t, offerRefBooking, "booking.json")},
	}}
	dead := testJournal(t, s, func(c *JournalConfig) { c.Exclusive = true })
	cutOff(t, dead, req, body, first, StepFulfillments)
	rec, err := dead.load(context.Background(), "J-2")
	if err != nil || rec == nil || rec.State != stateBooked || rec.BookingID != "b-4711" || len(rec.BookingBody) == 0 {
		t.Fatalf("journal after the cut: %+v %v", rec, err)
	}

	restarted := testJournal(t, s, func(c *JournalConfig) { c.Exclusive = true })
	forgetProcess(t, restarted)
	x := &scripted{t: t, answers: []scriptedAnswer{
		{step: StepReadBooking, status: 200, body: readFile(t, offerRefBooking, "booking.json")},
		{step: StepFulfillments, status: 200, body: readFile(t, offerRefBooking, "fulfillments.json")},
	}}
	res, _ := restarted.Do(context.Background(), req, body, x)
	if br, ok := res.Reply.(*legacy.BookingReply); !ok || br.BookingRef != "b-4711" || br.Status != legacy.StatusFulfilled {
		t.Fatalf("resend: %T %+v", res.Reply, res.Reply)
	}
	if x.calls[1].Header.Get(osdm.HeaderIdempotencyKey) != IdempotencyKey("sbb", "J-2", StepFulfillments) {
		t.Error("the fulfilment does not carry the message's Idempotency-Key")
	}
	// Settled: the next resend is answered from the store.
	again, stored := restarted.Do(context.Background(), req, body, &scripted{t: t})
	if !stored || !reflect.DeepEqual(again.Reply, res.Reply) {
		t.Errorf("second resend: %v %+v", stored, again.Reply)
	}
}

// forgetProcess makes j act as the next process on an Exclusive store:
// the leases of the process before (this test's) are gone with it.
func forgetProcess(t *testing.T, j *Journal) {
	t.Helper()
	old := localLeases
	localLeases = &leaseTable{m: map[string]heldLease{}}
	t.Cleanup(func() { localLeases = old })
}

// TestJournalSettleDeletesCutOffBooking: nobody resends; settlement reads
// the booking back, deletes it (no client waits to be told it is booked)
// and records BOOKING_ROLLED_BACK for a later resend.
func TestJournalSettleDeletesCutOffBooking(t *testing.T) {
	s := storetest.NewMemory()
	req := bookingRequest("J-3", "offer-9203-2nd-seat")
	body := encodedBody(t, req)
	dead := testJournal(t, s, func(c *JournalConfig) { c.Exclusive = true })
	cutOff(t, dead, req, body, &scripted{t: t, answers: []scriptedAnswer{
		{step: StepBooking, status: 200, body: readFile(t, offerRefBooking, "booking.json")},
	}}, StepFulfillments)

	var logged []Settled
	restarted := testJournal(t, s, func(c *JournalConfig) {
		c.Exclusive = true
		c.Log = func(st Settled) { logged = append(logged, st) }
	})
	forgetProcess(t, restarted)
	x := &scripted{t: t, answers: []scriptedAnswer{
		{step: StepReadBooking, status: 200, body: readFile(t, offerRefBooking, "booking.json")},
		{step: StepDeleteBooking, status: 204},
	}}
	n, err := restarted.Settle(context.Background(), x)
	if err != nil || n != 1 || len(logged) != 1 || !logged[0].Done || logged[0].BookingID != "b-4711" {
		t.Fatalf("Settle: %d %v, logged %+v", n, err, logged)
	}
	res, stored := restarted.Do(context.Background(), req, body, &scripted{t: t})
	n2 := negativeOf(t, res)
	if !stored || n2.Code != legacy.CodeBookingRolledBack || n2.BookingRef != "b-4711" || !n2.Retryable {
		t.Fatalf("resend after settlement: %v %+v", stored, n2)
	}
	if n, _ := restarted.Settle(context.Background(), &scripted{t: t}); n != 0 {
		t.Errorf("a settled exchange was settled again (%d)", n)
	}
}

// TestJournalSettleFrozenPartner: fulfilment and deletion both fail (the
// partner froze); the reply names the booking and the exchange stays
// unsettled. Once the partner answers again, settlement deletes the
// booking and the resend gets BOOKING_ROLLED_BACK instead of "expires by
// itself".
func TestJournalSettleFrozenPartner(t *testing.T) {
	s := storetest.NewMemory()
	j := testJournal(t, s, nil)
	req := bookingRequest("J-4", "offer-9203-2nd-seat")
	body := encodedBody(t, req)
	x := &scripted{t: t, answers: []scriptedAnswer{
		{step: StepBooking, status: 200, body: readFile(t, offerRefBooking, "booking.json")},
		{step: StepFulfillments, status: 503},
		{step: StepFulfillments, status: 503},
		{step: StepDeleteBooking, status: 503},
	}}
	first, _ := j.Do(context.Background(), req, body, x)
	if n := negativeOf(t, first); n.BookingRef != "b-4711" || !strings.Contains(n.Text, "could not delete") {
		t.Fatalf("first reply %+v", n)
	}
	// Still frozen: nothing settled, the first reply stands.
	if n, _ := j.Settle(context.Background(), &scripted{t: t, answers: []scriptedAnswer{{step: StepReadBooking, status: 503}}}); n != 0 {
		t.Fatalf("settled %d with the partner down", n)
	}
	res, stored := j.Do(context.Background(), req, body, &scripted{t: t, answers: []scriptedAnswer{{step: StepReadBooking, status: 503}}})
	if !reflect.DeepEqual(res.Reply, first.Reply) || stored {
		t.Fatalf("resend while frozen: %+v, want the first reply", res.Reply)
	}
	// Back: read, delete, recorded.
	n, err := j.Settle(context.Background(), &scripted{t: t, answers: []scriptedAnswer{
		{step: StepReadBooking, status: 200, body: readFile(t, offerRefBooking, "booking.json")},
		{step: StepDeleteBooking, status: 204},
	}})
	if err != nil || n != 1 {
		t.Fatalf("Settle: %d %v", n, err)
	}
	res, stored = j.Do(context.Background(), req, body, &scripted{t: t})
	if n := negativeOf(t, res); !stored || n.Code != legacy.CodeBookingRolledBack || n.BookingRef != "b-4711" {
		t.Fatalf("resend after settlement: %v %+v", stored, n)
	}
}

// TestJournalSettleConfirmedAfterAll: the fulfilment's answer was lost
// twice and the DELETE refused (409: it is confirmed); read back, the
// booking is fulfilled: the resend gets its BookingReply.
func TestJournalSettleConfirmedAfterAll(t *testing.T) {
	s := storetest.NewMemory()
	j := testJournal(t, s, nil)
	req := bookingRequest("J-5", "offer-9203-2nd-seat")
	body := encodedBody(t, req)
	j.Do(context.Background(), req, body, &scripted{t: t, answers: []scriptedAnswer{
		{step: StepBooking, status: 200, body: readFile(t, offerRefBooking, "booking.json")},
		{step: StepFulfillments, err: errors.New("connection reset")},
		{step: StepFulfillments, err: errors.New("connection reset")},
		{step: StepDeleteBooking, status: 409, body: []byte(`{"code":"BOOKING_ALREADY_CONFIRMED","title":"confirmed"}`)},
	}})
	if n, _ := j.Settle(context.Background(), &scripted{t: t, answers: []scriptedAnswer{
		{step: StepReadBooking, status: 200, body: readFile(t, fulfilledRead, "booking.json")},
	}}); n != 1 {
		t.Fatalf("settled %d", n)
	}
	res, _ := j.Do(context.Background(), req, body, &scripted{t: t})
	if br, ok := res.Reply.(*legacy.BookingReply); !ok || br.BookingRef != "b-4711" || br.Status != legacy.StatusFulfilled {
		t.Fatalf("resend: %T %+v", res.Reply, res.Reply)
	}
}

// TestJournalSettleIntentWithoutBookingID: POST /bookings never got an
// answer; settlement sends the very same call again (same body, same
// Idempotency-Key), learns the booking and deletes it.
func TestJournalSettleIntentWithoutBookingID(t *testing.T) {
	s := storetest.NewMemory()
	j := testJournal(t, s, nil)
	req := bookingRequest("J-6", "offer-9203-2nd-seat")
	body := encodedBody(t, req)
	first := &scripted{t: t, answers: []scriptedAnswer{
		{step: StepBooking, err: errors.New("connection reset")},
		{step: StepBooking, err: errors.New("connection reset")},
	}}
	j.Do(context.Background(), req, body, first)
	x := &scripted{t: t, answers: []scriptedAnswer{
		{step: StepBooking, status: 200, body: readFile(t, offerRefBooking, "booking.json")},
		{step: StepReadBooking, status: 200, body: readFile(t, offerRefBooking, "booking.json")},
		{step: StepDeleteBooking, status: 204},
	}}
	if n, err := j.Settle(context.Background(), x); n != 1 || err != nil {
		t.Fatalf("Settle: %d %v", n, err)
	}
	if !bytes.Equal(x.calls[0].Body, first.calls[0].Body) {
		t.Errorf("POST /bookings sent again with another body:\n%s\nwas\n%s", x.calls[0].Body, first.calls[0].Body)
	}
	sameKeysAcross(t, first.calls[0], x.calls[0])
	res, _ := j.Do(context.Background(), req, body, &scripted{t: t})
	if n := negativeOf(t, res); n.Code != legacy.CodeBookingRolledBack || n.BookingRef != "b-4711" {
		t.Fatalf("resend: %+v", n)
	}
}

func sameKeysAcross(t *testing.T, a, b *Call) {
	t.Helper()
	if ka, kb := a.Header.Get(osdm.HeaderIdempotencyKey), b.Header.Get(osdm.HeaderIdempotencyKey); ka == "" || ka != kb {
		t.Errorf("Idempotency-Keys %q and %q, want the same", ka, kb)
	}
}

// TestJournalWaitsForAnotherInstance: while another instance holds the
// message's lease, a resend makes no call: it waits, and gets that
// instance's reply once recorded, or a retryable "still running" when its
// own time is up.
func TestJournalWaitsForAnotherInstance(t *testing.T) {
	for _, exclusive := range []bool{false, true} {
		t.Run(fmt.Sprintf("exclusive=%v", exclusive), func(t *testing.T) { testJournalWaits(t, exclusive) })
	}
}

// testJournalWaits: on a shared store the other instance is another
// process; on an Exclusive one, another Journal of this process (a
// reloaded configuration).
func testJournalWaits(t *testing.T, exclusive bool) {
	s := storetest.NewMemory()
	id := fmt.Sprintf("J-7-%v", exclusive)
	req := bookingRequest(id, "offer-9203-2nd-seat")
	body := encodedBody(t, req)
	excl := func(c *JournalConfig) { c.Exclusive = exclusive }
	holder := testJournal(t, s, excl)
	if _, got, err := holder.acquire(context.Background(), id); !got || err != nil {
		t.Fatal("acquire", got, err)
	}
	waiter := testJournal(t, s, excl)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	res, _ := waiter.Do(ctx, req, body, &scripted{t: t})
	cancel()
	if n := negativeOf(t, res); n.Code != legacy.CodePartnerTimeout || !n.Retryable {
		t.Fatalf("waiting resend: %+v", n)
	}
	done := make(chan *Result)
	go func() {
		res, _ := waiter.Do(context.Background(), req, body, &scripted{t: t})
		done <- res
	}()
	time.Sleep(20 * time.Millisecond)
	rec := &exchangeRecord{V: 1, Partner: "sbb", MessageID: id, BodyHash: hashOf(body), State: stateDone, Created: testNow}
	want := ok(&legacy.BookingReply{Header: legacy.ReplyHeader{CorrelationID: id, SentAt: testNow}, BookingRef: "b-1", Status: legacy.StatusFulfilled})
	if err := rec.setReply(want); err != nil {
		t.Fatal(err)
	}
	if err := holder.save(rec, time.Minute); err != nil {
		t.Fatal(err)
	}
	select {
	case got := <-done:
		if br, ok := got.Reply.(*legacy.BookingReply); !ok || br.BookingRef != "b-1" {
			t.Fatalf("waiter got %+v", got.Reply)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the waiter did not see the reply")
	}
}

// TestJournalStoreDown: with the store failing, nothing is sent to the
// partner and the reply says so, retryably.
func TestJournalStoreDown(t *testing.T) {
	s := storetest.NewMemory()
	s.Fail = errors.New("disk full")
	req := bookingRequest("J-8", "offer-9203-2nd-seat")
	res, _ := testJournal(t, s, nil).Do(context.Background(), req, encodedBody(t, req), &scripted{t: t})
	if n := negativeOf(t, res); !n.Retryable || !strings.Contains(n.Text, "disk full") || !strings.Contains(n.Text, "nothing was sent") {
		t.Fatalf("reply %+v", n)
	}
}

// TestJournalExclusiveLeasesFreed: on an Exclusive store the leases live
// in memory; a finished exchange leaves none behind (a process books
// millions of messages).
func TestJournalExclusiveLeasesFreed(t *testing.T) {
	forgetProcess(t, nil)
	j := testJournal(t, storetest.NewMemory(), func(c *JournalConfig) { c.Exclusive = true })
	for i := range 3 {
		req := bookingRequest(fmt.Sprintf("J-9-%d", i), "offer-9203-2nd-seat")
		j.Do(context.Background(), req, encodedBody(t, req), &scripted{t: t, answers: []scriptedAnswer{
			{step: StepBooking, status: 200, body: readFile(t, offerRefBooking, "booking.json")},
			{step: StepFulfillments, status: 200, body: readFile(t, offerRefBooking, "fulfillments.json")},
		}})
	}
	localLeases.mu.Lock()
	defer localLeases.mu.Unlock()
	if n := len(localLeases.m); n != 0 {
		t.Errorf("%d leases left in memory after the exchanges ended", n)
	}
}

// TestReplyCacheForgetsUnsettled: a reply whose outcome settlement may
// still change is not kept in memory, so the resend reads the journal.
func TestReplyCacheForgetsUnsettled(t *testing.T) {
	rc := NewReplyCache(10, time.Minute, nil)
	runs := 0
	for range 2 {
		rc.Do(context.Background(), "U-1", []byte("body"), func() *Result {
			runs++
			return markUnsettled(negative(legacy.NewNegativeReply(legacy.ReplyHeader{CorrelationID: "U-1"}, legacy.CodePartnerUnavailable, "not known yet")))
		})
	}
	if runs != 2 || rc.Len() != 0 {
		t.Fatalf("an unsettled reply was kept: %d runs, %d entries", runs, rc.Len())
	}
}

// TestJournalIntentNotRecorded: the store reads but cannot write the
// intent: POST /bookings is not sent, and the reply says so (not "whether
// the partner booked is not known").
func TestJournalIntentNotRecorded(t *testing.T) {
	s := storetest.NewMemory()
	s.FailPut = errors.New("no space left on device")
	req := bookingRequest("J-10", "offer-9203-2nd-seat")
	res, _ := testJournal(t, s, func(c *JournalConfig) { c.Exclusive = true }).Do(context.Background(), req, encodedBody(t, req), &scripted{t: t})
	n := negativeOf(t, res)
	if !n.Retryable || !strings.Contains(n.Text, "nothing was sent") || strings.Contains(n.Text, "not known") {
		t.Fatalf("reply %+v", n)
	}
}

// TestJournalBookingIDOfUnreadableAnswer: POST /bookings answered 2xx with
// a body the converter cannot read as OSDM (a createdOn that is not a
// time), but that names the booking: the journal still records the
// booking id (read leniently), so that settlement reads that booking back
// instead of booking again.
func TestJournalBookingIDOfUnreadableAnswer(t *testing.T) {
	s := storetest.NewMemory()
	req := bookingRequest("J-9", "")
	body := encodedBody(t, req)
	bad := []byte(`{"booking":{"id":"b-9","createdOn":"not a time","passengers":[],"confirmationTimeLimit":"2026-11-21T10:30:00Z"}}`)
	x := &scripted{t: t, answers: []scriptedAnswer{
		{step: StepOffers, status: 200, body: readFile(t, "testdata/golden/booking_search", "offers.json")},
		{step: StepBooking, status: 200, body: bad},
		{step: StepBooking, status: 200, body: bad},
	}}
	j := testJournal(t, s, func(c *JournalConfig) { c.Exclusive = true })
	res, _ := j.Do(context.Background(), req, body, x)
	if _, ok := res.Reply.(*legacy.NegativeReply); !ok {
		t.Fatalf("reply %T %+v", res.Reply, res.Reply)
	}
	rec, err := j.load(context.Background(), "J-9")
	if err != nil || rec == nil || rec.BookingID != "b-9" || rec.ConfirmBy == nil || rec.State != stateUnsettled {
		t.Fatalf("journal: %+v %v", rec, err)
	}
}

// TestJournalRefusedBookingKeepsBody: a booking the partner refused is
// settled without a booking id; its record keeps the POST /bookings body,
// which is what a resend that cannot use the stored reply would send
// again (the same call, not a new one).
func TestJournalRefusedBookingKeepsBody(t *testing.T) {
	s := storetest.NewMemory()
	req := bookingRequest("J-R", "offer-9203-2nd-seat")
	x := &scripted{t: t, answers: []scriptedAnswer{
		{step: StepBooking, status: 422, body: []byte(`{"code":"OFFER_EXPIRED","title":"offer expired","status":422}`)},
	}}
	j := testJournal(t, s, func(c *JournalConfig) { c.Exclusive = true })
	res, _ := j.Do(context.Background(), req, encodedBody(t, req), x)
	if _, ok := res.Reply.(*legacy.NegativeReply); !ok {
		t.Fatalf("reply %T %+v", res.Reply, res.Reply)
	}
	rec, err := j.load(context.Background(), "J-R")
	if err != nil || rec == nil || rec.State != stateDone || rec.BookingID != "" || len(rec.BookingBody) == 0 {
		t.Fatalf("record of the refused booking: %+v %v", rec, err)
	}
}

// TestReplyCacheForgetsWaitTimeout: a resend that waited its whole time
// for another instance's exchange is answered PARTNER_TIMEOUT ("send it
// again later"); that answer is not kept, so the next resend gets the
// reply the journal has by then, not the timeout again.
func TestReplyCacheForgetsWaitTimeout(t *testing.T) {
	s := storetest.NewMemory()
	id := "J-wait-timeout"
	req := bookingRequest(id, "offer-9203-2nd-seat")
	body := encodedBody(t, req)
	holder := testJournal(t, s, nil)
	if _, got, err := holder.acquire(context.Background(), id); !got || err != nil {
		t.Fatal("acquire", got, err)
	}
	waiter := testJournal(t, s, nil)
	rc := NewReplyCache(10, time.Minute, nil)
	resend := func(ctx context.Context) *Result {
		res, _ := rc.Do(ctx, id, body, func() *Result {
			res, _ := waiter.Do(ctx, req, body, &scripted{t: t})
			return res
		})
		return res
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	res := resend(ctx)
	cancel()
	if n := negativeOf(t, res); n.Code != legacy.CodePartnerTimeout {
		t.Fatalf("waiting resend: %+v", n)
	}
	if rc.Len() != 0 {
		t.Fatalf("the wait-timeout answer was kept: %d entries", rc.Len())
	}
	rec := &exchangeRecord{V: 1, Partner: "sbb", MessageID: id, BodyHash: hashOf(body), State: stateDone, Created: testNow}
	if err := rec.setReply(ok(&legacy.BookingReply{Header: legacy.ReplyHeader{CorrelationID: id, SentAt: testNow}, BookingRef: "b-settled", Status: legacy.StatusFulfilled})); err != nil {
		t.Fatal(err)
	}
	if err := holder.save(rec, time.Minute); err != nil {
		t.Fatal(err)
	}
	got := resend(context.Background())
	if br, ok := got.Reply.(*legacy.BookingReply); !ok || br.BookingRef != "b-settled" {
		t.Fatalf("the resend after the exchange was settled got %+v", got.Reply)
	}
}

// TestReplyCacheForgetsStoreFailure: a refusal because the journal's
// store failed (nothing sent) is not kept: once the store works again the
// resend books.
func TestReplyCacheForgetsStoreFailure(t *testing.T) {
	s := storetest.NewMemory()
	s.Fail = errors.New("connection refused")
	req := bookingRequest("J-store-back", "offer-9203-2nd-seat")
	body := encodedBody(t, req)
	j := testJournal(t, s, nil)
	rc := NewReplyCache(10, time.Minute, nil)
	answers := []scriptedAnswer{
		{step: StepBooking, status: 200, body: readFile(t, offerRefBooking, "booking.json")},
		{step: StepFulfillments, status: 200, body: readFile(t, offerRefBooking, "fulfillments.json")},
	}
	send := func() *Result {
		res, _ := rc.Do(context.Background(), req.MessageID(), body, func() *Result {
			res, _ := j.Do(context.Background(), req, body, &scripted{t: t, answers: answers})
			return res
		})
		return res
	}
	if n := negativeOf(t, send()); n.Code != legacy.CodePartnerUnavailable {
		t.Fatalf("with the store down: %+v", n)
	}
	s.Fail = nil
	if res := send(); res.Outcome != OutcomeOK {
		t.Fatalf("with the store back the resend got %+v", res.Reply)
	}
}

// TestRecordReplyKeepsNamespace: a reply read back from a record (kept in
// legacy JSON) is written in the XML form of the request it answers,
// nested reply included.
func TestRecordReplyKeepsNamespace(t *testing.T) {
	h := legacy.ReplyHeader{CorrelationID: "J-ns", Namespaced: true}
	reply := &legacy.SynchroReply{Header: h, OriginalMessageID: "J-0", State: legacy.StateDone,
		Reply: &legacy.NegativeReply{Header: h, Code: legacy.CodeInvalidMessage, Text: "refused"}}
	rec := &exchangeRecord{V: 1, MessageID: "J-ns", Namespaced: true}
	if err := rec.setReply(&Result{Reply: reply, Status: 200, Outcome: "synchro"}); err != nil {
		t.Fatal(err)
	}
	res, err := rec.result()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(res.Reply, legacy.Reply(reply)) {
		t.Fatalf("reply read back %+v, want %+v", res.Reply, reply)
	}
	b, err := legacy.Encode(legacy.XML, res.Reply)
	if err != nil || !bytes.Contains(b, []byte(`xmlns="`+legacy.Namespace+`"`)) {
		t.Fatalf("reply written as %s (%v), want it in the namespace", b, err)
	}
}
