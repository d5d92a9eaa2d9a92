package osdmsandbox

import (
	"fmt"
	"sync"
	"time"

	"github.com/caddy-osdm/caddy-osdm/internal/refseq"
	"github.com/caddy-osdm/caddy-osdm/ticketpdf"
)

// Sandbox is the in-memory OSDM partner, an http.Handler. Make it with New;
// it is safe for concurrent use.
type Sandbox struct {
	cfg       Config
	external  map[string]ExternalInventory
	schedules map[string]schedule
	unknown   map[string]bool

	mu sync.Mutex
	// ids makes the ids, with a tag of this instance's: they differ from
	// those of an earlier run, which a legacy system may still hold.
	ids       refseq.Seq
	offers    *ordered[*offer]
	bookings  *ordered[*booking]
	keys      *ordered[*storedResponse]
	inventory *inventory
	nextSweep time.Time

	// docCache keeps the ticket documents rendered last (documents.go).
	docCache *ticketpdf.Cache
}

// New checks cfg and returns a Sandbox with its defaults filled in.
func New(cfg Config) (*Sandbox, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	s := &Sandbox{
		cfg:       cfg,
		external:  map[string]ExternalInventory{},
		schedules: map[string]schedule{},
		unknown:   map[string]bool{},
		ids:       refseq.New(),
		offers:    newOrdered[*offer](),
		bookings:  newOrdered[*booking](),
		keys:      newOrdered[*storedResponse](),
		inventory: newInventory(cfg.Capacity),
		docCache:  ticketpdf.NewCache(documentCacheSize),
	}
	cfg.ExternalInventory = append([]ExternalInventory(nil), cfg.ExternalInventory...)
	for i, e := range cfg.ExternalInventory {
		e, err := e.check()
		if err != nil {
			return nil, err
		}
		if _, dup := s.external[e.Train]; dup {
			return nil, fmt.Errorf("external_inventory: train %s listed twice", e.Train)
		}
		s.external[e.Train] = e
		cfg.ExternalInventory[i] = e
	}
	for _, sc := range cfg.Timetable {
		parsed, err := sc.check()
		if err != nil {
			return nil, err
		}
		if _, dup := s.schedules[sc.Train]; dup {
			return nil, fmt.Errorf("train %s scheduled twice", sc.Train)
		}
		s.schedules[sc.Train] = parsed
	}
	for _, t := range cfg.UnknownTrains {
		if !ValidTrainNumber(t) {
			return nil, fmt.Errorf("unknown_train %q must be 1..8 letters or digits", t)
		}
		s.unknown[t] = true
	}
	return s, nil
}

// Config returns the configuration in use, defaults filled in.
func (s *Sandbox) Config() Config { return s.cfg }

// newID returns a fresh id with the given prefix, e.g. "b-3fa2-17".
// Callers hold s.mu.
func (s *Sandbox) newID(prefix string) string {
	return s.ids.Next(prefix)
}

// now is the current time, to the second, in UTC: OSDM times the sandbox
// makes (createdOn...) need no sub-second precision.
func (s *Sandbox) now() time.Time { return s.cfg.Now().UTC().Truncate(time.Second) }
