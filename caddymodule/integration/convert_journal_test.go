package integration

import (
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/harness"
	"github.com/caddy-osdm/caddy-osdm/converter"
	"github.com/caddy-osdm/caddy-osdm/internal/redistest"
	"github.com/caddy-osdm/caddy-osdm/legacy"
)

// The tests of this file run osdm_convert's journal the way it
// is deployed: the partner (osdm_sandbox) is a Caddy in a process of its
// own, so it outlives the fronts; each front (osdm_convert +
// reverse_proxy) is a Caddy in a child process too, so that it can be
// killed with SIGKILL mid-exchange and started again on the same bolt
// file, or run twice on one Redis. Both are this test binary, re-executed
// with the Caddyfile of its role. Between the fronts and the partner
// sits a partnerTap in the test process: it checks every OSDM exchange
// against the spec, records them, and acts out faults.

// The journal's test partner route name; the Idempotency-Keys derive
// from it.
const journalPartner = "journal"

// journalCaddyfile is the Caddyfile of a child process on port: the
// partner (osdm_sandbox) or a front (osdm_convert on the store
// subdirective arguments store, with the subdirectives extra, one per
// line, in front of upstream).
func journalCaddyfile(role string, port int, store, extra, upstream string) string {
	if role == "partner" {
		return fmt.Sprintf("{\n\tadmin off\n\tpersist_config off\n}\n\nhttp://127.0.0.1:%d {\n\troute {\n\t\tosdm_sandbox {\n\t\t\tcapacity 1000\n\t\t}\n\t}\n}\n", port)
	}
	return journalFrontCaddyfile(store, extra, func(convert string) string {
		return fmt.Sprintf("http://127.0.0.1:%d {\n\troute {\n%s\t\treverse_proxy %s\n\t}\n}\n", port, convert, upstream)
	})
}

// journalFrontCaddyfile is the Caddyfile of a front whose site is
// site(convert), convert being its osdm_convert block (indented for a
// route) on the store subdirective arguments store, with the
// subdirectives extra.
func journalFrontCaddyfile(store, extra string, site func(convert string) string) string {
	app := ""
	if f := strings.Fields(store); len(f) == 3 && f[0] == "redis" {
		// A named store of the osdm app: the test Redis need not persist.
		app = fmt.Sprintf("\tosdm {\n\t\tstore j redis %s {\n\t\t\tprefix %s\n\t\t\taccept_volatile\n\t\t}\n\t}\n", f[1], f[2])
		store = "j"
	}
	convert := fmt.Sprintf("\t\tosdm_convert {\n\t\t\tpartner %s\n\t\t\tstore %s\n%s\t\t}\n", journalPartner, store, extra)
	return fmt.Sprintf("{\n\tadmin off\n\tpersist_config off\n%s}\n\n%s", app, site(convert))
}

// journalProc is a Caddy child process and its port.
type journalProc struct {
	*harness.Child
	port int
}

// startJournalProc starts a child in role on port and waits until it
// serves.
func startJournalProc(t *testing.T, role string, port int, store, extra, upstream string) *journalProc {
	t.Helper()
	c := harness.StartCaddy(t, t.TempDir(), role, journalCaddyfile(role, port, store, extra, upstream))
	return &journalProc{Child: c, port: port}
}

// journalRig is a partner process, a tap in front of it, and the fronts
// of a test.
type journalRig struct {
	t           *testing.T
	partnerPort int
	tap         *partnerTap
	store       string // the fronts' store subdirective arguments
	extra       string // more osdm_convert subdirectives, one per line
}

func newJournalRig(t *testing.T, store, extra string) *journalRig {
	t.Helper()
	warmSpec(t)
	rig := &journalRig{t: t, partnerPort: harness.FreePort(t), store: store, extra: extra}
	startJournalProc(t, "partner", rig.partnerPort, "", "", "")
	rig.tap = newPartnerTap(t, rig.partnerPort)
	return rig
}

// front starts a front process on the rig's store.
func (rig *journalRig) front() *journalProc {
	rig.t.Helper()
	return startJournalProc(rig.t, "front", harness.FreePort(rig.t), rig.store, rig.extra, fmt.Sprintf("127.0.0.1:%d", rig.tap.port()))
}

// send posts msg to front p as XML; err is a transport failure (the
// front died).
func (rig *journalRig) send(p *journalProc, msg legacy.Message) (int, legacy.Reply, error) {
	client := &http.Client{Timeout: 60 * time.Second}
	a, err := harness.LegacyClient{URL: fmt.Sprintf("http://127.0.0.1:%d/", p.port), HTTP: client}.Try(msg)
	return a.Status, a.Reply, err
}

// mustSend is send that fails the test on a transport failure.
func (rig *journalRig) mustSend(p *journalProc, msg legacy.Message) (int, legacy.Reply) {
	rig.t.Helper()
	status, r, err := rig.send(p, msg)
	if err != nil {
		rig.t.Fatal(err)
	}
	return status, r
}

// bookingsOf lists the partner's bookings made for legacy message id: the
// ones whose POST /bookings carried its Idempotency-Key.
func (rig *journalRig) bookingsOf(id string) []sandboxBookingView {
	rig.t.Helper()
	key := converter.IdempotencyKey(journalPartner, id, converter.StepBooking)
	resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/_sandbox/bookings", rig.partnerPort))
	if err != nil {
		rig.t.Fatal(err)
	}
	defer resp.Body.Close()
	var all []struct {
		ID              string   `json:"id"`
		Status          string   `json:"status"`
		IdempotencyKeys []string `json:"idempotencyKeys"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&all); err != nil {
		rig.t.Fatal(err)
	}
	var out []sandboxBookingView
	for _, b := range all {
		for _, k := range b.IdempotencyKeys {
			if k == key {
				out = append(out, sandboxBookingView{ID: b.ID, Status: b.Status})
				break
			}
		}
	}
	return out
}

// oneBooking is the one booking made for message id.
func (rig *journalRig) oneBooking(id string) sandboxBookingView {
	rig.t.Helper()
	bs := rig.bookingsOf(id)
	if len(bs) != 1 {
		rig.t.Fatalf("the partner holds %d bookings for message %s, want 1: %+v", len(bs), id, bs)
	}
	return bs[0]
}

// settleDeadline bounds the waits for what a front's settlement does on
// its own (every settle_interval, 200ms in these tests): a second or two on
// a quiet machine, many times that on a loaded CI machine under the race
// detector. The tests assert that it happens, not how soon.
const settleDeadline = 2 * time.Minute

// awaitDeleted waits, up to settleDeadline, for settlement to delete
// message id's PREBOOKED booking; stuck says what it means when it does
// not.
func (rig *journalRig) awaitDeleted(t *testing.T, id, stuck string) {
	t.Helper()
	deadline := time.Now().Add(settleDeadline)
	for rig.oneBooking(id).Status == "PREBOOKED" {
		if time.Now().After(deadline) {
			t.Fatal(stuck)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if b := rig.oneBooking(id); b.Status != "DELETED" {
		t.Fatalf("settled, the booking is %s, want DELETED", b.Status)
	}
}

// callsOf counts the tapped calls of step with message id's Idempotency-Key.
func callsOf(exs []tappedExchange, id string, step converter.Step) int {
	key := converter.IdempotencyKey(journalPartner, id, step)
	n := 0
	for _, ex := range exs {
		if ex.ReqHeader.Get("Idempotency-Key") == key {
			n++
		}
	}
	return n
}

// journalMsgID is a messageId unique to this run.
func journalMsgID(what string) string {
	return "j-" + what + "-" + harness.RandomHex(4)
}

// searchBooking is a BookingRequest without OfferRef: the converter
// searches, picks, books and fulfils (the case).
func searchBooking(id string) *legacy.BookingRequest {
	return &legacy.BookingRequest{Header: legacy.Header{MessageID: id}, Journey: journeyOn("9203"),
		Places: secondClassSeats(legacy.Tariff{Code: 1, Count: 1}), Passengers: []legacy.Passenger{{FirstName: "Ada", LastName: "Journal"}}}
}

func availability(id string) *legacy.AvailabilityRequest {
	return &legacy.AvailabilityRequest{Header: legacy.Header{MessageID: id}, Journey: journeyOn("9203"),
		Places: secondClassSeats(legacy.Tariff{Code: 1, Count: 1})}
}

// boltStore is the store subdirective of a fresh bolt file.
func boltStore(t *testing.T) string {
	return "bolt " + filepath.Join(t.TempDir(), "journal.db")
}

// redisStore is the store subdirective of a Redis under a fresh prefix,
// or skips the test.
func redisStore(t *testing.T) string {
	return "redis " + redistest.Shared(t) + " " + journalMsgID("test") + ":"
}

// TestJournalReplyOutlivesReplyCache: with a reply cache of
// one entry, a booking's reply is pushed out by the next message; the
// resend is answered from the store with the same BookingRef and no
// second OSDM sequence, and so it is after the front is restarted on the
// same bolt file.
func TestJournalReplyOutlivesReplyCache(t *testing.T) {
	rig := newJournalRig(t, boltStore(t), "\t\t\treply_cache 1\n")
	front := rig.front()
	id := journalMsgID("a")
	status, r := rig.mustSend(front, searchBooking(id))
	first := must[*legacy.BookingReply](t, status, r, http.StatusOK)
	rig.mustSend(front, availability(journalMsgID("push")))
	rig.tap.take()

	status, r = rig.mustSend(front, searchBooking(id))
	again := must[*legacy.BookingReply](t, status, r, http.StatusOK)
	if again.BookingRef != first.BookingRef || again.Status != first.Status || again.TicketControlNumber != first.TicketControlNumber {
		t.Fatalf("resend answered %+v, first reply %+v", again, first)
	}
	if exs := rig.tap.take(); len(exs) != 0 {
		t.Fatalf("the resend made %d OSDM calls, e.g. %s %s", len(exs), exs[0].Method, exs[0].Path)
	}

	front.Kill()
	front = rig.front()
	status, r = rig.mustSend(front, searchBooking(id))
	if after := must[*legacy.BookingReply](t, status, r, http.StatusOK); after.BookingRef != first.BookingRef {
		t.Fatalf("after a restart the resend got %+v", after)
	}
	if exs := rig.tap.take(); len(exs) != 0 {
		t.Fatalf("after a restart the resend made %d OSDM calls", len(exs))
	}
	if b := rig.oneBooking(id); b.ID != first.BookingRef || b.Status != "FULFILLED" {
		t.Fatalf("partner: %+v", b)
	}
}

// killOnStep makes the tap SIGKILL the front it names when the call of
// step for message id first arrives, before passing it on: on the
// fulfilment, say, the partner keeps a booking PREBOOKED that the dead
// front never confirmed. The calls after (a resend continuing the
// message) go through.
func (rig *journalRig) killOnStep(front *journalProc, id string, step converter.Step) {
	key := converter.IdempotencyKey(journalPartner, id, step)
	rig.tap.mu.Lock()
	defer rig.tap.mu.Unlock()
	var killed atomic.Bool
	rig.tap.intercept = func(w http.ResponseWriter, r *http.Request, _ []byte) bool {
		if r.Header.Get("Idempotency-Key") != key || !killed.CompareAndSwap(false, true) {
			return false
		}
		front.Kill()
		if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
			conn.Close()
		}
		return true
	}
}

// TestJournalSettlesAfterSIGKILL: the front is killed with
// SIGKILL after POST /bookings answered, when the fulfilment is on its
// way. Started again on the same bolt file, it settles the booking the
// dead process left: first with no request at all (settlement starts
// with the configuration, deletes the unconfirmed booking and records the
// outcome a resend then gets; a resend that comes while settlement runs
// waits for it and calls nothing), then with the resend coming first (it
// continues the exchange, unless settlement got there first). Either way the booking ends fulfilled or
// deleted, the reply says which, and there is one booking.
func TestJournalSettlesAfterSIGKILL(t *testing.T) {
	rig := newJournalRig(t, boltStore(t), "\t\t\tsettle_interval 200ms\n")
	front := rig.front()

	// Settled in the background.
	id := journalMsgID("b1")
	rig.killOnStep(front, id, converter.StepFulfillments)
	if _, r, err := rig.send(front, searchBooking(id)); err == nil {
		t.Fatalf("the front answered %+v; it should have died", r)
	}
	if b := rig.oneBooking(id); b.Status != "PREBOOKED" {
		t.Fatalf("after the kill the partner holds %+v, want it PREBOOKED", b)
	}
	// No request at all after the restart: settlement starts with the
	// configuration, and must delete the booking within settle_interval
	// plus the exchange's timeout (20s, the default). The tap holds the
	// answer to its DELETE until the resend is on its way, so that the
	// resend finds settlement under way: it must wait for settlement's
	// outcome, not call the partner itself. Waiting for the DELETE as the
	// tap recorded it (not for the partner's state, which changes before
	// the tap has recorded the call) keeps settlement's own calls out of
	// what the resend is charged with.
	deleting, answer := make(chan struct{}), make(chan struct{})
	var deleteOnce sync.Once
	rig.tap.mu.Lock()
	rig.tap.intercept = func(w http.ResponseWriter, r *http.Request, body []byte) bool {
		if r.Method != http.MethodDelete {
			return false
		}
		ex := rig.tap.forward(t, r, body)
		deleteOnce.Do(func() { close(deleting) })
		select {
		case <-answer:
		case <-time.After(10 * time.Second):
		}
		for k, v := range ex.RespHeader {
			w.Header()[k] = v
		}
		w.WriteHeader(ex.Status)
		_, _ = w.Write(ex.RespBody)
		return true
	}
	rig.tap.mu.Unlock()
	front = rig.front()
	restarted := time.Now()
	select {
	case <-deleting:
	case <-time.After(200*time.Millisecond + 20*time.Second):
		close(answer)
		t.Fatalf("the booking left by the dead front is still %s", rig.oneBooking(id).Status)
	}
	t.Logf("settlement deleted the booking %v after the restart, with no request", time.Since(restarted))
	b := rig.oneBooking(id)
	if b.Status != "DELETED" {
		close(answer)
		t.Fatalf("settled without a client, the booking is %s, want DELETED", b.Status)
	}
	settlement := rig.tap.take()
	resent := make(chan sent, 1)
	go func() {
		s, r, err := rig.send(front, searchBooking(id))
		resent <- sent{s, r, err}
	}()
	// Not a condition the test depends on: the resend must get the same
	// reply and make no call whether it arrives during settlement or after.
	time.Sleep(200 * time.Millisecond)
	close(answer)
	a := <-resent
	if a.err != nil {
		t.Fatal(a.err)
	}
	n := must[*legacy.NegativeReply](t, a.status, a.reply, legacy.CodeBookingRolledBack.HTTPStatus())
	if n.Code != legacy.CodeBookingRolledBack || n.BookingRef != b.ID || !n.Retryable {
		t.Fatalf("resend after settlement: %+v", n)
	}
	if exs := rig.tap.take(); len(exs) != 0 {
		t.Fatalf("the resend of an exchange under settlement made %d OSDM calls, e.g. %s %s (settlement made %d)", len(exs), exs[0].Method, exs[0].Path, len(settlement))
	}
	rig.tap.mu.Lock()
	rig.tap.intercept = nil
	rig.tap.mu.Unlock()

	// Continued by the resend.
	id = journalMsgID("b2")
	rig.killOnStep(front, id, converter.StepFulfillments)
	if _, r, err := rig.send(front, searchBooking(id)); err == nil {
		t.Fatalf("the front answered %+v; it should have died", r)
	}
	front = rig.front()
	rig.tap.take()
	status, r := rig.mustSend(front, searchBooking(id))
	b = rig.oneBooking(id)
	switch r := r.(type) {
	case *legacy.BookingReply:
		t.Logf("the resend continued the exchange")
		if r.BookingRef != b.ID || b.Status != "FULFILLED" || status != http.StatusOK {
			t.Fatalf("resend: %d %+v, partner %+v", status, r, b)
		}
	case *legacy.NegativeReply:
		// Settlement (started with the configuration) got there first.
		t.Logf("settlement got there before the resend")
		if r.Code != legacy.CodeBookingRolledBack || r.BookingRef != b.ID || b.Status != "DELETED" {
			t.Fatalf("resend: %+v, partner %+v", r, b)
		}
	default:
		t.Fatalf("resend: %T %+v", r, r)
	}
	exs := rig.tap.take()
	if n := callsOf(exs, id, converter.StepBooking); n != 0 {
		t.Errorf("the resend sent POST /bookings %d times; the booking id was known", n)
	}
	for _, ex := range exs {
		if ex.Path == "/offers" {
			t.Errorf("the resend searched again")
		}
	}
}

// TestJournalTwoFrontsOneRedis: a booking made through one
// front and resent to the other gets the same BookingRef; the partner
// holds one booking.
func TestJournalTwoFrontsOneRedis(t *testing.T) {
	rig := newJournalRig(t, redisStore(t), "")
	a, b := rig.front(), rig.front()
	id := journalMsgID("c")
	status, r := rig.mustSend(a, searchBooking(id))
	first := must[*legacy.BookingReply](t, status, r, http.StatusOK)
	rig.tap.take()
	status, r = rig.mustSend(b, searchBooking(id))
	if again := must[*legacy.BookingReply](t, status, r, http.StatusOK); again.BookingRef != first.BookingRef {
		t.Fatalf("the other front answered %s, the first %s", again.BookingRef, first.BookingRef)
	}
	if exs := rig.tap.take(); len(exs) != 0 {
		t.Fatalf("the resend to the other front made %d OSDM calls", len(exs))
	}
	if bk := rig.oneBooking(id); bk.ID != first.BookingRef {
		t.Fatalf("partner: %+v", bk)
	}
}

// TestJournalResendStormTwoFronts: while the first copy of
// a booking is still running (its fulfilment held up at the tap), 20
// copies are resent, spread over both fronts: all get the first copy's
// BookingReply, and the partner sees one POST /bookings and one booking.
func TestJournalResendStormTwoFronts(t *testing.T) {
	rig := newJournalRig(t, redisStore(t), "")
	fronts := []*journalProc{rig.front(), rig.front()}
	id := journalMsgID("d")
	key := converter.IdempotencyKey(journalPartner, id, converter.StepFulfillments)
	held := make(chan struct{})
	var once sync.Once
	rig.tap.mu.Lock()
	rig.tap.intercept = func(w http.ResponseWriter, r *http.Request, body []byte) bool {
		if r.Header.Get("Idempotency-Key") == key {
			once.Do(func() { close(held) })
			time.Sleep(1500 * time.Millisecond)
		}
		return false
	}
	rig.tap.mu.Unlock()

	answers := make(chan sent, 21)
	go func() {
		s, r, err := rig.send(fronts[0], searchBooking(id))
		answers <- sent{s, r, err}
	}()
	select {
	case <-held:
	case <-time.After(20 * time.Second):
		t.Fatal("the first copy never reached its fulfilment")
	}
	for i := range 20 {
		go func() {
			s, r, err := rig.send(fronts[i%2], searchBooking(id))
			answers <- sent{s, r, err}
		}()
	}
	ref := ""
	for range 21 {
		a := <-answers
		if a.err != nil {
			t.Fatal(a.err)
		}
		br := must[*legacy.BookingReply](t, a.status, a.reply, http.StatusOK)
		if ref == "" {
			ref = br.BookingRef
		}
		if br.BookingRef != ref {
			t.Fatalf("BookingRefs %s and %s for one message", ref, br.BookingRef)
		}
	}
	exs := rig.tap.take()
	if n := callsOf(exs, id, converter.StepBooking); n != 1 {
		t.Errorf("POST /bookings was sent %d times, want 1", n)
	}
	if n := callsOf(exs, id, converter.StepFulfillments); n != 1 {
		t.Errorf("the fulfilment was sent %d times, want 1", n)
	}
	searches := 0
	for _, ex := range exs {
		if ex.Path == "/offers" {
			searches++
		}
	}
	if searches != 1 {
		t.Errorf("%d searches for one message, want 1", searches)
	}
	if bk := rig.oneBooking(id); bk.ID != ref || bk.Status != "FULFILLED" {
		t.Fatalf("partner: %+v", bk)
	}
}

// TestJournalSettlesFrozenPartner: the partner stops answering after
// POST /bookings (fulfilment and the rollback's DELETE get 503s); the
// reply names the booking, which the journal keeps as unsettled. Once the
// partner answers again, settlement deletes it, and the resend gets
// BOOKING_ROLLED_BACK instead of "expires by itself".
func TestJournalSettlesFrozenPartner(t *testing.T) {
	rig := newJournalRig(t, boltStore(t), "\t\t\tsettle_interval 200ms\n")
	front := rig.front()
	id := journalMsgID("frozen")
	fulfil := converter.IdempotencyKey(journalPartner, id, converter.StepFulfillments)
	var frozen sync.Mutex
	isFrozen := true
	rig.tap.mu.Lock()
	rig.tap.intercept = func(w http.ResponseWriter, r *http.Request, _ []byte) bool {
		frozen.Lock()
		defer frozen.Unlock()
		if isFrozen && (r.Header.Get("Idempotency-Key") == fulfil || r.Method == http.MethodDelete || r.Method == http.MethodGet) {
			w.Header().Set("Content-Type", "application/problem+json")
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte(`{"code":"SERVICE_UNAVAILABLE","title":"frozen"}`))
			return true
		}
		return false
	}
	rig.tap.mu.Unlock()
	status, r := rig.mustSend(front, searchBooking(id))
	n := must[*legacy.NegativeReply](t, status, r, http.StatusBadGateway)
	b := rig.oneBooking(id)
	if n.BookingRef != b.ID || b.Status != "PREBOOKED" || !strings.Contains(n.Text, "could not delete it either") {
		t.Fatalf("frozen: reply %+v, partner %+v", n, b)
	}
	// Still frozen: settlement tries (GET answered 503) and the first
	// reply stands for a resend.
	time.Sleep(600 * time.Millisecond)
	status, r = rig.mustSend(front, searchBooking(id))
	if again := must[*legacy.NegativeReply](t, status, r, http.StatusBadGateway); again.Text != n.Text {
		t.Fatalf("resend while frozen: %+v", again)
	}
	frozen.Lock()
	isFrozen = false
	frozen.Unlock()
	rig.awaitDeleted(t, id, "the booking is still PREBOOKED after the partner came back")
	status, r = rig.mustSend(front, searchBooking(id))
	if final := must[*legacy.NegativeReply](t, status, r, legacy.CodeBookingRolledBack.HTTPStatus()); final.Code != legacy.CodeBookingRolledBack || final.BookingRef != b.ID {
		t.Fatalf("resend after settlement: %+v", final)
	}
}

// TestJournalBoltFileOneProcess: a second Caddy on the bolt file a running
// one holds does not start (bbolt locks the file; two processes on one
// file would each believe it alone runs a message): it fails after the
// store's wait, naming the file.
func TestJournalBoltFileOneProcess(t *testing.T) {
	rig := newJournalRig(t, boltStore(t), "")
	rig.front()
	_, err := harness.TryStartCaddy(t, t.TempDir(), "second front",
		journalCaddyfile("front", harness.FreePort(t), rig.store, "", fmt.Sprintf("127.0.0.1:%d", rig.tap.port())))
	path := strings.TrimPrefix(rig.store, "bolt ")
	if err == nil || !strings.Contains(err.Error(), "bolt file "+path+" is locked by another process") {
		t.Fatalf("second process on %s: %v", path, err)
	}
}

// sent is what a legacy message sent in the background got back.
type sent struct {
	status int
	reply  legacy.Reply
	err    error
}
