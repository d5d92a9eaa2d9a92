package integration

import (
	"context"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/converter"
)

// faultKind is one way a partner or a login service fails a call.
type faultKind string

// The faults of issue 7. Some act out a partner that never saw the call,
// others one that acted on it and whose answer was lost on the way back:
// the converter cannot tell them apart, the partner's state can.
const (
	// faultLatency: the answer comes only after the caller gave up (the
	// route's timeout); the partner acts on the call then.
	faultLatency faultKind = "latency"
	// faultReset: the connection is reset before the partner sees the call.
	faultReset faultKind = "reset"
	// fault5xx: a 503 problem+json; the partner did nothing.
	fault5xx faultKind = "5xx"
	// faultGarbage: the partner acted; its 2xx answer's body is not JSON.
	faultGarbage faultKind = "garbage"
	// faultTruncated: the partner acted; the connection is cut halfway
	// through the answer's body.
	faultTruncated faultKind = "truncated"
	// faultHang: no answer at all until the caller gives up; the partner
	// never sees the call.
	faultHang faultKind = "hang"
	// faultUnauthorized: a 401, as to an access token the partner no
	// longer takes; osdm_token logs in again and replays the call.
	faultUnauthorized faultKind = "401"
)

// allFaults is every fault kind, in table order.
var allFaults = []faultKind{faultLatency, faultReset, fault5xx, faultGarbage, faultTruncated, faultHang}

// acts reports whether the partner acts on a call failed this way.
func (k faultKind) acts() bool {
	return k == faultLatency || k == faultGarbage || k == faultTruncated
}

// slow reports whether the fault lasts until the caller's timeout.
func (k faultKind) slow() bool { return k == faultLatency || k == faultHang }

// stepLogin names a login service's token call in fault rules.
const stepLogin converter.Step = "login"

// faultRule fails the calls of one step.
type faultRule struct {
	step converter.Step
	kind faultKind
	// times is how many calls fail; 0 means all of them.
	times int
	// rate, when above 0, fails only that share of the calls, at random
	// (the soak test's partner that fails a few percent of calls).
	rate float64
}

// faultInjector fails chosen calls passing through a partnerTap.
type faultInjector struct {
	t   *testing.T
	tap *partnerTap

	// release ends the calls held by faultHang and faultLatency when the
	// test ends, should a caller never give up.
	release chan struct{}

	mu       sync.Mutex
	rules    []*faultRule
	injected []string
	// traces maps the W3C trace id of each failed call to its fault, so
	// that a legacy client that sent a traceparent learns whether its
	// exchange met one.
	traces map[string]faultKind
	// late counts the calls still being passed on after their caller gave
	// up (faultLatency), so a test can wait for the partner's state to
	// settle. Not a WaitGroup: its Add may come after a Wait started.
	late     int
	lateDone *sync.Cond
}

// injectFaults makes tap fail calls by the rules set with set.
func injectFaults(t *testing.T, tap *partnerTap) *faultInjector {
	inj := &faultInjector{t: t, tap: tap, release: make(chan struct{})}
	inj.lateDone = sync.NewCond(&inj.mu)
	tap.mu.Lock()
	tap.intercept = inj.intercept
	tap.mu.Unlock()
	t.Cleanup(func() {
		close(inj.release)
		inj.settle()
	})
	return inj
}

// set replaces the rules.
func (inj *faultInjector) set(rules ...faultRule) {
	inj.mu.Lock()
	defer inj.mu.Unlock()
	inj.rules = inj.rules[:0]
	for i := range rules {
		inj.rules = append(inj.rules, &rules[i])
	}
	inj.injected = nil
}

// clear removes every rule and waits for calls passed on late.
func (inj *faultInjector) clear() []string {
	inj.mu.Lock()
	inj.rules = nil
	done := inj.injected
	inj.injected = nil
	inj.mu.Unlock()
	inj.settle()
	return done
}

// settle waits until every call passed on late is done.
func (inj *faultInjector) settle() {
	inj.mu.Lock()
	for inj.late > 0 {
		inj.lateDone.Wait()
	}
	inj.mu.Unlock()
}

// lateCall counts a call passed on late; the func it returns ends it.
func (inj *faultInjector) lateCall() func() {
	inj.mu.Lock()
	inj.late++
	inj.mu.Unlock()
	return func() {
		inj.mu.Lock()
		inj.late--
		inj.lateDone.Broadcast()
		inj.mu.Unlock()
	}
}

// injectedFaults lists the faults injected since the rules were set.
func (inj *faultInjector) injectedFaults() []string {
	inj.mu.Lock()
	defer inj.mu.Unlock()
	return append([]string(nil), inj.injected...)
}

// match returns the fault for call r, if a rule takes it.
func (inj *faultInjector) match(r *http.Request) (faultKind, bool) {
	step := stepOfCall(r)
	inj.mu.Lock()
	defer inj.mu.Unlock()
	for _, rule := range inj.rules {
		if rule.step != step {
			continue
		}
		if rule.times < 0 || rule.rate > 0 && rand.Float64() >= rule.rate {
			continue
		}
		if rule.times > 0 {
			rule.times--
			if rule.times == 0 {
				rule.times = -1
			}
		}
		if rule.rate > 0 {
			// Many calls: keep the trace ids, not a list of every one.
			if tp := r.Header.Get("Traceparent"); len(tp) == 55 {
				if inj.traces == nil {
					inj.traces = map[string]faultKind{}
				}
				inj.traces[tp[3:35]] = rule.kind
			}
		} else {
			inj.injected = append(inj.injected, string(rule.kind)+" "+r.Method+" "+r.URL.Path)
		}
		return rule.kind, true
	}
	return "", false
}

// faultOfTrace returns the fault a call of trace id met, if any.
func (inj *faultInjector) faultOfTrace(traceID string) (faultKind, bool) {
	inj.mu.Lock()
	defer inj.mu.Unlock()
	k, ok := inj.traces[traceID]
	return k, ok
}

// stepOfCall names the OSDM step (or login call) of a request.
func stepOfCall(r *http.Request) converter.Step {
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	switch {
	case r.URL.Path == "/oauth/token":
		return stepLogin
	case r.URL.Path == "/offers":
		return converter.StepOffers
	case r.URL.Path == "/trip-offers":
		return converter.StepTripOffers
	case r.URL.Path == "/bookings":
		return converter.StepBooking
	case len(parts) == 2 && parts[0] == "bookings" && r.Method == http.MethodGet:
		return converter.StepReadBooking
	case len(parts) == 2 && parts[0] == "bookings" && r.Method == http.MethodDelete:
		return converter.StepDeleteBooking
	case len(parts) == 3 && parts[2] == "fulfillments":
		return converter.StepFulfillments
	case len(parts) == 3 && (parts[2] == "refund-offers" || parts[2] == "refundOffers"):
		return converter.StepRefundOffers
	case len(parts) == 4 && (parts[2] == "refund-offers" || parts[2] == "refundOffers") && r.Method == http.MethodDelete:
		return converter.StepDeleteRefundOffer
	case len(parts) == 4 && (parts[2] == "refund-offers" || parts[2] == "refundOffers"):
		return converter.StepRefundOffer
	case len(parts) == 3 && parts[2] == "exchange-offers":
		return converter.StepExchangeOffers
	case len(parts) == 3 && parts[2] == "exchange-operations":
		return converter.StepExchangeOperation
	case len(parts) == 4 && parts[2] == "exchange-operations" && r.Method == http.MethodGet:
		return converter.StepReadExchangeOperation
	case len(parts) == 4 && parts[2] == "exchange-operations" && r.Method == http.MethodDelete:
		return converter.StepDeleteExchangeOperation
	case len(parts) == 4 && parts[2] == "passengers":
		return converter.StepPassenger
	}
	return converter.Step("other " + r.Method + " " + r.URL.Path)
}

// garbageBody is what a broken partner or proxy answers instead of JSON.
var garbageBody = []byte("<html><body>\x00\xff upstream said: {{ not json")

// intercept is the tap's hook: it acts out the fault of a matching call.
func (inj *faultInjector) intercept(w http.ResponseWriter, r *http.Request, body []byte) bool {
	kind, ok := inj.match(r)
	if !ok {
		return false
	}
	if kind == faultLatency {
		// Counted before the caller can see the call fail.
		defer inj.lateCall()()
	}
	switch kind {
	case faultHang:
		select {
		case <-r.Context().Done():
		case <-inj.release:
		}
		// The caller is gone: drop the connection without an answer.
		abortConn(w)
	case faultLatency:
		select {
		case <-r.Context().Done():
		case <-inj.release:
		}
		// The partner gets the call only now, and acts on it; nobody
		// reads its answer.
		inj.tap.forward(inj.t, r.WithContext(context.WithoutCancel(r.Context())), body)
		abortConn(w)
	case faultReset:
		conn, _, err := http.NewResponseController(w).Hijack()
		if err == nil {
			if tc, ok := conn.(*net.TCPConn); ok {
				// SO_LINGER 0: close sends RST, not FIN.
				_ = tc.SetLinger(0)
			}
			conn.Close()
		}
	case faultUnauthorized:
		w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
		w.Header().Set("Content-Type", "application/problem+json")
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte(`{"type":"about:blank","title":"Unauthorized","status":401,"detail":"injected fault: access token revoked"}`))
	case fault5xx:
		w.Header().Set("Content-Type", "application/problem+json")
		w.Header().Set("Retry-After", "1")
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write([]byte(`{"type":"about:blank","title":"Service Unavailable","status":503,"detail":"injected fault: the partner's booking engine is down"}`))
	case faultGarbage:
		ex := inj.tap.forward(inj.t, r, body)
		status := ex.Status
		if status == http.StatusNoContent {
			// A 204 carries no body to spoil: say 200 instead.
			status = http.StatusOK
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write(garbageBody)
	case faultTruncated:
		ex := inj.tap.forward(inj.t, r, body)
		status, full := ex.Status, ex.RespBody
		if status == http.StatusNoContent || len(full) < 2 {
			status, full = http.StatusOK, []byte(`{"problems":[]}`)
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(full)))
		w.WriteHeader(status)
		_, _ = w.Write(full[:len(full)/2])
		_ = http.NewResponseController(w).Flush()
		abortConn(w)
	}
	return true
}

// abortConn closes the connection of w without (more of) an answer.
func abortConn(w http.ResponseWriter) {
	if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
		conn.Close()
		return
	}
	// Headers already sent: only a panic cuts the body short.
	panic(http.ErrAbortHandler)
}

// timeoutEdit shortens the osdm_convert timeout of Caddyfile.example's
// alpine route and gives coastal's the same, so that latency and hangs
// cost a fraction of a second.
func timeoutEdit(d time.Duration) func(string) string {
	return func(cf string) string {
		cf = strings.Replace(cf, "timeout 20s", "timeout "+d.String(), 1)
		return strings.Replace(cf, "offer_search trip-offers", "offer_search trip-offers\n\t\t\ttimeout "+d.String(), 1)
	}
}
