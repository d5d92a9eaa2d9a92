package osdmlegacy

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/caddy-osdm/caddy-osdm/legacy"
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

// eachMark calls settle with every mark of kind, its id, its value and
// that value decoded (zero when it does not decode), and the clock read
// for it, while ctx lasts. A failed listing counts in rep.Errors: the
// marks stay for the next run.
func (s *settlement) eachMark(ctx context.Context, kind string, rep *SettleReport, settle func(id string, v []byte, m workMark, now time.Time)) {
	marks, err := s.listMarks(ctx, kind)
	if err != nil {
		rep.Errors++
		return
	}
	for id, v := range marks {
		if ctx.Err() != nil {
			return
		}
		var m workMark
		_ = json.Unmarshal(v, &m)
		settle(id, v, m, s.now())
	}
}

// recordFound reports whether err, from loading the record the mark of
// kind for id lists, found it; v is the mark's value as listed. The mark
// is written before the record, so a missing record is one being recorded
// or one whose recording failed (nothing was sent): its mark is dropped
// once age is stale, if it is still v (dropStaleMark). Any other failure
// counts in rep.Errors, and the mark stays for the next run.
func (s *settlement) recordFound(ctx context.Context, kind, id string, v []byte, age time.Duration, err error, rep *SettleReport) bool {
	switch {
	case errors.Is(err, errBookingMissing), errors.Is(err, errJourneyMissing):
		s.dropStaleMark(ctx, kind, id, v, age, rep)
		return false
	case err != nil:
		rep.Errors++
		return false
	}
	return true
}

// settleIntents settles every intent listed by a kindIntent mark whose lease is over
// (a BookingRequest's intent is listed by its hold mark: sweepHolds).
func (s *settlement) settleIntents(ctx context.Context, send Sender, rep *SettleReport) {
	s.eachMark(ctx, kindIntent, rep, func(msgID string, v []byte, m workMark, now time.Time) {
		rec, _, err := s.bookings.loadBooking(ctx, m.BookingID)
		if !s.recordFound(ctx, kindIntent, msgID, v, now.Sub(m.At), err, rep) {
			return
		}
		if p := rec.Pending; p == nil || p.MessageID != msgID {
			s.dropStaleMark(ctx, kindIntent, msgID, v, now.Sub(m.At), rep)
			return
		}
		s.settleOne(ctx, send, rec, rep)
	})
}

// dropStaleMark deletes the mark of kind for id, listed as v, whose work
// is done or never started (its record holds no such work, or is
// missing), once the mark is age old: a live call gets twice its timeout
// to write the record the mark lists. Only the mark listed goes
// (dropMark): a resent or retried message writes its mark again before
// its record, and that mark stays.
//
// Known limit: a call that stalls for more than twice its timeout
// between writing its mark and its record can lose its mark to this rule
// (intent, hold and journey marks alike). A client's call and the
// sweeper's release write under the call's deadline, so such a call
// mostly finds its record write refused, having sent nothing; but a write
// already handed to the store when the stall began (in flight to Redis,
// waiting on a bbolt commit) can land after the mark was dropped. Its message then mostly does not leave
// (the deadline is past), and either way no mark lists the record's work:
// settlement never sends, settles or sweeps it; only the client's retry of
// the same call does. A booking that gets its places (from that call or
// its retry) then keeps them past its hold, a caught cancellation leaves
// its booking CANCELLING with its places held, and a journey is not
// rolled back by settlement (its legs, each listed by its own hold mark,
// are still released when the hold runs out). docs/osdm_legacy.md says so
// for operators.
func (s *settlement) dropStaleMark(ctx context.Context, kind, id string, v []byte, age time.Duration, rep *SettleReport) {
	if age > 2*s.cfg.Timeout {
		s.dropMark(ctx, kind, id, v, rep)
	}
}

// dropMark deletes the mark of kind for id only if it is still v, the
// value listed, in one CompareAndDelete: a mark written over it since
// stays for the next run. A store failure counts in rep.Errors.
func (s *settlement) dropMark(ctx context.Context, kind, id string, v []byte, rep *SettleReport) {
	deleted, err := s.store.CompareAndDelete(ctx, storeKey(s.cfg.Partner, kind, id), v)
	if err != nil {
		rep.Errors++
		return
	}
	if deleted {
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

// A message whose answer was lost is never simply sent again: the legacy
// system may have carried it out and forgotten its messageId since (its
// reply cache is bounded), and a resent BookingRequest would then book a
// second time. redeliver asks first with a SynchroRequest, which the
// legacy system answers from its booking records.

// synchroID is the messageId of a SynchroRequest about msgID, new for
// each ask (the answer changes as the original message goes on).
func synchroID(msgID string, now time.Time) string {
	return msgID + ".sync." + strconv.FormatInt(now.UnixNano(), 36)
}

// redeliver settles rec's pending message, which may have left before: a
// SynchroRequest asks what became of it, and its outcome is recorded from
// the answer (DONE: the original reply; ROLLED_BACK: nothing is held). The
// message itself is sent again only when the legacy system says it never
// got it (UNKNOWN), or takes no SynchroRequest (UNSUPPORTED_MESSAGE: a
// version 1 system, which de-duplicates a resend by its messageId).
func (s *settlement) redeliver(ctx context.Context, send Sender, rec *bookingRecord) (*bookingRecord, *delivery) {
	p := rec.Pending
	d := &delivery{}
	now := s.now()
	ask := &legacy.SynchroRequest{
		Header:            legacy.Header{MessageID: synchroID(p.MessageID, now), SentAt: now.UTC().Truncate(time.Second)},
		OriginalMessageID: p.MessageID,
	}
	lost := func(err error) (*bookingRecord, *delivery) {
		d.lost = err
		s.dropLease(ctx, rec.ID, p.MessageID)
		return rec, d
	}
	garbage := func(why string) (*bookingRecord, *delivery) {
		return lost(&SendError{Kind: ErrLegacyGarbage, Err: errors.New(why)})
	}
	reply, err := send.Send(ctx, ask)
	if err != nil {
		return lost(err)
	}
	if c := reply.ReplyHeader().CorrelationID; c != "" && c != ask.Header.MessageID {
		return garbage("reply to another message")
	}
	switch r := reply.(type) {
	case *legacy.SynchroReply:
		if r.OriginalMessageID != "" && r.OriginalMessageID != p.MessageID {
			return garbage("SynchroReply about another message")
		}
		switch r.State {
		case legacy.StateUnknown:
			return s.deliver(ctx, send, rec)
		case legacy.StateDone:
			if r.Reply == nil {
				return garbage("SynchroReply DONE without the reply")
			}
			return s.recordReply(ctx, rec, r.Reply, nil, d)
		case legacy.StateRolledBack:
			return s.recordReply(ctx, rec, rolledBack(p, r), nil, d)
		case legacy.StateInProgress:
			return lost(&SendError{Kind: ErrLegacySlow, Err: errors.New("the legacy system is still carrying out message " + p.MessageID)})
		}
		return garbage("SynchroReply state " + strconv.Quote(shorten(r.State, 20)))
	case *legacy.NegativeReply:
		if r.Code == legacy.CodeUnsupportedMessage {
			return s.deliver(ctx, send, rec)
		}
		return lost(&SendError{Kind: ErrLegacyGarbage, Err: errors.New("the SynchroRequest was refused: " + string(r.Code))})
	}
	return garbage(string(reply.Kind()) + " does not answer a SynchroRequest")
}

// rolledBack is the reply that stands for a message whose booking was
// rolled back at the legacy system: nothing is held any more. A
// BookingRequest (a booking's, or an exchange's of its new places, which
// leaves the booking as it was) is then refused (BOOKING_ROLLED_BACK); any
// later message of the booking finds it cancelled (ALREADY_CANCELLED).
func rolledBack(p *pendingMessage, r *legacy.SynchroReply) legacy.Reply {
	h := legacy.ReplyHeader{CorrelationID: p.MessageID, SentAt: r.Header.SentAt}
	if p.Step == stepBook || p.Step == stepExchangeBook {
		return legacy.NewNegativeReply(h, legacy.CodeBookingRolledBack, "the booking was rolled back at the reservation system")
	}
	return legacy.NewNegativeReply(h, legacy.CodeAlreadyCancelled, "the booking was rolled back at the reservation system")
}

// The sweeper releases PREBOOKED bookings not fulfilled within hold. Its
// work list is in the store (kindHold marks, written before the
// BookingRequest leaves, so they list its intent too), and the deadline is the booking's HoldUntil,
// read against the injected clock: no timer, so a restart or another
// instance carries on where this one stopped.

// sweepHolds releases every booking past its hold and deletes the marks
// of bookings that hold nothing unfulfilled any more.
func (s *settlement) sweepHolds(ctx context.Context, send Sender, rep *SettleReport) {
	s.eachMark(ctx, kindHold, rep, func(id string, v []byte, m workMark, now time.Time) {
		rec, _, err := s.bookings.loadBooking(ctx, id)
		age := now.Sub(m.At)
		if !s.recordFound(ctx, kindHold, id, v, age, err, rep) {
			return
		}
		switch rec.State {
		case statePrebooked:
			if !now.Before(rec.HoldUntil) && s.release(ctx, send, rec) {
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
				s.dropStaleMark(ctx, kindHold, id, v, age, rep)
			} else if rec.Exchange.State == exchangePrebooked && !now.Before(rec.Exchange.HoldUntil) {
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
			s.dropStaleMark(ctx, kindHold, id, v, age, rep)
		}
	})
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
