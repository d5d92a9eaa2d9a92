package osdm

// PassengerResponse is the 200 body of GET and PATCH
// /bookings/{bookingId}/passengers/{passengerId}; the PATCH request body is
// a Passenger.
type PassengerResponse struct {
	// Problems are business problems of a successful answer.
	Problems []Problem `json:"problems,omitempty"`
	// Passenger is the passenger in its current state.
	Passenger *Passenger `json:"passenger,omitempty"`
}

// PathPassenger is GET and PATCH of one passenger of a booking.
const PathPassenger = "/bookings/{bookingId}/passengers/{passengerId}"
