package osdmsandbox

import "time"

// sweepInterval is how often a request also sweeps the stores. Exactness
// does not depend on it: every lookup checks its own entry's expiry, and a
// search or booking short of places sweeps before refusing.
const sweepInterval = time.Second

// sweep drops expired offers and idempotency keys, releases provisional
// bookings past their confirmationTimeLimit and drops bookings past their
// retention; without force, at most once per sweepInterval. Callers hold
// s.mu.
func (s *Sandbox) sweep(now time.Time, force bool) {
	if !force && now.Before(s.nextSweep) {
		return
	}
	s.nextSweep = now.Add(sweepInterval)
	// Offers and keys have one lifetime each, so they expire in the order
	// they were stored: the sweep stops at the first live one.
	s.offers.each(func(id string, o *offer) bool {
		if now.Before(o.expires) {
			return false
		}
		s.offers.remove(id)
		return true
	})
	s.keys.each(func(id string, k *storedResponse) bool {
		if now.Before(k.expires) {
			return false
		}
		s.keys.remove(id)
		return true
	})
	s.bookings.each(func(_ string, b *booking) bool {
		s.expireIfDue(b, now)
		if !now.Before(b.dropAt) {
			s.dropBooking(b)
		}
		return true
	})
}

// addOffer stores o; when the store is full, the oldest offer goes.
// Callers hold s.mu.
func (s *Sandbox) addOffer(o *offer) {
	if s.offers.len() >= s.cfg.MaxEntries {
		s.sweep(o.createdOn, true)
		if s.offers.len() >= s.cfg.MaxEntries {
			id, _, _ := s.offers.oldest()
			s.offers.remove(id)
		}
	}
	s.offers.put(o.id, o)
}

// addBooking stores b; when the store is full, the oldest booking goes
// and frees its places. Callers hold s.mu.
func (s *Sandbox) addBooking(b *booking) {
	if s.bookings.len() >= s.cfg.MaxEntries {
		s.sweep(b.createdOn, true)
		if s.bookings.len() >= s.cfg.MaxEntries {
			_, oldest, _ := s.bookings.oldest()
			s.dropBooking(oldest)
		}
	}
	s.bookings.put(b.id, b)
}

// expireIfDue releases a provisional booking past its
// confirmationTimeLimit. Callers hold s.mu.
func (s *Sandbox) expireIfDue(b *booking, now time.Time) {
	if b.state == statePrebooked && !now.Before(b.limit) {
		s.releasePlaces(b)
		b.state = stateReleased
		b.dropAt = b.limit.Add(s.cfg.Retention)
	}
}

// dropBooking forgets b, freeing any places it still holds. Callers hold s.mu.
func (s *Sandbox) dropBooking(b *booking) {
	s.releasePlaces(b)
	s.bookings.remove(b.id)
}

// releasePlaces frees the places of b's parts. Callers hold s.mu.
func (s *Sandbox) releasePlaces(b *booking) {
	if op := b.pendingExchange(); op != nil {
		s.dropExchange(b, op)
	}
	for _, part := range b.parts {
		s.releasePart(part)
	}
}

// releasePart frees the places part still holds. Callers hold s.mu.
func (s *Sandbox) releasePart(part *bookedPart) {
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
	s.inventory.release(part.journey.runKey(), part.group, places)
	part.held = false
}
