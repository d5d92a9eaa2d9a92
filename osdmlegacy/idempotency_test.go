package osdmlegacy

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/internal/osdmspec"
	"github.com/caddy-osdm/caddy-osdm/legacysandbox"
	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// TestIdempotencyKeyOnEveryStateChange: on each state-changing call, the
// same key with the same request gets the same answer (marked replayed)
// and sends nothing; the same key with another body is refused.
func TestIdempotencyKeyOnEveryStateChange(t *testing.T) {
	e := newBookEnv(t, memKind, nil)
	key := func(n int) callOpt { return withKey(fmt.Sprintf("00000000-0000-4000-8000-%012d", n)) }
	o := e.offer("9203")
	b := e.book(o, key(1))
	path := "/bookings/" + b.ID
	other := e.offer("9204")
	fu := decodeOK[osdm.FulfillmentCollectionResponse](t, e.call(e.f, "POST", path+"/fulfillments", "{}", key(2)), 200).Fulfillments[0]
	ro := decodeOK[osdm.RefundOfferCollectionResponse](t, e.call(e.f, "POST", path+"/refund-offers", map[string]any{"fulfillmentIds": []string{fu.ID}}, key(3)), 200).RefundOffers[0]
	e.call(e.f, "PATCH", path+"/refund-offers/"+ro.ID, `{"status":"CONFIRMED"}`, key(4))
	b2 := e.book(other)
	e.call(e.f, "PATCH", "/bookings/"+b2.ID+"/passengers/p1", `{"detail":{"firstName":"A","lastName":"B"}}`, key(5))
	if a := e.call(e.f, "DELETE", "/bookings/"+b2.ID, nil, key(6)); a.Status != 204 {
		t.Fatalf("DELETE: %d %s", a.Status, a.Body)
	}
	calls := []struct {
		name, method, path string
		body, otherBody    any
		key                int
		status             int
	}{
		{"POST /bookings", "POST", "/bookings", bookingBodyOf(o), bookingBodyOf(other), 1, 200},
		{"POST fulfillments", "POST", path + "/fulfillments", "{}", `{"issuingLanguage":"fr"}`, 2, 200},
		{"POST refund-offers", "POST", path + "/refund-offers", map[string]any{"fulfillmentIds": []string{fu.ID}}, map[string]any{"fulfillmentIds": []string{fu.ID}, "overruleCode": "STRIKE"}, 3, 200},
		{"PATCH refund-offer", "PATCH", path + "/refund-offers/" + ro.ID, `{"status":"CONFIRMED"}`, `{"status": "CONFIRMED"}`, 4, 200},
		{"PATCH passenger", "PATCH", "/bookings/" + b2.ID + "/passengers/p1", `{"detail":{"firstName":"A","lastName":"B"}}`, `{"detail":{"firstName":"C","lastName":"D"}}`, 5, 200},
		{"DELETE", "DELETE", "/bookings/" + b2.ID, nil, "{}", 6, 204},
	}
	sent := e.legacy.attempts()
	for _, c := range calls {
		t.Run(c.name, func(t *testing.T) {
			first := e.call(e.f, c.method, c.path, c.body, key(c.key))
			if first.Status != c.status || first.Header.Get(headerReplayed) != "true" {
				t.Errorf("repeat: %d %v %s", first.Status, first.Header, first.Body)
			}
			again := e.call(e.f, c.method, c.path, c.body, key(c.key))
			if !bytes.Equal(first.Body, again.Body) {
				t.Errorf("two repeats answered differently:\n%s\n%s", first.Body, again.Body)
			}
			a := e.call(e.f, c.method, c.path, c.otherBody, key(c.key))
			if p := decodeProblem(t, a); a.Status != 422 || p.Code != osdm.CodeIdempotencyKeyReused {
				t.Errorf("same key, another body: %d %+v", a.Status, p)
			}
		})
	}
	if n := e.legacy.attempts(); n != sent {
		t.Errorf("repeats sent %d legacy messages", n-sent)
	}
	// A key used on another path is another request too.
	a := e.call(e.f, "POST", "/bookings/"+b2.ID+"/fulfillments", "{}", key(2))
	if a.Status != 422 {
		t.Errorf("key of another booking's call: %d", a.Status)
	}
	if a := e.call(e.f, "POST", "/bookings", bookingBodyOf(o), withKey("not-a-uuid")); a.Status != 400 {
		t.Errorf("malformed key: %d", a.Status)
	}
	e.assertAgree(true)
}

// TestConcurrentSameKey: two POST /bookings with the same key at once:
// one books, the other is told it is under way or gets the replay; the
// legacy system gets one BookingRequest.
func TestConcurrentSameKey(t *testing.T) {
	e := newBookEnv(t, memKind, nil)
	sb, err := legacysandbox.New(legacysandbox.Config{Now: e.clock.Now, Latency: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	e.sb, e.legacy.sb = sb, sb
	o := e.offer("9203")
	var wg sync.WaitGroup
	answers := make([]*Answer, 4)
	for i := range answers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h := http.Header{"Content-Type": {"application/json"}, "Idempotency-Key": {"7b0c1f5e-2d3a-4c8b-9e6f-a1b2c3d4e5f6"}}
			answers[i] = e.f.serve(t.Context(), e.legacy, "POST", "/bookings", h, osdmspec.Marshal(t, bookingBodyOf(o)))
		}()
	}
	wg.Wait()
	ok := 0
	for _, a := range answers {
		switch a.Status {
		case 200:
			ok++
		case 409:
		default:
			t.Errorf("answer %d %s", a.Status, a.Body)
		}
	}
	if ok == 0 || e.legacy.attempts() != 1 || e.heldCount() != 1 {
		t.Errorf("%d answers 200, %d legacy messages, %d legacy bookings", ok, e.legacy.attempts(), e.heldCount())
	}
	e.assertAgree(true)
}

// TestExchangeUnderWayIsNotAFinalAnswer: a refund asked for while an
// exchange operation of the booking holds new places is refused with a
// 409 that says to delete the exchange first. Deleted, the same request
// with the same Idempotency-Key gets past: the refusal was not stored as
// the key's answer.
func TestExchangeUnderWayIsNotAFinalAnswer(t *testing.T) {
	e := newBookEnv(t, memKind, nil)
	id, fu := e.fulfilled(e.offer("9203", adult, child))
	op := e.exchangeOn(e.f, id, "708")
	key := withKey(newTestUUID())
	body := map[string]any{"fulfillmentIds": []string{fu}}
	a := e.call(e.f, "POST", "/bookings/"+id+"/refund-offers", body, key)
	if p := decodeProblem(t, a); a.Status != http.StatusConflict || !strings.Contains(p.Detail, "delete it first") {
		t.Fatalf("refund during the exchange: %d %+v", a.Status, p)
	}
	if a := e.call(e.f, "DELETE", "/bookings/"+id+"/exchange-operations/"+op.ID, nil); a.Status != http.StatusNoContent {
		t.Fatalf("DELETE of the exchange: %d %s", a.Status, a.Body)
	}
	if a := e.call(e.f, "POST", "/bookings/"+id+"/refund-offers", body, key); a.Status != http.StatusOK {
		t.Fatalf("the same refund request once the exchange is deleted: %d %s", a.Status, a.Body)
	}
}

// TestIdempotencyKeyGivenTwiceRefused: two Idempotency-Key headers (two
// keys, or one a proxy repeated) leave which request this is a guess; the
// call is refused before any legacy message, and the offer stays
// bookable.
func TestIdempotencyKeyGivenTwiceRefused(t *testing.T) {
	e := newBookEnv(t, memKind, nil)
	o := e.offer("9203")
	for _, keys := range [][]string{
		{"6f1c1a8e-1d2b-4c3d-9e4f-5a6b7c8d9e0f", "7f1c1a8e-1d2b-4c3d-9e4f-5a6b7c8d9e0f"},
		{"6f1c1a8e-1d2b-4c3d-9e4f-5a6b7c8d9e0f", "6f1c1a8e-1d2b-4c3d-9e4f-5a6b7c8d9e0f"},
	} {
		a := e.call(e.f, "POST", "/bookings", bookingBodyOf(o), func(h http.Header) { h[osdm.HeaderIdempotencyKey] = keys })
		if p := decodeProblem(t, a); a.Status != 400 || p.Code != osdm.CodeInvalidRequest || p.Detail != "the Idempotency-Key header is given 2 times; send one key" {
			t.Errorf("%d %+v", a.Status, p)
		}
	}
	if n := len(e.legacy.delivered()); n != 0 {
		t.Fatalf("%d legacy messages sent for refused calls", n)
	}
	e.book(o)
}
