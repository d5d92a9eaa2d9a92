package osdmsandbox

import (
	"net/http"
	"strconv"
	"time"

	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// maxRefundOffersPerBooking bounds the refund offers a booking keeps; a
// newer one replaces the oldest proposed one.
const maxRefundOffersPerBooking = 8

// refundOffer is a refund offer of a booking.
type refundOffer struct {
	id          string
	createdOn   time.Time
	validUntil  time.Time
	confirmedOn *time.Time
	overrule    osdm.OverruleCode
	fee         int64
	refundable  int64
}

// osdm renders the refund offer of booking b.
func (ro *refundOffer) osdm(b *booking) osdm.RefundOffer {
	status := osdm.RefundProposed
	if ro.confirmedOn != nil {
		status = osdm.RefundConfirmed
	}
	return osdm.RefundOffer{
		ID:                  ro.id,
		Summary:             "Refund of booking " + b.code,
		CreatedOn:           ro.createdOn,
		ValidFrom:           ro.createdOn,
		ValidUntil:          ro.validUntil,
		ConfirmedOn:         ro.confirmedOn,
		Status:              status,
		AppliedOverruleCode: ro.overrule,
		Fulfillments:        []osdm.Fulfillment{*b.fulfillment},
		RefundFee:           price(ro.fee),
		RefundableAmount:    price(ro.refundable),
	}
}

// createRefundOffer serves POST /bookings/{bookingId}/refund-offers: a
// PROPOSED refund of a fulfilled booking, free with an overruleCode,
// otherwise with a fee of 10 %.
func (s *Sandbox) createRefundOffer(now time.Time, rq *request) *response {
	var req osdm.RefundOfferRequest
	if p := decode(rq.body, &req, false); p != nil {
		return problemResponse(p)
	}
	if len(req.FulfillmentIDs) == 0 {
		return problemResponse(osdm.Invalid(osdm.CodeValidationError, "#/fulfillmentIds", "at least one fulfillmentId is required"))
	}
	b, p := s.liveBooking(now, rq.bookingID)
	if p != nil {
		return problemResponse(p)
	}
	if p := refundRefusal(b); p != nil {
		return problemResponse(p)
	}
	for i, id := range req.FulfillmentIDs {
		if id != b.fulfillment.ID {
			return problemResponse(osdm.NewProblem(http.StatusNotFound, osdm.CodeResourceNotFound, "fulfillment "+strconv.Quote(id)+" is not one of booking "+b.id+"; its fulfillment is "+b.fulfillment.ID).WithPointer("#/fulfillmentIds/" + strconv.Itoa(i)))
		}
	}
	total := b.price()
	fee := refundFee(total, req.OverruleCode)
	ro := &refundOffer{
		id:         s.newID("ro"),
		createdOn:  now,
		validUntil: now.Add(s.cfg.OfferTTL),
		overrule:   req.OverruleCode,
		fee:        fee,
		refundable: total - fee,
	}
	if len(b.refundOffers) >= maxRefundOffersPerBooking {
		b.refundOffers = b.refundOffers[1:]
	}
	b.refundOffers = append(b.refundOffers, ro)
	b.noteKey(rq.idempotency)
	return jsonResponse(http.StatusOK, &osdm.RefundOfferCollectionResponse{RefundOffers: []osdm.RefundOffer{ro.osdm(b)}})
}

// refundRefusal says why booking b cannot be refunded, or nil.
func refundRefusal(b *booking) *osdm.ProblemError {
	switch b.state {
	case statePrebooked:
		return osdm.NewProblem(http.StatusConflict, osdm.CodeOperationNotPermitted,
			"booking "+b.id+" is not fulfilled; delete it (DELETE /bookings/"+b.id+") instead")
	case stateReleased:
		return osdm.NewProblem(http.StatusConflict, osdm.CodeBookingAlreadyCancelled, "booking "+b.id+" was never fulfilled and was released")
	case stateRefunded:
		return osdm.NewProblem(http.StatusConflict, osdm.CodeBookingAlreadyCancelled, "booking "+b.id+" was refunded already")
	}
	return nil
}

// confirmRefundOffer serves PATCH /bookings/{bookingId}/refund-offers/{refundOfferId}
// with {"status":"CONFIRMED"}: the booking is refunded and its places are
// freed. Confirming a confirmed offer again answers it unchanged.
func (s *Sandbox) confirmRefundOffer(now time.Time, rq *request) *response {
	var req osdm.RefundOfferPatchRequest
	if p := decode(rq.body, &req, false); p != nil {
		return problemResponse(p)
	}
	if req.Status != osdm.RefundConfirmed {
		return problemResponse(osdm.Invalid(osdm.CodeValidationError, "#/status", "status must be CONFIRMED (a refund offer can only be confirmed), not "+strconv.Quote(string(req.Status))))
	}
	b, p := s.liveBooking(now, rq.bookingID)
	if p != nil {
		return problemResponse(p)
	}
	ro := b.refundOfferOf(rq.refundOfferID)
	switch {
	case ro == nil:
		return problemResponse(osdm.NewProblem(http.StatusNotFound, osdm.CodeResourceNotFound,
			"booking "+b.id+" has no refund offer "+strconv.Quote(rq.refundOfferID)))
	case ro.confirmedOn != nil:
		return jsonResponse(http.StatusOK, &osdm.RefundOfferResponse{RefundOffer: ptr(ro.osdm(b))})
	}
	if p := refundRefusal(b); p != nil {
		return problemResponse(p)
	}
	if !now.Before(ro.validUntil) {
		return problemResponse(osdm.NewProblem(http.StatusConflict, osdm.CodeOperationNotPermitted,
			"refund offer "+ro.id+" expired at "+ro.validUntil.Format(time.RFC3339)+"; ask for a new one"))
	}
	ro.confirmedOn = &now
	b.state = stateRefunded
	b.fulfillment.Status = osdm.FulfillmentRefunded
	s.releasePlaces(b)
	// The refund is spread over the parts in proportion to their price,
	// the last part taking the rounding remainder.
	left := ro.refundable
	total := b.price()
	for i, part := range b.parts {
		amount := left
		if i < len(b.parts)-1 && total > 0 {
			amount = ro.refundable * part.price / total
		}
		left -= amount
		part.refunded = ptr(amount)
	}
	b.dropAt = now.Add(s.cfg.Retention)
	b.noteKey(rq.idempotency)
	return jsonResponse(http.StatusOK, &osdm.RefundOfferResponse{RefundOffer: ptr(ro.osdm(b))})
}

// refundOfferOf finds refund offer id of booking b, or nil.
func (b *booking) refundOfferOf(id string) *refundOffer {
	for _, ro := range b.refundOffers {
		if ro.id == id {
			return ro
		}
	}
	return nil
}

// getRefundOffer serves GET /bookings/{bookingId}/refund-offers/{refundOfferId}.
func (s *Sandbox) getRefundOffer(now time.Time, rq *request) *response {
	b, p := s.liveBooking(now, rq.bookingID)
	if p != nil {
		return problemResponse(p)
	}
	ro := b.refundOfferOf(rq.refundOfferID)
	if ro == nil {
		return problemResponse(osdm.NewProblem(http.StatusNotFound, osdm.CodeResourceNotFound,
			"booking "+b.id+" has no refund offer "+strconv.Quote(rq.refundOfferID)))
	}
	return jsonResponse(http.StatusOK, &osdm.RefundOfferResponse{RefundOffer: ptr(ro.osdm(b))})
}

// deleteRefundOffer serves DELETE
// /bookings/{bookingId}/refund-offers/{refundOfferId}: a proposed refund
// offer is dropped (204), as is one the booking does not hold (204, as the
// spec says); a confirmed one cannot be (409).
func (s *Sandbox) deleteRefundOffer(now time.Time, rq *request) *response {
	b, p := s.liveBooking(now, rq.bookingID)
	if p != nil {
		return problemResponse(p)
	}
	for i, ro := range b.refundOffers {
		if ro.id != rq.refundOfferID {
			continue
		}
		if ro.confirmedOn != nil {
			return problemResponse(osdm.NewProblem(http.StatusConflict, osdm.CodeOperationNotPermitted,
				"refund offer "+ro.id+" was confirmed on "+ro.confirmedOn.Format(time.RFC3339)+"; a confirmed refund cannot be deleted"))
		}
		b.refundOffers = append(b.refundOffers[:i], b.refundOffers[i+1:]...)
		break
	}
	return &response{status: http.StatusNoContent}
}
