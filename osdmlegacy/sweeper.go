package osdmlegacy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
)

// The sweeper releases PREBOOKED bookings not fulfilled within hold. Its
// work list is in the store (kindHold marks, written before the
// BookingRequest leaves, so they list its intent too), and the deadline is the booking's HoldUntil,
// read against the injected clock: no timer, so a restart or another
// instance carries on where this one stopped.

// sweepHolds releases every booking past its hold and deletes the marks
// of bookings that hold nothing unfulfilled any more.
func (s *settlement) sweepHolds(ctx context.Context, send Sender, rep *SettleReport) {
	marks, err := s.listMarks(ctx, kindHold)
	if err != nil {
		rep.Errors++
		return
	}
	for id, v := range marks {
		if ctx.Err() != nil {
			return
		}
		rec, _, err := s.bookings.loadBooking(ctx, id)
		switch {
		case errors.Is(err, errBookingMissing):
			// The mark is written before the record: a booking being
			// recorded, or one whose recording failed (nothing was sent).
			var m intentMark
			if json.Unmarshal(v, &m) == nil {
				s.dropStaleMark(ctx, kindHold, id, s.now().Sub(m.At), rep)
			}
			continue
		case err != nil:
			rep.Errors++
			continue
		}
		switch rec.State {
		case statePrebooked:
			if !s.now().Before(rec.HoldUntil) && s.release(ctx, send, rec) {
				rep.Released++
			}
		case stateBooking:
			// The BookingRequest's intent, listed by this mark.
			if rec.Pending != nil {
				s.settleOne(ctx, send, rec, rep)
			}
		case stateFulfilled:
			// An exchange's new places, held until its hold runs out.
			if !rec.Exchange.holds() {
				s.dropStaleHold(ctx, id, v, rep)
			} else if rec.Exchange.State == exchangePrebooked && !s.now().Before(rec.Exchange.HoldUntil) {
				sctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
				after, d, p := s.exchanges.dropExchange(sctx, send, rec, cancelRelease)
				cancel()
				if p == nil && d != nil && d.settled() && after.Exchange.State == exchangeDropped {
					rep.Released++
				}
			}
		case stateCancelling, stateUpdating, stateExchanging:
			// a CancelRequest's or PassengerDataRequest's intent, listed
			// by its own mark; the hold stays listed
		default:
			// FULFILLED and the ends never come back to PREBOOKED.
			s.dropStaleHold(ctx, id, v, rep)
		}
	}
}

// dropStaleHold deletes the hold mark v of booking id, read with a
// record that holds nothing unfulfilled, once the mark is older than
// twice the call's timeout and still the one read. A younger mark may be
// that of an exchange operation whose record is not written yet (the mark
// goes first): deleting it would leave the new places unswept.
func (s *settlement) dropStaleHold(ctx context.Context, id string, v []byte, rep *SettleReport) {
	var m intentMark
	if json.Unmarshal(v, &m) == nil && s.now().Sub(m.At) <= 2*s.cfg.Timeout {
		return
	}
	key := storeKey(s.cfg.Partner, kindHold, id)
	if now, err := s.store.Get(ctx, key); err != nil || !bytes.Equal(now, v) {
		return // rewritten since it was listed: the next sweep decides
	}
	_ = s.store.Delete(ctx, key)
	rep.Stale++
}

// release cancels a PREBOOKED booking whose hold is over and reports
// whether the legacy system no longer holds its places.
func (s *settlement) release(ctx context.Context, send Sender, rec *bookingRecord) bool {
	sctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	defer cancel()
	after, d, p := s.bookings.cancel(sctx, send, rec, cancelRelease, "", nil)
	if p != nil || d == nil || !d.settled() {
		return false
	}
	return after.State == stateReleased
}
