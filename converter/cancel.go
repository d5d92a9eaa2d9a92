package converter

import (
	"context"
	"strconv"

	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// cancel answers a CancelRequest: GET the booking; refund its live
// fulfilments (refund offer, then confirm it) when it has any; report
// ALREADY_CANCELLED when everything in it is cancelled or refunded; DELETE
// it when it was never confirmed.
func (r *run) cancel(ctx context.Context, m *legacy.CancelRequest) *Result {
	if why := unsafeSegment(m.BookingRef); why != "" {
		return r.invalid("BookingRef " + strconv.Quote(plain(m.BookingRef, 128)) + " " + why + "; it cannot name a booking at partner " + r.c.partner)
	}
	var overrule osdm.OverruleCode
	if m.ReasonCode != nil {
		o, known := r.c.reasons[*m.ReasonCode]
		if !known {
			return r.invalid("reason code " + strconv.Itoa(*m.ReasonCode) + " is not in the reason table of route " + r.c.partner + " (known codes: " + r.c.knownReasons() + ")")
		}
		overrule = o
	}
	id := m.BookingRef
	params := map[string]string{osdm.ParamBookingID: id}
	br := new(osdm.BookingResponse)
	if f := r.do(ctx, call{step: StepReadBooking, params: params, out: br}); f != nil {
		return r.failBooking(f, id)
	}
	if br.Booking == nil {
		f := &failure{step: StepReadBooking, code: legacy.CodePartnerUnavailable, status: 200, uncertain: true,
			what: r.describeCall(StepReadBooking, id) + " answered without a booking"}
		if prob, code := firstProblem(StepReadBooking, br.Problems); prob != nil && code != "" {
			f.code, f.problem, f.what = code, prob, f.what+describeProblem(prob)
		}
		return r.failBooking(f, id)
	}
	b := br.Booking

	var live []string
	closed := 0
	for _, fu := range b.Fulfillments {
		switch {
		case fulfillmentClosed(fu.Status):
			closed++
		case fu.ID != "":
			live = append(live, fu.ID)
		}
	}
	if len(m.Places) > 0 {
		return r.partialCancel(ctx, b, live, m.Places, overrule)
	}
	switch {
	case len(live) > 0:
		var left []legacy.Place
		if refunded(b) {
			// Partly refunded before: the reply lists the places
			// cancelled now, those that were left.
			for _, h := range heldPlaces(b) {
				left = append(left, h.place)
			}
		}
		return r.refund(ctx, id, &osdm.RefundOfferRequest{FulfillmentIDs: live, OverruleCode: overrule}, legacy.StatusRefunded, left)
	case closed > 0 || refunded(b) || partsClosed(b):
		return r.negative(&legacy.NegativeReply{Code: legacy.CodeAlreadyCancelled, BookingRef: id,
			Text: "Booking " + id + " at partner " + r.c.partner + " is already cancelled or refunded; nothing was changed."})
	}
	if f := r.do(ctx, call{step: StepDeleteBooking, params: params}); f != nil {
		return r.failBooking(f, id)
	}
	return ok(&legacy.CancelReply{Header: r.h, BookingRef: id, Status: legacy.StatusCancelled})
}

// refund refunds what req asks of booking id: POST a refund offer, then
// PATCH it to CONFIRMED. The CancelReply has status and lists places.
func (r *run) refund(ctx context.Context, id string, req *osdm.RefundOfferRequest, status string, places []legacy.Place) *Result {
	r.j.refunding(id, status, places)
	params := map[string]string{osdm.ParamBookingID: id}
	ro := new(osdm.RefundOfferCollectionResponse)
	f := r.do(ctx, call{step: StepRefundOffers, params: params, out: ro, body: req})
	if f == nil && (len(ro.RefundOffers) == 0 || ro.RefundOffers[0].ID == "") {
		f = &failure{step: StepRefundOffers, code: legacy.CodePartnerUnavailable, status: 200, uncertain: true,
			what: r.describeCall(StepRefundOffers, id) + " answered without a refund offer"}
		if len(ro.Problems) > 0 {
			prob := &ro.Problems[0]
			code, known := codeOfProblem(StepRefundOffers, prob.Code)
			if !known {
				code = legacy.CodePartnerRejected
			}
			f.code, f.problem, f.uncertain, f.what = code, prob, false, f.what+describeProblem(prob)
		}
	}
	if f != nil {
		return r.failBooking(f, id)
	}
	return r.confirmRefund(ctx, id, ro.RefundOffers[0], status, places)
}

// confirmRefund confirms refund offer offer of booking id (PATCH
// CONFIRMED, asked again once when the answer is lost) and answers the
// CancelReply with status and places.
func (r *run) confirmRefund(ctx context.Context, id string, offer osdm.RefundOffer, status string, places []legacy.Place) *Result {
	params := map[string]string{osdm.ParamBookingID: id, osdm.ParamRefundOfferID: offer.ID}
	confirm := call{step: StepRefundOffer, params: params, body: &osdm.RefundOfferPatchRequest{Status: osdm.RefundConfirmed}}
	pr := new(osdm.RefundOfferResponse)
	confirm.out = pr
	f := r.do(ctx, confirm)
	if f != nil && f.uncertain {
		// The partner may have refunded and the answer was lost, late or
		// unreadable: the same PATCH with the same Idempotency-Key tells.
		gctx, cancel := graceContext(ctx)
		pr = new(osdm.RefundOfferResponse)
		confirm.out = pr
		if r.do(gctx, confirm) == nil {
			f = nil
		}
		cancel()
	}
	if f != nil {
		text := "Partner " + r.c.partner + " offered refund " + plain(offer.ID, 128) + " for booking " + id + " but confirming it failed, so the booking is not refunded. " +
			"Send the cancellation again as a new message. Cause: " + f.what + "."
		if f.uncertain {
			text = "Partner " + r.c.partner + " offered refund " + plain(offer.ID, 128) + " for booking " + id + " but did not say whether it confirmed it, even when asked again. " +
				"Send the cancellation again as a new message: a refunded booking is then answered ALREADY_CANCELLED. Cause: " + f.what + "."
		}
		return r.negative(&legacy.NegativeReply{Code: f.code, BookingRef: id, PartnerProblem: f.partnerProblem(), Retryable: true, Text: text})
	}
	if pr.RefundOffer != nil {
		offer = *pr.RefundOffer
	}
	return ok(&legacy.CancelReply{Header: r.h, BookingRef: id, Status: status,
		RefundAmount: legacyPrice(&offer.RefundableAmount), Fee: legacyPrice(&offer.RefundFee), Places: places})
}

// failBooking answers a failed call about an existing booking id, naming
// it unless the partner says there is no such booking.
func (r *run) failBooking(f *failure, id string) *Result {
	res := r.fail(f)
	if f.code != legacy.CodeBookingNotFound {
		res.Reply.(*legacy.NegativeReply).BookingRef = id
	}
	return res
}

// refunded reports a booking with a confirmed refund offer.
func refunded(b *osdm.Booking) bool {
	for _, ro := range b.RefundOffers {
		if ro.Status == osdm.RefundConfirmed {
			return true
		}
	}
	return false
}

// fulfillmentClosed reports a fulfilment that is no longer live:
// cancelled, released, refunded, exchanged or expired.
func fulfillmentClosed(s osdm.FulfillmentStatus) bool {
	switch s {
	case osdm.FulfillmentCancelled, osdm.FulfillmentReleased, osdm.FulfillmentRefunded, osdm.FulfillmentExchanged, osdm.FulfillmentExpired:
		return true
	}
	return false
}

// partsClosed reports a booking whose booked parts are all cancelled,
// released, refunded or exchanged (and that has at least one).
func partsClosed(b *osdm.Booking) bool {
	n := 0
	closed := func(s osdm.BookingPartStatus) bool {
		n++
		switch s {
		case osdm.BookingPartCancelled, osdm.BookingPartReleased, osdm.BookingPartRefunded, osdm.BookingPartExchanged:
			return true
		}
		return false
	}
	for _, bo := range b.BookedOffers {
		for _, res := range bo.Reservations {
			if !closed(res.Status) {
				return false
			}
		}
		for _, ad := range bo.Admissions {
			if !closed(ad.Status) {
				return false
			}
		}
	}
	return n > 0
}

func (c *Converter) knownReasons() string {
	codes := make([]int, 0, len(c.reasons))
	for code := range c.reasons {
		codes = append(codes, code)
	}
	return joinInts(codes)
}
