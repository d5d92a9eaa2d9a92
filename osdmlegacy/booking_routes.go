package osdmlegacy

import "context"

// The booking side's operations. These are the skeleton's stubs: each
// answers 501 until the booking lifecycle (POST /bookings, fulfilments,
// DELETE, refund offers, passengers) replaces it.

func (f *Facade) createBooking(_ context.Context, c *call) *Answer {
	return f.problem(c, NotOffered("POST /bookings"))
}

func (f *Facade) getBooking(_ context.Context, c *call) *Answer {
	return f.problem(c, NotOffered("GET /bookings/{bookingId}"))
}

func (f *Facade) deleteBooking(_ context.Context, c *call) *Answer {
	return f.problem(c, NotOffered("DELETE /bookings/{bookingId}"))
}

func (f *Facade) createFulfillments(_ context.Context, c *call) *Answer {
	return f.problem(c, NotOffered("POST /bookings/{bookingId}/fulfillments"))
}

func (f *Facade) getFulfillment(_ context.Context, c *call) *Answer {
	return f.problem(c, NotOffered("GET /fulfillments/{fulfillmentId}"))
}

func (f *Facade) createRefundOffers(_ context.Context, c *call) *Answer {
	return f.problem(c, NotOffered("POST /bookings/{bookingId}/refund-offers"))
}

func (f *Facade) getRefundOffer(_ context.Context, c *call) *Answer {
	return f.problem(c, NotOffered("GET /bookings/{bookingId}/refund-offers/{refundOfferId}"))
}

func (f *Facade) patchRefundOffer(_ context.Context, c *call) *Answer {
	return f.problem(c, NotOffered("PATCH /bookings/{bookingId}/refund-offers/{refundOfferId}"))
}

func (f *Facade) patchPassenger(_ context.Context, c *call) *Answer {
	return f.problem(c, NotOffered("PATCH /bookings/{bookingId}/passengers/{passengerId}"))
}
