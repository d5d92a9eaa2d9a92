package osdmlegacy

// refunds serves refund offers, of a whole booking or of some passengers.
type refunds struct {
	*core
	bookings *bookings
	journeys *journeys
}
