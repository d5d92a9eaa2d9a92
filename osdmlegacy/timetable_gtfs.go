package osdmlegacy

import (
	"time"

	"github.com/caddy-osdm/caddy-osdm/timetable"
)

// gtfsTimetable adapts a GTFS timetable (package timetable) to Timetable.
type gtfsTimetable struct{ t *timetable.Timetable }

// GTFS returns t as the façade's Timetable, a planner too.
func GTFS(t *timetable.Timetable) Timetable { return gtfsTimetable{t} }

func (g gtfsTimetable) legs(legs []timetable.Leg) []TrainRun {
	out := make([]TrainRun, 0, len(legs))
	for _, l := range legs {
		out = append(out, runOf(l.Train, l.From, l.To))
	}
	return out
}

func runOf(train string, from, to timetable.Call) TrainRun {
	return TrainRun{
		Train: train, ServiceDate: from.Departure.Format(time.DateOnly),
		Origin: from.Station, Destination: to.Station,
		OriginName: from.Name, DestinationName: to.Name,
		Departure: from.Departure, Arrival: to.Arrival,
	}
}

// DirectTrains implements Timetable.
func (g gtfsTimetable) DirectTrains(origin, destination string, from time.Time, window time.Duration, after, before int) []TrainRun {
	return g.legs(g.t.Direct(origin, destination, from, window, after, before))
}

// DirectArriving implements Timetable.
func (g gtfsTimetable) DirectArriving(origin, destination string, by time.Time, window time.Duration, n int) []TrainRun {
	return g.legs(g.t.DirectArriving(origin, destination, by, window, n))
}

// Run implements Timetable with timetable.Ride: the run leaving origin on
// date (a run past midnight belongs to an earlier service date), boarding
// allowed at origin and alighting at destination.
func (g gtfsTimetable) Run(train, date, origin, destination string) (TrainRun, bool) {
	d, err := time.ParseInLocation(time.DateOnly, date, g.t.Location())
	if err != nil {
		return TrainRun{}, false
	}
	l, ok := g.t.Ride(train, origin, destination, d)
	if !ok {
		return TrainRun{}, false
	}
	return runOf(l.Train, l.From, l.To), true
}

// StationLocation implements Timetable: the feed's zone for its stations.
func (g gtfsTimetable) StationLocation(station string) *time.Location {
	if _, ok := g.t.StationName(station); ok {
		return g.t.Location()
	}
	return nil
}

// StationName implements Timetable.
func (g gtfsTimetable) StationName(station string) string {
	name, _ := g.t.StationName(station)
	return name
}

// Journeys implements planner with timetable.Plan; a query Plan finds
// out of bounds (the Config's checks keep it within) gives none.
func (g gtfsTimetable) Journeys(q journeyQuery) []timetableJourney {
	found, err := g.t.Plan(timetable.Query{
		Origin: q.Origin, Destination: q.Destination, Time: q.At, ArriveBy: q.Arrival,
		Window: q.Window, MaxChanges: q.MaxChanges, MinTransfer: q.MinTransfer, MaxTrips: q.MaxTrips,
	})
	if err != nil {
		return nil
	}
	out := make([]timetableJourney, 0, len(found))
	for _, j := range found {
		out = append(out, timetableJourney(g.legs(j.Legs)))
	}
	return out
}

// Change implements planner with timetable.Change, the rule the planner
// applies: a and b are found as timetable.Ride finds them (the runs
// leaving on their departure's date); runs it does not know (none a
// checked trip specification has) get the station's rule.
func (g gtfsTimetable) Change(a, b *TrainRun, fallback time.Duration) (time.Duration, bool) {
	la, ok1 := g.t.Ride(a.Train, a.Origin, a.Destination, a.Departure.In(g.t.Location()))
	lb, ok2 := g.t.Ride(b.Train, b.Origin, b.Destination, b.Departure.In(g.t.Location()))
	if !ok1 || !ok2 || a.Destination != b.Origin {
		return g.t.MinTransfer(b.Origin, fallback)
	}
	return g.t.Change(la, lb, fallback)
}

var _ planner = gtfsTimetable{}
