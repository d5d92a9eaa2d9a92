package osdm

import "time"

// Trip is a journey of an offer response or booking; id, duration,
// startTime, endTime, transfers and legs (>= 1) are required.
type Trip struct {
	// ID is the partner's trip id, referenced by offers' tripCoverage.
	ID string `json:"id"`
	// ExternalRef is the consumer's reference of a trip it specified.
	ExternalRef string `json:"externalRef,omitempty"`
	// Summary is a free text.
	Summary string `json:"summary,omitempty"`
	// Duration is an ISO 8601 duration, e.g. "PT3H12M".
	Duration string `json:"duration"`
	// Direction is OUT_BOUND (TripDirectionOutbound) or IN_BOUND.
	Direction string `json:"direction,omitempty"`
	// Origin and Destination are the end stations.
	Origin      *PlaceRef `json:"origin,omitempty"`
	Destination *PlaceRef `json:"destination,omitempty"`
	// StartTime and EndTime bound the trip.
	StartTime time.Time `json:"startTime"`
	EndTime   time.Time `json:"endTime"`
	// Transfers is the number of changes.
	Transfers int `json:"transfers"`
	// Legs are the parts of the trip (>= 1).
	Legs []TripLeg `json:"legs"`
}

// TripLeg is one leg of a trip: a timed (scheduled train) leg or a
// transfer leg between two; other kinds come back with both nil.
type TripLeg struct {
	// ID is the leg id, referenced by tripLegCoverage.
	ID string `json:"id"`
	// ExternalRef is the consumer's reference of a leg it specified.
	ExternalRef string `json:"externalRef,omitempty"`
	// TimedLeg is the scheduled service ridden on this leg.
	TimedLeg *TimedLeg `json:"timedLeg,omitempty"`
	// TransferLeg is a change between the timed legs around it.
	TransferLeg *TransferLeg `json:"transferLeg,omitempty"`
}

// TransferLeg links two legs of a trip where the traveller changes;
// start and end are required.
type TransferLeg struct {
	// TransferMode is how the change is made, e.g. WALK.
	TransferMode TransferMode `json:"transferMode,omitempty"`
	// Start and End are where the change begins and ends (one station
	// for a change of trains there).
	Start PlaceRef `json:"start"`
	End   PlaceRef `json:"end"`
	// Duration is the time the change takes, an ISO 8601 duration.
	Duration string `json:"duration,omitempty"`
}

// TripDirectionOutbound is the direction of a single trip or of the
// outward trip of a return.
const TripDirectionOutbound = "OUT_BOUND"

// TransferMode is how a transfer leg is made (OJP's extensible enum).
type TransferMode string

// TransferModeWalk is a change on foot, e.g. between two platforms.
const TransferModeWalk TransferMode = "WALK"

// TimedLeg is a leg on a scheduled service; start, end and service are required.
type TimedLeg struct {
	// Start is where the passenger boards.
	Start Board `json:"start"`
	// End is where the passenger alights.
	End Alight `json:"end"`
	// Service is the train ridden.
	Service DatedJourney `json:"service"`
	// Duration is an ISO 8601 duration.
	Duration string `json:"duration,omitempty"`
}

// Board is the boarding stop; stopPlaceRef, stopPlaceName and
// serviceDeparture are required.
type Board struct {
	// StopPlaceRef is the station (objectType StopPlaceRef).
	StopPlaceRef PlaceRef `json:"stopPlaceRef"`
	// StopPlaceName is its name.
	StopPlaceName string `json:"stopPlaceName"`
	// ServiceDeparture is the departure time.
	ServiceDeparture ServiceTime `json:"serviceDeparture"`
}

// Alight is the alighting stop; stopPlaceRef, stopPlaceName and
// serviceArrival are required.
type Alight struct {
	// StopPlaceRef is the station (objectType StopPlaceRef).
	StopPlaceRef PlaceRef `json:"stopPlaceRef"`
	// StopPlaceName is its name.
	StopPlaceName string `json:"stopPlaceName"`
	// ServiceArrival is the arrival time.
	ServiceArrival ServiceTime `json:"serviceArrival"`
}

// ServiceTime is a timetabled time with optional real-time estimate.
type ServiceTime struct {
	// TimetabledTime is the scheduled time (required).
	TimetabledTime time.Time `json:"timetabledTime"`
	// EstimatedTime is the real-time forecast.
	EstimatedTime *time.Time `json:"estimatedTime,omitempty"`
}

// DatedJourney is the service of a timed leg; vehicleNumbers (>= 1) and
// carriers (>= 1) are required.
type DatedJourney struct {
	// PublishedServiceName is the name shown to travellers, e.g. "IC 708".
	PublishedServiceName string `json:"publishedServiceName,omitempty"`
	// VehicleNumbers are the train numbers, e.g. ["708"].
	VehicleNumbers []string `json:"vehicleNumbers"`
	// Carriers run the train.
	Carriers []NamedCompany `json:"carriers"`
}

// NamedCompany is a company reference (ref required, e.g. "urn:uic:rics:1185").
type NamedCompany struct {
	// Ref is the company code.
	Ref string `json:"ref"`
	// Name is its display name.
	Name string `json:"name,omitempty"`
}
