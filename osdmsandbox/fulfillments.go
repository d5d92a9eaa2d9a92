package osdmsandbox

import (
	"net/http"
	"time"

	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// fulfil serves POST /bookings/{bookingId}/fulfillments: a provisional
// booking is confirmed and gets its ticket (one fulfilment with a control
// number and its PDF document). Fulfilling a fulfilled booking answers
// its fulfilment again.
func (bd *bookingDesk) fulfil(now time.Time, rq *request) *response {
	var req osdm.FulfillmentPostRequest
	if p := decode(rq.body, &req, true); p != nil {
		return problemResponse(p)
	}
	b, p := bd.led.liveBooking(now, rq)
	if p != nil {
		return problemResponse(p)
	}
	switch b.state {
	case stateReleased:
		return problemResponse(osdm.NewProblem(http.StatusConflict, osdm.CodeConfirmationCancelled,
			"booking "+b.id+" was not fulfilled before its confirmationTimeLimit "+b.limit.Format(time.RFC3339)+" and was released"))
	case stateRefunded:
		return problemResponse(osdm.NewProblem(http.StatusConflict, osdm.CodeConfirmationCancelled, "booking "+b.id+" was refunded"))
	case stateFulfilled:
		if op := b.pendingExchange(); op != nil {
			// The fulfilment confirms the exchange.
			bd.exchanges.confirmExchange(now, b, op)
		}
	case statePrebooked:
		f := &osdm.Fulfillment{
			ID:            bd.led.newID("f"),
			Status:        osdm.FulfillmentFulfilled,
			BookingRef:    b.id,
			Summary:       "E-ticket " + b.code,
			CreatedOn:     now,
			ControlNumber: "CN" + shortCode(b.id+"/ticket", 10),
		}
		f.FulfillmentDocumentRefs = documentRefs(bd.led.cfg, f.ID)
		for _, part := range b.parts {
			part.confirmedOn = &now
			f.BookingParts = append(f.BookingParts, osdm.BookingPartReference{ID: part.id})
		}
		b.fulfillment = f
		b.state = stateFulfilled
		// Kept until the train has arrived, and Retention after.
		end := b.lastArrival()
		if end.Before(now) {
			end = now
		}
		b.dropAt = end.Add(bd.led.cfg.Retention)
	}
	b.noteKey(rq.idempotency)
	docs, pending := bd.docs.documents(b, b.fulfillment)
	return withDocuments(jsonResponse(http.StatusOK, &osdm.FulfillmentCollectionResponse{
		Fulfillments:         []osdm.Fulfillment{*b.fulfillment},
		FulfillmentDocuments: docs,
	}), pending)
}

// getFulfillment serves GET /fulfillments/{fulfillmentId}: the fulfilment,
// current or replaced by an exchange, with its document while it is
// FULFILLED.
func (bd *bookingDesk) getFulfillment(now time.Time, rq *request) *response {
	id := rq.fulfillmentID
	var found *booking
	var f *osdm.Fulfillment
	bd.led.bookings.each(func(_ string, b *booking) bool {
		if b.state == stateDeleted {
			return true
		}
		if b.fulfillment != nil && b.fulfillment.ID == id {
			found, f = b, b.fulfillment
			return false
		}
		for i := range b.oldFulfillments {
			if b.oldFulfillments[i].ID == id {
				found, f = b, &b.oldFulfillments[i]
				return false
			}
		}
		return true
	})
	if found == nil || found.client != rq.client {
		// Another client's fulfilment is as unknown as its booking.
		return problemResponse(osdm.NewProblem(http.StatusNotFound, osdm.CodeResourceNotFound, "no fulfillment "+quoteShort(id)))
	}
	// The booking's state is brought up to date first (a pending exchange
	// past its limit is dropped), as for GET /bookings/{bookingId}.
	brq := *rq
	brq.bookingID = found.id
	if _, p := bd.led.liveBooking(now, &brq); p != nil {
		return problemResponse(p)
	}
	out := *f
	docs, pending := bd.docs.documents(found, &out)
	return withDocuments(jsonResponse(http.StatusOK, &osdm.FulfillmentResponse{Fulfillment: &out, FulfillmentDocuments: docs}), pending)
}
