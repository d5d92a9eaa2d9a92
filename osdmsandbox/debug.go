package osdmsandbox

import (
	"net/http"
	"slices"
	"time"
)

// BookingInfo is one booking as GET /_sandbox/bookings lists it: the
// partner's state, for tests and for people trying the sandbox. It is not
// OSDM.
type BookingInfo struct {
	// ID is the OSDM booking id.
	ID string `json:"id"`
	// BookingCode is the code shown to travellers.
	BookingCode string `json:"bookingCode"`
	// Status is PREBOOKED, FULFILLED, REFUNDED, RELEASED (not fulfilled in
	// time) or DELETED.
	Status string `json:"status"`
	// OfferIDs are the offers booked.
	OfferIDs []string `json:"offerIds"`
	// Trains are the train numbers booked.
	Trains []string `json:"trains"`
	// Places is the number of places booked.
	Places int `json:"places"`
	// CreatedOn is when it was booked.
	CreatedOn time.Time `json:"createdOn"`
	// ConfirmationTimeLimit is when it is released unless fulfilled.
	ConfirmationTimeLimit time.Time `json:"confirmationTimeLimit"`
	// FulfillmentID is the ticket's id once fulfilled.
	FulfillmentID string `json:"fulfillmentId,omitempty"`
	// IdempotencyKeys are the keys of the calls that acted on it (at most 8).
	IdempotencyKeys []string `json:"idempotencyKeys,omitempty"`
}

// Bookings lists every booking held, oldest first, after the expiries due.
func (s *Sandbox) Bookings() []BookingInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	s.led.sweep(now, true)
	return s.led.bookingInfos(now, nil)
}

// bookingInfos describes the bookings of client, every booking when nil.
func (l *ledger) bookingInfos(now time.Time, client *string) []BookingInfo {
	out := make([]BookingInfo, 0, l.bookings.len())
	l.bookings.each(func(_ string, b *booking) bool {
		if client != nil && b.client != *client {
			return true
		}
		info := BookingInfo{
			ID:                    b.id,
			BookingCode:           b.code,
			Status:                b.state.String(),
			CreatedOn:             b.createdOn,
			ConfirmationTimeLimit: b.limit,
			IdempotencyKeys:       slices.Clone(b.keys),
		}
		for _, part := range b.parts {
			if n := len(info.OfferIDs); n == 0 || info.OfferIDs[n-1] != part.offerID {
				info.OfferIDs = append(info.OfferIDs, part.offerID) // a part per leg
			}
			info.Trains = append(info.Trains, part.journey.train)
			info.Places += len(part.places)
		}
		if b.fulfillment != nil {
			info.FulfillmentID = b.fulfillment.ID
		}
		out = append(out, info)
		return true
	})
	return out
}

// listBookings serves GET /_sandbox/bookings: a JSON array of BookingInfo
// of the client's bookings.
func (bd *bookingDesk) listBookings(now time.Time, rq *request) *response {
	bd.led.sweep(now, true)
	return jsonResponse(http.StatusOK, bd.led.bookingInfos(now, &rq.client))
}
