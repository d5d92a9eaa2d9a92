package osdmsandbox

import (
	"net/http"
	"time"

	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// fulfil serves POST /bookings/{bookingId}/fulfillments: a provisional
// booking is confirmed and gets its ticket (one fulfilment with a control
// number). Fulfilling a fulfilled booking answers its fulfilment again.
func (s *Sandbox) fulfil(now time.Time, rq *request) *response {
	var req osdm.FulfillmentPostRequest
	if p := decode(rq.body, &req, true); p != nil {
		return problemResponse(p)
	}
	b, p := s.liveBooking(now, rq)
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
			s.confirmExchange(now, b, op)
		}
	case statePrebooked:
		f := &osdm.Fulfillment{
			ID:            s.newID("f"),
			Status:        osdm.FulfillmentFulfilled,
			BookingRef:    b.id,
			Summary:       "E-ticket " + b.code,
			CreatedOn:     now,
			ControlNumber: "CN" + shortCode(b.id+"/ticket", 10),
		}
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
		b.dropAt = end.Add(s.cfg.Retention)
	}
	b.noteKey(rq.idempotency)
	return jsonResponse(http.StatusOK, &osdm.FulfillmentCollectionResponse{Fulfillments: []osdm.Fulfillment{*b.fulfillment}})
}
