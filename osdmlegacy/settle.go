package osdmlegacy

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"
)

// SettleReport says what one Settle run did, for logs and metrics.
type SettleReport struct {
	// Settled are the intents whose result is now recorded.
	Settled int
	// Unresolved are the intents still without a result (the legacy
	// system is still down or slow); the next run tries again.
	Unresolved int
	// Waiting are the intents whose call may still be waiting for the
	// answer (lease not over); the next run looks again.
	Waiting int
	// Released are the expired holds released with a CancelRequest.
	Released int
	// Stale are the work-list marks deleted because their work was done.
	Stale int
	// Errors are the store or send failures met (the work stays listed).
	Errors int
}

// settle is Facade.Settle.
func (s *settlement) settle(ctx context.Context) (SettleReport, error) {
	var rep SettleReport
	send := s.sender
	if send == nil {
		return rep, errNoSender
	}
	s.settleIntents(ctx, send, &rep)
	s.sweepHolds(ctx, send, &rep)
	s.journeys.settleJourneys(ctx, send, &rep)
	if rep.Errors > 0 {
		return rep, errors.New("settlement met failures; the work stays listed for the next run")
	}
	return rep, nil
}

// listMarks returns the marks of kind (id -> value); the store is not
// written while a scan runs.
func (s *settlement) listMarks(ctx context.Context, kind string) (map[string][]byte, error) {
	prefix := storeKey(s.cfg.Partner, kind, "")
	marks := map[string][]byte{}
	err := s.store.Scan(ctx, prefix, func(key string, value []byte) error {
		marks[strings.TrimPrefix(key, prefix)] = append([]byte(nil), value...)
		return nil
	})
	return marks, err
}

// settleIntents settles every intent listed by a kindIntent mark whose lease is over
// (a BookingRequest's intent is listed by its hold mark: sweepHolds).
func (s *settlement) settleIntents(ctx context.Context, send Sender, rep *SettleReport) {
	marks, err := s.listMarks(ctx, kindIntent)
	if err != nil {
		rep.Errors++
		return
	}
	for msgID, v := range marks {
		if ctx.Err() != nil {
			return
		}
		var m intentMark
		_ = json.Unmarshal(v, &m)
		now := s.now()
		rec, _, err := s.bookings.loadBooking(ctx, m.BookingID)
		switch {
		case errors.Is(err, errBookingMissing):
			// The mark is written before the record: a crash in between
			// left it, and nothing was sent.
			s.dropStaleMark(ctx, kindIntent, msgID, now.Sub(m.At), rep)
			continue
		case err != nil:
			rep.Errors++
			continue
		}
		p := rec.Pending
		if p == nil || p.MessageID != msgID {
			s.dropStaleMark(ctx, kindIntent, msgID, now.Sub(m.At), rep)
			continue
		}
		s.settleOne(ctx, send, rec, rep)
	}
}

// dropStaleMark deletes the mark of kind for id whose work is done or
// never started, once it is age old: a live call gets twice its timeout
// to write the record the mark lists.
func (s *settlement) dropStaleMark(ctx context.Context, kind, id string, age time.Duration, rep *SettleReport) {
	if age > 2*s.cfg.Timeout {
		_ = s.store.Delete(ctx, storeKey(s.cfg.Partner, kind, id))
		rep.Stale++
	}
}

// settleOne settles the pending message of rec once its lease is over,
// records the result, and releases a booking whose hold ran out meanwhile.
func (s *settlement) settleOne(ctx context.Context, send Sender, rec *bookingRecord, rep *SettleReport) {
	now := s.now()
	msgID := rec.Pending.MessageID
	if now.Before(rec.Pending.LeaseUntil) {
		rep.Waiting++
		return
	}
	// Take the lease, so that other instances settling at the same time
	// leave this one alone.
	rec, err := s.bookings.updateBooking(ctx, rec.ID, func(r *bookingRecord) error {
		if r.Pending == nil || r.Pending.MessageID != msgID || now.Before(r.Pending.LeaseUntil) {
			return &errRefused{}
		}
		r.Pending.LeaseUntil = now.Add(s.cfg.Timeout)
		return nil
	})
	var taken *errRefused
	if errors.As(err, &taken) {
		return // another instance took it
	}
	if err != nil {
		rep.Errors++
		return
	}
	confirming := rec.Pending.Cancel == cancelExchange
	sctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
	after, d := s.redeliver(sctx, send, rec)
	cancel()
	if !d.settled() {
		rep.Unresolved++
		return
	}
	rep.Settled++
	if confirming && after.Exchange != nil && after.Exchange.State == exchangeConfirmed {
		// An exchange confirmed here, not by the client's fulfilment:
		// the new places get the data their BookingRequest could not
		// carry, as the fulfilment would have sent it.
		sctx, cancel := context.WithTimeout(ctx, s.cfg.Timeout)
		after = s.passengers.sendUnsentData(sctx, send, after)
		cancel()
	}
	if after.State == statePrebooked && !s.now().Before(after.HoldUntil) {
		if s.release(ctx, send, after) {
			rep.Released++
		}
	}
}

// dropLease ends the lease of an intent whose message got no answer, so a
// retry (the client's, or the next settlement) may resend it at once.
func (s *settlement) dropLease(ctx context.Context, id, msgID string) {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), recordTimeout)
	defer cancel()
	_, _ = s.bookings.updateBooking(rctx, id, func(r *bookingRecord) error {
		if r.Pending == nil || r.Pending.MessageID != msgID {
			return errNoChange
		}
		r.Pending.LeaseUntil = time.Time{}
		return nil
	})
}
