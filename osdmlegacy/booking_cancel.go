package osdmlegacy

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// DELETE /bookings/{id} before fulfilment, the sweeper's release of an
// expired hold and the confirmation of a refund offer all send one
// CancelRequest, recorded as the booking's intent first.

// deleteBooking cancels a booking that is not fulfilled: 204 once the
// legacy system has freed its places.
func (b *bookings) deleteBooking(ctx context.Context, c *call) *Answer {
	id := c.params[osdm.ParamBookingID]
	c.answer.BookingID = id
	return b.idempotent(ctx, c, func() string { return id }, func(string) (*Answer, bool) {
		rec, a := b.bookingOf(ctx, c)
		if a != nil {
			return a, finalAnswer(a)
		}
		if rec.State == stateCancelled && rec.Cancel != nil && rec.Cancel.Why == cancelDelete {
			return b.noContent(c), true // deleted before: DELETE is idempotent
		}
		rec, d, p := b.cancel(ctx, c.send, rec, cancelDelete, "", nil)
		if p != nil {
			return problemAnswer(p), finalProblem(p)
		}
		if a, final := b.cancelFailed(c, rec, d); a != nil {
			return a, final
		}
		return b.noContent(c), true
	})
}

// cancel records the intent of a CancelRequest for rec (why: cancelDelete,
// cancelRelease or cancelRefund with the refund offer rid and reason code)
// and sends it, or resends the one under way once its lease is over. A
// problem means the booking is not in a state to be cancelled so (nothing
// sent).
func (b *bookings) cancel(ctx context.Context, send Sender, rec *bookingRecord, why, rid string, reason *int) (*bookingRecord, *delivery, *osdm.ProblemError) {
	return b.cancelQuoted(ctx, send, rec, why, rid, reason, why == cancelRefund)
}

// cancelQuoted is cancel; with requote, a refund whose offer would no
// longer be quoted as it was (quoteStands: a refund of other passengers
// confirmed since changes its fee or amount) is refused with nothing
// sent, checked with the booking's record as it is written, so that the
// legacy system never keeps a fee, nor refunds an amount, the consumer was
// not quoted. A journey's refund already under way on earlier trains goes
// on without it: a journey is not left half refunded.
func (b *bookings) cancelQuoted(ctx context.Context, send Sender, rec *bookingRecord, why, rid string, reason *int, requote bool) (*bookingRecord, *delivery, *osdm.ProblemError) {
	now := b.now()
	if rec.State == stateCancelling && rec.Pending != nil && rec.Pending.Cancel == why && rec.Pending.RefundOfferID == rid {
		if now.Before(rec.Pending.LeaseUntil) {
			return nil, nil, stateProblem(rec, "cancelled")
		}
		after, d := b.settlement.redeliver(ctx, send, rec)
		return after, d, nil
	}
	from := statePrebooked
	verb := "deleted"
	switch why {
	case cancelRefund:
		from, verb = stateFulfilled, "refunded"
	case cancelReplaced:
		from, verb = stateFulfilled, "exchanged"
	case cancelRelease:
		verb = "released"
	}
	rec, err := b.updateBooking(ctx, rec.ID, func(r *bookingRecord) error {
		if r.State != from || r.Legacy == nil {
			return &errRefused{stateProblem(r, verb)}
		}
		if r.Exchange.holds() {
			return &errRefused{exchangeUnderWay(r, now)}
		}
		if why == cancelRelease && now.Before(r.HoldUntil) {
			return &errRefused{stateProblem(r, verb)}
		}
		req := &legacy.CancelRequest{BookingRef: r.Legacy.BookingRef, ReasonCode: reason}
		if why != cancelRefund && why != cancelReplaced {
			// Places never sold are released without a fee. A refund
			// and a journey's train an exchange replaces are cancelled
			// with the reason code given: none, the legacy system's
			// ordinary conditions (its cancellation fee, quoted).
			req.ReasonCode = b.releaseReason()
		}
		if why == cancelRefund {
			places, p := r.refundPlaces(rid)
			if p != nil {
				return &errRefused{p}
			}
			req.Places = places
			if requote {
				if p := r.quoteStands(b.cfg.RefundFee, r.refundOffer(rid)); p != nil {
					return &errRefused{p}
				}
			}
		}
		return b.pendCancel(ctx, r, req, why, rid, stateCancelling, now)
	})
	return b.deliverCancel(ctx, send, rec, err)
}

// releaseReason is the reason code of a CancelRequest that releases places
// nobody bought (a DELETE before fulfilment, a hold run out, an exchange's
// new places dropped): the reason table's TECHNICAL_FAILURE code, so the
// legacy system keeps no cancellation fee on them. A table without one
// takes DefaultReasons' (1).
func (b *bookings) releaseReason() *int {
	code, ok := b.cfg.Reasons[osdm.OverruleTechnicalFailure]
	if !ok {
		code = DefaultReasons()[osdm.OverruleTechnicalFailure]
	}
	return &code
}

// pendCancel records on r the CancelRequest req as the message under way
// (its next attempt's messageId, its intent marked): kind and rid say what
// it cancels, r goes to state, and back to its state now on a refusal.
func (b *bookings) pendCancel(ctx context.Context, r *bookingRecord, req *legacy.CancelRequest, kind, rid string, state bookingState, now time.Time) error {
	attempt := r.CancelAttempts + 1
	req.Header = legacy.Header{MessageID: messageID(r.ID, stepCancel, attempt), SentAt: now.UTC().Truncate(time.Second)}
	pending, err := b.settlement.newPending(stepCancel, req, now)
	if err != nil {
		return err
	}
	pending.Cancel, pending.RefundOfferID, pending.Revert = kind, rid, r.State
	if err := b.settlement.markIntent(ctx, pending.MessageID, r.ID, now); err != nil {
		return err
	}
	r.CancelAttempts = attempt
	r.State, r.Pending = state, pending
	return nil
}

// deliverCancel sends the CancelRequest that pendCancel recorded in rec,
// or answers why none was: the refusal, or the store's failure.
func (b *bookings) deliverCancel(ctx context.Context, send Sender, rec *bookingRecord, err error) (*bookingRecord, *delivery, *osdm.ProblemError) {
	if p := refusedBy(err); p != nil {
		return rec, nil, p
	}
	if err != nil {
		return nil, &delivery{storeErr: err}, nil
	}
	after, d := b.settlement.deliver(ctx, send, rec)
	return after, d, nil
}

// cancelFailed is the answer when a CancelRequest did not end in the
// booking holding nothing, nil when it did. final says whether the answer
// is the last word (not a lost answer being settled).
func (b *bookings) cancelFailed(c *call, rec *bookingRecord, d *delivery) (*Answer, bool) {
	subject := "cancelling booking "
	if rec != nil {
		subject += rec.ID
	}
	if a := b.settlement.unsettled(c, d, subject, "the cancellation is being settled: retry to learn its outcome"); a != nil {
		return a, false
	}
	switch {
	case rec.State.holdsPlaces() && d.refusal != nil:
		p := NegativeProblem(d.refusal, subject)
		return problemAnswer(p), finalProblem(p)
	case rec.State.holdsPlaces():
		p := stateProblem(rec, "cancelled")
		return problemAnswer(p), finalProblem(p)
	}
	return nil, true
}

// errNoSender is background work without a sender to send through.
var errNoSender = errors.New("no background sender: settlement sends nothing")

// refundPlaces returns the places a CancelRequest confirming refund offer
// rid lists: none when it refunds every place still booked (a whole
// cancellation of what is left), else its passengers' places. A passenger
// refunded since the offer was made is refused: a place is refunded once.
func (rec *bookingRecord) refundPlaces(rid string) ([]legacy.Place, *osdm.ProblemError) {
	ro := rec.refundOffer(rid)
	if ro == nil {
		return nil, osdm.NewProblem(http.StatusNotFound, osdm.CodeRefundOfferNotFound, "booking "+rec.ID+" has no refund offer "+quoteShort(rid))
	}
	left := rec.unrefunded()
	if len(ro.PassengerIDs) == 0 {
		return nil, nil
	}
	for _, pid := range ro.PassengerIDs {
		if !contains(left, pid) {
			return nil, osdm.NewProblem(http.StatusConflict, osdm.CodeBookingRefunded,
				"passenger "+pid+" of booking "+rec.ID+" was refunded by another refund offer since refund offer "+rid+" was made; ask for a new one")
		}
	}
	if len(ro.PassengerIDs) == len(left) {
		return nil, nil
	}
	places := rec.placesOf(ro.PassengerIDs)
	if len(places) != len(ro.PassengerIDs) {
		return nil, osdm.NewProblem(http.StatusConflict, osdm.CodeRejected,
			"the reservation system gave no place numbers for booking "+rec.ID+": its places cannot be refunded one by one; refund the whole booking")
	}
	return places, nil
}
