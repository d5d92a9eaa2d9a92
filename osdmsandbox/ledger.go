package osdmsandbox

import (
	"time"

	"github.com/caddy-osdm/caddy-osdm/internal/refseq"
)

// ledger is what the desks share: the configuration, the offers and
// bookings held, the first answers to Idempotency-Keys and the places
// taken. It is used under the Sandbox's lock.
type ledger struct {
	cfg Config
	// ids makes the ids, with a tag of this instance's: they differ from
	// those of an earlier run, which a legacy system may still hold.
	ids       refseq.Seq
	offers    *ordered[*offer]
	bookings  *ordered[*booking]
	keys      *ordered[*storedResponse]
	inventory *inventory
	nextSweep time.Time
}

// newLedger is an empty ledger for cfg.
func newLedger(cfg Config) *ledger {
	return &ledger{
		cfg:       cfg,
		ids:       refseq.New(),
		offers:    newOrdered[*offer](),
		bookings:  newOrdered[*booking](),
		keys:      newOrdered[*storedResponse](),
		inventory: newInventory(cfg.Capacity),
	}
}

// newID returns a fresh id with the given prefix, e.g. "b-3fa2-17".
// Callers hold the Sandbox's lock.
func (l *ledger) newID(prefix string) string {
	return l.ids.Next(prefix)
}
