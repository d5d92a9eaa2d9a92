package osdmsandbox

import (
	"fmt"
	"sync"
	"time"

	"github.com/caddy-osdm/caddy-osdm/ticketpdf"
)

// Sandbox is the in-memory OSDM partner, an http.Handler. Make it with New;
// it is safe for concurrent use. It routes each request, under one lock, to
// the desk of its concern; the desks share the ledger of offers, bookings
// and Idempotency-Keys.
type Sandbox struct {
	mu  sync.Mutex
	led *ledger

	offers     *offerDesk
	bookings   *bookingDesk
	exchanges  *exchangeDesk
	refunds    *refundDesk
	passengers *passengerDesk
	docs       *documentDesk
}

// New checks cfg and returns a Sandbox with its defaults filled in.
func New(cfg Config) (*Sandbox, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	tr, err := newTrains(cfg)
	if err != nil {
		return nil, err
	}
	led := newLedger(cfg)
	docs := &documentDesk{cfg: cfg, cache: ticketpdf.NewCache(documentCacheSize)}
	offers := &offerDesk{led: led, trains: tr}
	exchanges := &exchangeDesk{led: led, search: offers}
	return &Sandbox{
		led:        led,
		offers:     offers,
		bookings:   &bookingDesk{led: led, docs: docs, exchanges: exchanges},
		exchanges:  exchanges,
		refunds:    &refundDesk{led: led},
		passengers: &passengerDesk{led: led},
		docs:       docs,
	}, nil
}

// newTrains checks the trains cfg describes: external inventory,
// timetable, unknown trains.
func newTrains(cfg Config) (*trains, error) {
	tr := &trains{
		external:  map[string]ExternalInventory{},
		schedules: map[string]schedule{},
		unknown:   map[string]bool{},
	}
	for _, e := range cfg.ExternalInventory {
		e, err := e.check()
		if err != nil {
			return nil, err
		}
		if _, dup := tr.external[e.Train]; dup {
			return nil, fmt.Errorf("external_inventory: train %s listed twice", e.Train)
		}
		tr.external[e.Train] = e
	}
	for _, sc := range cfg.Timetable {
		parsed, err := sc.check()
		if err != nil {
			return nil, err
		}
		if _, dup := tr.schedules[sc.Train]; dup {
			return nil, fmt.Errorf("train %s scheduled twice", sc.Train)
		}
		tr.schedules[sc.Train] = parsed
	}
	for _, t := range cfg.UnknownTrains {
		if !ValidTrainNumber(t) {
			return nil, fmt.Errorf("unknown_train %q must be 1..8 letters or digits", t)
		}
		tr.unknown[t] = true
	}
	// A search finds an unknown train nowhere, an external one in another
	// system, and gives only the others the times of their train line:
	// a train listed in two of these would be answered by the first and
	// the other line silently ignored.
	for _, sc := range cfg.Timetable {
		if _, ext := tr.external[sc.Train]; ext {
			return nil, fmt.Errorf("train %s is also an external_inventory train, which is never sold here: list it in one of them", sc.Train)
		}
	}
	for _, train := range cfg.UnknownTrains {
		if _, ext := tr.external[train]; ext {
			return nil, fmt.Errorf("unknown_train %s is also an external_inventory train: list it in one of them", train)
		}
		if _, timed := tr.schedules[train]; timed {
			return nil, fmt.Errorf("unknown_train %s also has a train line with its times: list it in one of them", train)
		}
	}
	return tr, nil
}

// Config returns the configuration in use, defaults filled in.
func (s *Sandbox) Config() Config { return s.led.cfg }

// now is the current time, to the second, in UTC: OSDM times the sandbox
// makes (createdOn...) need no sub-second precision.
func (s *Sandbox) now() time.Time { return s.led.cfg.Now().UTC().Truncate(time.Second) }
