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
