package converter

import (
	"bytes"
	"context"
	"time"

	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// SettleTimeout bounds the OSDM calls of settling one exchange.
const SettleTimeout = 20 * time.Second

// Settle settles, through x, the exchanges of this journal's partner that
// have no final outcome: those a dead process left (an intent, a booking
// id) and those that ended with the partner's state unknown (a booking
// neither confirmed nor deleted because the partner stopped answering).
// Each is read back at the partner (GET /bookings/{id}; for an intent
// without a booking id, the same POST /bookings with the same
// Idempotency-Key and body first): a confirmed booking is answered with
// its BookingReply, a provisional one is deleted (no client is waiting to
// be told it is booked), one that is gone is
// reported rolled back; the outcome is recorded for the legacy client's
// resend. Exchanges running anywhere (their lease held) are left alone.
// It returns how many exchanges it settled.
func (j *Journal) Settle(ctx context.Context, x Caller) (int, error) {
	var pending []string
	sctx, cancel := detached(ctx)
	err := j.s.Scan(sctx, j.recordPrefix(), func(_ string, raw []byte) error {
		if st, ok := recordState(raw); ok && !pendingState(st) {
			// Most records are finished exchanges kept for their reply:
			// each pass would decode every one of them again.
			return nil
		}
		rec, err := decodeRecord(raw)
		if err == nil && rec.Partner == j.c.partner && pendingState(rec.State) {
			pending = append(pending, rec.MessageID)
		}
		return nil
	})
	cancel()
	if err != nil {
		return 0, err
	}
	n := 0
	for _, id := range pending {
		if ctx.Err() != nil {
			break
		}
		if j.settleOne(ctx, id, x) {
			n++
		}
	}
	return n, nil
}

// recordState reads the state of an encoded record without decoding it:
// the first "state":"...", which is the record's own (every field before
// it is a number, a bool or a string, in which a quote is escaped, and
// the raw bodies come after it). ok is false when it is not found.
func recordState(raw []byte) (string, bool) {
	const key = `"state":"`
	i := bytes.Index(raw, []byte(key))
	if i < 0 {
		return "", false
	}
	v := raw[i+len(key):]
	end := bytes.IndexByte(v, '"')
	if end < 0 {
		return "", false
	}
	return string(v[:end]), true
}

// settleOne settles message id if no one else holds it.
func (j *Journal) settleOne(ctx context.Context, id string, x Caller) bool {
	token, got, err := j.acquire(ctx, id)
	if err != nil || !got {
		return false
	}
	defer j.release(id, token)
	rec, err := j.load(ctx, id)
	if err != nil || rec == nil || rec.State == stateDone {
		return false
	}
	before := rec.Reply
	jx := &journalRun{j: j, rec: rec}
	defer jx.freeBooking()
	if rec.After != nil && rec.BookingID != "" {
		// An after-sales message holds its booking; one that another
		// message holds is settled on a later pass.
		if got, err := jx.tryBooking(ctx, rec.BookingID); err != nil || !got {
			return false
		}
	}
	h := legacy.ReplyHeader{CorrelationID: rec.MessageID, SentAt: j.c.now(), Namespaced: rec.Namespaced}
	cctx, cancel := context.WithTimeout(ctx, SettleTimeout)
	var res *Result
	var settled bool
	if rec.Kind == string(legacy.KindBookingRequest) && (rec.After == nil || rec.After.ExchangeOperationID == "" && rec.After.ExchangeOf == "") {
		res, settled = j.c.resume(cctx, nil, h, x, jx, false)
	} else {
		res, settled = j.c.resumeAfterSales(cctx, nil, h, x, jx)
	}
	cancel()
	if !settled {
		rec.Attempts++
		if before != nil {
			// The reply given stays the reply until something is known.
			rec.Reply = before
			if prev, err := rec.result(); err == nil {
				res = prev
			}
		}
	}
	j.finish(jx, res, settled)
	if j.cfg.Log != nil {
		j.cfg.Log(Settled{MessageID: id, BookingID: rec.BookingID, Outcome: res.Outcome, Done: settled, Text: negativeTextOf(res)})
	}
	return settled
}

func negativeTextOf(res *Result) string {
	if n, ok := res.Reply.(*legacy.NegativeReply); ok {
		return n.Text
	}
	return ""
}

// resume continues the exchange recorded in jx.rec, through x. confirm
// says a legacy client is waiting and was told nothing yet: a provisional
// booking is then confirmed, as its first exchange would have done;
// otherwise it is deleted. m is the resent request, nil when settling in
// the background. settled reports whether the partner's state now
// matches the reply.
func (c *Converter) resume(ctx context.Context, m *legacy.BookingRequest, h legacy.ReplyHeader, x Caller, jx *journalRun, confirm bool) (*Result, bool) {
	rec := jx.rec
	r := &run{c: c, x: x, j: jx, messageID: rec.MessageID, h: h}
	if rec.BookingID == "" {
		if len(rec.BookingBody) == 0 {
			// Nothing was sent to book: start again, if there is a client.
			if m != nil && confirm {
				res := c.convert(ctx, m, x, jx)
				return res, jx.settled(res)
			}
			return r.negative(&legacy.NegativeReply{Code: legacy.CodePartnerUnavailable, Retryable: true,
				Text: "The exchange of message " + rec.MessageID + " with partner " + c.partner + " was cut off before anything was booked; nothing is booked. Send the booking again as a new message."}), true
		}
		// The same POST /bookings (same Idempotency-Key, same body): the
		// partner answers the booking it made, if it made one.
		br, f := r.createBooking(ctx, rec.BookingBody)
		if f != nil {
			if f.uncertain {
				return r.unknown(""), false
			}
			if f.alternative() {
				return r.replacement(f.problem), true
			}
			res := r.fail(f)
			n := res.Reply.(*legacy.NegativeReply)
			n.Text = plain("The booking of message "+rec.MessageID+" was cut off; sent again, "+n.Text+" Nothing is booked for this message as far as the partner says.", 1000)
			return res, true
		}
		if !validRef(br.Booking.ID) {
			res := r.rollback(ctx, br.Booking, &failure{step: StepBooking, code: legacy.CodePartnerRejected, status: 200,
				what: "its booking id is not something a legacy BookingRef can carry (1..128 printable ASCII characters)"})
			return res, jx.deleted
		}
	}
	id := rec.BookingID
	br := new(osdm.BookingResponse)
	if f := r.do(ctx, call{step: StepReadBooking, params: map[string]string{osdm.ParamBookingID: id}, out: br}); f != nil {
		if f.status == 404 || f.code == legacy.CodeBookingNotFound {
			return r.negative(&legacy.NegativeReply{Code: legacy.CodeBookingRolledBack, BookingRef: id, Retryable: true,
				Text: "Partner " + c.partner + " made booking " + id + " for this message, but it no longer exists there (expired or deleted); nothing is booked. Send the booking again later as a new message."}), true
		}
		return r.unknown(id), false
	}
	b := br.Booking
	if b == nil {
		return r.unknown(id), false
	}
	switch bookingState(b) {
	case bookingFulfilled:
		return ok(r.bookingReply(b, &osdm.FulfillmentCollectionResponse{Fulfillments: b.Fulfillments})), true
	case bookingClosed:
		return r.negative(&legacy.NegativeReply{Code: legacy.CodeBookingRolledBack, BookingRef: id, Retryable: true,
			Text: "Partner " + c.partner + " made booking " + id + " for this message, but it was cancelled or released there since; nothing is booked. Send the booking again later as a new message."}), true
	}
	if confirm && (b.ConfirmationTimeLimit == nil || c.now().Before(*b.ConfirmationTimeLimit)) {
		fr, f := r.fulfil(ctx, id)
		if f == nil {
			return ok(r.bookingReply(b, fr)), true
		}
		res := r.rollback(ctx, b, f)
		return res, jx.deleted
	}
	res := r.rollback(ctx, b, &failure{step: StepFulfillments, code: legacy.CodePartnerUnavailable, uncertain: true,
		what: "the exchange was cut off (the converter stopped, or the partner stopped answering) before the booking was confirmed"})
	return res, jx.deleted
}

// unknown is the reply while the partner's state is not known yet: a
// retryable NegativeReply that names the booking when there is one.
func (r *run) unknown(id string) *Result {
	text := "The exchange of message " + r.messageID + " with partner " + r.c.partner + " was cut off and the partner did not say what it booked; "
	if id != "" {
		text = "The exchange of message " + r.messageID + " with partner " + r.c.partner + " was cut off after booking " + id + "; the partner did not say what became of it; "
	}
	text += "the converter settles it as soon as the partner answers. Send the same message again later to get the outcome."
	return r.negative(&legacy.NegativeReply{Code: legacy.CodePartnerUnavailable, BookingRef: id, Retryable: true, Text: text})
}

// States of a booking read back.
const (
	bookingProvisional = iota
	bookingFulfilled
	bookingClosed
)

// bookingState tells a booking read back: fulfilled (a live fulfilment),
// closed (cancelled, released, refunded) or provisional.
func bookingState(b *osdm.Booking) int {
	closed := 0
	for _, fu := range b.Fulfillments {
		if !fulfillmentClosed(fu.Status) {
			return bookingFulfilled
		}
		closed++
	}
	if closed > 0 || refunded(b) || partsClosed(b) {
		return bookingClosed
	}
	return bookingProvisional
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
	if rec.State == stateRefundOffered && a.Original != "" {
		// A technical rollback's offer, never confirmed: confirmed only
		// if it keeps no fee, as on the first run.
		br := new(osdm.BookingResponse)
		if f := r.do(ctx, call{step: StepReadBooking, params: map[string]string{osdm.ParamBookingID: id}, out: br}); f != nil || br.Booking == nil {
			return r.unknown(id), false
		}
		for _, ro := range br.Booking.RefundOffers {
			if ro.ID == a.RefundOfferID && ro.Status != osdm.RefundConfirmed && ro.RefundFee.Amount != 0 {
				res := r.refuseFee(ctx, id, ro)
				return res, jx.settled(res)
			}
		}
	}
	// Confirm (again: same Idempotency-Key, so the partner answers what it
	// did the first time).
	res := r.confirmRefund(ctx, id, osdm.RefundOffer{ID: a.RefundOfferID}, a.Status, a.Places)
	if a.Original != "" {
		res = jx.j.rolledBackReply(ctx, r, a.Original, res)
	}
	return res, jx.settled(res)
}

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
// kind journaled) undoes the booking its original message made, unless
// something happened to it since: wholly cancelled, it is
// ALREADY_CANCELLED (nothing is held, nothing is undone); exchanged or
// partly refunded, INVALID_MESSAGE saying which.
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
	state := bookingState(b)
	if state == bookingClosed {
		// Cancelled, released or refunded since it was made, whatever
		// happened before: nothing of it is held, there is nothing to
		// undo, and it was not rolled back (a CancelRequest would be
		// answered the same).
		return r.negative(&legacy.NegativeReply{Code: legacy.CodeAlreadyCancelled, BookingRef: id,
			Text: "Booking " + id + " of message " + m.OriginalMessageID + " at partner " + r.c.partner +
				" was cancelled or refunded since it was made: nothing of it is held, and nothing was rolled back or changed."})
	}
	if why := changedSince(b); why != "" {
		return r.invalidAbout(id, "Booking "+plain(id, 80)+" of message "+m.OriginalMessageID+" was "+why+" since it was made: a technical rollback undoes a booking only while nothing has happened to it since; cancel what is left with a CancelRequest instead")
	}
	var res *Result
	switch state {
	case bookingFulfilled:
		var live []string
		for _, fu := range b.Fulfillments {
			if !fulfillmentClosed(fu.Status) && fu.ID != "" {
				live = append(live, fu.ID)
			}
		}
		res = r.refund(ctx, id, &osdm.RefundOfferRequest{FulfillmentIDs: live, OverruleCode: osdm.OverruleTechnicalFailure}, legacy.StatusRefunded, nil, true)
	case bookingProvisional:
		if f := r.do(ctx, call{step: StepDeleteBooking, params: params}); f != nil && f.status != 404 {
			return r.failBooking(f, id)
		}
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
