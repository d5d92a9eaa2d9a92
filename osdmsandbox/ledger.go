package osdmsandbox

import (
	"net/http"
	"time"

	"github.com/caddy-osdm/caddy-osdm/internal/refseq"
	"github.com/caddy-osdm/caddy-osdm/osdm"
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

// liveBooking finds the booking of rq's path that OSDM can see, applying
// its expiry first. Another client's booking, with all that hangs off it,
// is an unknown id to rq's client.
func (l *ledger) liveBooking(now time.Time, rq *request) (*booking, *osdm.ProblemError) {
	id := rq.bookingID
	b, ok := l.bookings.get(id)
	switch {
	case !ok || b.client != rq.client:
		return nil, osdm.NewProblem(http.StatusNotFound, osdm.CodeResourceNotFound, "no booking "+quoteShort(id))
	case b.state == stateDeleted:
		return nil, osdm.NewProblem(http.StatusNotFound, osdm.CodeBookingAlreadyCancelled, "booking "+id+" was deleted")
	}
	l.expireIfDue(b, now)
	l.expireExchange(b, now)
	return b, nil
}

// bookableOffer finds an offer that client can still book: another
// client's offer is unknown.
func (l *ledger) bookableOffer(now time.Time, client, id, pointer string) (*offer, *osdm.ProblemError) {
	o, ok := l.offers.get(id)
	switch {
	case !ok || o.client != client:
		return nil, osdm.NewProblem(http.StatusNotFound, osdm.CodeOfferNotFound, "offer "+quoteShort(id)+" is unknown or expired; search again").WithPointer(pointer)
	case !now.Before(o.expires):
		return nil, osdm.NewProblem(http.StatusNotFound, osdm.CodeOfferNotFound, "offer "+id+" expired at "+o.expires.Format(time.RFC3339)+"; search again").WithPointer(pointer)
	case o.bookedBy != "":
		return nil, osdm.NewProblem(http.StatusNotFound, osdm.CodeOfferNotFound, "offer "+id+" was booked already (booking "+o.bookedBy+"); search again").WithPointer(pointer)
	}
	return o, nil
}
