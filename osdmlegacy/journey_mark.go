package osdmlegacy

import (
	"context"
	"encoding/json"
	"time"
)

// A journey's kindJourneyOpen mark lists it for settlement while its
// booking, or an exchange operation of it, is under way. It is written
// before the journey's record (a crash in between leaves at worst a stale
// mark): by the booking, then again by each exchange operation as its
// first step, and by the fulfilment that confirms one. It is deleted once
// the record has nothing open; that deletion races the next exchange
// operation of the journey (a booked journey may be exchanged at once, on
// any instance), whose mark would be lost, and settlement would never
// settle that exchange: the journey would show it open for good. So no
// journey mark is ever deleted unconditionally:
//
//   - the mark says what it lists (journeyMark.Exchange): the journey's
//     booking, or its n-th exchange operation (journeyExchange.N, which
//     only grows);
//   - the call that recorded the result that closed the journey's work
//     (booked, rolled back, an exchange confirmed, failed or given back)
//     deletes (dropJourneyMark) only a mark of what its record accounts
//     for (the booking, or an exchange up to the record's), and only the
//     very mark it read (store.CompareAndDelete): the mark of a later
//     exchange operation stays, whether it was written before that call
//     read the mark or after;
//   - settlement drops a mark of a journey with nothing open only if it is
//     still the one listed (dropMark), and a mark of an exchange the record
//     does not show yet only once stale (dropStaleMark);
//   - a mark that does not say what it lists (written by an earlier
//     release) is left to settlement.
//
// The mark stays readable by an earlier release (an intentMark with one
// more field), and its marks by this one.

// journeyMark is the value of a kindJourneyOpen mark.
type journeyMark struct {
	// BookingID is the journey's booking id.
	BookingID string    `json:"bookingId"`
	At        time.Time `json:"at"`
	// Exchange is what the mark lists: 0 for the journey's booking, n for
	// its n-th exchange operation. Nil in a mark of an earlier release,
	// which did not say.
	Exchange *int `json:"exchange,omitempty"`
}

// markJourneyOpen lists journey id for settlement: its booking (n 0) or
// its n-th exchange operation.
func (j *journeys) markJourneyOpen(ctx context.Context, id string, n int, now time.Time) error {
	b, _ := json.Marshal(journeyMark{BookingID: id, At: now, Exchange: &n})
	return j.store.Put(ctx, storeKey(j.cfg.Partner, kindJourneyOpen, id), b, 0)
}

// exchangeN is the number of the journey's latest exchange operation, 0
// if none (or one of an earlier release, which did not number them).
func (r *journeyRecord) exchangeN() int {
	if r.Exchange == nil {
		return 0
	}
	return r.Exchange.N
}

// nothingOpen reports whether r has nothing for settlement to finish: it
// is booked or failed, with no exchange operation open or confirming.
func (r *journeyRecord) nothingOpen() bool {
	x := r.Exchange
	return (r.State == journeyBooked || r.State == journeyFailed) && !x.open() && (x == nil || !x.Confirming)
}

// lists reports whether v, a journey mark, lists only what r accounts
// for: the booking, or an exchange operation up to r's latest. A mark that
// does not say (an earlier release's) or cannot be read does not.
func (r *journeyRecord) lists(v []byte) bool {
	var m journeyMark
	return json.Unmarshal(v, &m) == nil && m.Exchange != nil && *m.Exchange <= r.exchangeN()
}

// ahead reports whether v, a journey mark, lists an exchange operation
// later than r's latest: one whose record is not written yet, or never
// was.
func (r *journeyRecord) ahead(v []byte) bool {
	var m journeyMark
	return json.Unmarshal(v, &m) == nil && m.Exchange != nil && *m.Exchange > r.exchangeN()
}

// dropJourneyMark deletes the mark of j, the journey as the caller stored
// it, if j has nothing open and the mark lists only what j accounts for;
// a mark written meanwhile, or for a later exchange operation, stays (see
// above). A failure leaves the mark to settlement.
func (j *journeys) dropJourneyMark(ctx context.Context, r *journeyRecord) {
	if !r.nothingOpen() {
		return
	}
	key := storeKey(j.cfg.Partner, kindJourneyOpen, r.ID)
	v, err := j.store.Get(ctx, key)
	if err != nil || !r.lists(v) {
		return // deleted already, the store failed, or not ours: settlement decides
	}
	_, _ = j.store.CompareAndDelete(ctx, key, v)
}
