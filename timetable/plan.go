package timetable

import (
	"errors"
	"fmt"
	"time"
)

// Planner defaults and limits.
const (
	// DefaultMaxChanges is the changes of train a journey may have when
	// the caller's configuration says nothing (Query.MaxChanges is taken
	// as given: 0 is direct trains only).
	DefaultMaxChanges = 1
	// MaxChangesLimit is the most changes Plan searches.
	MaxChangesLimit = 2
	// DefaultMinTransfer is Query.MinTransfer when 0: the least time
	// between arriving and leaving at a change where transfers.txt says
	// nothing.
	DefaultMinTransfer = 10 * time.Minute
	// DefaultMaxTrips is Query.MaxTrips when 0.
	DefaultMaxTrips = 6
	// MaxJourney bounds a journey's duration, from the first departure to
	// the last arrival: what would take longer is not searched.
	MaxJourney = 24 * time.Hour
	// MaxWindow bounds Query.Window.
	MaxWindow = 48 * time.Hour
)

// Query asks Plan for journeys from one station to another.
type Query struct {
	// Origin and Destination are UIC station codes (7 digits).
	Origin, Destination string
	// Time is the earliest departure from Origin; with ArriveBy, the
	// latest arrival at Destination.
	Time time.Time
	// ArriveBy makes Time the latest arrival.
	ArriveBy bool
	// Window: journeys leave Origin within [Time, Time+Window], or with
	// ArriveBy reach Destination within [Time-Window, Time]. 0 means
	// DefaultWindow (4h); at most MaxWindow.
	Window time.Duration
	// MaxChanges is the most changes of train a journey may have, 0
	// (direct trains only) to MaxChangesLimit.
	MaxChanges int
	// MinTransfer is the least time between the arrival of one train and
	// the departure of the next at a change where transfers.txt has no
	// rule for the station (or its trips). 0 means DefaultMinTransfer.
	MinTransfer time.Duration
	// MaxTrips is the most journeys returned. 0 means DefaultMaxTrips.
	MaxTrips int
}

// Journey is one way from origin to destination: one or more legs, each
// a direct ride of one train, each leaving from the station where the one
// before arrives, no sooner than the change there takes.
type Journey struct {
	// Legs are the trains in order; there is at least one.
	Legs []Leg
}

// Departure is when the journey leaves its origin.
func (j Journey) Departure() time.Time { return j.Legs[0].From.Departure }

// Arrival is when the journey reaches its destination.
func (j Journey) Arrival() time.Time { return j.Legs[len(j.Legs)-1].To.Arrival }

// Changes is the number of changes of train.
func (j Journey) Changes() int { return len(j.Legs) - 1 }

// ErrQuery is the error Plan returns, wrapped, for a query whose values
// are out of bounds.
var ErrQuery = errors.New("timetable: bad journey query")

// check validates q and fills in its defaults.
func (q Query) check() (Query, error) {
	switch {
	case q.MaxChanges < 0 || q.MaxChanges > MaxChangesLimit:
		return q, fmt.Errorf("%w: max changes %d: want 0..%d", ErrQuery, q.MaxChanges, MaxChangesLimit)
	case q.Window < 0 || q.Window > MaxWindow:
		return q, fmt.Errorf("%w: window %v: want 0 (the default) to %v", ErrQuery, q.Window, MaxWindow)
	case q.MinTransfer < 0:
		return q, fmt.Errorf("%w: min transfer %v is negative", ErrQuery, q.MinTransfer)
	case q.MaxTrips < 0:
		return q, fmt.Errorf("%w: max trips %d is negative", ErrQuery, q.MaxTrips)
	}
	if q.Window == 0 {
		q.Window = DefaultWindow
	}
	if q.MinTransfer == 0 {
		q.MinTransfer = DefaultMinTransfer
	}
	if q.MaxTrips == 0 {
		q.MaxTrips = DefaultMaxTrips
	}
	return q, nil
}

// Plan finds the journeys from q.Origin to q.Destination that leave
// within the window (or, with ArriveBy, arrive within it): direct trains
// and journeys with up to q.MaxChanges changes, each change at a station
// both trains stop at (boarding and alighting allowed there), no sooner
// than the station's minimum transfer time of transfers.txt (or
// q.MinTransfer) and never where transfers.txt forbids it. A journey
// dominated by another (that leaves no earlier, arrives no later, with no
// more changes) is left out, as is one that takes longer than MaxJourney.
// The rest are ordered by arrival, then changes, then departure, and the
// first q.MaxTrips are returned (with ArriveBy, the last q.MaxTrips: those
// arriving closest to q.Time). Unknown stations, or origin equal to
// destination, give no journeys. The error is for a query out of bounds
// (wrapping ErrQuery).
//
// The search is a range RAPTOR (Delling, Pajor, Werneck: Round-Based
// Public Transit Routing, 2012) over the feed's trips grouped into routes
// of identical stop sequences, one round per train, run once for each
// departure from the origin in the window, latest first.
func (t *Timetable) Plan(q Query) ([]Journey, error) {
	q, err := q.check()
	if err != nil {
		return nil, err
	}
	o, ok1 := t.byCode[q.Origin]
	d, ok2 := t.byCode[q.Destination]
	if !ok1 || !ok2 || o == d {
		return nil, nil
	}
	return t.plan(o, d, q), nil
}

// MinTransfer is the least time a change of train at station takes, def
// where transfers.txt has no rule for the station itself, and false when
// transfers.txt forbids changing there (transfer_type 3). Rules that name
// trips or routes are not taken into account: Plan applies them to the
// trains they name.
func (t *Timetable) MinTransfer(station string, def time.Duration) (time.Duration, bool) {
	s, ok := t.byCode[station]
	if !ok {
		return def, true
	}
	switch r := t.transfers.station[s]; r {
	case transferForbidden:
		return 0, false
	case transferDefault:
		return def, true
	default:
		return time.Duration(r) * time.Second, true
	}
}

// Change is the least time the change from leg a to leg b takes, at the
// station a arrives at and b leaves from: transfers.txt's rule for these
// trips, their routes or the station (the most specific), else
// minTransfer. False when the change is not allowed: forbidden by
// transfers.txt, or not at one station, or a leg not of this timetable.
func (t *Timetable) Change(a, b Leg, minTransfer time.Duration) (time.Duration, bool) {
	if a.To.Station != b.From.Station {
		return 0, false
	}
	s, ok := t.byCode[a.To.Station]
	if !ok {
		return 0, false
	}
	ta, ok1 := t.tripByID(a.Trip)
	tb, ok2 := t.tripByID(b.Trip)
	if !ok1 || !ok2 {
		return 0, false
	}
	secs, ok := t.transferSecs(s, ta, tb, int32(minTransfer/time.Second))
	return time.Duration(secs) * time.Second, ok
}

// ChangeOK says whether a traveller arriving with leg a may change to leg
// b: the change is allowed (Change) and b leaves no sooner than it takes
// after a arrives. For checking journeys a consumer names leg by leg.
func (t *Timetable) ChangeOK(a, b Leg, minTransfer time.Duration) bool {
	d, ok := t.Change(a, b, minTransfer)
	return ok && !b.From.Departure.Before(a.To.Arrival.Add(d))
}

// tripByID is the trip with that trip_id.
func (t *Timetable) tripByID(id string) (int32, bool) {
	ti, ok := t.network().tripID[id]
	return ti, ok
}
