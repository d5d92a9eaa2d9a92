package converter

import (
	"context"
	"time"

	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// synchroState answers a SynchroRequest without rollback from the
// journal: UNKNOWN without a record of the original message, IN_PROGRESS
// while it runs or its outcome at the partner is not settled, DONE with
// its reply, ROLLED_BACK when a rollback undid its booking.
func (j *Journal) synchroState(ctx context.Context, m *legacy.SynchroRequest) *Result {
	h := legacy.ReplyTo(m, j.c.now())
	rec, err := j.load(ctx, m.OriginalMessageID)
	if err != nil {
		return j.storeFailed(h, err)
	}
	if rec == nil && j.leaseHeld(ctx, m.OriginalMessageID) {
		// Being carried out, before its first step was recorded.
		return ok(&legacy.SynchroReply{Header: h, OriginalMessageID: m.OriginalMessageID, State: legacy.StateInProgress})
	}
	return ok(synchroReplyOf(h, m.OriginalMessageID, rec))
}

// leaseHeld reports whether some instance holds the lease of message id.
func (j *Journal) leaseHeld(ctx context.Context, id string) bool {
	key := j.leaseKey(id)
	if j.cfg.Exclusive {
		localLeases.mu.Lock()
		defer localLeases.mu.Unlock()
		l, held := localLeases.m[key]
		return held && time.Now().Before(l.expires)
	}
	sctx, cancel := detached(ctx)
	defer cancel()
	_, err := j.s.Get(sctx, key)
	return err == nil
}

// synchroReplyOf is the SynchroReply the record rec (nil: none) of
// message id gives.
func synchroReplyOf(h legacy.ReplyHeader, id string, rec *exchangeRecord) *legacy.SynchroReply {
	out := &legacy.SynchroReply{Header: h, OriginalMessageID: id, State: legacy.StateUnknown}
	switch {
	case rec == nil:
	case rec.After != nil && rec.After.RolledBack != nil:
		out.State, out.RefundAmount, out.Fee = legacy.StateRolledBack, rec.After.RolledBack.RefundAmount, rec.After.RolledBack.Fee
		if res, err := rec.result(); err == nil {
			out.Reply = res.Reply
		}
	case rec.State == stateDone:
		out.State = legacy.StateDone
		if res, err := rec.result(); err == nil {
			out.Reply = res.Reply
		}
	default:
		out.State = legacy.StateInProgress
	}
	return out
}

// rollback implements ledger: a SynchroRequest with rollback (the only
// kind journaled) undoes the booking its original message made.
func (jx *journalRun) rollback(ctx context.Context, r *run, m *legacy.SynchroRequest) *Result {
	j := jx.j
	orig, err := j.load(ctx, m.OriginalMessageID)
	if err != nil {
		return j.storeFailed(r.h, err)
	}
	if orig == nil && j.leaseHeld(ctx, m.OriginalMessageID) {
		return ok(&legacy.SynchroReply{Header: r.h, OriginalMessageID: m.OriginalMessageID, State: legacy.StateInProgress})
	}
	if !m.Rollback || orig == nil {
		return ok(synchroReplyOf(r.h, m.OriginalMessageID, orig))
	}
	if orig.Kind != string(legacy.KindBookingRequest) {
		return r.invalid("Message " + m.OriginalMessageID + " is a " + plain(orig.Kind, 40) + "; only the booking a BookingRequest made can be rolled back.")
	}
	if orig.State != stateDone || orig.BookingID == "" || (orig.After != nil && orig.After.RolledBack != nil) {
		// Running, unsettled, nothing booked, or rolled back already:
		// the state says which; nothing is done.
		return ok(synchroReplyOf(r.h, m.OriginalMessageID, orig))
	}
	id := orig.BookingID
	// Under the booking's lease, read again: another rollback of the same
	// booking may just have ended.
	if err := jx.holdBooking(ctx, id); err != nil {
		jx.notStarted = true
		return j.bookingHeld(r.h, id, err)
	}
	if orig, err = j.load(ctx, m.OriginalMessageID); err != nil {
		return j.storeFailed(r.h, err)
	}
	if orig == nil || orig.BookingID != id || (orig.After != nil && orig.After.RolledBack != nil) {
		return ok(synchroReplyOf(r.h, m.OriginalMessageID, orig))
	}
	jx.rec.After = &afterSales{Original: orig.MessageID}
	jx.rec.BookingID = id
	params := map[string]string{osdm.ParamBookingID: id}
	br := new(osdm.BookingResponse)
	if f := r.do(ctx, call{step: StepReadBooking, params: params, out: br}); f != nil {
		return r.failBooking(f, id)
	}
	if br.Booking == nil {
		return r.unknown(id)
	}
	b := br.Booking
	if why := changedSince(b); why != "" {
		return r.invalidAbout(id, "Booking "+plain(id, 80)+" of message "+m.OriginalMessageID+" was "+why+" since it was made: a technical rollback undoes a booking only while nothing has happened to it since; cancel what is left with a CancelRequest instead")
	}
	var res *Result
	switch bookingState(b) {
	case bookingFulfilled:
		var live []string
		for _, fu := range b.Fulfillments {
			if !fulfillmentClosed(fu.Status) && fu.ID != "" {
				live = append(live, fu.ID)
			}
		}
		res = r.refund(ctx, id, &osdm.RefundOfferRequest{FulfillmentIDs: live, OverruleCode: osdm.OverruleTechnicalFailure}, legacy.StatusRefunded, nil)
	case bookingProvisional:
		if f := r.do(ctx, call{step: StepDeleteBooking, params: params}); f != nil && f.status != 404 {
			return r.failBooking(f, id)
		}
		res = ok(&legacy.CancelReply{Header: r.h, BookingRef: id, Status: legacy.StatusCancelled})
	default:
		// Cancelled or released since: nothing of it stands.
		res = ok(&legacy.CancelReply{Header: r.h, BookingRef: id, Status: legacy.StatusCancelled})
	}
	return j.rolledBackReply(ctx, r, orig.MessageID, res)
}

// changedSince says what happened to booking b since it was made that a
// technical rollback would undo too: "exchanged" (a fulfilment or booked
// part reads EXCHANGED), "partly refunded" (a refund offer was confirmed);
// "" when neither.
func changedSince(b *osdm.Booking) string {
	for _, fu := range b.Fulfillments {
		if fu.Status == osdm.FulfillmentExchanged {
			return "exchanged"
		}
	}
	for _, bo := range b.BookedOffers {
		for _, a := range bo.Admissions {
			if a.Status == osdm.BookingPartExchanged {
				return "exchanged"
			}
		}
		for _, res := range bo.Reservations {
			if res.Status == osdm.BookingPartExchanged {
				return "exchanged"
			}
		}
	}
	for _, ro := range b.RefundOffers {
		if ro.Status == osdm.RefundConfirmed {
			return "partly refunded"
		}
	}
	return ""
}

// rolledBackReply turns the cancellation res that rolled back the booking
// of message original into the SynchroReply, and records on the
// original's record that it was rolled back. A NegativeReply stays one.
func (j *Journal) rolledBackReply(ctx context.Context, r *run, original string, res *Result) *Result {
	cr, isCancel := res.Reply.(*legacy.CancelReply)
	if !isCancel {
		return res
	}
	rb := &rolledBack{By: r.messageID, RefundAmount: cr.RefundAmount, Fee: cr.Fee}
	if orig, err := j.load(ctx, original); err == nil && orig != nil {
		if orig.After == nil {
			orig.After = &afterSales{}
		}
		orig.After.RolledBack = rb
		orig.Updated = j.c.now().UTC()
		_ = j.save(orig, j.cfg.ReplyTTL)
		if prev, err := orig.result(); err == nil {
			return ok(&legacy.SynchroReply{Header: r.h, OriginalMessageID: original, State: legacy.StateRolledBack,
				RefundAmount: rb.RefundAmount, Fee: rb.Fee, Reply: prev.Reply})
		}
	}
	return ok(&legacy.SynchroReply{Header: r.h, OriginalMessageID: original, State: legacy.StateRolledBack,
		RefundAmount: rb.RefundAmount, Fee: rb.Fee})
}
