package osdmlegacy

import (
	"context"
	"encoding/json"
	"time"
)

// A booking's kindHold mark lists it for the sweeper (sweepHolds) while it
// may hold places at the legacy system. It is written before the
// booking's BookingRequest leaves (it lists that intent too), and written
// again before an exchange operation's BookingRequest of new places, as
// the first step of that operation, before its record. It is deleted once
// the record holds nothing unfulfilled; that deletion races the next
// exchange operation of the same booking, whose mark would be lost, and
// its new places never released when their hold runs out. So no mark is
// ever deleted unconditionally:
//
//   - the mark says what it lists (holdMark.Exchange): the booking's own
//     BookingRequest and hold, or the new places of its n-th exchange
//     operation (exchangeRecord.N, which only grows);
//   - the call that recorded the change that freed the booking deletes
//     (dropHold) only a mark of what its record already accounts for (the
//     booking's own, or of an exchange up to the record's), and only the
//     very mark it read (store.CompareAndDelete): the mark of a later
//     exchange operation stays, whether it was written before that call
//     read the mark or after;
//   - the sweeper deletes a mark it listed only if it is still the one
//     listed (CompareAndDelete), once it is older than twice the call's
//     timeout (dropStaleHold): a younger one may be an exchange
//     operation's whose record is not written yet;
//   - a mark that does not say what it lists (written by an earlier
//     release) is left to the sweeper.
//
// A mark left by a failure (the record not written, the deletion lost) is
// stale: the sweeper finds the record holding nothing and deletes it.

// holdMark is the value of a kindHold mark.
type holdMark struct {
	BookingID string    `json:"bookingId"`
	At        time.Time `json:"at"`
	// Exchange is what the mark lists: 0 for the booking's own
	// BookingRequest and hold, n for the new places of its n-th exchange
	// operation. Nil in a mark of an earlier release, which did not say.
	Exchange *int `json:"exchange,omitempty"`
}

// markHold lists a booking for the sweeper: its own BookingRequest, then
// its hold.
func (s *settlement) markHold(ctx context.Context, bookingID string, now time.Time) error {
	return s.putHoldMark(ctx, bookingID, 0, now)
}

// markExchangeHold lists a booking for the sweeper while its n-th
// exchange operation may hold new places.
func (s *settlement) markExchangeHold(ctx context.Context, bookingID string, n int, now time.Time) error {
	return s.putHoldMark(ctx, bookingID, n, now)
}

func (s *settlement) putHoldMark(ctx context.Context, bookingID string, n int, now time.Time) error {
	b, _ := json.Marshal(holdMark{BookingID: bookingID, At: now, Exchange: &n})
	return s.store.Put(ctx, storeKey(s.cfg.Partner, kindHold, bookingID), b, 0)
}

// holdsNothing reports whether r holds no places unfulfilled and has no
// message under way: nothing its hold mark could list.
func (r *bookingRecord) holdsNothing() bool {
	return r.Pending == nil && (!r.State.holdsPlaces() || r.State == stateFulfilled && !r.Exchange.holds())
}

// exchangeN is the number of the booking's latest exchange operation, 0
// if none.
func (r *bookingRecord) exchangeN() int {
	if r.Exchange == nil {
		return 0
	}
	return r.Exchange.N
}

// dropHold deletes the hold mark of rec, the record as the caller stored
// it, if rec holds nothing and the mark lists only what rec accounts for;
// a mark written meanwhile, or for a later exchange operation, stays (see
// above). A failure leaves the mark to the sweeper.
func (k *core) dropHold(ctx context.Context, rec *bookingRecord) {
	if !rec.holdsNothing() {
		return
	}
	key := storeKey(k.cfg.Partner, kindHold, rec.ID)
	v, err := k.store.Get(ctx, key)
	if err != nil {
		return // deleted already, or the store failed: the sweeper decides
	}
	var m holdMark
	if json.Unmarshal(v, &m) != nil || m.Exchange == nil || *m.Exchange > rec.exchangeN() {
		return
	}
	_, _ = k.store.CompareAndDelete(ctx, key, v)
}
