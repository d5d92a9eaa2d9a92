package osdmlegacy

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/osdm"
	"github.com/caddy-osdm/caddy-osdm/store"
)

// journeyExchangeOn asks f for exchange offers of journey id, every
// fulfilment named, to trains 710 and 711, and books the one found; it
// returns the operation, PREBOOKED.
func (e *bookEnv) journeyExchangeOn(f *Facade, id string) *osdm.ExchangeOperation {
	e.t.Helper()
	return e.bookJourneyExchange(f, id, e.journeyExchangeOffer(f, id))
}

// journeyExchangeOffer asks f for exchange offers of journey id, every
// fulfilment named, to trains 710 and 711; it returns the body of an
// exchange operation that books the one found.
func (e *bookEnv) journeyExchangeOffer(f *Facade, id string) string {
	e.t.Helper()
	g := decodeOK[osdm.BookingResponse](e.t, e.call(f, "GET", "/bookings/"+id, nil), 200)
	var fids []string
	for _, fu := range g.Booking.Fulfillments {
		fids = append(fids, `"`+fu.ID+`"`)
	}
	body := `{"fulfillmentIds": [` + strings.Join(fids, ", ") + `],
		"tripSpecifications": [{"legs": [` + specLegJSON("710", "8500010", "12:00", "8503000", "13:00") + `, ` + specLegJSON("711", "8503000", "13:30", "8509000", "15:00") + `]}],
		"anonymousPassengerSpecifications": [{"externalRef": "p-adult", "type": "ADULT", "age": 30}, {"externalRef": "p-child", "type": "CHILD", "age": 8}]}`
	xr := decodeOK[osdm.ExchangeOfferCollectionResponse](e.t, e.call(f, "POST", "/bookings/"+id+"/exchange-offers", body), 200)
	return `{"exchangeOffers": [{"offerId": "` + xr.ExchangeOffers[0].OfferID + `", "passengerRefs": ["p-adult", "p-child"]}]}`
}

// bookJourneyExchange books the exchange operation sel of journey id on
// f; it returns the operation, PREBOOKED.
func (e *bookEnv) bookJourneyExchange(f *Facade, id, sel string) *osdm.ExchangeOperation {
	e.t.Helper()
	op := decodeOK[osdm.ExchangeOperationResponse](e.t, e.call(f, "POST", "/bookings/"+id+"/exchange-operations", sel, withKey(newTestUUID())), 200).ExchangeOperation
	if op.Status != osdm.ExchangePrebooked {
		e.t.Fatalf("exchange operation %+v", op)
	}
	return op
}

// journeyOf loads journey id.
func (e *bookEnv) journeyOf(id string) *journeyRecord {
	e.t.Helper()
	j, _, err := e.f.journeys.loadJourney(context.Background(), id)
	if err != nil {
		e.t.Fatal(err)
	}
	return j
}

// assertExchangeGivenBack lets the hold of exchange operation op of
// journey id run out unconfirmed and checks that settlement gives its new
// legs back and records it so, and that the journey's mark then goes.
func (e *bookEnv) assertExchangeGivenBack(settler *Facade, id string, op *osdm.ExchangeOperation) {
	e.t.Helper()
	e.clock.Advance(defaultHold + time.Second)
	e.settle(settler)
	if e.held() != 2 {
		e.t.Errorf("the legacy system holds %d bookings after the exchange's hold ran out, want the journey's 2", e.held())
	}
	if x := e.journeyOf(id).Exchange; x == nil || x.ID != op.ID || x.open() {
		e.t.Errorf("the exchange after settlement: %+v", x)
	}
	e.settle(settler)
	if m := e.storedMark(kindJourneyOpen, id); m != nil {
		e.t.Errorf("journey mark left once the exchange was given back: %v", m)
	}
	e.assertAgree(true)
}

// TestJourneyMarkOfAnExchangeSurvivesTheCallsDeletion: the call that has
// just recorded that a journey has nothing open (its booking, an exchange
// given back or confirmed) deletes the journey's mark; an exchange
// operation of the journey on another instance writes its own mark in
// between (at the deletion, or before the deleter reads the mark). The
// exchange's mark survives, and settlement later settles the exchange:
// when its hold runs out unconfirmed, its new legs are given back and the
// journey no longer shows it open.
func TestJourneyMarkOfAnExchangeSurvivesTheCallsDeletion(t *testing.T) {
	type scenario struct {
		name string
		// setUp books the journey (unless the deleter does) and brings it
		// to the call; deleter makes the call on a, the instance whose
		// store races, and returns the journey id.
		setUp   func(e *bookEnv) string
		deleter func(e *bookEnv, a *Facade, id string) string
	}
	bookJourney := func(e *bookEnv) string {
		return e.bookedJourney("708", "709")
	}
	fulfil := func(e *bookEnv, f *Facade, id string) {
		decodeOK[osdm.FulfillmentCollectionResponse](e.t, e.call(f, "POST", "/bookings/"+id+"/fulfillments", "{}"), 200)
	}
	// exchangeOpen books and fulfils a journey and opens an exchange of
	// it, on e.f.
	exchangeOpen := func(e *bookEnv) string {
		id := bookJourney(e)
		fulfil(e, e.f, id)
		e.journeyExchangeOn(e.f, id)
		return id
	}
	scenarios := []scenario{{
		name: "journey booked",
		deleter: func(e *bookEnv, a *Facade, _ string) string {
			jo := e.journeyOffer("708", "709")
			return decodeOK[osdm.BookingResponse](e.t, e.call(a, "POST", "/bookings", journeyBody(jo)), 200).Booking.ID
		},
	}, {
		name:  "exchange given back",
		setUp: exchangeOpen,
		deleter: func(e *bookEnv, a *Facade, id string) string {
			x := e.journeyOf(id).Exchange
			if r := e.call(a, "DELETE", "/bookings/"+id+"/exchange-operations/"+x.ID, nil); r.Status != http.StatusNoContent {
				e.t.Fatalf("DELETE of the exchange: %d %s", r.Status, r.Body)
			}
			return id
		},
	}, {
		name:  "exchange confirmed",
		setUp: exchangeOpen,
		deleter: func(e *bookEnv, a *Facade, id string) string {
			fulfil(e, a, id)
			return id
		},
	}}
	// The race runs inside the deleter's call, under its deadline: the
	// one-time costs of the package's first exchange search are paid
	// here, not in there (a deleter past its deadline deletes nothing).
	warm := newBookEnv(t, memKind, nil)
	wid := bookJourney(warm)
	fulfil(warm, warm.f, wid)
	warm.journeyExchangeOn(warm.f, wid)

	forRaces(t, len(scenarios), func(i int) string { return scenarios[i].name }, nil, func(t *testing.T, e *bookEnv, race *holdRace, a *Facade, i int, atRead bool) {
		sc := scenarios[i]
		var id string
		if sc.setUp != nil {
			id = sc.setUp(e)
		}
		var op *osdm.ExchangeOperation
		race.armKind(storeKey(e.cfg.Partner, kindJourneyOpen, ""), atRead, func(key string) {
			jid := strings.TrimPrefix(key, storeKey(e.cfg.Partner, kindJourneyOpen, ""))
			if sc.setUp == nil {
				fulfil(e, e.f, jid) // the journey just booked
			}
			op = e.journeyExchangeOn(e.f, jid)
		})
		id = sc.deleter(e, a, id)
		if !race.raced() || op == nil {
			t.Fatal("the deleter never touched the journey mark")
		}
		if e.held() != 4 {
			t.Fatalf("the legacy system holds %d bookings, want the journey's 2 and the exchange's 2", e.held())
		}
		j := e.journeyOf(id)
		if x := j.Exchange; x == nil || x.ID != op.ID || !x.open() {
			t.Fatalf("the journey's exchange: %+v, want %s open", x, op.ID)
		}
		m := e.storedMark(kindJourneyOpen, id)
		if m == nil {
			t.Fatalf("the journey mark of exchange %s was deleted", op.ID)
		}
		if n, _ := m["exchange"].(float64); int(n) != j.Exchange.N || n < 1 {
			t.Errorf("the journey mark %v does not list exchange %d", m, j.Exchange.N)
		}
		e.assertExchangeGivenBack(a, id, op)
	})
}

// casRace is a store through which one instance writes a journey record
// while another settles: armed for a key, it runs race once, at the first
// CompareAndSet of that key, before passing the call on.
type casRace struct {
	store.Store

	mu   sync.Mutex
	key  string
	race func()
}

func (s *casRace) CompareAndSet(ctx context.Context, key string, old, value []byte, ttl time.Duration) (bool, error) {
	s.mu.Lock()
	race := s.race
	if key != s.key {
		race = nil
	}
	if race != nil {
		s.race = nil
	}
	s.mu.Unlock()
	if race != nil {
		race()
	}
	return s.Store.CompareAndSet(ctx, key, old, value, ttl)
}

// TestJourneyMarkOfAnExchangeNotRecordedYetSurvivesSettlement: an
// exchange operation writes the journey's mark, then its record; settlement
// runs in between, and finds the mark of a booked journey that shows no
// exchange. It leaves the mark (it lists an exchange the record does not
// show yet: only a stale one goes), and later settles the exchange.
func TestJourneyMarkOfAnExchangeNotRecordedYetSurvivesSettlement(t *testing.T) {
	raceOnEachStore(t, func(t *testing.T, e *bookEnv, _ *holdRace, settler *Facade) {
		id := e.fulfilledJourney("708", "709")
		cr := &casRace{Store: e.st, key: storeKey(e.cfg.Partner, kindJourney, id)}
		var rep SettleReport
		cr.race = func() {
			if e.storedMark(kindJourneyOpen, id) == nil || e.journeyOf(id).Exchange != nil {
				t.Error("the exchange's mark is not written before its record")
			}
			var err error
			if rep, err = settler.Settle(context.Background()); err != nil {
				t.Error(err)
			}
		}
		op := e.bookJourneyExchange(e.facade(cr), id, e.journeyExchangeOffer(e.f, id))
		if cr.race != nil || rep.Stale != 0 {
			t.Fatalf("settlement did not run between the exchange's mark and record, or dropped the mark: %+v", rep)
		}
		if e.storedMark(kindJourneyOpen, id) == nil {
			t.Fatalf("the journey mark of exchange %s was deleted", op.ID)
		}
		e.assertExchangeGivenBack(settler, id, op)
	})
}

// TestJourneyMarkAheadOfItsRecordDroppedOnceStale: the mark of an
// exchange operation whose record was never written (the store failed in
// between) is left to settlement, which drops it once stale; so is a mark
// of an earlier release, which does not say what it lists, at once.
func TestJourneyMarkAheadOfItsRecordDroppedOnceStale(t *testing.T) {
	e := newBookEnv(t, memKind, nil)
	id := e.bookedJourney("708", "709")
	ctx := context.Background()
	if err := e.f.journeys.markJourneyOpen(ctx, id, 1, e.clock.Now()); err != nil {
		t.Fatal(err)
	}
	if rep := e.settle(e.f); rep.Stale != 0 || e.storedMark(kindJourneyOpen, id) == nil {
		t.Fatalf("settlement %+v dropped a young mark of an exchange not recorded", rep)
	}
	e.clock.Advance(2 * e.cfg.Timeout)
	if rep := e.settle(e.f); rep.Stale != 1 || e.storedMark(kindJourneyOpen, id) != nil {
		t.Fatalf("settlement %+v left a stale mark of an exchange never recorded", rep)
	}

	// A mark of an earlier release: the call leaves it, settlement drops it.
	old, _ := json.Marshal(workMark{BookingID: id, At: e.clock.Now()})
	key := storeKey(e.cfg.Partner, kindJourneyOpen, id)
	if err := e.st.Put(ctx, key, old, 0); err != nil {
		t.Fatal(err)
	}
	e.f.journeys.dropJourneyMark(ctx, e.journeyOf(id))
	if e.storedMark(kindJourneyOpen, id) == nil {
		t.Fatal("a call deleted a mark of an earlier release")
	}
	if rep := e.settle(e.f); rep.Stale != 1 || e.storedMark(kindJourneyOpen, id) != nil {
		t.Fatalf("settlement %+v left the mark of an earlier release", rep)
	}
}
