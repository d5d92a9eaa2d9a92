package integration

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/harness"
	"github.com/caddy-osdm/caddy-osdm/converter"
	"github.com/caddy-osdm/caddy-osdm/internal/osdmspec"
	"github.com/caddy-osdm/caddy-osdm/legacy"
)

// faultTimeout is osdm_convert's timeout in the fault tests: latency and
// hangs last this long, so it is short, yet long enough for the calls that
// work (a few milliseconds each) on a loaded CI machine under the race
// detector.
const faultTimeout = 1500 * time.Millisecond

// faultFixture is the example chain with a fault injector on each partner.
type faultFixture struct {
	c   *exampleChain
	inj map[string]*faultInjector
	tap map[string]*partnerTap
	n   int
	// train is the train of the case running: each case has its own, so
	// that the partner's 40 places per train never run out.
	train int
}

func newFaultFixture(t *testing.T) *faultFixture {
	warmSpec(t)
	c := startExampleChainWith(t, chainOptions{edit: timeoutEdit(faultTimeout)})
	return &faultFixture{
		c: c, train: 1000,
		inj: map[string]*faultInjector{"alpine": injectFaults(t, c.alpine), "coastal": injectFaults(t, c.coastal)},
		tap: map[string]*partnerTap{"alpine": c.alpine, "coastal": c.coastal},
	}
}

// warmSpec loads the OSDM specifications the taps check every exchange
// against, which takes seconds: done during a call, it would make the
// call miss a short timeout.
func warmSpec(t *testing.T) {
	for _, v := range []osdmspec.Version{osdmspec.V39} {
		osdmspec.SuccessStatuses(t, v, http.MethodPost, "/offers")
	}
}

// journey is a journey on the current case's train.
func (fx *faultFixture) journey() legacy.Journey { return journeyOn(strconv.Itoa(fx.train)) }

// id is a new messageId.
func (fx *faultFixture) id(what string) string {
	fx.n++
	return fmt.Sprintf("F%d-%s-%d", fx.n, what, time.Now().UnixNano()%1e9)
}

// states reads the partner's bookings: id -> status.
func (fx *faultFixture) states(t *testing.T, partner string) map[string]string {
	t.Helper()
	m := map[string]string{}
	for _, b := range fx.tap[partner].sandboxBookings(t) {
		m[b.ID] = b.Status
	}
	return m
}

// book makes a fulfilled booking at partner, without faults.
func (fx *faultFixture) book(t *testing.T, partner string) string {
	t.Helper()
	status, r := fx.c.send(t, partner, legacy.XML, &legacy.BookingRequest{
		Header: legacy.Header{MessageID: fx.id("setup")}, Journey: fx.journey(),
		Places: secondClassSeats(legacy.Tariff{Code: 1, Count: 1}),
	})
	return must[*legacy.BookingReply](t, status, r, http.StatusOK).BookingRef
}

// prebook makes a provisional booking at partner that a NegativeReply
// names: fulfilment and the rollback's DELETE both fail.
func (fx *faultFixture) prebook(t *testing.T, partner string) string {
	t.Helper()
	inj := fx.inj[partner]
	inj.set(faultRule{step: converter.StepFulfillments, kind: fault5xx}, faultRule{step: converter.StepDeleteBooking, kind: fault5xx})
	status, r := fx.c.send(t, partner, legacy.XML, &legacy.BookingRequest{
		Header: legacy.Header{MessageID: fx.id("prebook")}, Journey: fx.journey(),
		Places: secondClassSeats(legacy.Tariff{Code: 1, Count: 1}),
	})
	inj.clear()
	nr := must[*legacy.NegativeReply](t, status, r, http.StatusBadGateway)
	if nr.BookingRef == "" {
		t.Fatalf("setup: %+v names no booking", nr)
	}
	if st := fx.states(t, partner)[nr.BookingRef]; st != "PREBOOKED" {
		t.Fatalf("setup: booking %s is %q, want PREBOOKED", nr.BookingRef, st)
	}
	return nr.BookingRef
}

// try sends msg to partner like exampleChain.send, but a transport
// failure is returned, not fatal.
func (fx *faultFixture) try(t *testing.T, partner string, f legacy.Format, msg legacy.Message) (int, legacy.Reply, error) {
	t.Helper()
	a, err := harness.LegacyClient{URL: fx.c.legacyBase + partner, Format: f}.Try(msg)
	if errors.Is(err, harness.ErrNotAReply) {
		t.Fatal(err)
	}
	return a.Status, a.Reply, err
}

// faultScenario is a legacy message kind that calls the partner, with the
// OSDM steps it makes.
type faultScenario struct {
	kind    string
	partner string
	steps   []converter.Step
	// prepare makes the booking (or finds the offer) the message is
	// about, without faults.
	prepare func(t *testing.T, fx *faultFixture) string
	// send sends the message about target, what prepare returned.
	send func(t *testing.T, fx *faultFixture, target string) (int, legacy.Reply, error)
	// cancels: the message is a CancelRequest of target.
	cancels bool
}

func faultScenarios() []faultScenario {
	seats := secondClassSeats(legacy.Tariff{Code: 1, Count: 1})
	availability := func(partner string) func(t *testing.T, fx *faultFixture, _ string) (int, legacy.Reply, error) {
		return func(t *testing.T, fx *faultFixture, _ string) (int, legacy.Reply, error) {
			return fx.try(t, partner, legacy.JSON, &legacy.AvailabilityRequest{
				Header: legacy.Header{MessageID: fx.id("avail")}, Journey: fx.journey(), Places: seats})
		}
	}
	cancel := func(reason *int) func(t *testing.T, fx *faultFixture, target string) (int, legacy.Reply, error) {
		return func(t *testing.T, fx *faultFixture, target string) (int, legacy.Reply, error) {
			return fx.try(t, "alpine", legacy.XML, &legacy.CancelRequest{
				Header: legacy.Header{MessageID: fx.id("cancel")}, BookingRef: target, ReasonCode: reason})
		}
	}
	one := 1
	return []faultScenario{
		{kind: "availability", partner: "alpine", steps: []converter.Step{converter.StepOffers}, send: availability("alpine")},
		{kind: "availability trip-offers", partner: "coastal", steps: []converter.Step{converter.StepTripOffers}, send: availability("coastal")},
		{
			kind: "booking with OfferRef", partner: "alpine",
			steps: []converter.Step{converter.StepBooking, converter.StepFulfillments, converter.StepDeleteBooking},
			prepare: func(t *testing.T, fx *faultFixture) string {
				status, r := fx.c.send(t, "alpine", legacy.JSON, &legacy.AvailabilityRequest{
					Header: legacy.Header{MessageID: fx.id("offer")}, Journey: fx.journey(), Places: seats})
				return must[*legacy.AvailabilityReply](t, status, r, http.StatusOK).Offers[0].OfferRef
			},
			send: func(t *testing.T, fx *faultFixture, offerRef string) (int, legacy.Reply, error) {
				return fx.try(t, "alpine", legacy.JSON, &legacy.BookingRequest{
					Header: legacy.Header{MessageID: fx.id("bookref")}, Journey: fx.journey(), Places: seats,
					OfferRef: offerRef})
			},
		},
		{
			kind: "booking without OfferRef", partner: "alpine",
			steps: []converter.Step{converter.StepOffers, converter.StepBooking, converter.StepFulfillments, converter.StepDeleteBooking},
			send: func(t *testing.T, fx *faultFixture, _ string) (int, legacy.Reply, error) {
				return fx.try(t, "alpine", legacy.XML, &legacy.BookingRequest{
					Header: legacy.Header{MessageID: fx.id("book")}, Journey: fx.journey(), Places: seats})
			},
		},
		{
			kind: "cancel with reason", partner: "alpine",
			steps:   []converter.Step{converter.StepReadBooking, converter.StepRefundOffers, converter.StepRefundOffer},
			prepare: func(t *testing.T, fx *faultFixture) string { return fx.book(t, "alpine") },
			send:    cancel(&one), cancels: true,
		},
		{
			kind: "cancel without reason", partner: "alpine",
			steps:   []converter.Step{converter.StepReadBooking, converter.StepRefundOffers, converter.StepRefundOffer},
			prepare: func(t *testing.T, fx *faultFixture) string { return fx.book(t, "alpine") },
			send:    cancel(nil), cancels: true,
		},
		{
			kind: "cancel of an unconfirmed booking", partner: "alpine",
			steps:   []converter.Step{converter.StepReadBooking, converter.StepDeleteBooking},
			prepare: func(t *testing.T, fx *faultFixture) string { return fx.prebook(t, "alpine") },
			send:    cancel(nil), cancels: true,
		},
	}
}

// faultOutcome is what a legacy exchange under a fault left behind.
type faultOutcome struct {
	status        int
	reply         legacy.Reply
	target        string            // what prepare returned: a booking, or an offer
	before, after map[string]string // partner bookings: id -> status
	fresh         []string          // bookings made during the exchange
	injected      []string
	// unnamedOK: a provisional booking the reply cannot name is expected.
	unnamedOK bool
}

// named is the booking the reply names, "" for none.
func (o *faultOutcome) named() string {
	switch r := o.reply.(type) {
	case *legacy.BookingReply:
		return r.BookingRef
	case *legacy.CancelReply:
		return r.BookingRef
	case *legacy.NegativeReply:
		return r.BookingRef
	}
	return ""
}

// faultFull runs every slow case (OSDM_FAULT_FULL=1, about 2.5 minutes):
// each hang and latency at every step of every message kind, failing once
// and every time. By default the slow faults run where they show
// something the fast ones do not: once at each step, in one message kind
// per step, and every time at POST /bookings (the fallback when asking
// again does not help either); a slow case costs the route's timeout, and
// one that fails every time at a state-changing step also the converter's
// 5 s RollbackGrace.
var faultFull = os.Getenv("OSDM_FAULT_FULL") != ""

// faultCase is one case of the matrix: a step of a message kind failed
// one way, once (times 1) or every time (times 0).
type faultCase struct {
	sc    faultScenario
	step  converter.Step
	kind  faultKind
	times int
}

func (c faultCase) name() string {
	once := ""
	if c.times == 1 {
		once = "/once"
	}
	return fmt.Sprintf("%s/%s%s/%s", c.sc.kind, c.step, once, c.kind)
}

// readOnly reports a step whose late arrival changes nothing.
func readOnly(step converter.Step) bool {
	return step == converter.StepOffers || step == converter.StepTripOffers || step == converter.StepReadBooking
}

// faultCases is the matrix. Every fast fault fails every step of every
// message kind every time, and POST /bookings and the fulfilment also
// once (a safe retry). Every slow fault fails every step at least once,
// in the first message kind that has the step.
func faultCases() []faultCase {
	var cases []faultCase
	seen := map[string]bool{} // step (and whether a cancel makes it) -> slow cases added
	for _, sc := range faultScenarios() {
		for _, step := range sc.steps {
			use := fmt.Sprint(step, sc.cancels)
			first := !seen[use]
			seen[use] = true
			for _, kind := range allFaults {
				switch {
				case !kind.slow():
					cases = append(cases, faultCase{sc, step, kind, 0})
					if step == converter.StepFulfillments || step == converter.StepBooking {
						cases = append(cases, faultCase{sc, step, kind, 1})
					}
				case faultFull:
					cases = append(cases, faultCase{sc, step, kind, 0})
					if !readOnly(step) {
						cases = append(cases, faultCase{sc, step, kind, 1})
					}
				case !first:
				case readOnly(step):
					// Late or never, a read changes nothing: a hang shows it.
					if kind == faultHang {
						cases = append(cases, faultCase{sc, step, kind, 0})
					}
				case step == converter.StepDeleteBooking && !sc.cancels:
					// The rollback's DELETE runs within the 5 s grace
					// already: a slow one costs that; see OSDM_FAULT_FULL.
				default:
					cases = append(cases, faultCase{sc, step, kind, 1})
					if step == converter.StepBooking && kind == faultHang {
						cases = append(cases, faultCase{sc, step, kind, 0})
					}
				}
			}
		}
	}
	return cases
}

// TestFaultEveryStepOfEveryMessageKind fails each OSDM step of each legacy
// message kind that calls the partner in each way of issue 7 (latency
// beyond the route's timeout, connection reset, 5xx problem, garbage body,
// truncated body, hang) and checks the legacy reply and the partner's
// bookings: the right NegativeReply or a success after a safe retry, no
// provisional booking the reply does not name, no second booking, no
// refund confirmed without being reported.
func TestFaultEveryStepOfEveryMessageKind(t *testing.T) {
	fx := newFaultFixture(t)
	for _, c := range faultCases() {
		t.Run(c.name(), func(t *testing.T) {
			runFaultCase(t, fx, c.sc, c.step, c.kind, c.times)
		})
	}
}

func runFaultCase(t *testing.T, fx *faultFixture, sc faultScenario, step converter.Step, kind faultKind, times int) {
	inj := fx.inj[sc.partner]
	o := &faultOutcome{}
	fx.train++
	if sc.prepare != nil {
		o.target = sc.prepare(t, fx)
	}
	o.before = fx.states(t, sc.partner)
	rules := []faultRule{{step: step, kind: kind, times: times}}
	if step == converter.StepDeleteBooking && !sc.cancels {
		// The DELETE of a booking is the rollback of a failed fulfilment.
		rules = append(rules, faultRule{step: converter.StepFulfillments, kind: fault5xx})
	}
	inj.set(rules...)
	defer inj.clear()
	var err error
	o.status, o.reply, err = sc.send(t, fx, o.target)
	o.injected = inj.clear()
	o.after = fx.states(t, sc.partner)
	for id := range o.after {
		if _, ok := o.before[id]; !ok {
			o.fresh = append(o.fresh, id)
		}
	}
	slices.Sort(o.fresh)
	if !slices.ContainsFunc(o.injected, func(s string) bool { return strings.HasPrefix(s, string(kind)+" ") }) {
		t.Fatalf("no %s fault was injected (the case proves nothing); injected: %v", kind, o.injected)
	}
	// A partner that keeps failing POST /bookings after acting on it
	// leaves a provisional booking nobody can name: the reply says so,
	// and the booking expires unconfirmed.
	o.unnamedOK = step == converter.StepBooking && times == 0 && kind.acts()
	checkFaultInvariants(t, o)
	if err != nil {
		// No reply at all: the legacy side cannot even tell the booking.
		t.Errorf("the legacy client got no reply: %v", err)
	} else {
		expectFault(t, sc, step, kind, times, o)
	}
	if t.Failed() {
		t.Logf("injected %v\nreply %d %+v\nbefore %v\nafter %v", o.injected, o.status, o.reply, o.before, o.after)
	}
	t.Log(o.summary())
}

// summary is the outcome in one line, for go test -v: the reply and the
// partner's state of the bookings it concerns.
func (o *faultOutcome) summary() string {
	reply := fmt.Sprintf("%T", o.reply)
	if nr, ok := o.reply.(*legacy.NegativeReply); ok {
		reply = fmt.Sprintf("NegativeReply %s retryable=%v", nr.Code, nr.Retryable)
	}
	reply = strings.TrimPrefix(reply, "*legacy.")
	var states []string
	for _, id := range append([]string{o.named()}, o.fresh...) {
		if id != "" && !slices.Contains(states, id+" "+o.after[id]) {
			named := ""
			if id == o.named() {
				named = " (named)"
			}
			states = append(states, id+" "+o.after[id]+named)
		}
	}
	return fmt.Sprintf("outcome: %s; partner: %s", reply, strings.Join(states, ", "))
}

// checkFaultInvariants holds for every case: at most one booking made per
// message, every booking made either named by the reply or not live, and
// no other booking touched.
func checkFaultInvariants(t *testing.T, o *faultOutcome) {
	t.Helper()
	if len(o.fresh) > 1 {
		t.Errorf("one legacy message made %d bookings at the partner: %v", len(o.fresh), o.fresh)
	}
	for _, id := range o.fresh {
		if o.unnamedOK && o.after[id] == "PREBOOKED" {
			nr, ok := o.reply.(*legacy.NegativeReply)
			if o.reply != nil && (!ok || !strings.Contains(nr.Text, "provisional booking is not known")) {
				t.Errorf("the partner holds provisional booking %s and the reply does not warn of it: %+v", id, o.reply)
			}
			continue
		}
		if live(o.after[id]) && id != o.named() {
			t.Errorf("the partner holds %s booking %s that the reply (%T, BookingRef %q) does not name",
				o.after[id], id, o.reply, o.named())
		}
	}
	for id, st := range o.before {
		if id != o.target && o.after[id] != st {
			t.Errorf("booking %s, not part of this message, went from %s to %q", id, st, o.after[id])
		}
	}
	if nr, ok := o.reply.(*legacy.NegativeReply); ok {
		if o.status != nr.Code.HTTPStatus() {
			t.Errorf("NegativeReply %s answered with HTTP %d, want %d", nr.Code, o.status, nr.Code.HTTPStatus())
		}
		if nr.Text == "" {
			t.Error("NegativeReply without a text")
		}
	}
}

// live reports a booking state that holds places.
func live(status string) bool { return status == "PREBOOKED" || status == "FULFILLED" }

// faultCode is the NegativeReply code of a call that failed this way.
func faultCode(kind faultKind) legacy.Code {
	if kind.slow() {
		return legacy.CodePartnerTimeout
	}
	return legacy.CodePartnerUnavailable
}

// negative checks that the reply is a NegativeReply with code, naming ref
// ("" for none), with the given Retryable.
func negative(t *testing.T, o *faultOutcome, code legacy.Code, ref string, retryable bool) *legacy.NegativeReply {
	t.Helper()
	nr, ok := o.reply.(*legacy.NegativeReply)
	if !ok {
		t.Errorf("reply %d %T %+v, want NegativeReply %s", o.status, o.reply, o.reply, code)
		return nil
	}
	if nr.Code != code || nr.BookingRef != ref || nr.Retryable != retryable {
		t.Errorf("NegativeReply %s BookingRef %q Retryable %v (%s), want %s %q %v",
			nr.Code, nr.BookingRef, nr.Retryable, nr.Text, code, ref, retryable)
	}
	return nr
}

// state checks the partner's status of booking id.
func state(t *testing.T, o *faultOutcome, id string, want ...string) {
	t.Helper()
	if !slices.Contains(want, o.after[id]) {
		t.Errorf("booking %s is %q at the partner, want %s", id, o.after[id], strings.Join(want, " or "))
	}
}

// expectFault checks the reply and the partner's state for one case.
func expectFault(t *testing.T, sc faultScenario, step converter.Step, kind faultKind, times int, o *faultOutcome) {
	t.Helper()
	code := faultCode(kind)
	fresh := ""
	if len(o.fresh) == 1 {
		fresh = o.fresh[0]
	}
	switch step {
	case converter.StepOffers, converter.StepTripOffers:
		negative(t, o, code, "", true)
		if len(o.fresh) > 0 {
			t.Errorf("a failed search booked %v", o.fresh)
		}

	case converter.StepBooking:
		if times == 1 && fresh != "" && o.named() == fresh {
			// Asked again with the same key, the partner gave the
			// booking: fulfilled, or rolled back and named.
			switch r := o.reply.(type) {
			case *legacy.BookingReply:
				state(t, o, fresh, "FULFILLED")
			case *legacy.NegativeReply:
				if r.Code == legacy.CodeBookingRolledBack {
					state(t, o, fresh, "DELETED")
				} else {
					state(t, o, fresh, "PREBOOKED")
				}
			}
			return
		}
		negative(t, o, code, "", true)
		if !kind.acts() && len(o.fresh) > 0 {
			t.Errorf("the partner never saw POST /bookings, yet holds %v", o.fresh)
		}

	case converter.StepFulfillments:
		if fresh == "" {
			t.Fatalf("no booking was made; reply %+v", o.reply)
		}
		switch {
		case times == 1:
			// Retried once with the same Idempotency-Key: booked, once.
			br := must[*legacy.BookingReply](t, o.status, o.reply, http.StatusOK)
			if br.BookingRef != fresh || br.Status != legacy.StatusFulfilled {
				t.Errorf("BookingReply %+v, want booking %s FULFILLED", br, fresh)
			}
			state(t, o, fresh, "FULFILLED")
		case kind == faultLatency:
			// The late fulfilment and the rollback race: either the
			// DELETE came first, or the booking is confirmed and the
			// reply, naming it, says not to book again.
			if o.after[fresh] == "FULFILLED" {
				negative(t, o, legacy.CodePartnerTimeout, fresh, false)
			} else {
				negative(t, o, legacy.CodeBookingRolledBack, fresh, true)
				state(t, o, fresh, "DELETED")
			}
		case kind.acts():
			// Fulfilled at the partner twice over (same key), answers
			// unreadable both times; the DELETE is refused, so the reply
			// names the booking and is not retryable.
			nr := negative(t, o, legacy.CodePartnerUnavailable, fresh, false)
			state(t, o, fresh, "FULFILLED")
			if nr != nil && !strings.Contains(nr.Text, "CancelRequest") {
				t.Errorf("the reply does not say how to cancel the booking: %s", nr.Text)
			}
		default:
			negative(t, o, legacy.CodeBookingRolledBack, fresh, true)
			state(t, o, fresh, "DELETED")
		}

	case converter.StepDeleteBooking:
		if !sc.cancels {
			// The rollback of a booking whose fulfilment failed (503).
			if fresh == "" {
				t.Fatalf("no booking was made; reply %+v", o.reply)
			}
			switch kind {
			case faultGarbage:
				negative(t, o, legacy.CodeBookingRolledBack, fresh, true)
				state(t, o, fresh, "DELETED")
			case faultTruncated, faultLatency:
				state(t, o, fresh, "DELETED")
				if nr, ok := o.reply.(*legacy.NegativeReply); !ok || nr.BookingRef != fresh || !nr.Retryable ||
					(nr.Code != legacy.CodeBookingRolledBack && nr.Code != legacy.CodePartnerUnavailable) {
					t.Errorf("reply %+v, want a retryable NegativeReply naming %s", o.reply, fresh)
				}
			default:
				nr := negative(t, o, legacy.CodePartnerUnavailable, fresh, true)
				state(t, o, fresh, "PREBOOKED")
				if nr != nil && !strings.Contains(nr.Text, "could not delete") {
					t.Errorf("the reply does not say the booking may still exist: %s", nr.Text)
				}
			}
			return
		}
		// A CancelRequest of a booking never confirmed: deleted and said
		// so, or a retryable NegativeReply naming it, deleted only if the
		// partner acted on the failed DELETE.
		switch r := o.reply.(type) {
		case *legacy.CancelReply:
			if r.Status != legacy.StatusCancelled || r.BookingRef != o.target {
				t.Errorf("CancelReply %+v", r)
			}
			state(t, o, o.target, "DELETED")
		default:
			if kind == faultGarbage {
				// The body of a DELETE's answer is not read.
				t.Errorf("reply %+v, want CancelReply CANCELLED", o.reply)
			}
			negative(t, o, code, o.target, true)
			if kind.acts() {
				state(t, o, o.target, "DELETED")
			} else {
				state(t, o, o.target, "PREBOOKED")
			}
		}

	case converter.StepReadBooking, converter.StepRefundOffers, converter.StepRefundOffer:
		if o.after[o.target] != "REFUNDED" {
			negative(t, o, code, o.target, true)
			state(t, o, o.target, o.before[o.target])
			return
		}
		// The partner confirmed the refund: the reply must say so, or at
		// least not say the opposite.
		switch r := o.reply.(type) {
		case *legacy.CancelReply:
			if r.Status != legacy.StatusRefunded || r.BookingRef != o.target {
				t.Errorf("CancelReply %+v, want REFUNDED %s", r, o.target)
			}
		case *legacy.NegativeReply:
			if strings.Contains(r.Text, "not refunded") {
				t.Errorf("the partner refunded booking %s but the reply says %q", o.target, r.Text)
			}
		default:
			t.Errorf("reply %T %+v to a refunded booking", r, r)
		}
	}
}
