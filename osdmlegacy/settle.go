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

// Settle finishes what a crash, a lost answer or a store failure left
// undone, from the store alone: for every intent (a legacy message
// recorded but not answered) whose lease is over the legacy system is asked
// with a SynchroRequest what became of it, and the answer recorded; only a
// message it never got is sent again, as the same message (redeliver); a
// booking the legacy system made whose
// hold is over is then released; and every PREBOOKED booking past its
// confirmationTimeLimit is released with a CancelRequest (the sweeper).
// The caller runs it on start and periodically; several instances may run
// it on one store at once (compare-and-set orders their writes, and the
// lease lets one of them ask). It sends through the background sender; with
// none set it does nothing and says so.
func (f *Facade) Settle(ctx context.Context) (SettleReport, error) {
	var rep SettleReport
	send := f.BackgroundSender()
	if send == nil {
		return rep, errNoSender
	}
	f.settleIntents(ctx, send, &rep)
	f.sweepHolds(ctx, send, &rep)
	f.settleJourneys(ctx, send, &rep)
	if rep.Errors > 0 {
		return rep, errors.New("settlement met failures; the work stays listed for the next run")
	}
	return rep, nil
}

// listMarks returns the marks of kind (id -> value); the store is not
// written while a scan runs.
func (f *Facade) listMarks(ctx context.Context, kind string) (map[string][]byte, error) {
	prefix := Key(f.cfg.Partner, kind, "")
	marks := map[string][]byte{}
	err := f.store.Scan(ctx, prefix, func(key string, value []byte) error {
		marks[strings.TrimPrefix(key, prefix)] = append([]byte(nil), value...)
		return nil
	})
	return marks, err
}

// settleIntents settles every intent listed by a KindIntent mark whose lease is over
// (a BookingRequest's intent is listed by its hold mark: sweepHolds).
func (f *Facade) settleIntents(ctx context.Context, send Sender, rep *SettleReport) {
	marks, err := f.listMarks(ctx, KindIntent)
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
		now := f.now()
		rec, _, err := f.loadBooking(ctx, m.BookingID)
		switch {
		case errors.Is(err, errBookingMissing):
			// The mark is written before the record: a crash in between
			// left it, and nothing was sent.
			f.dropStaleMark(ctx, KindIntent, msgID, now.Sub(m.At), rep)
			continue
		case err != nil:
			rep.Errors++
			continue
		}
		p := rec.Pending
		if p == nil || p.MessageID != msgID {
			f.dropStaleMark(ctx, KindIntent, msgID, now.Sub(m.At), rep)
			continue
		}
		f.settleOne(ctx, send, rec, rep)
	}
}

// dropStaleMark deletes the mark of kind for id whose work is done or
// never started, once it is age old: a live call gets twice its timeout
// to write the record the mark lists.
func (f *Facade) dropStaleMark(ctx context.Context, kind, id string, age time.Duration, rep *SettleReport) {
	if age > 2*f.cfg.Timeout {
		_ = f.store.Delete(ctx, Key(f.cfg.Partner, kind, id))
		rep.Stale++
	}
}

// settleOne settles the pending message of rec once its lease is over,
// records the result, and releases a booking whose hold ran out meanwhile.
func (f *Facade) settleOne(ctx context.Context, send Sender, rec *BookingRecord, rep *SettleReport) {
	now := f.now()
	msgID := rec.Pending.MessageID
	if now.Before(rec.Pending.LeaseUntil) {
		rep.Waiting++
		return
	}
	// Take the lease, so that other instances settling at the same time
	// leave this one alone.
	rec, err := f.updateBooking(ctx, rec.ID, func(r *BookingRecord) error {
		if r.Pending == nil || r.Pending.MessageID != msgID || now.Before(r.Pending.LeaseUntil) {
			return &errRefused{}
		}
		r.Pending.LeaseUntil = now.Add(f.cfg.Timeout)
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
	confirming := rec.Pending.Cancel == CancelExchange
	sctx, cancel := context.WithTimeout(ctx, f.cfg.Timeout)
	after, d := f.redeliver(sctx, send, rec)
	cancel()
	if !d.settled() {
		rep.Unresolved++
		return
	}
	rep.Settled++
	if confirming && after.Exchange != nil && after.Exchange.State == ExchangeConfirmed {
		// An exchange confirmed here, not by the client's fulfilment:
		// the new places get the data their BookingRequest could not
		// carry, as the fulfilment would have sent it.
		sctx, cancel := context.WithTimeout(ctx, f.cfg.Timeout)
		after = f.sendUnsentData(sctx, send, after)
		cancel()
	}
	if after.State == StatePrebooked && !f.now().Before(after.HoldUntil) {
		if f.release(ctx, send, after) {
			rep.Released++
		}
	}
}

// dropLease ends the lease of an intent whose message got no answer, so a
// retry (the client's, or the next settlement) may resend it at once.
func (f *Facade) dropLease(ctx context.Context, id, msgID string) {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), recordTimeout)
	defer cancel()
	_, _ = f.updateBooking(rctx, id, func(r *BookingRecord) error {
		if r.Pending == nil || r.Pending.MessageID != msgID {
			return errNoChange
		}
		r.Pending.LeaseUntil = time.Time{}
		return nil
	})
}
