package converter

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/internal/osdmspec"
	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/osdm"
	"github.com/caddy-osdm/caddy-osdm/osdmsandbox"
	"github.com/caddy-osdm/caddy-osdm/store/storetest"
)

// sandboxCaller is a Caller on an in-memory osdm_sandbox, every call and
// answer checked against the spec. It can lose the answer of a step
// after the partner acted (a crash, a broken connection), or die: from a
// step on, nothing reaches the partner and the store takes no more writes,
// as when the process is killed.
type sandboxCaller struct {
	t  testing.TB
	sb *osdmsandbox.Sandbox

	mu    sync.Mutex
	calls []*Call
	// lose: the answer of this step is lost after the partner acted, this
	// many times.
	lose map[Step]int
	// dieAt: at this step the process dies (after the partner acted when
	// dieAfter, before it when not); store is then failed.
	dieAt    Step
	dieAfter bool
	// dieSkip: the first dieSkip calls of dieAt go through.
	dieSkip int
	dead    bool
	store   *storetest.Memory
	// refuse answers the step with a 409 problem without reaching the
	// partner, this many times.
	refuse map[Step]int
	// rewrite, when set, changes the body of the partner's answer to a
	// step (a partner answering other than the sandbox does).
	rewrite func(step Step, body []byte) []byte
}

var errDead = errors.New("the process was killed")

func newSandboxCaller(t testing.TB) *sandboxCaller {
	sb, err := osdmsandbox.New(osdmsandbox.Config{Capacity: 40, Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	return &sandboxCaller{t: t, sb: sb, lose: map[Step]int{}, refuse: map[Step]int{}}
}

func (s *sandboxCaller) Call(ctx context.Context, call *Call) (*Answer, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dead {
		return nil, errDead
	}
	s.calls = append(s.calls, call)
	if call.Step == s.dieAt && s.dieSkip > 0 {
		s.dieSkip--
		defer func(step Step) { s.dieAt = step }(s.dieAt)
		s.dieAt = ""
	}
	if s.refuse[call.Step] > 0 {
		s.refuse[call.Step]--
		return problemAnswer(http.StatusConflict, "urn:uic:problem:OPERATION_NOT_PERMITTED", "the fare does not allow an exchange"), nil
	}
	if call.Step == s.dieAt && !s.dieAfter {
		s.die()
		return nil, errDead
	}
	osdmspec.ValidateRequest(s.t, osdmspec.V39, call.Method, call.Path, call.Header, call.Body)
	req := httptest.NewRequest(call.Method, call.Path, bytes.NewReader(call.Body))
	req.Header = call.Header.Clone()
	rec := httptest.NewRecorder()
	s.sb.ServeHTTP(rec, req)
	a := &Answer{Status: rec.Code, Header: rec.Header(), Body: rec.Body.Bytes()}
	if s.rewrite != nil {
		a.Body = s.rewrite(call.Step, a.Body)
	}
	osdmspec.ValidateResponse(s.t, osdmspec.V39, call.Method, call.Path, a.Status, a.Header, a.Body)
	if call.Step == s.dieAt {
		s.die()
		return nil, errDead
	}
	if s.lose[call.Step] > 0 {
		s.lose[call.Step]--
		return nil, errors.New("read tcp: connection reset by peer")
	}
	return a, nil
}

func (s *sandboxCaller) die() {
	s.dead = true
	if s.store != nil {
		s.store.Fail = errDead
	}
}

// revive is a new process on the same store and partner.
func (s *sandboxCaller) revive() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dead, s.dieAt = false, ""
	if s.store != nil {
		s.store.Fail = nil
	}
}

// steps lists the steps called since the last mark.
func (s *sandboxCaller) steps(from int) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, c := range s.calls[from:] {
		out = append(out, string(c.Step))
	}
	return out
}

// bookingOf reads booking id at the sandbox.
func (s *sandboxCaller) booking(id string) *osdm.Booking {
	s.t.Helper()
	req := httptest.NewRequest(http.MethodGet, "/bookings/"+id, nil)
	rec := httptest.NewRecorder()
	s.sb.ServeHTTP(rec, req)
	var br osdm.BookingResponse
	if err := decodeAnswer(rec.Body.Bytes(), &br); err != nil || br.Booking == nil {
		s.t.Fatalf("GET booking %s: %d %s", id, rec.Code, rec.Body.Bytes())
	}
	return br.Booking
}

// sbBook books n adults on the sandbox through the journal and returns the reply.
func sbBook(t *testing.T, j *Journal, x Caller, id string, n int, names ...legacy.Passenger) *legacy.BookingReply {
	t.Helper()
	m := &legacy.BookingRequest{Header: legacy.Header{MessageID: id}, Journey: testJourney(),
		Places: legacy.PlaceRequest{TravelClass: 2, ServiceCode: 1, Tariffs: []legacy.Tariff{{Code: 1, Count: n}}}, Passengers: names}
	res, _ := j.Do(context.Background(), m, encodedBody(t, m), x)
	b, ok := res.Reply.(*legacy.BookingReply)
	if !ok || len(b.Places) != n {
		t.Fatalf("booking: %+v", res.Reply)
	}
	return b
}

func sbDo(t *testing.T, j *Journal, x Caller, req legacy.Request) *Result {
	t.Helper()
	res, _ := j.Do(context.Background(), req, encodedBody(t, req), x)
	return res
}

// heldBy lists the places booking id holds at the sandbox.
func heldBy(s *sandboxCaller, id string) []string {
	var out []string
	for _, h := range heldPlaces(s.booking(id)) {
		out = append(out, h.place.Coach+"/"+h.place.Number)
	}
	return out
}

// TestPartialCancel: a CancelRequest with places refunds those only
// (PARTIALLY_REFUNDED, the amounts of their passengers), a place refunded
// or never held is refused by name, the rest is cancelled later with
// REFUNDED and its places, and nothing is refunded twice.
func TestPartialCancel(t *testing.T) {
	s := storetest.NewMemory()
	j := testJournal(t, s, nil)
	x := newSandboxCaller(t)
	b := sbBook(t, j, x, "PC-B", 3)

	mark := len(x.calls)
	res := sbDo(t, j, x, &legacy.CancelRequest{Header: legacy.Header{MessageID: "PC-1"}, BookingRef: b.BookingRef, Places: b.Places[1:2]})
	cr, ok := res.Reply.(*legacy.CancelReply)
	if !ok || cr.Status != legacy.StatusPartiallyRefunded || cr.RefundAmount == nil || cr.RefundAmount.Amount != "4.50" ||
		cr.Fee.Amount != "0.50" || len(cr.Places) != 1 || cr.Places[0] != b.Places[1] {
		t.Fatalf("partial cancel: %+v", res.Reply)
	}
	if got := strings.Join(x.steps(mark), ","); got != "booking,refund_offers,refund_offer" {
		t.Errorf("steps %s", got)
	}
	held := heldBy(x, b.BookingRef)
	if len(held) != 2 || strings.Contains(strings.Join(held, ","), b.Places[1].Coach+"/"+b.Places[1].Number) {
		t.Errorf("held after: %v", held)
	}
	// The resend gets the same reply, and calls nothing.
	mark = len(x.calls)
	again := sbDo(t, j, x, &legacy.CancelRequest{Header: legacy.Header{MessageID: "PC-1"}, BookingRef: b.BookingRef, Places: b.Places[1:2]})
	if !sameReply(again.Reply, res.Reply) || len(x.steps(mark)) != 0 {
		t.Errorf("resend: %+v, steps %v", again.Reply, x.steps(mark))
	}
	// The same place again, as a new message: refused, naming it.
	res = sbDo(t, j, x, &legacy.CancelRequest{Header: legacy.Header{MessageID: "PC-2"}, BookingRef: b.BookingRef, Places: b.Places[1:2]})
	if n, ok := res.Reply.(*legacy.NegativeReply); !ok || n.Code != legacy.CodeInvalidMessage || !strings.Contains(n.Text, "number "+b.Places[1].Number) {
		t.Errorf("place refunded before: %+v", res.Reply)
	}
	res = sbDo(t, j, x, &legacy.CancelRequest{Header: legacy.Header{MessageID: "PC-3"}, BookingRef: b.BookingRef, Places: []legacy.Place{{Coach: "99", Number: "1"}}})
	if n, ok := res.Reply.(*legacy.NegativeReply); !ok || n.Code != legacy.CodeInvalidMessage || !strings.Contains(n.Text, "coach 99 number 1") {
		t.Errorf("place never held: %+v", res.Reply)
	}
	// The rest: a whole cancellation, REFUNDED with the places left.
	res = sbDo(t, j, x, &legacy.CancelRequest{Header: legacy.Header{MessageID: "PC-4"}, BookingRef: b.BookingRef})
	cr, ok = res.Reply.(*legacy.CancelReply)
	if !ok || cr.Status != legacy.StatusRefunded || cr.RefundAmount.Amount != "9.00" || len(cr.Places) != 2 {
		t.Fatalf("the rest: %+v", res.Reply)
	}
	bk := x.booking(b.BookingRef)
	if bk.Fulfillments[0].Status != osdm.FulfillmentRefunded || bk.BookedOffers[0].Reservations[0].RefundAmount.Amount != 1350 {
		t.Errorf("booking after: %+v", bk.BookedOffers[0].Reservations[0].BookingPart)
	}
	res = sbDo(t, j, x, &legacy.CancelRequest{Header: legacy.Header{MessageID: "PC-5"}, BookingRef: b.BookingRef})
	if n, ok := res.Reply.(*legacy.NegativeReply); !ok || n.Code != legacy.CodeAlreadyCancelled {
		t.Errorf("cancel after all: %+v", res.Reply)
	}
}

// TestPartialCancelEveryPlace: naming every place is a whole cancellation.
func TestPartialCancelEveryPlace(t *testing.T) {
	j := testJournal(t, storetest.NewMemory(), nil)
	x := newSandboxCaller(t)
	b := sbBook(t, j, x, "PE-B", 2)
	res := sbDo(t, j, x, &legacy.CancelRequest{Header: legacy.Header{MessageID: "PE-1"}, BookingRef: b.BookingRef, Places: b.Places})
	cr, ok := res.Reply.(*legacy.CancelReply)
	if !ok || cr.Status != legacy.StatusRefunded || cr.RefundAmount.Amount != "9.00" || len(cr.Places) != 2 {
		t.Fatalf("%+v", res.Reply)
	}
	if x.booking(b.BookingRef).Fulfillments[0].Status != osdm.FulfillmentRefunded {
		t.Error("not refunded")
	}
}

// sameReply compares two replies but their sentAt.
func sameReply(a, b legacy.Reply) bool {
	ea, _ := legacy.Encode(legacy.JSON, a)
	eb, _ := legacy.Encode(legacy.JSON, b)
	return string(ea) == string(eb)
}

// partnerRefunded is how many of booking id's passengers the sandbox
// refunded, and the amount, in cents.
func partnerRefunded(x *sandboxCaller, id string, passengers int) (int, int64) {
	b := x.booking(id)
	res := b.BookedOffers[0].Reservations[0]
	var amount int64
	if res.RefundAmount != nil {
		amount = res.RefundAmount.Amount
	}
	if res.Status == osdm.BookingPartRefunded {
		return passengers, amount
	}
	return passengers - len(heldPlaces(b)), amount
}

// TestPartialCancelKilled kills the process before and after each step of
// a partial cancellation; a new process on the same store then answers
// the resend, or settles the record first: one passenger is refunded
// once, or (settled before anyone asked, the refund not confirmed) none,
// and the reply says which.
func TestPartialCancelKilled(t *testing.T) {
	for _, step := range []Step{StepReadBooking, StepRefundOffers, StepRefundOffer} {
		for _, after := range []bool{false, true} {
			for _, settleFirst := range []bool{false, true} {
				name := string(step) + map[bool]string{false: "/before", true: "/after"}[after] + map[bool]string{false: "/resend", true: "/settle"}[settleFirst]
				t.Run(name, func(t *testing.T) {
					s := storetest.NewMemory()
					j := testJournal(t, s, nil)
					x := newSandboxCaller(t)
					b := sbBook(t, j, x, "K-B", 3)
					msg := &legacy.CancelRequest{Header: legacy.Header{MessageID: "K-C"}, BookingRef: b.BookingRef, Places: b.Places[:1]}
					x.store, x.dieAt, x.dieAfter = s, step, after
					sbDo(t, j, x, msg)
					x.revive()
					// A new process: its own journal; the dead one's lease
					// has run out.
					s.Now = func() time.Time { return time.Now().Add(2 * time.Minute) }
					j2 := testJournal(t, s, nil)
					if settleFirst {
						if _, err := j2.Settle(context.Background(), x); err != nil {
							t.Fatal(err)
						}
					}
					res := sbDo(t, j2, x, msg)
					n, amount := partnerRefunded(x, b.BookingRef, 3)
					switch reply := res.Reply.(type) {
					case *legacy.CancelReply:
						if reply.Status != legacy.StatusPartiallyRefunded || reply.RefundAmount.Amount != "4.50" || n != 1 || amount != 450 {
							t.Errorf("reply %+v; partner refunded %d passenger(s), %d cents", reply, n, amount)
						}
					case *legacy.NegativeReply:
						// Only settlement may have given up, and then nothing
						// is refunded.
						if !settleFirst || n != 0 || !strings.Contains(reply.Text, "nothing") {
							t.Errorf("reply %+v; partner refunded %d passenger(s)", reply, n)
						}
					default:
						t.Errorf("reply %+v", res.Reply)
					}
					// Settling again and resending change nothing.
					if _, err := j2.Settle(context.Background(), x); err != nil {
						t.Fatal(err)
					}
					if again := sbDo(t, j2, x, msg); !sameReply(again.Reply, res.Reply) {
						t.Errorf("second resend %+v, first %+v", again.Reply, res.Reply)
					}
					if n2, amount2 := partnerRefunded(x, b.BookingRef, 3); n2 != n || amount2 != amount {
						t.Errorf("partner changed: %d/%d -> %d/%d", n, amount, n2, amount2)
					}
				})
			}
		}
	}
}

// TestPartialCancelSettleWithdraws: a process killed between the refund
// offer and its confirmation leaves the offer unconfirmed; settlement
// withdraws it (DELETE), refunds nothing, and records a reply saying so;
// a new cancellation then works.
func TestPartialCancelSettleWithdraws(t *testing.T) {
	s := storetest.NewMemory()
	j := testJournal(t, s, nil)
	x := newSandboxCaller(t)
	b := sbBook(t, j, x, "W-B", 2)
	msg := &legacy.CancelRequest{Header: legacy.Header{MessageID: "W-C"}, BookingRef: b.BookingRef, Places: b.Places[:1]}
	x.store, x.dieAt = s, StepRefundOffer
	sbDo(t, j, x, msg)
	x.revive()
	// Killed after the offer was recorded and before the confirmation was.
	rec, err := j.load(context.Background(), "W-C")
	if err != nil || rec == nil || rec.After == nil || rec.After.RefundOfferID == "" {
		t.Fatalf("record %+v %v", rec, err)
	}
	rec.State = stateRefundOffered
	if err := j.save(rec, time.Hour); err != nil {
		t.Fatal(err)
	}
	s.Now = func() time.Time { return time.Now().Add(2 * time.Minute) }
	j2 := testJournal(t, s, nil)
	mark := len(x.calls)
	if n, err := j2.Settle(context.Background(), x); err != nil || n != 1 {
		t.Fatalf("settled %d %v", n, err)
	}
	if got := strings.Join(x.steps(mark), ","); got != "delete_refund_offer" {
		t.Errorf("settlement steps %s", got)
	}
	if n, _ := partnerRefunded(x, b.BookingRef, 2); n != 0 || len(x.booking(b.BookingRef).RefundOffers) != 0 {
		t.Errorf("refunded %d, offers %+v", n, x.booking(b.BookingRef).RefundOffers)
	}
	res := sbDo(t, j2, x, msg)
	if n, ok := res.Reply.(*legacy.NegativeReply); !ok || !n.Retryable || !strings.Contains(n.Text, "nothing was cancelled") {
		t.Errorf("resend after settlement: %+v", res.Reply)
	}
	res = sbDo(t, j2, x, &legacy.CancelRequest{Header: legacy.Header{MessageID: "W-C2"}, BookingRef: b.BookingRef, Places: b.Places[:1]})
	if cr, ok := res.Reply.(*legacy.CancelReply); !ok || cr.Status != legacy.StatusPartiallyRefunded {
		t.Errorf("new cancellation: %+v", res.Reply)
	}
}

// TestSynchro: a SynchroRequest answers from the journal what became of a
// message (UNKNOWN, DONE with its reply); with rollback it undoes the
// booking (refunded under TECHNICAL_FAILURE without a fee), answers
// ROLLED_BACK with the amounts, and so does every later SynchroRequest;
// a resent rollback refunds nothing more.
func TestSynchro(t *testing.T) {
	s := storetest.NewMemory()
	j := testJournal(t, s, nil)
	x := newSandboxCaller(t)
	b := sbBook(t, j, x, "SY-B", 2)
	synchro := func(id, orig string, rollback bool) *legacy.SynchroReply {
		t.Helper()
		res := sbDo(t, j, x, &legacy.SynchroRequest{Header: legacy.Header{MessageID: id}, OriginalMessageID: orig, Rollback: rollback})
		r, ok := res.Reply.(*legacy.SynchroReply)
		if !ok || r.OriginalMessageID != orig || r.Header.CorrelationID != id {
			t.Fatalf("synchro %s: %+v", id, res.Reply)
		}
		return r
	}
	if r := synchro("SY-1", "never-sent", false); r.State != legacy.StateUnknown || r.Reply != nil {
		t.Errorf("unknown: %+v", r)
	}
	r := synchro("SY-2", "SY-B", false)
	if br, ok := r.Reply.(*legacy.BookingReply); r.State != legacy.StateDone || !ok || br.BookingRef != b.BookingRef || !sameReply(br, b) {
		t.Errorf("done: %+v", r)
	}
	mark := len(x.calls)
	r = synchro("SY-3", "SY-B", true)
	if r.State != legacy.StateRolledBack || r.RefundAmount == nil || r.RefundAmount.Amount != "10.00" || r.Fee.Amount != "0.00" {
		t.Fatalf("rollback: %+v", r)
	}
	if got := strings.Join(x.steps(mark), ","); got != "booking,refund_offers,refund_offer" {
		t.Errorf("rollback steps %s", got)
	}
	bk := x.booking(b.BookingRef)
	if bk.Fulfillments[0].Status != osdm.FulfillmentRefunded || bk.RefundOffers[0].AppliedOverruleCode != osdm.OverruleTechnicalFailure {
		t.Errorf("partner after rollback: %+v", bk.RefundOffers)
	}
	if r := synchro("SY-4", "SY-B", false); r.State != legacy.StateRolledBack || r.RefundAmount.Amount != "10.00" {
		t.Errorf("after the rollback: %+v", r)
	}
	mark = len(x.calls)
	again := sbDo(t, j, x, &legacy.SynchroRequest{Header: legacy.Header{MessageID: "SY-3"}, OriginalMessageID: "SY-B", Rollback: true})
	if a, ok := again.Reply.(*legacy.SynchroReply); !ok || a.State != legacy.StateRolledBack || len(x.steps(mark)) != 0 {
		t.Errorf("resent rollback: %+v, steps %v", again.Reply, x.steps(mark))
	}
	if r := synchro("SY-5", "SY-B", true); r.State != legacy.StateRolledBack || len(x.steps(mark)) != 0 {
		t.Errorf("second rollback: %+v, steps %v", r, x.steps(mark))
	}
	// Only a booking can be rolled back.
	res := sbDo(t, j, x, &legacy.SynchroRequest{Header: legacy.Header{MessageID: "SY-6"}, OriginalMessageID: "SY-3", Rollback: true})
	if n, ok := res.Reply.(*legacy.NegativeReply); !ok || n.Code != legacy.CodeInvalidMessage {
		t.Errorf("rollback of a rollback: %+v", res.Reply)
	}
	// A record still running is IN_PROGRESS.
	rec := &exchangeRecord{V: 1, Partner: "sbb", MessageID: "SY-R", Kind: "BookingRequest", BodyHash: "00", State: stateBooked, Created: testNow}
	if err := j.save(rec, time.Hour); err != nil {
		t.Fatal(err)
	}
	if r := synchro("SY-7", "SY-R", false); r.State != legacy.StateInProgress {
		t.Errorf("running: %+v", r)
	}
	if r := synchro("SY-8", "SY-R", true); r.State != legacy.StateInProgress {
		t.Errorf("rollback of a running one: %+v", r)
	}
	// A message running before its first step was recorded: its lease
	// is held.
	if _, held, err := j.acquire(context.Background(), "SY-L"); err != nil || !held {
		t.Fatal(err)
	}
	if r := synchro("SY-9", "SY-L", false); r.State != legacy.StateInProgress {
		t.Errorf("leased: %+v", r)
	}
	if r := synchro("SY-10", "SY-L", true); r.State != legacy.StateInProgress {
		t.Errorf("rollback of a leased one: %+v", r)
	}
}

// TestSynchroRollbackProvisional: a booking left provisional (its
// fulfilment never came) is deleted by a rollback, which answers
// ROLLED_BACK without amounts.
func TestSynchroRollbackProvisional(t *testing.T) {
	s := storetest.NewMemory()
	j := testJournal(t, s, nil)
	x := newSandboxCaller(t)
	b := sbBook(t, j, x, "SP-B", 1)
	// Made provisional again as far as the journal knows: a booking of
	// its own, never fulfilled.
	rec, _ := j.load(context.Background(), "SP-B")
	prov := sbProvisional(t, x)
	rec.BookingID = prov
	if err := j.save(rec, time.Hour); err != nil {
		t.Fatal(err)
	}
	res := sbDo(t, j, x, &legacy.SynchroRequest{Header: legacy.Header{MessageID: "SP-1"}, OriginalMessageID: "SP-B", Rollback: true})
	r, ok := res.Reply.(*legacy.SynchroReply)
	if !ok || r.State != legacy.StateRolledBack || r.RefundAmount != nil {
		t.Fatalf("%+v", res.Reply)
	}
	req := httptest.NewRequest(http.MethodGet, "/bookings/"+prov, nil)
	rw := httptest.NewRecorder()
	x.sb.ServeHTTP(rw, req)
	if rw.Code != http.StatusNotFound {
		t.Errorf("provisional booking after rollback: %d", rw.Code)
	}
	if x.booking(b.BookingRef).Fulfillments[0].Status != osdm.FulfillmentFulfilled {
		t.Error("the other booking was touched")
	}
}

// TestSynchroRollbackOfACancelledBooking: a rollback of a booking that
// was wholly cancelled since it was made (refunded by a CancelRequest, or
// released at the partner) undoes nothing: it is ALREADY_CANCELLED
// naming the booking, as a CancelRequest would be, not ROLLED_BACK;
// nothing is sent but the read of the booking, and the original message
// still reads DONE.
func TestSynchroRollbackOfACancelledBooking(t *testing.T) {
	check := func(t *testing.T, res *Result, id string) {
		t.Helper()
		checkReply(t, res)
		n, ok := res.Reply.(*legacy.NegativeReply)
		if !ok || n.Code != legacy.CodeAlreadyCancelled || n.BookingRef != id || n.Retryable || !strings.Contains(n.Text, "nothing was rolled back") {
			t.Fatalf("rollback of a cancelled booking: %#v", res.Reply)
		}
	}
	t.Run("refunded", func(t *testing.T) {
		j := testJournal(t, storetest.NewMemory(), nil)
		x := newSandboxCaller(t)
		b := sbBook(t, j, x, "RC-B", 2)
		if cr, ok := sbDo(t, j, x, &legacy.CancelRequest{Header: legacy.Header{MessageID: "RC-C"}, BookingRef: b.BookingRef}).Reply.(*legacy.CancelReply); !ok || cr.Status != legacy.StatusRefunded {
			t.Fatalf("cancellation: %+v", cr)
		}
		mark := len(x.calls)
		rollback := &legacy.SynchroRequest{Header: legacy.Header{MessageID: "RC-S"}, OriginalMessageID: "RC-B", Rollback: true}
		check(t, sbDo(t, j, x, rollback), b.BookingRef)
		if got := strings.Join(x.steps(mark), ","); got != "booking" {
			t.Errorf("rollback steps %s, want the read of the booking only", got)
		}
		if ro := x.booking(b.BookingRef).RefundOffers; len(ro) != 1 || ro[0].AppliedOverruleCode != "" {
			t.Errorf("refund offers after the rollback: %+v", ro)
		}
		// Resent, the same answer from the journal; the booking message
		// itself was not rolled back.
		mark = len(x.calls)
		check(t, sbDo(t, j, x, rollback), b.BookingRef)
		res := sbDo(t, j, x, &legacy.SynchroRequest{Header: legacy.Header{MessageID: "RC-S2"}, OriginalMessageID: "RC-B"})
		if r, ok := res.Reply.(*legacy.SynchroReply); !ok || r.State != legacy.StateDone || r.RefundAmount != nil {
			t.Errorf("synchro of the booking message after the refused rollback: %+v", res.Reply)
		}
		if steps := x.steps(mark); len(steps) != 0 {
			t.Errorf("resent rollback and synchro sent %v", steps)
		}
	})
	t.Run("released", func(t *testing.T) {
		s := storetest.NewMemory()
		j := testJournal(t, s, nil)
		rec := &exchangeRecord{V: 1, Partner: "sbb", MessageID: "RL-B", Kind: string(legacy.KindBookingRequest), BodyHash: "00",
			State: stateDone, BookingID: "b-4711", Created: testNow}
		if err := j.save(rec, time.Hour); err != nil {
			t.Fatal(err)
		}
		released := strings.Replace(string(readFile(t, "testdata/golden/booking_offer_ref", "booking.json")), `"status": "PREBOOKED"`, `"status": "RELEASED"`, 1)
		x := &scripted{t: t, answers: []scriptedAnswer{{step: StepReadBooking, status: 200, body: []byte(released)}}}
		check(t, sbDo(t, j, x, &legacy.SynchroRequest{Header: legacy.Header{MessageID: "RL-S"}, OriginalMessageID: "RL-B", Rollback: true}), "b-4711")
		if len(x.calls) != 1 {
			t.Errorf("%d calls, want the read of the booking only", len(x.calls))
		}
		if orig, _ := j.load(context.Background(), "RL-B"); orig.After != nil && orig.After.RolledBack != nil {
			t.Errorf("the booking message is recorded as rolled back: %+v", orig.After.RolledBack)
		}
	})
}

// sbProvisional makes a provisional booking at the sandbox (search and
// POST /bookings, no fulfilment) and returns its id.
func sbProvisional(t *testing.T, x *sandboxCaller) string {
	t.Helper()
	c := testConverter(t, Config{})
	r := &run{c: c, x: x, j: noLedger{}, messageID: "prov", h: legacy.ReplyHeader{}}
	ts, _ := c.travellers(testPlaces())
	resp, end := r.search(context.Background(), testJourney(), testPlaces(), ts)
	if end != nil {
		t.Fatalf("search: %+v", end.Reply)
	}
	best, _ := cheapest(candidates(resp, testPlaces()), 1)
	br, f := r.createBooking(context.Background(), &osdm.BookingRequest{
		Offers:                  []osdm.OfferSelection{{OfferID: best.offer.OfferID, PassengerRefs: refs(ts)}},
		PassengerSpecifications: specifications(ts, nil)})
	if f != nil {
		t.Fatalf("booking: %s", f.what)
	}
	return br.Booking.ID
}

// TestPassengerData: PassengerDataRequest sets the names and dates of
// birth given, keeps the rest, and answers every passenger; a date of
// birth the partner refuses (another tariff) is INVALID_MESSAGE and the
// passengers changed before it in the message are set back.
func TestPassengerData(t *testing.T) {
	j := testJournal(t, storetest.NewMemory(), nil)
	x := newSandboxCaller(t)
	b := sbBook(t, j, x, "PD-B", 2, legacy.Passenger{FirstName: "Anna", LastName: "Muster"}, legacy.Passenger{FirstName: "Ben", LastName: "Muster"})
	res := sbDo(t, j, x, &legacy.PassengerDataRequest{Header: legacy.Header{MessageID: "PD-1"}, BookingRef: b.BookingRef,
		Passengers: []legacy.PassengerData{{Index: 2, LastName: "O'Brien & Söhne", DateOfBirth: "1980-02-29"}}})
	r, ok := res.Reply.(*legacy.PassengerDataReply)
	want := []legacy.PassengerData{{Index: 1, FirstName: "Anna", LastName: "Muster"}, {Index: 2, FirstName: "Ben", LastName: "O'Brien & Söhne", DateOfBirth: "1980-02-29"}}
	if !ok || len(r.Passengers) != 2 || r.Passengers[1] != want[1] || r.Passengers[0].FirstName != "Anna" {
		t.Fatalf("reply %+v", res.Reply)
	}
	if p := x.booking(b.BookingRef).Passengers[1]; p.DateOfBirth != "1980-02-29" || p.Detail.LastName != "O'Brien & Söhne" || p.Detail.FirstName != "Ben" {
		t.Errorf("partner holds %+v %+v", p, p.Detail)
	}
	// Passenger 1 to a new name, passenger 2 to a child's birth date:
	// refused, and passenger 1 keeps its name.
	res = sbDo(t, j, x, &legacy.PassengerDataRequest{Header: legacy.Header{MessageID: "PD-2"}, BookingRef: b.BookingRef,
		Passengers: []legacy.PassengerData{{Index: 1, FirstName: "Anne"}, {Index: 2, DateOfBirth: "2020-01-01"}}})
	if n, ok := res.Reply.(*legacy.NegativeReply); !ok || n.Code != legacy.CodeInvalidMessage || !strings.Contains(n.Text, "Nothing was changed") ||
		!strings.Contains(n.Text, "ADULT") {
		t.Errorf("tariff move: %+v", res.Reply)
	}
	if p := x.booking(b.BookingRef).Passengers; p[0].Detail.FirstName != "Anna" || p[1].DateOfBirth != "1980-02-29" {
		t.Errorf("after a refusal the partner holds %+v %+v", p[0].Detail, p[1])
	}
	res = sbDo(t, j, x, &legacy.PassengerDataRequest{Header: legacy.Header{MessageID: "PD-3"}, BookingRef: b.BookingRef,
		Passengers: []legacy.PassengerData{{Index: 3, FirstName: "X"}}})
	if n, ok := res.Reply.(*legacy.NegativeReply); !ok || n.Code != legacy.CodeInvalidMessage || !strings.Contains(n.Text, "has 2 passenger(s)") {
		t.Errorf("index 3: %+v", res.Reply)
	}
	res = sbDo(t, j, x, &legacy.PassengerDataRequest{Header: legacy.Header{MessageID: "PD-4"}, BookingRef: "b-none",
		Passengers: []legacy.PassengerData{{Index: 1, FirstName: "X"}}})
	if n, ok := res.Reply.(*legacy.NegativeReply); !ok || n.Code != legacy.CodeBookingNotFound {
		t.Errorf("unknown booking: %+v", res.Reply)
	}
}

// seatsLeft is what the sandbox offers of second-class seats on train.
func seatsLeft(t *testing.T, x *sandboxCaller, train string) int {
	t.Helper()
	c := testConverter(t, Config{})
	j := testJourney()
	j.TrainNumber = train
	dep, _ := c.departureTime(j)
	ts, _ := c.travellers(testPlaces())
	body, _ := marshal(offerRequest(j, testPlaces(), dep, ts))
	req := httptest.NewRequest(http.MethodPost, "/offers", bytes.NewReader(body))
	req.Header.Set("Content-Type", osdm.ContentTypeJSON)
	rec := httptest.NewRecorder()
	x.sb.ServeHTTP(rec, req)
	var resp offerAnswer
	if err := decodeAnswer(rec.Body.Bytes(), &resp); err != nil {
		t.Fatal(err)
	}
	for _, c := range candidates(&resp, testPlaces()) {
		return *c.legacy.AvailablePlaces
	}
	return 0
}

// exchangeJourney is the journey exchanged to: a later train.
func exchangeJourney() legacy.Journey {
	j := testJourney()
	j.TrainNumber, j.DepartureTime = "9207", "11:56"
	return j
}

func exchangeRequest(id, bookingRef, offerRef string, n int) *legacy.BookingRequest {
	return &legacy.BookingRequest{Header: legacy.Header{MessageID: id}, Journey: exchangeJourney(), ExchangeOf: bookingRef, OfferRef: offerRef,
		Places: legacy.PlaceRequest{TravelClass: 2, ServiceCode: 1, Tariffs: []legacy.Tariff{{Code: 1, Count: n}}}}
}

// TestExchange: an AvailabilityRequest with ExchangeOf answers exchange
// offers with their Exchange element; a BookingRequest with ExchangeOf
// (with the OfferRef of one, or none) moves the booking to the new train:
// the old places are freed, the new held, the reply has the new places,
// the same BookingRef and the Exchange element; a resend gets the same
// reply and changes nothing.
func TestExchange(t *testing.T) {
	j := testJournal(t, storetest.NewMemory(), nil)
	x := newSandboxCaller(t)
	b := sbBook(t, j, x, "X-B", 2)
	if seatsLeft(t, x, "9203") != 38 || seatsLeft(t, x, "9207") != 40 {
		t.Fatalf("before: %d %d", seatsLeft(t, x, "9203"), seatsLeft(t, x, "9207"))
	}
	res := sbDo(t, j, x, &legacy.AvailabilityRequest{Header: legacy.Header{MessageID: "X-A"}, Journey: exchangeJourney(), ExchangeOf: b.BookingRef,
		Places: legacy.PlaceRequest{TravelClass: 2, ServiceCode: 1, Tariffs: []legacy.Tariff{{Code: 1, Count: 2}}}})
	ar, ok := res.Reply.(*legacy.AvailabilityReply)
	if !ok || len(ar.Offers) == 0 || ar.Offers[0].Exchange == nil {
		t.Fatalf("exchange offers: %+v", res.Reply)
	}
	// Same price (2 x 5.00), fee 1.00: 1.00 to pay.
	if e := ar.Offers[0].Exchange; e.Fee.Amount != "1.00" || e.AmountToPay == nil || e.AmountToPay.Amount != "1.00" || ar.Offers[0].Price.Amount != "10.00" {
		t.Errorf("exchange element %+v %+v %+v", e.Fee, e.AmountToPay, ar.Offers[0].Price)
	}
	mark := len(x.calls)
	res = sbDo(t, j, x, exchangeRequest("X-1", b.BookingRef, ar.Offers[0].OfferRef, 2))
	br, ok := res.Reply.(*legacy.BookingReply)
	if !ok || br.BookingRef != b.BookingRef || br.ExchangeOf != b.BookingRef || br.Exchange == nil || br.Exchange.AmountToPay.Amount != "1.00" ||
		len(br.Places) != 2 || br.Status != legacy.StatusFulfilled || br.TicketControlNumber == "" || br.TicketControlNumber == b.TicketControlNumber {
		t.Fatalf("exchange reply: %+v", res.Reply)
	}
	if got := strings.Join(x.steps(mark), ","); got != "booking,exchange_operation,fulfillments,booking" {
		t.Errorf("steps %s", got)
	}
	if seatsLeft(t, x, "9203") != 40 || seatsLeft(t, x, "9207") != 38 {
		t.Errorf("after: 9203 %d, 9207 %d", seatsLeft(t, x, "9203"), seatsLeft(t, x, "9207"))
	}
	mark = len(x.calls)
	if again := sbDo(t, j, x, exchangeRequest("X-1", b.BookingRef, ar.Offers[0].OfferRef, 2)); !sameReply(again.Reply, res.Reply) || len(x.steps(mark)) != 0 {
		t.Errorf("resend: %+v, steps %v", again.Reply, x.steps(mark))
	}
	// Back to the first train, without an OfferRef: searched and picked.
	back := exchangeRequest("X-2", b.BookingRef, "", 2)
	back.Journey = testJourney()
	res = sbDo(t, j, x, back)
	if br, ok := res.Reply.(*legacy.BookingReply); !ok || br.Exchange == nil || len(br.Places) != 2 {
		t.Fatalf("exchange back: %+v", res.Reply)
	}
	if seatsLeft(t, x, "9203") != 38 || seatsLeft(t, x, "9207") != 40 {
		t.Errorf("after the exchange back: 9203 %d, 9207 %d", seatsLeft(t, x, "9203"), seatsLeft(t, x, "9207"))
	}
	// Places that do not match the passengers, and a booking that is not
	// fulfilled, are refused before anything is asked.
	res = sbDo(t, j, x, exchangeRequest("X-3", b.BookingRef, "", 3))
	if n, ok := res.Reply.(*legacy.NegativeReply); !ok || n.Code != legacy.CodeInvalidMessage || !strings.Contains(n.Text, "2 passenger(s)") {
		t.Errorf("3 places for 2 passengers: %+v", res.Reply)
	}
	res = sbDo(t, j, x, exchangeRequest("X-4", sbProvisional(t, x), "", 1))
	if n, ok := res.Reply.(*legacy.NegativeReply); !ok || n.Code != legacy.CodeInvalidMessage || !strings.Contains(n.Text, "not confirmed") {
		t.Errorf("provisional: %+v", res.Reply)
	}
}

// TestExchangeRefused: a partner that refuses the exchange operation or
// its confirmation answers EXCHANGE_NOT_POSSIBLE; the operation made is
// deleted and the old booking stands with its places.
func TestExchangeRefused(t *testing.T) {
	for _, step := range []Step{StepExchangeOperation, StepFulfillments} {
		t.Run(string(step), func(t *testing.T) {
			j := testJournal(t, storetest.NewMemory(), nil)
			x := newSandboxCaller(t)
			b := sbBook(t, j, x, "XR-B", 2)
			x.refuse[step] = 1
			res := sbDo(t, j, x, exchangeRequest("XR-1", b.BookingRef, "", 2))
			n, ok := res.Reply.(*legacy.NegativeReply)
			if !ok || n.Code != legacy.CodeExchangeNotPossible || n.BookingRef != b.BookingRef || !strings.Contains(n.Text, "stands unchanged") || res.Status != 409 {
				t.Fatalf("reply %d %+v", res.Status, res.Reply)
			}
			if seatsLeft(t, x, "9203") != 38 || seatsLeft(t, x, "9207") != 40 {
				t.Errorf("after: 9203 %d, 9207 %d", seatsLeft(t, x, "9203"), seatsLeft(t, x, "9207"))
			}
			if bk := x.booking(b.BookingRef); len(bk.Fulfillments) != 1 || bk.Fulfillments[0].Status != osdm.FulfillmentFulfilled {
				t.Errorf("booking %+v", bk.Fulfillments)
			}
		})
	}
}

// TestExchangeKilled kills the process before and after each step of an
// exchange; a new process on the same store then answers the resend, or
// settles first: the booking ends on the old train or the new, never
// both (places held on both) and never neither, and the reply says which.
func TestExchangeKilled(t *testing.T) {
	for _, at := range []struct {
		step Step
		skip int
	}{{StepReadBooking, 0}, {StepExchangeOffers, 0}, {StepExchangeOperation, 0}, {StepFulfillments, 0}, {StepReadBooking, 1}} {
		for _, after := range []bool{false, true} {
			for _, settleFirst := range []bool{false, true} {
				name := string(at.step) + strconv.Itoa(at.skip+1) + map[bool]string{false: "/before", true: "/after"}[after] + map[bool]string{false: "/resend", true: "/settle"}[settleFirst]
				t.Run(name, func(t *testing.T) {
					s := storetest.NewMemory()
					j := testJournal(t, s, nil)
					x := newSandboxCaller(t)
					b := sbBook(t, j, x, "XK-B", 2)
					msg := exchangeRequest("XK-1", b.BookingRef, "", 2)
					x.store, x.dieAt, x.dieAfter, x.dieSkip = s, at.step, after, at.skip
					sbDo(t, j, x, msg)
					x.revive()
					s.Now = func() time.Time { return time.Now().Add(2 * time.Minute) }
					j2 := testJournal(t, s, nil)
					if settleFirst {
						if _, err := j2.Settle(context.Background(), x); err != nil {
							t.Fatal(err)
						}
					}
					res := sbDo(t, j2, x, msg)
					old, nw := seatsLeft(t, x, "9203"), seatsLeft(t, x, "9207")
					bk := x.booking(b.BookingRef)
					live := 0
					for _, f := range bk.Fulfillments {
						if f.Status == osdm.FulfillmentFulfilled {
							live++
						}
					}
					switch reply := res.Reply.(type) {
					case *legacy.BookingReply:
						if old != 40 || nw != 38 || live != 1 || reply.Exchange == nil || reply.ExchangeOf != b.BookingRef {
							t.Errorf("exchanged: %+v; seats 9203 %d 9207 %d, live fulfilments %d", reply, old, nw, live)
						}
					case *legacy.NegativeReply:
						// Only settlement may give up: then the old booking
						// stands, and the new places are free (its operation
						// withdrawn) or held only until it lapses.
						if !settleFirst || old != 38 || nw != 40 || live != 1 || !strings.Contains(reply.Text, "stands unchanged") {
							t.Errorf("not exchanged: %+v; seats 9203 %d 9207 %d, live fulfilments %d", reply, old, nw, live)
						}
					default:
						t.Errorf("reply %+v", res.Reply)
					}
					if _, err := j2.Settle(context.Background(), x); err != nil {
						t.Fatal(err)
					}
					if again := sbDo(t, j2, x, msg); !sameReply(again.Reply, res.Reply) {
						t.Errorf("second resend %+v, first %+v", again.Reply, res.Reply)
					}
					if seatsLeft(t, x, "9203") != old || seatsLeft(t, x, "9207") != nw {
						t.Error("the partner changed after the outcome was given")
					}
				})
			}
		}
	}
}

// TestExchangeSettleWithdraws: an exchange cut off before its
// confirmation, settled with no client waiting, is withdrawn (DELETE of
// the operation): the new places are free at once and the old booking
// stands; the resend is told so.
func TestExchangeSettleWithdraws(t *testing.T) {
	s := storetest.NewMemory()
	j := testJournal(t, s, nil)
	x := newSandboxCaller(t)
	b := sbBook(t, j, x, "XW-B", 2)
	msg := exchangeRequest("XW-1", b.BookingRef, "", 2)
	x.store, x.dieAt = s, StepFulfillments
	sbDo(t, j, x, msg)
	x.revive()
	if seatsLeft(t, x, "9207") != 38 {
		t.Fatalf("the operation should hold the new places: %d", seatsLeft(t, x, "9207"))
	}
	s.Now = func() time.Time { return time.Now().Add(2 * time.Minute) }
	j2 := testJournal(t, s, nil)
	mark := len(x.calls)
	if n, err := j2.Settle(context.Background(), x); err != nil || n != 1 {
		t.Fatalf("settled %d %v", n, err)
	}
	if got := strings.Join(x.steps(mark), ","); got != "read_exchange_operation,delete_exchange_operation" {
		t.Errorf("settlement steps %s", got)
	}
	if seatsLeft(t, x, "9207") != 40 || seatsLeft(t, x, "9203") != 38 {
		t.Errorf("after settlement: 9203 %d 9207 %d", seatsLeft(t, x, "9203"), seatsLeft(t, x, "9207"))
	}
	res := sbDo(t, j2, x, msg)
	if n, ok := res.Reply.(*legacy.NegativeReply); !ok || !strings.Contains(n.Text, "withdrawn") || n.BookingRef != b.BookingRef {
		t.Errorf("resend: %+v", res.Reply)
	}
}

// TestPassengerDataRefusedAfterANewName: a message that names a passenger
// booked without a name, then is refused for another passenger, cannot
// take the name back (a PATCH sets, never clears, a name): the reply does
// not say nothing was changed, but that the passengers before the refused
// one could not all be set back, as the partner then holds.
func TestPassengerDataRefusedAfterANewName(t *testing.T) {
	j := testJournal(t, storetest.NewMemory(), nil)
	x := newSandboxCaller(t)
	b := sbBook(t, j, x, "PDN-B", 2, legacy.Passenger{FirstName: "Anna", LastName: "Muster"})
	res := sbDo(t, j, x, &legacy.PassengerDataRequest{Header: legacy.Header{MessageID: "PDN-1"}, BookingRef: b.BookingRef,
		Passengers: []legacy.PassengerData{{Index: 2, FirstName: "Ben", LastName: "Muster"}, {Index: 1, DateOfBirth: "2020-01-01"}}})
	n, ok := res.Reply.(*legacy.NegativeReply)
	if !ok || n.Code != legacy.CodeInvalidMessage {
		t.Fatalf("tariff move: %+v", res.Reply)
	}
	held := x.booking(b.BookingRef).Passengers[1]
	if held.Detail == nil || held.Detail.LastName != "Muster" {
		t.Fatalf("the partner holds %+v for passenger 2: the sandbox set the name back after all", held.Detail)
	}
	if strings.Contains(n.Text, "Nothing was changed") || !strings.Contains(n.Text, "could not all be set back") {
		t.Errorf("the reply says %q, but the partner keeps passenger 2's new name %+v", n.Text, held.Detail)
	}
}

// TestRefusalsAboutABookingNameIt: an INVALID_MESSAGE about a booking the
// partner holds (a place it does not hold, a passenger it does not have,
// an exchange asking for another number of places) names the booking in
// BookingRef, and its text ends with one full stop.
func TestRefusalsAboutABookingNameIt(t *testing.T) {
	j := testJournal(t, storetest.NewMemory(), nil)
	x := newSandboxCaller(t)
	b := sbBook(t, j, x, "RAB-B", 2)
	for name, req := range map[string]legacy.Request{
		"place not held": &legacy.CancelRequest{Header: legacy.Header{MessageID: "RAB-C"}, BookingRef: b.BookingRef,
			Places: []legacy.Place{{Coach: b.Places[0].Coach, Number: "99"}}},
		"passenger not in it": &legacy.PassengerDataRequest{Header: legacy.Header{MessageID: "RAB-P"}, BookingRef: b.BookingRef,
			Passengers: []legacy.PassengerData{{Index: 3, FirstName: "X", LastName: "Y"}}},
		"exchange of another number of places": exchangeRequest("RAB-X", b.BookingRef, "", 3),
	} {
		n, ok := sbDo(t, j, x, req).Reply.(*legacy.NegativeReply)
		if !ok || n.Code != legacy.CodeInvalidMessage || n.BookingRef != b.BookingRef || strings.HasSuffix(n.Text, "..") {
			t.Errorf("%s: %+v, want INVALID_MESSAGE naming booking %s, its text ending with one full stop", name, n, b.BookingRef)
		}
	}
	if got := heldBy(x, b.BookingRef); len(got) != 2 {
		t.Errorf("after the refusals the booking holds %v", got)
	}
}

// TestExchangeKeepsTheTravellersTariffs: a booking of adult, child, adult
// is exchanged only for places asked with the travellers' tariffs in their
// order (the i-th place is the i-th traveller's): three adults, or the
// child first, is an INVALID_MESSAGE naming the booking, nothing asked of
// the partner but the booking; in order, the exchange goes through.
func TestExchangeKeepsTheTravellersTariffs(t *testing.T) {
	j := testJournal(t, storetest.NewMemory(), nil)
	x := newSandboxCaller(t)
	interleaved := legacy.PlaceRequest{TravelClass: 2, ServiceCode: 1, Tariffs: []legacy.Tariff{{Code: 1, Count: 1}, {Code: 2, Count: 1}, {Code: 1, Count: 1}}}
	m := &legacy.BookingRequest{Header: legacy.Header{MessageID: "XT-B"}, Journey: testJourney(), Places: interleaved}
	res, _ := j.Do(context.Background(), m, encodedBody(t, m), x)
	b, ok := res.Reply.(*legacy.BookingReply)
	if !ok || len(b.Places) != 3 {
		t.Fatalf("booking: %+v", res.Reply)
	}
	for name, tariffs := range map[string][]legacy.Tariff{
		"three adults": {{Code: 1, Count: 3}},
		"child first":  {{Code: 2, Count: 1}, {Code: 1, Count: 2}},
	} {
		p := legacy.PlaceRequest{TravelClass: 2, ServiceCode: 1, Tariffs: tariffs}
		for _, req := range []legacy.Request{
			&legacy.AvailabilityRequest{Header: legacy.Header{MessageID: "XT-A-" + name}, Journey: exchangeJourney(), Places: p, ExchangeOf: b.BookingRef},
			&legacy.BookingRequest{Header: legacy.Header{MessageID: "XT-X-" + name}, Journey: exchangeJourney(), Places: p, ExchangeOf: b.BookingRef},
		} {
			mark := len(x.calls)
			n, ok := sbDo(t, j, x, req).Reply.(*legacy.NegativeReply)
			if !ok || n.Code != legacy.CodeInvalidMessage || n.BookingRef != b.BookingRef || !strings.Contains(n.Text, "ADULT, CHILD, ADULT") {
				t.Errorf("%s, %s: %+v", name, req.Kind(), n)
			}
			if got := strings.Join(x.steps(mark), ","); got != "booking" {
				t.Errorf("%s, %s: steps %s", name, req.Kind(), got)
			}
		}
	}
	if got := heldBy(x, b.BookingRef); len(got) != 3 {
		t.Errorf("after the refusals the booking holds %v", got)
	}
	xr := sbDo(t, j, x, &legacy.BookingRequest{Header: legacy.Header{MessageID: "XT-X"}, Journey: exchangeJourney(), Places: interleaved, ExchangeOf: b.BookingRef})
	if r, ok := xr.Reply.(*legacy.BookingReply); !ok || r.ExchangeOf != b.BookingRef || len(r.Places) != 3 {
		t.Errorf("exchange in the travellers' order: %+v", xr.Reply)
	}
}

// TestPartialCancelNamesEachPlaceOnce: the places of a partial
// cancellation name distinct places of the booking: one named twice (once
// without its coach) or a number without a coach that more than one place
// has is an INVALID_MESSAGE, and nothing is cancelled (two items naming
// one place of a booking of two were a whole cancellation).
func TestPartialCancelNamesEachPlaceOnce(t *testing.T) {
	j := testJournal(t, storetest.NewMemory(), nil)
	x := newSandboxCaller(t)
	b := sbBook(t, j, x, "PCO-B", 2)
	p := b.Places[0]
	mark := len(x.calls)
	res := sbDo(t, j, x, &legacy.CancelRequest{Header: legacy.Header{MessageID: "PCO-C"}, BookingRef: b.BookingRef,
		Places: []legacy.Place{{Number: p.Number}, p}})
	if n, ok := res.Reply.(*legacy.NegativeReply); !ok || n.Code != legacy.CodeInvalidMessage || n.BookingRef != b.BookingRef || !strings.Contains(n.Text, "both name place") {
		t.Errorf("one place named twice: %+v", res.Reply)
	}
	if got := strings.Join(x.steps(mark), ","); got != "booking" || len(heldBy(x, b.BookingRef)) != 2 {
		t.Errorf("steps %s; the booking holds %v", got, heldBy(x, b.BookingRef))
	}
}

// TestPartialCancelWithoutCoach: a place named by its number alone is the
// booking's place of that number, and refused when two coaches have it.
func TestPartialCancelWithoutCoach(t *testing.T) {
	b := &osdm.Booking{ID: "b-1", Passengers: []osdm.Passenger{{ID: "pa", ExternalRef: "p1"}, {ID: "pb", ExternalRef: "p2"}},
		BookedOffers: []osdm.BookedOffer{{Reservations: []osdm.Reservation{{BookingPart: osdm.BookingPart{ID: "r-1", Status: osdm.BookingPartFulfilled, PassengerIDs: []string{"pa", "pb"}},
			PlaceAllocation: &osdm.PlaceAllocation{ReservedPlaces: []osdm.ReservedPlace{
				{CoachNumber: "3", PlaceNumbers: []string{"11"}, PassengerIDs: []string{"pa"}},
				{CoachNumber: "4", PlaceNumbers: []string{"11"}, PassengerIDs: []string{"pb"}}}}}}}},
		Fulfillments: []osdm.Fulfillment{{ID: "f-1", Status: osdm.FulfillmentFulfilled}}}
	x := CallerFunc(func(_ context.Context, c *Call) (*Answer, error) {
		if c.Step == StepReadBooking {
			return jsonAnswer(200, osdm.BookingResponse{Booking: b}), nil
		}
		t.Errorf("unexpected step %s", c.Step)
		return nil, context.Canceled
	})
	res := testConverter(t, Config{}).Convert(context.Background(),
		&legacy.CancelRequest{Header: legacy.Header{MessageID: "PCW-1"}, BookingRef: "b-1", Places: []legacy.Place{{Number: "11"}}}, x)
	if n, ok := res.Reply.(*legacy.NegativeReply); !ok || n.Code != legacy.CodeInvalidMessage || !strings.Contains(n.Text, "give its coach") {
		t.Errorf("number 11 in coaches 3 and 4: %+v", res.Reply)
	}
}
