package osdmlegacy

// journeys serves a booking of a journey with changes: one legacy booking per leg, booked, read, fulfilled and rolled back together.
type journeys struct {
	*core
	bookings   *bookings
	documents  *documents
	exchanges  *exchanges
	offers     *offers
	passengers *passengers
	refunds    *refunds
	settlement *settlement
}
