package osdmlegacy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// The intent of a legacy message that changes state (a BookingRequest or a
// CancelRequest) is recorded in the booking (bookingRecord.Pending, with
// the exact message) before the message leaves, and cleared when its
// result is recorded. A mark lists it for settlement, so settlement never
// scans every booking: the booking's kindHold mark for its BookingRequest
// (the same mark then lists the hold for the sweeper), a
// kindIntent/<messageId> mark for a CancelRequest. A mark is written
// before the booking enters the intent and deleted after it leaves it: a
// crash leaves at worst a stale mark, which settlement deletes.

// recordTimeout bounds the store writes that record a legacy reply, which
// run even when the call's own time is up: a reply received must not be
// lost for want of a few milliseconds.
const recordTimeout = 5 * time.Second

// workMark is the value of a mark on settlement's work lists (kindIntent,
// kindHold, kindJourneyOpen).
type workMark struct {
	BookingID string    `json:"bookingId"`
	At        time.Time `json:"at"`
	// Exchange is what a hold or journey mark lists: 0 for the booking's
	// own booking (its BookingRequest, then its hold), n for its n-th
	// exchange operation. Nil in an intent mark, and in a hold or journey
	// mark of an earlier release, which did not say.
	Exchange *int `json:"exchange,omitempty"`
}

// within reports whether the mark lists only work up to exchange
// operation n, what a record whose latest exchange is n accounts for. A
// mark that does not say does not.
func (m workMark) within(n int) bool { return m.Exchange != nil && *m.Exchange <= n }

// ahead reports whether the mark lists an exchange operation later than
// n: one whose record is not written yet, or never was.
func (m workMark) ahead(n int) bool { return m.Exchange != nil && *m.Exchange > n }

// putMark writes the mark of kind for id.
func (k *core) putMark(ctx context.Context, kind, id string, m workMark) error {
	b, _ := json.Marshal(m)
	return k.store.Put(ctx, storeKey(k.cfg.Partner, kind, id), b, 0)
}

// dropOwnMark deletes the mark of kind for id, read once, if it lists
// only work up to exchange operation n (what the caller's record, as
// stored, accounts for), and only the very mark read, in one
// CompareAndDelete: a mark written meanwhile, or for a later exchange
// operation, stays. A failure leaves the mark to settlement.
func (k *core) dropOwnMark(ctx context.Context, kind, id string, n int) {
	key := storeKey(k.cfg.Partner, kind, id)
	v, err := k.store.Get(ctx, key)
	if err != nil {
		return // deleted already, or the store failed: settlement decides
	}
	var m workMark
	if json.Unmarshal(v, &m) != nil || !m.within(n) {
		return
	}
	_, _ = k.store.CompareAndDelete(ctx, key, v)
}

// messageID is the legacy messageId of a booking's step: "<booking id>.book",
// "<booking id>.cancel.<attempt>", "<booking id>.pax.<attempt>".
func messageID(bookingID, step string, attempt int) string {
	if step == stepCancel || step == stepPassengers || step == stepExchangeBook {
		return fmt.Sprintf("%s.%s.%d", bookingID, step, attempt)
	}
	return bookingID + "." + step
}

// markIntent lists messageID for settlement.
func (s *settlement) markIntent(ctx context.Context, msgID, bookingID string, now time.Time) error {
	return s.putMark(ctx, kindIntent, msgID, workMark{BookingID: bookingID, At: now})
}

// A booking's kindHold mark lists it for the sweeper (sweepHolds) while it
// may hold places at the legacy system. It is written before the
// booking's BookingRequest leaves (it lists that intent too), and written
// again before an exchange operation's BookingRequest of new places, as
// the first step of that operation, before its record. It is deleted once
// the record holds nothing unfulfilled; that deletion races the next
// exchange operation of the same booking, whose mark would be lost, and
// its new places never released when their hold runs out. So no hold or
// journey mark is ever deleted unconditionally:
//
//   - the mark says what it lists (workMark.Exchange): the booking's own
//     BookingRequest and hold, or the new places of its n-th exchange
//     operation (exchangeRecord.N, which only grows);
//   - the call that recorded the change that freed the booking deletes
//     (dropHold, through dropOwnMark) only a mark of what its record
//     already accounts for, and only the very mark it read: the mark of a
//     later exchange operation stays, whether it was written before that
//     call read the mark or after;
//   - the sweeper deletes a mark it listed only if it is still the one
//     listed (dropMark), once it is older than twice the call's timeout
//     (dropStaleMark): a younger one may be an exchange operation's whose
//     record is not written yet;
//   - a mark that does not say what it lists (written by an earlier
//     release) is left to the sweeper.
//
// A mark left by a failure (the record not written, the deletion lost) is
// stale: the sweeper finds the record holding nothing and deletes it.
// Journey marks follow the same rules (journey_record.go).

// markHold lists a booking for the sweeper: its own BookingRequest, then
// its hold.
func (s *settlement) markHold(ctx context.Context, bookingID string, now time.Time) error {
	return s.markExchangeHold(ctx, bookingID, 0, now)
}

// markExchangeHold lists a booking for the sweeper while its n-th
// exchange operation may hold new places.
func (s *settlement) markExchangeHold(ctx context.Context, bookingID string, n int, now time.Time) error {
	return s.putMark(ctx, kindHold, bookingID, workMark{BookingID: bookingID, At: now, Exchange: &n})
}

// holdsNothing reports whether r holds no places unfulfilled and has no
// message under way: nothing its hold mark could list.
func (rec *bookingRecord) holdsNothing() bool {
	return rec.Pending == nil && (!rec.State.holdsPlaces() || rec.State == stateFulfilled && !rec.Exchange.holds())
}

// exchangeN is the number of the booking's latest exchange operation, 0
// if none.
func (rec *bookingRecord) exchangeN() int {
	if rec.Exchange == nil {
		return 0
	}
	return rec.Exchange.N
}

// dropHold deletes the hold mark of rec, the record as the caller stored
// it, if rec holds nothing and the mark lists only what rec accounts for
// (dropOwnMark).
func (k *core) dropHold(ctx context.Context, rec *bookingRecord) {
	if rec.holdsNothing() {
		k.dropOwnMark(ctx, kindHold, rec.ID, rec.exchangeN())
	}
}

// newPending returns the intent of req for step, leased until now + timeout.
func (s *settlement) newPending(step string, req legacy.Request, now time.Time) (*pendingMessage, error) {
	b, err := legacy.Encode(legacy.JSON, req)
	if err != nil {
		return nil, err
	}
	// A message the legacy codec would refuse is never recorded: a resend
	// must be able to read it back.
	if _, err := legacy.Decode(legacy.JSON, b); err != nil {
		return nil, fmt.Errorf("legacy %s %s: %w", req.Kind(), req.MessageID(), err)
	}
	return &pendingMessage{
		Step: step, MessageID: req.MessageID(), Message: b,
		SentAt: now, LeaseUntil: now.Add(s.cfg.Timeout),
	}, nil
}

// pendingRequest decodes the exact message of an intent, for a resend.
func pendingRequest(p *pendingMessage) (legacy.Request, error) {
	req, err := legacy.Decode(legacy.JSON, p.Message)
	if err != nil {
		return nil, fmt.Errorf("intent %s: stored message unreadable: %w", p.MessageID, err)
	}
	return req, nil
}

// delivery is what became of a legacy message.
type delivery struct {
	// lost is the *SendError of a message that got no usable answer: it
	// may or may not have taken effect, and its intent stays.
	lost error
	// refusal is the NegativeReply that answered it.
	refusal *legacy.NegativeReply
	// proposal is a ReplacementProposal that answered a BookingRequest:
	// another reservation system sells the train; nothing was booked.
	proposal *legacy.ReplacementProposal
	// storeErr is a failure to record the answer: the intent stays.
	storeErr error
}

// settled reports whether the message's result is recorded.
func (d *delivery) settled() bool { return d.lost == nil && d.storeErr == nil }

// unsettled is the answer to a call whose message d did not settle, nil
// when it did: a lost answer is the sendProblem about subject with
// settling (what the caller can do meanwhile) added; a failure to record
// the answer is storeFailed.
func (s *settlement) unsettled(c *call, d *delivery, subject, settling string) *Answer {
	switch {
	case d.lost != nil:
		p := sendProblem(s.cfg.Partner, d.lost, subject)
		p.Detail += "; " + settling
		return problemAnswer(p)
	case d.storeErr != nil:
		return s.storeFailed(c, d.storeErr)
	}
	return nil
}

// deliver sends the pending message of rec (step and messageId given, so
// a record changed meanwhile is not mistaken for it) and records its
// result. It returns the record as stored afterwards.
func (s *settlement) deliver(ctx context.Context, send Sender, rec *bookingRecord) (*bookingRecord, *delivery) {
	p := rec.Pending
	d := &delivery{}
	req, err := pendingRequest(p)
	if err != nil {
		d.storeErr = err
		return rec, d
	}
	reply, err := send.Send(ctx, req)
	return s.recordReply(ctx, rec, reply, err, d)
}

// recordReply records reply (or the send failure err) as the result of
// rec's pending message.
func (s *settlement) recordReply(ctx context.Context, rec *bookingRecord, reply legacy.Reply, err error, d *delivery) (*bookingRecord, *delivery) {
	p := rec.Pending
	if err == nil {
		err = checkReply(p, reply)
	}
	if err != nil {
		// The message may have taken effect: the intent stays, and its
		// lease ends now so a retry or settlement asks again at once.
		d.lost = err
		s.dropLease(ctx, rec.ID, p.MessageID)
		return rec, d
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), recordTimeout)
	defer cancel()
	now := s.now()
	var after *bookingRecord
	switch p.Step {
	case stepBook:
		after, err = s.recordBookResult(rctx, rec.ID, p.MessageID, reply, now, d)
	case stepPassengers:
		after, err = s.passengers.recordPassengerResult(rctx, rec.ID, p.MessageID, reply, now, d)
	case stepExchangeBook:
		after, err = s.exchanges.recordExchangeBookResult(rctx, rec.ID, p.MessageID, reply, now, d)
	case stepCancel:
		if p.Cancel == cancelExchange || p.Cancel == cancelExchangeDrop {
			after, err = s.exchanges.recordExchangeCancelResult(rctx, rec.ID, p.MessageID, reply, now, d)
			break
		}
		after, err = s.recordCancelResult(rctx, rec.ID, p.MessageID, reply, now, d)
	default:
		after, err = s.recordCancelResult(rctx, rec.ID, p.MessageID, reply, now, d)
	}
	if err != nil {
		d.storeErr = err
		return rec, d
	}
	return after, d
}

// checkReply refuses a reply that does not answer p: another message's
// (wrong correlationId) or of a kind the step never gets. Such a reply is
// garbage: the message's outcome stays unknown.
func checkReply(p *pendingMessage, reply legacy.Reply) error {
	garbage := func(why string) error {
		return &SendError{Kind: ErrLegacyGarbage, Err: errors.New(why)}
	}
	if reply == nil {
		return garbage("no reply")
	}
	if c := reply.ReplyHeader().CorrelationID; c != "" && c != p.MessageID {
		return garbage("reply to another message")
	}
	switch reply.(type) {
	case *legacy.NegativeReply:
		return nil
	case *legacy.BookingReply, *legacy.ReplacementProposal:
		if p.Step == stepBook || p.Step == stepExchangeBook {
			return nil
		}
	case *legacy.CancelReply:
		if p.Step == stepCancel {
			return nil
		}
	case *legacy.PassengerDataReply:
		if p.Step == stepPassengers {
			return nil
		}
	}
	return garbage(string(reply.Kind()) + " does not answer a " + p.Step + " message")
}

// recordBookResult records the reply to the BookingRequest msgID:
// PREBOOKED with the reply's places, or FAILED with the refusal.
func (s *settlement) recordBookResult(ctx context.Context, id, msgID string, reply legacy.Reply, now time.Time, d *delivery) (*bookingRecord, error) {
	booked, err := d.booked(reply, now)
	if err != nil {
		return nil, err
	}
	rec, err := s.bookings.updateBooking(ctx, id, func(r *bookingRecord) error {
		if r.Pending == nil || r.Pending.MessageID != msgID {
			return errNoChange // recorded by another (settlement, a retry)
		}
		r.Pending = nil
		if booked != nil {
			if booked.Price.Currency == "" {
				booked.Price = r.Offer.OSDMPrice
			}
			r.State, r.Legacy = statePrebooked, booked
			return nil
		}
		r.State, r.Failure = stateFailed, d.failure(now)
		return nil
	})
	if err != nil {
		return nil, err
	}
	s.afterResult(ctx, rec, msgID)
	return rec, nil
}

// booked reads the reply to a BookingRequest: the places it holds (a
// BookingReply), or nil with the refusal kept in d (a NegativeReply or a
// ReplacementProposal).
func (d *delivery) booked(reply legacy.Reply, now time.Time) (*legacyBooking, error) {
	switch r := reply.(type) {
	case *legacy.BookingReply:
		price, err := legacyPrice(r.Price)
		if err != nil {
			return nil, err
		}
		b := &legacyBooking{
			BookingRef: r.BookingRef, ReservationReference: r.ReservationReference, Status: r.Status,
			Price: price, Places: r.Places, TicketControlNumber: r.TicketControlNumber, RepliedAt: now,
		}
		if b.BookingRef == "" {
			b.BookingRef = r.ReservationReference
		}
		if len(r.PlaceAmounts) == len(r.Places) && len(r.Places) > 0 && r.Price != nil {
			for _, a := range r.PlaceAmounts {
				pp, err := decimalPrice(a, r.Price.Currency)
				if err != nil {
					return nil, err
				}
				b.PlacePrices = append(b.PlacePrices, pp)
			}
		}
		return b, nil
	case *legacy.NegativeReply:
		d.refusal = r
	case *legacy.ReplacementProposal:
		d.proposal = r
	}
	return nil, nil
}

// failure is the refusal a BookingRequest's reply recorded in d stands
// for: the NegativeReply's code and text, or a ReplacementProposal (another
// reservation system sells the train).
func (d *delivery) failure(now time.Time) *legacyRefusal {
	f := &legacyRefusal{At: now}
	if d.refusal != nil {
		f.Code, f.Text, f.Retryable = d.refusal.Code, d.refusal.Text, d.refusal.Retryable
	} else {
		f.Code, f.Text = codeReplacementProposal, "another reservation system sells this train"
	}
	return f
}

// recordCancelResult records the reply to the CancelRequest msgID: the
// booking no longer holds places (CancelReply, or a refusal saying the
// legacy system holds none: ALREADY_CANCELLED, BOOKING_NOT_FOUND), or it
// goes back to where it was (any other refusal).
func (s *settlement) recordCancelResult(ctx context.Context, id, msgID string, reply legacy.Reply, now time.Time, d *delivery) (*bookingRecord, error) {
	out := &cancelOutcome{At: now}
	switch r := reply.(type) {
	case *legacy.CancelReply:
		out.Status = r.Status
		currency := ""
		if r.RefundAmount != nil {
			currency = r.RefundAmount.Currency
		}
		if r.RefundAmount != nil {
			p, err := legacyPrice(r.RefundAmount)
			if err != nil {
				return nil, err
			}
			out.RefundAmount = &p
		}
		if r.Fee != nil && (currency == "" || r.Fee.Currency == currency) {
			p, err := legacyPrice(r.Fee)
			if err != nil {
				return nil, err
			}
			out.Fee = &p
		}
	case *legacy.NegativeReply:
		d.refusal = r
		if r.Code == legacy.CodeAlreadyCancelled || r.Code == legacy.CodeBookingNotFound {
			out.Status = string(r.Code)
		} else {
			out = nil
		}
	}
	rec, err := s.bookings.updateBooking(ctx, id, func(r *bookingRecord) error {
		p := r.Pending
		if p == nil || p.MessageID != msgID {
			return errNoChange
		}
		r.Pending = nil
		if out == nil {
			r.State = p.Revert
			r.LastRefusal = &legacyRefusal{Code: d.refusal.Code, Text: d.refusal.Text, Retryable: d.refusal.Retryable, At: now}
			return nil
		}
		out.Why = p.Cancel
		partial := out.Status == legacy.StatusPartiallyRefunded && p.Cancel == cancelRefund
		if !partial {
			r.Cancel = out
		}
		switch p.Cancel {
		case cancelRefund:
			r.State = stateRefunded
			if partial {
				r.State = p.Revert
			}
			if ro := r.refundOffer(p.RefundOfferID); ro != nil && out.Status != string(legacy.CodeAlreadyCancelled) && out.Status != string(legacy.CodeBookingNotFound) {
				ro.Status = osdm.RefundConfirmed
				confirmed := now
				ro.ConfirmedOn = &confirmed
				if out.RefundAmount != nil {
					ro.Refundable = *out.RefundAmount
				}
				if out.Fee != nil {
					ro.Fee = *out.Fee
				}
				refunded := ro.PassengerIDs
				if !partial || len(refunded) == 0 {
					refunded = r.unrefunded()
				}
				for i := range r.Passengers {
					if contains(refunded, r.Passengers[i].ID) && r.Passengers[i].RefundedBy == "" {
						r.Passengers[i].RefundedBy = ro.ID
					}
				}
			} else {
				// The legacy system held nothing to refund: the booking
				// was cancelled there before. Nothing is confirmed.
				r.State = stateCancelled
			}
		case cancelRelease:
			r.State = stateReleased
		default:
			r.State = stateCancelled
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	s.afterResult(ctx, rec, msgID)
	return rec, nil
}

// afterResult tidies the work lists once a result is recorded: the intent
// mark goes, and so do the hold mark (unless an exchange operation wrote
// its own since: dropHold) and offer claim of a booking that holds nothing
// any more. A failure here leaves a stale mark, which the sweeper and
// settlement delete.
func (s *settlement) afterResult(ctx context.Context, rec *bookingRecord, msgID string) {
	if !strings.HasSuffix(msgID, "."+stepBook) { // a BookingRequest's intent is listed by the hold mark
		_ = s.store.Delete(ctx, storeKey(s.cfg.Partner, kindIntent, msgID))
	}
	if rec.Pending != nil {
		return
	}
	s.dropHold(ctx, rec)
	if rec.State == stateFailed {
		_ = s.store.Delete(ctx, s.bookings.offerClaimKey(rec.Offer.ID))
	}
}

// codeReplacementProposal records a BookingRequest answered by a
// ReplacementProposal (not a NegativeReply code of the protocol).
const codeReplacementProposal legacy.Code = "REPLACEMENT_PROPOSAL"
