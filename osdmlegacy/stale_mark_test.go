package osdmlegacy

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/osdm"
	"github.com/caddy-osdm/caddy-osdm/store"
)

// failBookingUpdate fails the first change of a booking record, as a
// store that goes down between an intent mark and the record would.
type failBookingUpdate struct {
	store.Store
	prefix string
	once   sync.Once
}

func (s *failBookingUpdate) CompareAndSet(ctx context.Context, key string, old, value []byte, ttl time.Duration) (bool, error) {
	failed := false
	if strings.HasPrefix(key, s.prefix) {
		s.once.Do(func() { failed = true })
	}
	if failed {
		return false, errors.New("store down")
	}
	return s.Store.CompareAndSet(ctx, key, old, value, ttl)
}

// markOf reports whether the mark of kind for id is in the store.
func (e *bookEnv) markOf(kind, id string) bool {
	e.t.Helper()
	_, err := e.st.Get(context.Background(), storeKey(e.cfg.Partner, kind, id))
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		e.t.Fatal(err)
	}
	return err == nil
}

// TestIntentMarkOfARetriedCancellationSurvivesTheSweep: a DELETE whose
// booking record could not be changed leaves its intent mark and nothing
// else; settlement, finding no such intent in the record, deletes the mark
// once stale. The client's retry of the DELETE writes the same mark again
// (the same messageId) at that moment, and its CancelRequest's answer is
// lost: settlement leaves the new mark, and then settles the cancellation.
func TestIntentMarkOfARetriedCancellationSurvivesTheSweep(t *testing.T) {
	raceOnEachStore(t, func(t *testing.T, e *bookEnv, race *holdRace, settler *Facade) {
		first := e.facade(&failBookingUpdate{Store: e.st, prefix: storeKey(e.cfg.Partner, kindBooking, "")})
		all := e.freeSeats("9203")
		id := e.book(e.offer("9203", adult, child)).ID
		if a := e.call(first, "DELETE", "/bookings/"+id, nil); a.Status != http.StatusServiceUnavailable {
			t.Fatalf("DELETE on a failing store: %d %s", a.Status, a.Body)
		}
		msgID := messageID(id, stepCancel, 1)
		if r := e.records()[id]; !e.markOf(kindIntent, msgID) || r.State != statePrebooked || e.legacy.attempts() != 1 {
			t.Fatalf("after the failed DELETE: mark %v, booking %s, %d messages", e.markOf(kindIntent, msgID), r.State, e.legacy.attempts())
		}
		e.clock.Advance(2*e.cfg.Timeout + time.Second)
		var retry *Answer
		race.arm(storeKey(e.cfg.Partner, kindIntent, msgID), false, func() {
			e.legacy.inject(fault{kind: legacy.KindCancelRequest, what: "lost"})
			retry = e.call(e.f, "DELETE", "/bookings/"+id, nil)
		})
		if _, err := settler.Settle(context.Background()); err != nil {
			t.Fatal(err)
		}
		if !race.raced() || retry == nil || retry.Status != http.StatusGatewayTimeout {
			t.Fatalf("the retried DELETE did not lose its answer during settlement: %+v", retry)
		}
		if r := e.records()[id]; r.State != stateCancelling || r.Pending == nil || r.Pending.MessageID != msgID {
			t.Fatalf("booking after the retry: %s, pending %+v", r.State, r.Pending)
		}
		if !e.markOf(kindIntent, msgID) {
			t.Error("the retried cancellation's intent mark was deleted")
		}
		rep := e.settle(settler)
		if rep.Settled != 1 || e.freeSeats("9203") != all {
			t.Errorf("settlement %+v: %d places still held", rep, all-e.freeSeats("9203"))
		}
		if r := e.records()[id]; r.State != stateCancelled {
			t.Errorf("booking after settlement: %s", r.State)
		}
		if e.markOf(kindIntent, msgID) {
			t.Error("intent mark left after settlement")
		}
		e.assertAgree(true)
	})
}

// TestJourneyMarkOfARetriedJourneySurvivesTheSweep: a journey booking
// whose record could not be written leaves its journey mark and nothing
// else; settlement, finding no record, deletes the mark once stale. The
// client's retry with the same Idempotency-Key writes the mark again (the
// same journey id) at that moment, books the first train and loses the
// answer of the second: settlement leaves the new mark, and then rolls
// the journey back.
func TestJourneyMarkOfARetriedJourneySurvivesTheSweep(t *testing.T) {
	raceOnEachStore(t, func(t *testing.T, e *bookEnv, race *holdRace, settler *Facade) {
		first := e.facade(&failNewBooking{Store: e.st, prefix: storeKey(e.cfg.Partner, kindJourney, "")})
		jo := e.journeyOffer("708", "709")
		key := withKey(newTestUUID())
		a := e.call(first, "POST", "/bookings", journeyBody(jo), key)
		if a.Status != http.StatusServiceUnavailable {
			t.Fatalf("journey booking on a failing store: %d %s", a.Status, a.Body)
		}
		id := a.BookingID
		if !e.markOf(kindJourneyOpen, id) || len(e.records()) != 0 || e.legacy.attempts() != 0 {
			t.Fatalf("after the failed booking: mark %v, %d records, %d messages", e.markOf(kindJourneyOpen, id), len(e.records()), e.legacy.attempts())
		}
		e.clock.Advance(2*e.cfg.Timeout + time.Second)
		var retry *Answer
		race.arm(storeKey(e.cfg.Partner, kindJourneyOpen, id), false, func() {
			e.legacy.inject(fault{kind: legacy.KindBookingRequest}, fault{kind: legacy.KindBookingRequest, what: "lost"})
			retry = e.call(e.f, "POST", "/bookings", journeyBody(jo), key)
		})
		if _, err := settler.Settle(context.Background()); err != nil {
			t.Fatal(err)
		}
		if !race.raced() || retry == nil || retry.Status != http.StatusGatewayTimeout || retry.BookingID != id {
			t.Fatalf("the retry did not lose its second train's answer during settlement: %+v", retry)
		}
		if e.held() != 2 {
			t.Fatalf("the legacy system holds %d bookings after the retry, want 2", e.held())
		}
		if !e.markOf(kindJourneyOpen, id) {
			t.Error("the retried journey's mark was deleted")
		}
		e.settle(settler)
		if e.held() != 0 {
			t.Errorf("the legacy system holds %d bookings after settlement", e.held())
		}
		if j, _, err := e.f.journeys.loadJourney(context.Background(), id); err != nil || j.State != journeyFailed {
			t.Errorf("journey after settlement: failed %v, %v", err == nil && j.State == journeyFailed, err)
		}
		if e.markOf(kindJourneyOpen, id) {
			t.Error("journey mark left after settlement")
		}
		e.assertAgree(true)
	})
}

// TestJourneyMarkOfAnExchangeSurvivesTheSweep: settlement finds the mark
// of a booked journey (its deletion lost) and deletes it; an exchange
// operation of the journey writes its mark at that moment. The exchange's
// mark stays, and when the exchange's hold runs out unconfirmed,
// settlement gives its new legs back and records it so.
func TestJourneyMarkOfAnExchangeSurvivesTheSweep(t *testing.T) {
	raceOnEachStore(t, func(t *testing.T, e *bookEnv, race *holdRace, settler *Facade) {
		jo := e.journeyOffer("708", "709")
		b := e.book(&offerRecord{ID: jo.ID, Passengers: jo.Legs[0].Passengers})
		fr := decodeOK[osdm.FulfillmentCollectionResponse](t, e.call(e.f, "POST", "/bookings/"+b.ID+"/fulfillments", "{}"), 200)
		if err := e.f.journeys.markJourneyOpen(context.Background(), b.ID, 0, e.clock.Now()); err != nil {
			t.Fatal(err)
		}
		e.clock.Advance(time.Second)
		var op *osdm.ExchangeOperation
		race.arm(storeKey(e.cfg.Partner, kindJourneyOpen, b.ID), false, func() {
			body := `{"fulfillmentIds": ["` + fr.Fulfillments[0].ID + `", "` + fr.Fulfillments[1].ID + `"],
				"tripSpecifications": [{"legs": [` + specLegJSON("710", "8500010", "12:00", "8503000", "13:00") + `, ` + specLegJSON("711", "8503000", "13:30", "8509000", "15:00") + `]}],
				"anonymousPassengerSpecifications": [{"externalRef": "p-adult", "type": "ADULT", "age": 30}, {"externalRef": "p-child", "type": "CHILD", "age": 8}]}`
			xr := decodeOK[osdm.ExchangeOfferCollectionResponse](t, e.call(e.f, "POST", "/bookings/"+b.ID+"/exchange-offers", body), 200)
			sel := `{"exchangeOffers": [{"offerId": "` + xr.ExchangeOffers[0].OfferID + `", "passengerRefs": ["p-adult", "p-child"]}]}`
			op = decodeOK[osdm.ExchangeOperationResponse](t, e.call(e.f, "POST", "/bookings/"+b.ID+"/exchange-operations", sel), 200).ExchangeOperation
		})
		if _, err := settler.Settle(context.Background()); err != nil {
			t.Fatal(err)
		}
		if !race.raced() || op == nil || op.Status != osdm.ExchangePrebooked || e.held() != 4 {
			t.Fatalf("the exchange was not booked during settlement: %+v; legacy holds %d", op, e.held())
		}
		if !e.markOf(kindJourneyOpen, b.ID) {
			t.Error("the exchange's journey mark was deleted")
		}
		e.clock.Advance(defaultHold + time.Second)
		e.settle(settler)
		if e.held() != 2 {
			t.Errorf("the legacy system holds %d bookings after the exchange's hold ran out, want 2", e.held())
		}
		if j, _, err := e.f.journeys.loadJourney(context.Background(), b.ID); err != nil || j.Exchange.open() {
			t.Errorf("the journey's exchange after settlement: open %v, %v", err == nil && j.Exchange.open(), err)
		}
		e.settle(settler)
		if e.markOf(kindJourneyOpen, b.ID) {
			t.Error("journey mark left once the exchange was given back")
		}
		e.assertAgree(true)
	})
}

// failCompareAndDelete fails every CompareAndDelete, as a store that is
// down when settlement drops a mark.
type failCompareAndDelete struct{ store.Store }

func (failCompareAndDelete) CompareAndDelete(context.Context, string, []byte) (bool, error) {
	return false, errors.New("store down")
}

// TestStaleMarkDropFailureCounted: a store failure while settlement drops
// a stale intent mark counts as an error of the run, and the mark stays
// for the next.
func TestStaleMarkDropFailureCounted(t *testing.T) {
	e := newBookEnv(t, memKind, nil)
	id := e.book(e.offer("9203", adult)).ID
	msgID := messageID(id, stepCancel, 1)
	if err := e.f.settlement.markIntent(context.Background(), msgID, id, e.clock.Now()); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(2*e.cfg.Timeout + time.Second)
	rep, err := e.facade(failCompareAndDelete{e.st}).Settle(context.Background())
	if err == nil || rep.Errors != 1 || rep.Stale != 0 {
		t.Errorf("Settle: %+v, %v; want one error", rep, err)
	}
	if !e.markOf(kindIntent, msgID) {
		t.Error("the mark is gone")
	}
	if rep := e.settle(e.f); rep.Stale != 1 || e.markOf(kindIntent, msgID) {
		t.Errorf("the next run %+v left the stale mark", rep)
	}
}
