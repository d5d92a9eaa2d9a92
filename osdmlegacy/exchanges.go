package osdmlegacy

// exchanges serves exchange offers and exchange operations, of one train or of a journey.
type exchanges struct {
	*core
	bookings   *bookings
	journeys   *journeys
	offers     *offers
	passengers *passengers
	refunds    *refunds
	settlement *settlement
}
