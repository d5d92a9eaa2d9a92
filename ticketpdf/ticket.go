package ticketpdf

import "time"

// Ticket is what one fulfilment's document shows: a journey of one train
// or more (legs) for the same passengers. Every text field is printed as
// given (after the clean-up of text.go); the caller formats class and
// price in the words it wants the traveller to read. Its JSON form is
// what a stored Placeholder keeps.
type Ticket struct {
	// Operator names the railway that issues the ticket, e.g. "Hermes
	// Rail (RICS 1185)".
	Operator string `json:"operator,omitempty"`
	// Legs are the trains of the journey, in order (at least one for a
	// useful ticket; none prints an empty journey).
	Legs []Leg `json:"legs,omitempty"`
	// Passengers are the travellers' full names, in the order of each
	// leg's Places; "" for a passenger without a name.
	Passengers []string `json:"passengers,omitempty"`
	// BookingCode is the code the traveller quotes, in the Aztec code too.
	BookingCode string `json:"bookingCode,omitempty"`
	// ControlNumber is the ticket control number, in the Aztec code too.
	ControlNumber string `json:"controlNumber,omitempty"`
	// Price is the price paid as printed, e.g. "EUR 84.00".
	Price string `json:"price,omitempty"`
	// Reference names the document, e.g. the fulfilment id; printed small
	// in the footer.
	Reference string `json:"reference,omitempty"`
	// IssuedOn is when the fulfilment was issued: printed, and the PDF's
	// creation date, so that rendering the same ticket again gives the
	// same bytes.
	IssuedOn time.Time `json:"issuedOn"`
}

// Leg is one train of the journey.
type Leg struct {
	// Train is the train as the traveller knows it, e.g. "IC 9203".
	Train string `json:"train,omitempty"`
	// Origin and Destination are where the passengers board and alight.
	Origin      Station `json:"origin"`
	Destination Station `json:"destination"`
	// Departure is the departure from Origin, in the station's local time
	// (the time's own location is printed, never converted); the first
	// leg's date is the travel date.
	Departure time.Time `json:"departure"`
	// Arrival is the arrival at Destination; zero when unknown.
	Arrival time.Time `json:"arrival"`
	// Class is the class and kind of place, e.g. "2nd class, seat".
	Class string `json:"class,omitempty"`
	// Places are the passengers' places on this train, as Passengers (a
	// missing or empty one: no place reserved).
	Places []Place `json:"places,omitempty"`
}

// Station is a station of the journey.
type Station struct {
	// Name is the station's name, in any script.
	Name string `json:"name,omitempty"`
	// Code is its code, e.g. the UIC code "8727100"; "" when none.
	Code string `json:"code,omitempty"`
}

// Place is a reserved place: coach and place numbers.
type Place struct {
	// Coach is the coach number.
	Coach string `json:"coach,omitempty"`
	// Number is the place number in the coach.
	Number string `json:"number,omitempty"`
}
