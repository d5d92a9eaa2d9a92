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
	// pax are the passengers refunded, as (part, passenger) positions:
	// every passenger still booked when the offer was made, or those of
	// its refundSpecifications.
	pax []paxRef
	// partial: made from refundSpecifications that leave passengers booked.
	partial bool
}

// paxRef is passenger k of part p of a booking.
type paxRef struct{ p, k int }

// osdm renders the refund offer of booking b.
func (ro *refundOffer) osdm(b *booking) osdm.RefundOffer {
	status := osdm.RefundProposed
	if ro.confirmedOn != nil {
		status = osdm.RefundConfirmed
	}
	summary := "Refund of booking " + b.code
	if ro.partial {
		summary = "Partial refund of booking " + b.code + ": passengers"
		for _, r := range ro.pax {
			summary += " " + b.parts[r.p].passengerIDs[r.k]
		}
	}
	return osdm.RefundOffer{
		ID:                  ro.id,
		Summary:             summary,
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

// refundDesk makes, confirms, answers and deletes refund offers.
type refundDesk struct {
	led *ledger
}

// createRefundOffer serves POST /bookings/{bookingId}/refund-offers: a
// PROPOSED refund of a fulfilled booking, free with an overruleCode,
// otherwise with a fee of 10 %.
func (rd *refundDesk) createRefundOffer(now time.Time, rq *request) *response {
	var req osdm.RefundOfferRequest
	if p := decode(rq.body, &req, false); p != nil {
		return problemResponse(p)
	}
	if len(req.FulfillmentIDs) == 0 {
		return problemResponse(osdm.Invalid(osdm.CodeValidationError, "#/fulfillmentIds", "at least one fulfillmentId is required"))
	}
	b, p := rd.led.liveBooking(now, rq)
	if p != nil {
		return problemResponse(p)
	}
	if p := refundRefusal(b); p != nil {
		return problemResponse(p)
	}
	for i, id := range req.FulfillmentIDs {
		if id != b.fulfillment.ID {
			return problemResponse(osdm.NewProblem(http.StatusNotFound, osdm.CodeResourceNotFound, "fulfillment "+quoteShort(id)+" is not one of booking "+b.id+"; its fulfillment is "+b.fulfillment.ID).WithPointer("#/fulfillmentIds/" + strconv.Itoa(i)))
		}
	}
	pax, partial, p := b.refundedPassengers(req.RefundSpecifications)
	if p != nil {
		return problemResponse(p)
	}
	var total int64
	for _, r := range pax {
		total += b.parts[r.p].paxPrice[r.k]
	}
	fee := refundFee(total, req.OverruleCode)
	ro := &refundOffer{
		id:         rd.led.newID("ro"),
		createdOn:  now,
		validUntil: now.Add(rd.led.cfg.OfferTTL),
		overrule:   req.OverruleCode,
		fee:        fee,
		refundable: total - fee,
		pax:        pax,
		partial:    partial,
	}
	if len(b.refundOffers) >= maxRefundOffersPerBooking {
		b.refundOffers = b.refundOffers[1:]
	}
	b.refundOffers = append(b.refundOffers, ro)
	b.noteKey(rq.idempotency)
	return jsonResponse(http.StatusOK, &osdm.RefundOfferCollectionResponse{RefundOffers: []osdm.RefundOffer{ro.osdm(b)}})
}

// refundedPassengers are the passengers a refund offer with specs
// refunds: without specs, every passenger still booked; with them, the
// passengers they name (passengerIds) or those of the parts they name
// (bookingPartIds). partial reports passengers left booked.
func (b *booking) refundedPassengers(specs []osdm.RefundSpecification) ([]paxRef, bool, *osdm.ProblemError) {
	var all []paxRef
	for pi, part := range b.parts {
		if part.exchanged {
			continue
		}
		for k := range part.passengerIDs {
			if part.live(k) {
				all = append(all, paxRef{pi, k})
			}
		}
	}
	if len(specs) == 0 {
		return all, false, nil
	}
	chosen := map[paxRef]bool{}
	for i, spec := range specs {
		at := "#/refundSpecifications/" + strconv.Itoa(i)
		if spec.FulfillmentID != b.fulfillment.ID {
			return nil, false, osdm.NewProblem(http.StatusNotFound, osdm.CodeResourceNotFound, "fulfillment "+strconv.Quote(spec.FulfillmentID)+" is not one of booking "+b.id+"; its fulfillment is "+b.fulfillment.ID).WithPointer(at + "/fulfillmentId")
		}
		if len(spec.PassengerIDs) == 0 && len(spec.BookingPartIDs) == 0 {
			return nil, false, osdm.Invalid(osdm.CodeValidationError, at, "a refund specification names passengerIds or bookingPartIds")
		}
		for j, pid := range spec.PassengerIDs {
			found := false
			for pi, part := range b.parts {
				if part.exchanged {
					continue
				}
				for k, id := range part.passengerIDs {
					if id != pid {
						continue
					}
					found = true
					if !part.live(k) {
						return nil, false, osdm.NewProblem(http.StatusConflict, osdm.CodeBookingAlreadyCancelled, "passenger "+pid+" of booking "+b.id+" was refunded already").WithPointer(at + "/passengerIds/" + strconv.Itoa(j))
					}
					chosen[paxRef{pi, k}] = true
				}
			}
			if !found {
				return nil, false, osdm.NewProblem(http.StatusNotFound, osdm.CodeResourceNotFound, "booking "+b.id+" has no passenger "+strconv.Quote(pid)).WithPointer(at + "/passengerIds/" + strconv.Itoa(j))
			}
		}
		for j, partID := range spec.BookingPartIDs {
			found := false
			for pi, part := range b.parts {
				if part.id != partID {
					continue
				}
				found = true
				if part.liveCount() == 0 {
					return nil, false, osdm.NewProblem(http.StatusConflict, osdm.CodeBookingAlreadyCancelled, "booking part "+partID+" of booking "+b.id+" was refunded already").WithPointer(at + "/bookingPartIds/" + strconv.Itoa(j))
				}
				for k := range part.passengerIDs {
					if part.live(k) {
						chosen[paxRef{pi, k}] = true
					}
				}
			}
			if !found {
				return nil, false, osdm.NewProblem(http.StatusNotFound, osdm.CodeResourceNotFound, "booking "+b.id+" has no booking part "+strconv.Quote(partID)).WithPointer(at + "/bookingPartIds/" + strconv.Itoa(j))
			}
		}
	}
	var out []paxRef
	for _, r := range all {
		if chosen[r] {
			out = append(out, r)
		}
	}
	return out, len(out) < len(all), nil
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
func (rd *refundDesk) confirmRefundOffer(now time.Time, rq *request) *response {
	var req osdm.RefundOfferPatchRequest
	if p := decode(rq.body, &req, false); p != nil {
		return problemResponse(p)
	}
	if req.Status != osdm.RefundConfirmed {
		return problemResponse(osdm.Invalid(osdm.CodeValidationError, "#/status", "status must be CONFIRMED (a refund offer can only be confirmed), not "+strconv.Quote(string(req.Status))))
	}
	b, p := rd.led.liveBooking(now, rq)
	if p != nil {
		return problemResponse(p)
	}
	ro := b.refundOfferOf(rq.refundOfferID)
	switch {
	case ro == nil:
		return problemResponse(osdm.NewProblem(http.StatusNotFound, osdm.CodeResourceNotFound,
			"booking "+b.id+" has no refund offer "+quoteShort(rq.refundOfferID)))
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
	if op := b.pendingExchange(); op != nil {
		// The exchange would move the passengers refunded to the new
		// journey as well.
		return problemResponse(osdm.NewProblem(http.StatusConflict, osdm.CodeOperationNotPermitted,
			"booking "+b.id+" has exchange operation "+op.id+" pre-booked; confirm it (POST .../fulfillments) or delete it before confirming a refund"))
	}
	for _, r := range ro.pax {
		if b.parts[r.p].exchanged {
			// Its value went to the exchange: refunding it pays it twice.
			return problemResponse(osdm.NewProblem(http.StatusConflict, osdm.CodeOperationNotPermitted,
				"refund offer "+ro.id+" was made for the journey booking "+b.id+" was exchanged from; ask for a new offer"))
		}
		if !b.parts[r.p].live(r.k) {
			// Another refund took this passenger since the offer was made.
			return problemResponse(osdm.NewProblem(http.StatusConflict, osdm.CodeBookingAlreadyCancelled,
				"refund offer "+ro.id+" refunds passenger "+b.parts[r.p].passengerIDs[r.k]+", who was refunded since by another refund; ask for a new offer"))
		}
	}
	ro.confirmedOn = &now
	// The refund is spread over the passengers in proportion to their
	// price, the last taking the rounding remainder; each passenger's
	// place is freed.
	var total int64
	for _, r := range ro.pax {
		total += b.parts[r.p].paxPrice[r.k]
	}
	left := ro.refundable
	for i, r := range ro.pax {
		part := b.parts[r.p]
		amount := left
		if i < len(ro.pax)-1 && total > 0 {
			amount = ro.refundable * part.paxPrice[r.k] / total
		}
		left -= amount
		var before int64
		if part.refunded != nil {
			before = *part.refunded
		}
		part.refunded = ptr(before + amount)
		if part.gone == nil {
			part.gone = make([]bool, len(part.passengerIDs))
		}
		part.gone[r.k] = true
		if part.held {
			rd.led.inventory.release(part.journey.runKey(), part.group, part.places[r.k:r.k+1])
		}
	}
	left = 0
	for _, part := range b.parts {
		if part.exchanged {
			continue
		}
		left += int64(part.liveCount())
		if part.liveCount() == 0 {
			part.held = false
		}
	}
	if left == 0 {
		b.state = stateRefunded
		b.fulfillment.Status = osdm.FulfillmentRefunded
		b.fulfillment.FulfillmentDocumentRefs = nil // a refunded ticket is no longer offered
		b.dropAt = now.Add(rd.led.cfg.Retention)
	}
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
func (rd *refundDesk) getRefundOffer(now time.Time, rq *request) *response {
	b, p := rd.led.liveBooking(now, rq)
	if p != nil {
		return problemResponse(p)
	}
	ro := b.refundOfferOf(rq.refundOfferID)
	if ro == nil {
		return problemResponse(osdm.NewProblem(http.StatusNotFound, osdm.CodeResourceNotFound,
			"booking "+b.id+" has no refund offer "+quoteShort(rq.refundOfferID)))
	}
	return jsonResponse(http.StatusOK, &osdm.RefundOfferResponse{RefundOffer: ptr(ro.osdm(b))})
}

// deleteRefundOffer serves DELETE
// /bookings/{bookingId}/refund-offers/{refundOfferId}: a proposed refund
// offer is dropped (204), as is one the booking does not hold (204, as the
// spec says); a confirmed one cannot be (409).
func (rd *refundDesk) deleteRefundOffer(now time.Time, rq *request) *response {
	b, p := rd.led.liveBooking(now, rq)
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
