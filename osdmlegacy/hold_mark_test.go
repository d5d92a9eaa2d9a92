package osdmlegacy

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/osdm"
	"github.com/caddy-osdm/caddy-osdm/store"
)

// raceOnEachStore runs test on memory, bolt and Redis with a fresh
// environment and racer, a façade whose store deletions another writer
// can race through race.
func raceOnEachStore(t *testing.T, test func(t *testing.T, e *bookEnv, race *holdRace, racer *Facade)) {
	for _, kind := range []storeKind{memKind, boltKind, redisKind} {
		t.Run(string(kind), func(t *testing.T) {
			e := newBookEnv(t, kind, nil)
			race := &holdRace{Store: e.st}
			test(t, e, race, e.facade(race))
		})
	}
}

// forRaces runs test as a subtest for each store, each of n scenarios
// and each timing of the race: at the deletion, and before the deleter
// reads the mark unless atDeletionOnly (nil: none) says not. Each gets a
// fresh environment and a, a façade whose store deletions another writer
// can race through race.
func forRaces(t *testing.T, n int, name func(int) string, atDeletionOnly func(int) bool, test func(t *testing.T, e *bookEnv, race *holdRace, a *Facade, i int, atRead bool)) {
	for _, kind := range []storeKind{memKind, boltKind, redisKind} {
		for i := range n {
			for _, atRead := range []bool{false, true} {
				if atRead && atDeletionOnly != nil && atDeletionOnly(i) {
					continue
				}
				timing := "at the deletion"
				if atRead {
					timing = "before the read"
				}
				t.Run(string(kind)+"/"+name(i)+"/"+timing, func(t *testing.T) {
					e := newBookEnv(t, kind, nil)
					race := &holdRace{Store: e.st}
					test(t, e, race, e.facade(race), i, atRead)
				})
			}
		}
	}
}

// holdRace is a store through which one instance deletes a mark while
// another writes its own: armed for a key (or every key of a prefix), it
// runs race once, at the first deletion of such a key (Delete or
// CompareAndDelete) or, with atRead, at its first Get, before passing the
// call on.
type holdRace struct {
	store.Store

	mu     sync.Mutex
	key    string
	prefix bool
	atRead bool
	race   func(key string)
	ran    bool
}

// arm makes the next deletion (or read, with atRead) of key run race first.
func (s *holdRace) arm(key string, atRead bool, race func()) {
	s.mu.Lock()
	s.key, s.prefix, s.atRead, s.race, s.ran = key, false, atRead, func(string) { race() }, false
	s.mu.Unlock()
}

// armKind makes the next deletion (or read, with atRead) of a key that
// starts with prefix run race first, with that key.
func (s *holdRace) armKind(prefix string, atRead bool, race func(key string)) {
	s.mu.Lock()
	s.key, s.prefix, s.atRead, s.race, s.ran = prefix, true, atRead, race, false
	s.mu.Unlock()
}

// raced reports whether race ran.
func (s *holdRace) raced() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ran
}

func (s *holdRace) before(key string, read bool) {
	s.mu.Lock()
	match := key == s.key || s.prefix && strings.HasPrefix(key, s.key)
	run := s.race != nil && !s.ran && match && (!read || s.atRead)
	if run {
		s.ran = true
	}
	race := s.race
	s.mu.Unlock()
	if run {
		race(key)
	}
}

func (s *holdRace) Get(ctx context.Context, key string) ([]byte, error) {
	s.before(key, true)
	return s.Store.Get(ctx, key)
}

func (s *holdRace) Delete(ctx context.Context, key string) error {
	s.before(key, false)
	return s.Store.Delete(ctx, key)
}

func (s *holdRace) CompareAndDelete(ctx context.Context, key string, old []byte) (bool, error) {
	s.before(key, false)
	return s.Store.CompareAndDelete(ctx, key, old)
}

// exchangeOn asks f for exchange offers of booking id to train and books
// the one found; it returns the operation, PREBOOKED.
func (e *bookEnv) exchangeOn(f *Facade, id, train string) osdm.ExchangeOperation {
	e.t.Helper()
	rec := e.records()[id]
	xo := decodeOK[osdm.ExchangeOfferCollectionResponse](e.t, e.call(f, "POST", "/bookings/"+id+"/exchange-offers",
		exchangeSearch(rec, rec.Fulfillment.ID, train, nil)), 200)
	if len(xo.ExchangeOffers) != 1 {
		e.t.Fatalf("exchange offers %+v", xo)
	}
	offer := xo.ExchangeOffers[0]
	op := decodeOK[osdm.ExchangeOperationResponse](e.t, e.call(f, "POST", "/bookings/"+id+"/exchange-operations",
		map[string]any{"exchangeOffers": []any{map[string]any{"offerId": offer.OfferID, "passengerRefs": offer.PassengerRefs}}},
		withKey(newTestUUID())), 200)
	if op.ExchangeOperation.Status != "PREBOOKED" {
		e.t.Fatalf("exchange operation %+v", op.ExchangeOperation)
	}
	return *op.ExchangeOperation
}

// storedMark is the mark of kind for id as stored (nil if none), read as
// JSON.
func (e *bookEnv) storedMark(kind, id string) map[string]any {
	e.t.Helper()
	v, err := e.st.Get(context.Background(), storeKey(e.cfg.Partner, kind, id))
	if err != nil {
		return nil
	}
	var m map[string]any
	if err := json.Unmarshal(v, &m); err != nil {
		e.t.Fatalf("%s mark %s: %v", kind, v, err)
	}
	return m
}

// TestHoldMarkOfAnExchangeSurvivesTheDeletionItRaces: a call that has
// just recorded that a booking holds nothing (a fulfilment, an exchange's
// confirmation or deletion, the sweeper finding a stale mark) deletes the
// booking's hold mark; an exchange operation of the same booking on
// another instance writes its own mark in between (at the deletion, or
// before the deleter reads the mark). The exchange's mark survives, and
// when its hold runs out the sweeper releases its new places.
func TestHoldMarkOfAnExchangeSurvivesTheDeletionItRaces(t *testing.T) {
	type scenario struct {
		name string
		// setUp brings booking id to the call; deleter makes it on a, the
		// instance whose store races.
		setUp   func(e *bookEnv, id string)
		deleter func(e *bookEnv, a *Facade, id string)
		// sweep: the deleter is settlement, which reads no mark (it
		// listed it): no race before the read.
		sweep bool
		// booked: the booking is PREBOOKED, not fulfilled, at the call.
		booked bool
	}
	scenarios := []scenario{{
		name:   "fulfilment",
		booked: true,
		deleter: func(e *bookEnv, a *Facade, id string) {
			decodeOK[osdm.FulfillmentCollectionResponse](e.t, e.call(a, "POST", "/bookings/"+id+"/fulfillments", nil), 200)
		},
	}, {
		name:  "exchange confirmed",
		setUp: func(e *bookEnv, id string) { e.exchangeOn(e.f, id, "9203") },
		deleter: func(e *bookEnv, a *Facade, id string) {
			decodeOK[osdm.FulfillmentCollectionResponse](e.t, e.call(a, "POST", "/bookings/"+id+"/fulfillments", nil), 200)
		},
	}, {
		name: "exchange deleted",
		setUp: func(e *bookEnv, id string) {
			e.exchangeOn(e.f, id, "9203")
		},
		deleter: func(e *bookEnv, a *Facade, id string) {
			x := e.records()[id].Exchange
			if r := e.call(a, "DELETE", "/bookings/"+id+"/exchange-operations/"+x.ID, nil); r.Status != 204 {
				e.t.Fatalf("DELETE of the exchange: %d %s", r.Status, r.Body)
			}
		},
	}, {
		name:  "stale mark swept",
		sweep: true,
		setUp: func(e *bookEnv, id string) {
			// A mark whose deletion was lost (a crash after the
			// fulfilment was recorded), now stale.
			if err := e.f.settlement.markHold(context.Background(), id, e.clock.Now()); err != nil {
				e.t.Fatal(err)
			}
			e.clock.Advance(2*e.cfg.Timeout + time.Second)
		},
		deleter: func(e *bookEnv, a *Facade, _ string) {
			if _, err := a.Settle(context.Background()); err != nil {
				e.t.Fatal(err)
			}
		},
	}}
	forRaces(t, len(scenarios), func(i int) string { return scenarios[i].name }, func(i int) bool { return scenarios[i].sweep }, func(t *testing.T, e *bookEnv, race *holdRace, a *Facade, i int, atRead bool) {
		sc := scenarios[i]
		all := e.freeSeats("708")
		var id string
		if sc.booked {
			id = e.book(e.offer("9203", adult, child)).ID
		} else {
			id, _ = e.fulfilled(e.offer("9203", adult, child))
		}
		if sc.setUp != nil {
			sc.setUp(e, id)
		}
		var op osdm.ExchangeOperation
		race.arm(storeKey(e.cfg.Partner, kindHold, id), atRead, func() {
			op = e.exchangeOn(e.f, id, "708")
		})
		sc.deleter(e, a, id)
		if !race.raced() {
			t.Fatal("the deleter never touched the hold mark")
		}
		if n := all - e.freeSeats("708"); n != 2 {
			t.Fatalf("the exchange holds %d places on 708, want 2", n)
		}
		if m := e.storedMark(kindHold, id); m == nil {
			t.Errorf("the hold mark of exchange %s was deleted", op.ID)
		}

		// The exchange is never confirmed: its hold runs out
		// and the sweeper gives its places back.
		e.clock.Advance(defaultHold + time.Second)
		rep := e.settle(a)
		if rep.Released != 1 || e.freeSeats("708") != all {
			t.Errorf("sweep %+v: %d places of the exchange still held on 708", rep, all-e.freeSeats("708"))
		}
		if x := e.records()[id].Exchange; x == nil || x.ID != op.ID || x.holds() {
			t.Errorf("exchange after the sweep: %v", x != nil && x.holds())
		}
		if m := e.storedMark(kindHold, id); m != nil {
			t.Errorf("hold mark left after the release: %v", m)
		}
		e.assertAgree(true)
	})
}

// failNewBooking fails the first write of a new booking record, as a
// store that goes down between the hold mark and the record would.
type failNewBooking struct {
	store.Store
	prefix string
	once   sync.Once
}

func (s *failNewBooking) PutIfAbsent(ctx context.Context, key string, value []byte, ttl time.Duration) (bool, error) {
	failed := false
	if strings.HasPrefix(key, s.prefix) {
		s.once.Do(func() { failed = true })
	}
	if failed {
		return false, errors.New("store down")
	}
	return s.Store.PutIfAbsent(ctx, key, value, ttl)
}

// TestHoldMarkOfARetriedBookingSurvivesTheSweep: a booking whose record
// could not be written leaves its hold mark and nothing else; the
// sweeper, finding no record, deletes the mark once stale. The client's
// retry with the same Idempotency-Key writes the mark again (the same
// booking id) at that moment, and books: the sweeper leaves the new mark,
// and releases the booking when its hold runs out.
func TestHoldMarkOfARetriedBookingSurvivesTheSweep(t *testing.T) {
	raceOnEachStore(t, func(t *testing.T, e *bookEnv, race *holdRace, sweeper *Facade) {
		first := e.facade(&failNewBooking{Store: e.st, prefix: storeKey(e.cfg.Partner, kindBooking, "")})
		all := e.freeSeats("9203")
		o := e.offer("9203", adult, child)
		key := withKey(newTestUUID())
		if a := e.call(first, "POST", "/bookings", bookingBodyOf(o), key); a.Status != 503 || a.Cause == nil || !strings.Contains(a.Cause.Error(), "store down") {
			t.Fatalf("booking on a failing store: %d %s, cause %v", a.Status, a.Body, a.Cause)
		}
		marks, _ := e.f.settlement.listMarks(context.Background(), kindHold)
		if len(marks) != 1 || len(e.records()) != 0 || e.legacy.attempts() != 0 {
			t.Fatalf("after the failed booking: marks %v, %d records, %d messages", marks, len(e.records()), e.legacy.attempts())
		}
		var id string
		for id = range marks {
		}
		e.clock.Advance(2*e.cfg.Timeout + time.Second)
		var b *osdm.Booking
		race.arm(storeKey(e.cfg.Partner, kindHold, id), false, func() {
			b = decodeOK[osdm.BookingResponse](t, e.call(e.f, "POST", "/bookings", bookingBodyOf(o), key), 200).Booking
		})
		if _, err := sweeper.Settle(context.Background()); err != nil {
			t.Fatal(err)
		}
		if !race.raced() || b == nil || b.ID != id {
			t.Fatalf("the retry did not book %s during the sweep: %+v", id, b)
		}
		if all-e.freeSeats("9203") != 2 {
			t.Fatalf("the retry holds %d places, want 2", all-e.freeSeats("9203"))
		}
		if e.storedMark(kindHold, id) == nil {
			t.Error("the retried booking's hold mark was deleted")
		}
		e.clock.Advance(defaultHold + time.Second)
		if rep := e.settle(sweeper); rep.Released != 1 || e.freeSeats("9203") != all {
			t.Errorf("sweep %+v: %d places still held", rep, all-e.freeSeats("9203"))
		}
		if r := e.records()[id]; r == nil || r.State != stateReleased {
			t.Errorf("booking after the sweep: released %v", r != nil && r.State == stateReleased)
		}
		e.assertAgree(true)
	})
}
