package osdmlegacy

// bookings serves a booking of one train: its creation (POST /bookings), reading, cancelling and its record in the store.
type bookings struct {
	*core
	documents  *documents
	journeys   *journeys
	offers     *offers
	settlement *settlement
}
