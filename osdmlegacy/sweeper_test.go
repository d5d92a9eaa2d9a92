package osdmlegacy

import (
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/osdm"
	"github.com/caddy-osdm/caddy-osdm/store"
)

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestSweeperReleasesExpiredHolds: a PREBOOKED booking not fulfilled
// within hold is released with a CancelRequest; one fulfilled in time is
// left alone; a fulfilment after the hold is refused.
func TestSweeperReleasesExpiredHolds(t *testing.T) {
	e := newBookEnv(t, memKind, func(c *Config) { c.Hold = 10 * time.Minute })
	late := e.book(e.offer("9203"))
	kept := e.book(e.offer("9204"))
	decodeOK[osdm.FulfillmentCollectionResponse](t, e.call(e.f, "POST", "/bookings/"+kept.ID+"/fulfillments", nil), 200)
	e.clock.Advance(9 * time.Minute)
	if rep, _ := e.f.Settle(t.Context()); rep.Released != 0 {
		t.Errorf("released before the hold ran out: %+v", rep)
	}
	e.clock.Advance(time.Minute)
	if a := e.call(e.f, "POST", "/bookings/"+late.ID+"/fulfillments", nil); a.Status != 409 {
		t.Errorf("fulfilment after the hold: %d %s", a.Status, a.Body)
	} else if p := decodeProblem(t, a); p.Code != osdm.CodeBookingExpired {
		t.Errorf("fulfilment after the hold: %+v", p)
	}
	rep, err := e.f.Settle(t.Context())
	if err != nil || rep.Released != 1 {
		t.Errorf("sweep: %+v %v", rep, err)
	}
	recs := e.records()
	if recs[late.ID].State != stateReleased || recs[kept.ID].State != stateFulfilled {
		t.Errorf("states %s %s", recs[late.ID].State, recs[kept.ID].State)
	}
	gb := decodeOK[osdm.BookingResponse](t, e.call(e.f, "GET", "/bookings/"+late.ID, nil), 200)
	if gb.Booking.BookedOffers[0].Reservations[0].Status != osdm.BookingPartReleased {
		t.Errorf("released booking reads %s", gb.Booking.BookedOffers[0].Reservations[0].Status)
	}
	if e.heldCount() != 1 {
		t.Errorf("legacy holds %d, want the fulfilled one", e.heldCount())
	}
	// The work list is empty now.
	marks, _ := e.f.settlement.listMarks(t.Context(), kindHold)
	if len(marks) != 0 {
		t.Errorf("hold marks left: %v", marks)
	}
	e.assertAgree(true)
}

// TestSweeperSurvivesRestart: the hold's state is in the bolt file; a new
// façade on the reopened file (a restart) releases the booking.
func TestSweeperSurvivesRestart(t *testing.T) {
	e := newBookEnv(t, memKind, nil)
	path := filepath.Join(t.TempDir(), "restart.db")
	st, err := store.OpenBolt(path, store.WithClock(e.clock.Now))
	if err != nil {
		t.Fatal(err)
	}
	e.st = st
	e.f = e.facade(st)
	b := e.book(e.offer("9203"))
	st.Close()

	e.clock.Advance(defaultHold + time.Second)
	st2, err := store.OpenBolt(path, store.WithClock(e.clock.Now))
	if err != nil {
		t.Fatal(err)
	}
	defer st2.Close()
	e.st = st2
	f2 := e.facade(st2)
	rep, err := f2.Settle(t.Context())
	if err != nil || rep.Released != 1 {
		t.Fatalf("settlement after restart: %+v %v", rep, err)
	}
	if r := e.records()[b.ID]; r.State != stateReleased {
		t.Errorf("after restart: %s", r.State)
	}
	e.assertAgree(true)
}

// TestTwoInstancesOneStore: a booking made on one instance is fulfilled
// and refunded on another: everything is in the store (memory shared;
// Redis when OSDM_TEST_REDIS is set: two connections, one prefix).
func TestTwoInstancesOneStore(t *testing.T) {
	for _, kind := range []storeKind{memKind, redisKind} {
		t.Run(string(kind), func(t *testing.T) {
			e := newBookEnv(t, kind, nil)
			second := e.st
			if kind == redisKind {
				second = openRedisStore(t, e.redisPrefix)
			}
			a, b := e.f, e.facade(second)
			bk := e.book(e.offer("9203"))
			path := "/bookings/" + bk.ID
			fu := decodeOK[osdm.FulfillmentCollectionResponse](t, e.call(b, "POST", path+"/fulfillments", nil), 200).Fulfillments[0]
			ro := decodeOK[osdm.RefundOfferCollectionResponse](t, e.call(b, "POST", path+"/refund-offers", map[string]any{"fulfillmentIds": []string{fu.ID}}), 200).RefundOffers[0]
			cr := decodeOK[osdm.RefundOfferResponse](t, e.call(b, "PATCH", path+"/refund-offers/"+ro.ID, `{"status":"CONFIRMED"}`), 200)
			if cr.RefundOffer.Status != osdm.RefundConfirmed {
				t.Errorf("refund on the second instance: %+v", cr.RefundOffer)
			}
			gb := decodeOK[osdm.BookingResponse](t, e.call(a, "GET", path, nil), 200)
			if gb.Booking.BookedOffers[0].Reservations[0].Status != osdm.BookingPartRefunded {
				t.Errorf("the first instance reads %s", gb.Booking.BookedOffers[0].Reservations[0].Status)
			}
			e.assertAgree(true)
		})
	}
}

// TestDeleteAfterHoldRanOut: a DELETE that comes before the sweeper does
// cancels at once (204); the sweeper then has nothing to release.
func TestDeleteAfterHoldRanOut(t *testing.T) {
	e := newBookEnv(t, memKind, nil)
	b := e.book(e.offer("9203"))
	e.clock.Advance(defaultHold + time.Minute)
	if a := e.call(e.f, "DELETE", "/bookings/"+b.ID, nil); a.Status != 204 {
		t.Fatalf("DELETE after the hold: %d %s", a.Status, a.Body)
	}
	if rep, _ := e.f.Settle(t.Context()); rep.Released != 0 {
		t.Errorf("sweeper released a deleted booking: %+v", rep)
	}
	if r := e.records()[b.ID]; r.State != stateCancelled || e.heldCount() != 0 {
		t.Errorf("record %s, legacy holds %d", r.State, e.heldCount())
	}
	e.assertAgree(true)
}

// TestSweeperKeepsAFreshHoldMark: the hold mark of an exchange operation
// is written before its record; a sweep that reads the record before it
// is written (FULFILLED, nothing held) leaves a mark younger than twice
// the timeout alone, so the new places are still swept once held. An old
// mark of a booking that holds nothing is dropped.
func TestSweeperKeepsAFreshHoldMark(t *testing.T) {
	e := newBookEnv(t, memKind, nil)
	id, _ := e.fulfilled(e.offer("9203", adult, child))
	e.clock.Advance(time.Hour)
	e.settle(e.f) // the booking's own mark is stale: dropped
	if err := e.f.settlement.markHold(t.Context(), id, e.clock.Now()); err != nil {
		t.Fatal(err)
	}
	e.settle(e.f)
	if marks, _ := e.f.settlement.listMarks(t.Context(), kindHold); len(marks) != 1 {
		t.Fatalf("a fresh hold mark of a fulfilled booking was dropped: %v", marks)
	}
	e.clock.Advance(time.Minute)
	e.settle(e.f)
	if marks, _ := e.f.settlement.listMarks(t.Context(), kindHold); len(marks) != 0 {
		t.Errorf("a stale hold mark kept: %v", marks)
	}
}
