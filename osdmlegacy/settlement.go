package osdmlegacy

// settlement records the intent of each legacy message before it leaves and settles, without a call, those whose result was never recorded (intents, holds to release, journeys to roll back).
type settlement struct {
	*core
	bookings   *bookings
	exchanges  *exchanges
	journeys   *journeys
	passengers *passengers
}
