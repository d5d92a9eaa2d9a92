package osdmsandbox

import "time"

// sweepInterval is how often a request also sweeps the stores. Exactness
// does not depend on it: every lookup checks its own entry's expiry, and a
// search or booking short of places sweeps before refusing.
const sweepInterval = time.Second

// sweep drops expired offers and idempotency keys, releases provisional
// bookings past their confirmationTimeLimit and drops bookings past their
// retention; without force, at most once per sweepInterval. Callers hold
// the Sandbox's lock.
func (l *ledger) sweep(now time.Time, force bool) {
	if !force && now.Before(l.nextSweep) {
		return
	}
	l.nextSweep = now.Add(sweepInterval)
	// Offers and keys have one lifetime each, so they expire in the order
	// they were stored: the sweep stops at the first live one.
	l.offers.each(func(id string, o *offer) bool {
		if now.Before(o.expires) {
			return false
		}
		l.offers.remove(id)
		return true
	})
	l.keys.each(func(id string, k *storedResponse) bool {
		if now.Before(k.expires) {
			return false
		}
		l.keys.remove(id)
		return true
	})
	l.bookings.each(func(_ string, b *booking) bool {
		l.expireIfDue(b, now)
		if !now.Before(b.dropAt) {
			l.dropBooking(b)
		}
		return true
	})
}

// addOffer stores o; when the store is full, the oldest offer goes.
// Callers hold the Sandbox's lock.
func (l *ledger) addOffer(o *offer) {
	if l.offers.len() >= l.cfg.MaxEntries {
		l.sweep(o.createdOn, true)
		if l.offers.len() >= l.cfg.MaxEntries {
			id, _, _ := l.offers.oldest()
			l.offers.remove(id)
		}
	}
	l.offers.put(o.id, o)
}

// addBooking stores b; when the store is full, the oldest booking goes
// and frees its places. Callers hold the Sandbox's lock.
func (l *ledger) addBooking(b *booking) {
	if l.bookings.len() >= l.cfg.MaxEntries {
		l.sweep(b.createdOn, true)
		if l.bookings.len() >= l.cfg.MaxEntries {
			_, oldest, _ := l.bookings.oldest()
			l.dropBooking(oldest)
		}
	}
	l.bookings.put(b.id, b)
}

// expireIfDue releases a provisional booking past its
// confirmationTimeLimit. Callers hold the Sandbox's lock.
func (l *ledger) expireIfDue(b *booking, now time.Time) {
	if b.state == statePrebooked && !now.Before(b.limit) {
		l.releasePlaces(b)
		b.state = stateReleased
		b.dropAt = b.limit.Add(l.cfg.Retention)
	}
}

// dropBooking forgets b, freeing any places it still holds. Callers hold the Sandbox's lock.
func (l *ledger) dropBooking(b *booking) {
	l.releasePlaces(b)
	l.bookings.remove(b.id)
}

// releasePlaces frees the places of b's parts. Callers hold the Sandbox's lock.
func (l *ledger) releasePlaces(b *booking) {
	if op := b.pendingExchange(); op != nil {
		l.dropExchange(b, op)
	}
	for _, part := range b.parts {
		l.releasePart(part)
	}
}

// releasePart frees the places part still holds. Callers hold the Sandbox's lock.
func (l *ledger) releasePart(part *bookedPart) {
	if !part.held {
		return
	}
	// Only the places still held: those of passengers refunded before
	// are free already and may be another booking's now.
	places := part.places
	if part.gone != nil {
		places = nil
		for k, idx := range part.places {
			if part.live(k) {
				places = append(places, idx)
			}
		}
	}
	l.inventory.release(part.journey.runKey(), part.group, places)
	part.held = false
}

// expireExchange frees the places of a pre-booked exchange past its
// ticketTimeLimit: the operation lapses and the old booking stands.
func (l *ledger) expireExchange(b *booking, now time.Time) {
	op := b.pendingExchange()
	if op == nil || now.Before(op.limit) {
		return
	}
	l.dropExchange(b, op)
}

// dropExchange forgets a pre-booked exchange operation, freeing its places.
func (l *ledger) dropExchange(b *booking, op *exchangeOp) {
	for _, part := range op.parts {
		l.releasePart(part)
	}
	for i, o := range b.exchanges {
		if o == op {
			b.exchanges = append(b.exchanges[:i], b.exchanges[i+1:]...)
			break
		}
	}
}
