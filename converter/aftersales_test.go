package converter

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
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
	dead     bool
	store    *storetest.Memory
}

var errDead = errors.New("the process was killed")

func newSandboxCaller(t testing.TB) *sandboxCaller {
	sb, err := osdmsandbox.New(osdmsandbox.Config{Capacity: 40, Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	return &sandboxCaller{t: t, sb: sb, lose: map[Step]int{}}
}

func (s *sandboxCaller) Call(ctx context.Context, call *Call) (*Answer, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dead {
		return nil, errDead
	}
	s.calls = append(s.calls, call)
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

// sbProvisional makes a provisional booking at the sandbox (search and
// POST /bookings, no fulfilment) and returns its id.
func sbProvisional(t *testing.T, x *sandboxCaller) string {
	t.Helper()
	c := testConverter(t, Config{})
	r := &run{c: c, x: x, messageID: "prov", h: legacy.ReplyHeader{}}
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
