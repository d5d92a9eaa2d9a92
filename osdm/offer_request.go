package osdm

import "time"

// OfferCollectionRequest is the body of POST /offers.
//
//	{"tripSearchCriteria": {...}, "anonymousPassengerSpecifications": [...],
//	 "offerSearchCriteria": {...}}
//
// anonymousPassengerSpecifications is required (at least one); the object
// is closed (additionalProperties: false).
type OfferCollectionRequest struct {
	// TripSearchCriteria says where and when to travel.
	TripSearchCriteria *TripSearchCriteria `json:"tripSearchCriteria,omitempty"`
	// OfferSearchCriteria narrows the offers (offer parts, classes).
	OfferSearchCriteria *OfferSearchCriteria `json:"offerSearchCriteria,omitempty"`
	// AnonymousPassengerSpecifications lists the travellers (required, >= 1).
	AnonymousPassengerSpecifications []AnonymousPassengerSpecification `json:"anonymousPassengerSpecifications"`
}

// TripSearchCriteria is the trip part of an offer search. origin and
// destination are required.
type TripSearchCriteria struct {
	// DepartureTime is the earliest departure; marshalled as RFC 3339 with
	// its offset (time.Time keeps the zone it was built with).
	DepartureTime *time.Time `json:"departureTime,omitempty"`
	// ArrivalTime is the latest arrival.
	ArrivalTime *time.Time `json:"arrivalTime,omitempty"`
	// Origin is the departure station.
	Origin PlaceRef `json:"origin"`
	// Destination is the arrival station.
	Destination PlaceRef `json:"destination"`
	// Parameters holds the filters (the train number lives here).
	Parameters *TripParameters `json:"parameters,omitempty"`
}

// TripParameters holds trip search filters.
type TripParameters struct {
	// DataFilter filters by vehicle, carrier, mode...
	DataFilter *TripDataFilter `json:"dataFilter,omitempty"`
	// NumberOfResultsAfter caps the trips after DepartureTime (spec default 5).
	NumberOfResultsAfter *int `json:"numberOfResultsAfter,omitempty"`
}

// TripDataFilter filters the trips searched.
type TripDataFilter struct {
	// VehicleFilter keeps or drops trips by train number.
	VehicleFilter *VehicleFilter `json:"vehicleFilter,omitempty"`
}

// VehicleFilter filters by train (vehicle) number. The spec's default for
// exclude is TRUE (the numbers are excluded), so a search for one train
// must send exclude: false; OnlyVehicles does that.
type VehicleFilter struct {
	// Exclude drops (true, the spec default) or keeps only (false) the listed vehicles.
	Exclude *bool `json:"exclude,omitempty"`
	// VehicleNumbers are train numbers as strings, e.g. ["708"].
	VehicleNumbers []string `json:"vehicleNumbers,omitempty"`
}

// OnlyVehicles returns the search parameters that keep only the given train
// numbers: {"dataFilter":{"vehicleFilter":{"exclude":false,"vehicleNumbers":[...]}}}.
func OnlyVehicles(numbers ...string) *TripParameters {
	keep := false
	return &TripParameters{DataFilter: &TripDataFilter{VehicleFilter: &VehicleFilter{Exclude: &keep, VehicleNumbers: numbers}}}
}

// AnonymousPassengerSpecification is a traveller of an offer search;
// externalRef and type are required.
type AnonymousPassengerSpecification struct {
	// ExternalRef is our id of the passenger, echoed in offers' passengerRefs.
	ExternalRef string `json:"externalRef"`
	// Type is the passenger type (ADULT, CHILD, ...).
	Type PassengerType `json:"type"`
	// Age in years, when known.
	Age *int `json:"age,omitempty"`
	// DateOfBirth as "YYYY-MM-DD" (format: date), when known.
	DateOfBirth string `json:"dateOfBirth,omitempty"`
}

// OfferSearchCriteria narrows what offers come back.
type OfferSearchCriteria struct {
	// RequestedOfferParts, e.g. [RESERVATION] for seat reservations only.
	RequestedOfferParts []OfferPartType `json:"requestedOfferParts,omitempty"`
	// TravelClasses, e.g. [SECOND].
	TravelClasses []TravelClass `json:"travelClasses,omitempty"`
	// ServiceClassTypes, at most 4.
	ServiceClassTypes []ServiceClassType `json:"serviceClassTypes,omitempty"`
	// OfferMode asks for COLLECTIVE or INDIVIDUAL offer parts.
	OfferMode OfferMode `json:"offerMode,omitempty"`
	// Currency asks for prices in this ISO 4217 currency.
	Currency string `json:"currency,omitempty"`
}
