package osdmlegacy

import "time"

// Timetable is what the façade needs of a timetable: the direct trains of
// a search, a named train's run, and station names and zones. The GTFS
// timetable (package timetable) is adapted to it by GTFS; tests may
// give any other.
type Timetable interface {
	// DirectTrains returns the direct runs from origin to destination (7-digit
	// UIC codes) in order of departure: up to after runs departing at or
	// after from and up to before runs departing before it, all within
	// window of from.
	DirectTrains(origin, destination string, from time.Time, window time.Duration, after, before int) []TrainRun
	// DirectArriving returns the n last direct runs from origin to
	// destination arriving at or before by, within window before it, in
	// order of departure.
	DirectArriving(origin, destination string, by time.Time, window time.Duration, n int) []TrainRun
	// Run returns the run of train departing from origin on date (the
	// local date there, YYYY-MM-DD) and calling at destination later, and
	// whether the timetable has it.
	Run(train, serviceDate, origin, destination string) (TrainRun, bool)
	// StationLocation is the time zone of a station, nil when unknown.
	StationLocation(station string) *time.Location
	// StationName is the name of a station, "" when unknown.
	StationName(station string) string
}

// TrainRun is one train's run between two stations on one service date.
type TrainRun struct {
	// Train is the train number (1..5 characters).
	Train string
	// ServiceDate is the legacy DepartureDate: the local date of the
	// departure from Origin, YYYY-MM-DD.
	ServiceDate string
	// Origin and Destination are 7-digit UIC station codes.
	Origin, Destination string
	// OriginName and DestinationName are the stations' names ("" when unknown).
	OriginName, DestinationName string
	// Departure and Arrival are the timetabled instants; zero when unknown.
	Departure, Arrival time.Time
	// Carrier is the RICS code of the operator, "" when unknown.
	Carrier string
}

// timetableJourney is one way from an origin to a destination: the runs of its
// trains in order, each boarding where the one before alights.
type timetableJourney []TrainRun

// journeyQuery is what an offer search asks a planner.
type journeyQuery struct {
	// Origin and Destination are 7-digit UIC codes.
	Origin, Destination string
	// At is the departure asked (journeys leaving at or after it), or with
	// Arrival the arrival asked (journeys arriving at or before it).
	At      time.Time
	Arrival bool
	// Window bounds how far from At the journeys leave (or arrive).
	Window time.Duration
	// MaxChanges is the most changes a journey may have (0..2).
	MaxChanges int
	// MinTransfer is the shortest change at a station the timetable gives
	// no minimum transfer time for.
	MinTransfer time.Duration
	// MaxTrips is the most journeys answered.
	MaxTrips int
}

// planner is a Timetable that also plans journeys with changes. A search
// offers journeys with changes only from a timetable that is one.
type planner interface {
	// Journeys returns the journeys of q that no other dominates (leaves
	// no later, arrives no earlier, with no fewer changes), direct trains
	// included, best first: by arrival, then changes, then departure.
	Journeys(q journeyQuery) []timetableJourney
	// Change returns the shortest change from run a to run b at the
	// station where a ends and b starts, by the timetable's rule for those
	// trains (their trips or routes) or for the station, else fallback;
	// and false when the timetable allows no such change.
	Change(a, b *TrainRun, fallback time.Duration) (time.Duration, bool)
}
