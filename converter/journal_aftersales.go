package converter

import (
	"context"

	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// States of an after-sales record (a CancelRequest, a SynchroRequest with
// rollback) between its steps.
const (
	// stateRefundOffered: the partner made the refund offer
	// afterSales.RefundOfferID; PATCH CONFIRMED was not sent.
	stateRefundOffered = "refund_offered"
	// stateRefundConfirming: PATCH CONFIRMED is about to be sent, or was
	// sent without a clear answer.
	stateRefundConfirming = "refund_confirming"
	// stateExchangePrebooked: the partner made the exchange operation
	// afterSales.ExchangeOperationID; the confirming fulfilment was not
	// sent.
	stateExchangePrebooked = "exchange_prebooked"
	// stateExchangeConfirming: the confirming fulfilment is about to be
	// sent, or was sent without a clear answer.
	stateExchangeConfirming = "exchange_confirming"
)

// pendingState reports the states settlement looks at.
func pendingState(st string) bool {
	switch st {
	case stateIntent, stateBooked, stateUnsettled, stateRefundOffered, stateRefundConfirming, stateExchangePrebooked, stateExchangeConfirming:
		return true
	}
	return false
}

// afterSales is the progress of an after-sales message, kept in its
// record so that a resend or settlement continues where it stopped, and
// on a booking's record what undid it.
type afterSales struct {
	// RefundOfferID is the refund offer made for the cancellation.
	RefundOfferID string `json:"refundOfferId,omitempty"`
	// Status is the CancelReply status the refund answers.
	Status string `json:"status,omitempty"`
	// Places are the places the refund cancels, for the reply.
	Places []legacy.Place `json:"places,omitempty"`
	// Original is, on a rollback's record, the messageId of the booking
	// rolled back.
	Original string `json:"original,omitempty"`
	// RolledBack is set, on a booking's record, once a SynchroRequest
	// undid the booking.
	RolledBack *rolledBack `json:"rolledBack,omitempty"`
	// ExchangeOf is the booking an exchange replaces (a BookingRequest
	// with ExchangeOf), ExchangeOperationID its operation once made, and
	// Exchange what it costs, for the reply.
	ExchangeOf          string           `json:"exchangeOf,omitempty"`
	ExchangeOperationID string           `json:"exchangeOperationId,omitempty"`
	Exchange            *legacy.Exchange `json:"exchange,omitempty"`
}

// rolledBack says which SynchroRequest undid a booking and what it
// refunded (nothing when the booking was only provisional).
type rolledBack struct {
	By           string        `json:"by"`
	RefundAmount *legacy.Price `json:"refundAmount,omitempty"`
	Fee          *legacy.Price `json:"fee,omitempty"`
}

// refunding implements ledger: the journal keeps what the refund will
// answer, for a resend or settlement.
func (jx *journalRun) refunding(bookingID, status string, places []legacy.Place) {
	rec := jx.rec
	if rec.After == nil {
		rec.After = &afterSales{}
	}
	rec.BookingID, rec.After.Status, rec.After.Places = bookingID, status, places
}

// refundOfferRead records the refund offer the partner made.
func (jx *journalRun) refundOfferRead(out any, err error) {
	ro, ok := out.(*osdm.RefundOfferCollectionResponse)
	if !ok || err != nil || len(ro.RefundOffers) == 0 || ro.RefundOffers[0].ID == "" {
		return
	}
	rec := jx.rec
	if rec.After == nil {
		rec.After = &afterSales{}
	}
	rec.After.RefundOfferID, rec.State, rec.Updated = ro.RefundOffers[0].ID, stateRefundOffered, jx.j.c.now().UTC()
	// Best effort: without it a resend asks for the offer again (same
	// Idempotency-Key) and nothing was confirmed yet.
	_ = jx.j.save(rec, jx.j.cfg.UnsettledTTL)
}

// beforeConfirm records that PATCH CONFIRMED is about to be sent; the call
// is not made when that cannot be recorded.
func (jx *journalRun) beforeConfirm() error {
	rec := jx.rec
	rec.State, rec.Updated = stateRefundConfirming, jx.j.c.now().UTC()
	if err := jx.j.save(rec, jx.j.cfg.UnsettledTTL); err != nil {
		jx.intentErr = err
		return err
	}
	return nil
}

// exchanging implements ledger: the journal keeps the booking exchanged.
func (jx *journalRun) exchanging(bookingID string) {
	rec := jx.rec
	if rec.After == nil {
		rec.After = &afterSales{}
	}
	rec.BookingID, rec.After.ExchangeOf = bookingID, bookingID
}

// exchangeOperationRead records the exchange operation the partner made.
func (jx *journalRun) exchangeOperationRead(out any, err error) {
	opr, ok := out.(*osdm.ExchangeOperationResponse)
	if !ok || err != nil || opr.ExchangeOperation == nil || opr.ExchangeOperation.ID == "" {
		return
	}
	rec, op := jx.rec, opr.ExchangeOperation
	jx.opMade = true
	rec.After.ExchangeOperationID, rec.State, rec.Updated = op.ID, stateExchangePrebooked, jx.j.c.now().UTC()
	if len(op.ExchangeOffers) > 0 {
		rec.After.Exchange = legacyExchange(&op.ExchangeOffers[0])
	}
	// Best effort: without it a resend asks for the operation again
	// (same Idempotency-Key), and an operation never confirmed lapses.
	_ = jx.j.save(rec, jx.j.cfg.UnsettledTTL)
}

// beforeExchangeConfirm records that the fulfilment confirming the
// exchange is about to be sent; it is not sent when that cannot be
// recorded.
func (jx *journalRun) beforeExchangeConfirm() error {
	rec := jx.rec
	rec.State, rec.Updated = stateExchangeConfirming, jx.j.c.now().UTC()
	if err := jx.j.save(rec, jx.j.cfg.UnsettledTTL); err != nil {
		jx.intentErr = err
		return err
	}
	return nil
}

// resumeExchange continues the exchange of jx.rec: the operation is read
// back at the partner; confirmed, the reply is the new booking; still
// pre-booked, it is confirmed when a client resent the message (what it
// asked for), else deleted; gone, the old booking stands.
func (c *Converter) resumeExchange(ctx context.Context, req legacy.Request, h legacy.ReplyHeader, x Caller, jx *journalRun) (*Result, bool) {
	rec := jx.rec
	a := rec.After
	r := &run{c: c, x: x, j: jx, messageID: rec.MessageID, h: h}
	id := a.ExchangeOf
	if a.ExchangeOperationID == "" {
		if req != nil {
			res := c.convert(ctx, req, x, jx)
			return res, jx.settled(res)
		}
		return r.negative(&legacy.NegativeReply{Code: legacy.CodePartnerUnavailable, BookingRef: id, Retryable: true,
			Text: "The exchange of message " + rec.MessageID + " was cut off before partner " + c.partner + " pre-booked anything; booking " + id + " stands unchanged. Send the exchange again as a new message."}), true
	}
	jx.opMade = true
	params := map[string]string{osdm.ParamBookingID: id, osdm.ParamExchangeOperationID: a.ExchangeOperationID}
	opr := new(osdm.ExchangeOperationResponse)
	f := r.do(ctx, call{step: StepReadExchangeOperation, params: params, out: opr})
	switch {
	case f != nil && f.status == 404:
		jx.exchangeDone = true
		return r.negative(&legacy.NegativeReply{Code: legacy.CodePartnerUnavailable, BookingRef: id, Retryable: true,
			Text: "The exchange of message " + rec.MessageID + " was cut off; its exchange operation " + plain(a.ExchangeOperationID, 128) + " at partner " + c.partner +
				" was never confirmed and is gone, so booking " + id + " stands unchanged. Send the exchange again as a new message."}), true
	case f != nil || opr.ExchangeOperation == nil:
		return r.unknown(id), false
	}
	if opr.ExchangeOperation.Status == osdm.ExchangePrebooked && req == nil {
		// No one is waiting to be told it is exchanged: withdraw it.
		df := r.do(ctx, call{step: StepDeleteExchangeOperation, params: params})
		if df != nil && df.status != 404 {
			return r.unknown(id), false
		}
		return r.negative(&legacy.NegativeReply{Code: legacy.CodePartnerUnavailable, BookingRef: id, Retryable: true,
			Text: "The exchange of message " + rec.MessageID + " was cut off before partner " + c.partner + " confirmed it; the exchange was withdrawn and booking " + id +
				" stands unchanged. Send the exchange again as a new message."}), true
	}
	// Confirmed already (the same fulfilment, same Idempotency-Key, answers
	// again) or to be confirmed for the client waiting.
	res := r.confirmExchange(ctx, id, id, a.ExchangeOperationID, a.Exchange)
	return res, jx.settled(res)
}

// resumeAfterSales continues the after-sales message of jx.rec that a
// dead process left or that ended unsettled. req is the resent message
// (nil when settling): a client waiting is answered as the first run
// would have been; without one, a refund offer never confirmed is
// withdrawn and the message answered as not carried out.
func (c *Converter) resumeAfterSales(ctx context.Context, req legacy.Request, h legacy.ReplyHeader, x Caller, jx *journalRun) (*Result, bool) {
	rec := jx.rec
	r := &run{c: c, x: x, j: jx, messageID: rec.MessageID, h: h}
	a := rec.After
	if a != nil && a.ExchangeOf != "" {
		return c.resumeExchange(ctx, req, h, x, jx)
	}
	if a == nil || a.RefundOfferID == "" {
		// Nothing was confirmed: run it again if someone asks, with the
		// same Idempotency-Keys.
		if req != nil {
			res := c.convert(ctx, req, x, jx)
			return res, jx.settled(res)
		}
		return r.negative(&legacy.NegativeReply{Code: legacy.CodePartnerUnavailable, BookingRef: rec.BookingID, Retryable: true,
			Text: "Message " + rec.MessageID + " for partner " + c.partner + " was cut off before anything was changed; send it again as a new message."}), true
	}
	id := rec.BookingID
	if rec.State == stateRefundOffered && req == nil {
		// Never confirmed and no one waiting: withdraw the offer.
		f := r.do(ctx, call{step: StepDeleteRefundOffer, params: map[string]string{osdm.ParamBookingID: id, osdm.ParamRefundOfferID: a.RefundOfferID}})
		if f != nil && f.status != 404 {
			return r.unknown(id), false
		}
		return r.negative(&legacy.NegativeReply{Code: legacy.CodePartnerUnavailable, BookingRef: id, Retryable: true,
			Text: "Message " + rec.MessageID + " was cut off before partner " + c.partner + " confirmed refund offer " + plain(a.RefundOfferID, 128) +
				" for booking " + id + "; the offer was withdrawn and nothing was cancelled. Send the message again as a new message."}), true
	}
	// Confirm (again: same Idempotency-Key, so the partner answers what it
	// did the first time).
	res := r.confirmRefund(ctx, id, osdm.RefundOffer{ID: a.RefundOfferID}, a.Status, a.Places)
	if a.Original != "" {
		res = jx.j.rolledBackReply(ctx, r, a.Original, res)
	}
	return res, jx.settled(res)
}
