package osdm

import "time"

// BookingRequest is the body of POST /bookings; offers (>= 1) and
// passengerSpecifications (>= 1) are required.
//
//	{"offers": [{"offerId": "o-1", "passengerRefs": ["p1"]}],
//	 "passengerSpecifications": [{"externalRef": "p1", "type": "ADULT"}]}
type BookingRequest struct {
	// Offers are the offers to book.
	Offers []OfferSelection `json:"offers"`
	// PassengerSpecifications describe the passengers of the offers.
	PassengerSpecifications []PassengerSpecification `json:"passengerSpecifications"`
	// Purchaser is who buys, when known.
	Purchaser *PurchaserSpecification `json:"purchaser,omitempty"`
	// ExternalRef is our reference of the booking.
	ExternalRef string `json:"externalRef,omitempty"`
}

// OfferSelection books one offer; offerId and passengerRefs (>= 1) are required.
type OfferSelection struct {
	// OfferID is an Offer.OfferID from the search.
	OfferID string `json:"offerId"`
	// PassengerRefs are the passengers' externalRefs.
	PassengerRefs []string `json:"passengerRefs"`
}

// PassengerSpecification is a passenger of a booking; externalRef and type
// are required.
type PassengerSpecification struct {
	// ExternalRef matches the externalRef used in the search.
	ExternalRef string `json:"externalRef"`
	// Type is the passenger type.
	Type PassengerType `json:"type"`
	// Age in years.
	Age *int `json:"age,omitempty"`
	// DateOfBirth as "YYYY-MM-DD".
	DateOfBirth string `json:"dateOfBirth,omitempty"`
	// Detail holds the name, when given.
	Detail *PersonDetail `json:"detail,omitempty"`
}

// PersonDetail is a person's name and contact; the spec requires both
// firstName and lastName to be present whenever a detail is sent.
type PersonDetail struct {
	// FirstName is the given name.
	FirstName string `json:"firstName"`
	// LastName is the family name.
	LastName string `json:"lastName"`
	// Contact is how to reach the person (email or phone number).
	Contact *ContactDetail `json:"contact,omitempty"`
}

// ContactDetail is how to reach a person; the spec asks for an email or a
// phone number (E.164), both optional in the schema.
type ContactDetail struct {
	// Email address.
	Email string `json:"email,omitempty"`
	// PhoneNumber in E.164 form, e.g. "+41791234567".
	PhoneNumber string `json:"phoneNumber,omitempty"`
}

// PurchaserSpecification is the buyer of a booking (all optional).
type PurchaserSpecification struct {
	// ExternalRef is our reference of the purchaser.
	ExternalRef string `json:"externalRef,omitempty"`
	// Detail holds the name.
	Detail *PersonDetail `json:"detail,omitempty"`
}

// BookingResponse is the 200 body of POST /bookings and GET /bookings/{bookingId}.
type BookingResponse struct {
	// Problems are business problems of a successful answer.
	Problems []Problem `json:"problems,omitempty"`
	// Booking is the booking.
	Booking *Booking `json:"booking,omitempty"`
}

// Booking is an OSDM booking; id, createdOn and passengers (>= 1) are required.
type Booking struct {
	// ID is the partner's booking id, used in every /bookings/{bookingId} path.
	ID string `json:"id"`
	// BookingCode is the code shown to travellers.
	BookingCode string `json:"bookingCode,omitempty"`
	// ExternalRef echoes BookingRequest.ExternalRef.
	ExternalRef string `json:"externalRef,omitempty"`
	// Summary is a free text.
	Summary string `json:"summary,omitempty"`
	// CreatedOn is when it was made.
	CreatedOn time.Time `json:"createdOn"`
	// Passengers of the booking (>= 1).
	Passengers []Passenger `json:"passengers"`
	// ProvisionalPrice is the price before confirmation.
	ProvisionalPrice *Price `json:"provisionalPrice,omitempty"`
	// ConfirmedPrice is the price once confirmed (fulfilled).
	ConfirmedPrice *Price `json:"confirmedPrice,omitempty"`
	// BookedOffers are the offers booked, with their reservations.
	BookedOffers []BookedOffer `json:"bookedOffers,omitempty"`
	// Trips are the trips booked.
	Trips []Trip `json:"trips,omitempty"`
	// ConfirmationTimeLimit is when a provisional booking expires.
	ConfirmationTimeLimit *time.Time `json:"confirmationTimeLimit,omitempty"`
	// Fulfillments are the tickets issued; their ids feed refund offers.
	Fulfillments []Fulfillment `json:"fulfillments,omitempty"`
	// FulfillmentDocuments are the fulfilments' documents (each fulfilment
	// names its own in FulfillmentDocumentRefs).
	FulfillmentDocuments []FulfillmentDocument `json:"fulfillmentDocuments,omitempty"`
	// RefundOffers made for this booking.
	RefundOffers []RefundOffer `json:"refundOffers,omitempty"`
}

// Passenger is a passenger of a booking; id, externalRef and type are required.
type Passenger struct {
	// ID is the partner's passenger id, used in passengerIds.
	ID string `json:"id"`
	// ExternalRef is ours, from the request.
	ExternalRef string `json:"externalRef"`
	// Type is the passenger type.
	Type PassengerType `json:"type"`
	// Age in years.
	Age *int `json:"age,omitempty"`
	// DateOfBirth as "YYYY-MM-DD".
	DateOfBirth string `json:"dateOfBirth,omitempty"`
	// Detail holds the name.
	Detail *PersonDetail `json:"detail,omitempty"`
}

// BookedOffer is an offer in a booking (offerId required).
type BookedOffer struct {
	// OfferID is the booked Offer.OfferID.
	OfferID string `json:"offerId"`
	// Summary is a free text.
	Summary string `json:"summary,omitempty"`
	// Admissions are the booked tickets.
	Admissions []Admission `json:"admissions,omitempty"`
	// Reservations are the booked seat reservations.
	Reservations []Reservation `json:"reservations,omitempty"`
	// TripCoverage is the trip covered.
	TripCoverage *TripCoverage `json:"tripCoverage,omitempty"`
	// Products are the products booked, as the offer listed them
	// (flexibility, service and travel class).
	Products []Product `json:"products,omitempty"`
}

// Booking part object types (the spec's discriminator values).
const (
	ObjectTypeAdmission   = "Admission"
	ObjectTypeReservation = "Reservation"
)

// BookingPart holds the fields common to booked parts (the spec's
// AbstractBookingPart). Required: objectType, id, createdOn, validFrom,
// price, status, passengerIds (>= 1), refundable, exchangeable.
type BookingPart struct {
	// ObjectType is Reservation or Admission.
	ObjectType string `json:"objectType"`
	// ID identifies the part.
	ID string `json:"id"`
	// Summary is a free text.
	Summary string `json:"summary,omitempty"`
	// CreatedOn is when it was booked.
	CreatedOn time.Time `json:"createdOn"`
	// ConfirmableUntil is the deprecated per-part copy of
	// Booking.ConfirmationTimeLimit, required of a PREBOOKED part.
	ConfirmableUntil *time.Time `json:"confirmableUntil,omitempty"`
	// ValidFrom and ValidUntil bound its validity.
	ValidFrom  time.Time  `json:"validFrom"`
	ValidUntil *time.Time `json:"validUntil,omitempty"`
	// ConfirmedOn is when it was confirmed.
	ConfirmedOn *time.Time `json:"confirmedOn,omitempty"`
	// Price of the part.
	Price Price `json:"price"`
	// RefundAmount once refunded.
	RefundAmount *Price `json:"refundAmount,omitempty"`
	// TripCoverage is the trip/legs covered.
	TripCoverage *TripCoverage `json:"tripCoverage,omitempty"`
	// Status is PREBOOKED, CONFIRMED, FULFILLED, REFUNDED...
	Status BookingPartStatus `json:"status"`
	// OfferMode is COLLECTIVE or INDIVIDUAL.
	OfferMode OfferMode `json:"offerMode,omitempty"`
	// BookingPartCode is the partner's code of the part.
	BookingPartCode string `json:"bookingPartCode,omitempty"`
	// PassengerIDs are Passenger.IDs (not externalRefs).
	PassengerIDs []string `json:"passengerIds"`
	// Refundable and Exchangeable: YES, NO, WITH_CONDITION.
	Refundable   RefundType       `json:"refundable"`
	Exchangeable ExchangeableType `json:"exchangeable"`
	// Products link the part to products and legs.
	Products []ProductLegAssociation `json:"products,omitempty"`
}

// Reservation is a booked seat reservation.
type Reservation struct {
	BookingPart
	// PlaceAllocation holds the coach and place numbers given.
	PlaceAllocation *PlaceAllocation `json:"placeAllocation,omitempty"`
}

// Admission is a booked ticket.
type Admission struct {
	BookingPart
}

// PlaceAllocation are the places allocated to a reservation;
// accommodationType, accommodationSubType, reservedPlaces (>= 1) and
// tripLegCoverage are required.
type PlaceAllocation struct {
	// AccommodationType is SEAT, COUCHETTE...
	AccommodationType AccommodationType `json:"accommodationType"`
	// AccommodationSubType refines it.
	AccommodationSubType AccommodationSubType `json:"accommodationSubType"`
	// ReservedPlaces are the places, per coach.
	ReservedPlaces []ReservedPlace `json:"reservedPlaces"`
	// TripLegCoverage is the leg reserved.
	TripLegCoverage TripLegCoverage `json:"tripLegCoverage"`
}

// ReservedPlace is a set of places in one coach; id, passengerIds (>= 1),
// vehicleNumber and coachNumber are required.
type ReservedPlace struct {
	// ID identifies the reserved place.
	ID string `json:"id"`
	// PassengerIDs sit here.
	PassengerIDs []string `json:"passengerIds"`
	// VehicleNumber is the train number.
	VehicleNumber string `json:"vehicleNumber"`
	// CoachNumber is the coach, e.g. "12".
	CoachNumber string `json:"coachNumber"`
	// CompartmentNumber, when there is one.
	CompartmentNumber string `json:"compartmentNumber,omitempty"`
	// PlaceNumbers are the seat numbers, e.g. ["45", "46"].
	PlaceNumbers []string `json:"placeNumbers,omitempty"`
}
