package osdmlegacy

// passengers serves a booking's passengers: reading them, and a change of name or date of birth sent to the legacy system.
type passengers struct {
	*core
	bookings   *bookings
	settlement *settlement
}
