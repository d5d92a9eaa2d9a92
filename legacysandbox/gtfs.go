package legacysandbox

import (
	"fmt"
	"time"

	"github.com/caddy-osdm/caddy-osdm/legacy"
	"github.com/caddy-osdm/caddy-osdm/timetable"
)

// LoadGTFS reads a GTFS static feed (a .zip file or a folder) as a
// Schedule; stationCode says where the stops' UIC codes are, "stop_code"
// (default, "") or "stop_id". Bad feeds are errors naming the file, line
// and field (package timetable).
func LoadGTFS(path, stationCode string) (Schedule, error) {
	tt, err := timetable.Load(path, timetable.Options{StationCode: stationCode})
	if err != nil {
		return nil, err
	}
	return NewGTFSSchedule(tt), nil
}

// NewGTFSSchedule is the Schedule of a loaded GTFS timetable. A train
// runs on the service dates of its trips, between the stops of its
// stop_times; a run that passes midnight (a night train) has couchettes
// and berths besides seats, the others seats only.
func NewGTFSSchedule(tt *timetable.Timetable) Schedule { return gtfsSchedule{tt} }

type gtfsSchedule struct{ tt *timetable.Timetable }

// Leg implements Schedule with timetable.Ride: the ride that leaves from
// on date, local time (the run started on date, or earlier for a call
// after midnight), boarding allowed at from and alighting at to. When
// there is none, the calls are read again to say why.
func (g gtfsSchedule) Leg(train, date, from, to string) (Leg, error) {
	loc := g.tt.Location()
	day, err := time.ParseInLocation(time.DateOnly, date, loc)
	if err != nil {
		return Leg{}, fmt.Errorf("departure date %q is not a date", date)
	}
	if !g.tt.HasTrain(train) {
		return Leg{}, fmt.Errorf("train %s is not in the timetable", train)
	}
	if ride, ok := g.tt.Ride(train, from, to, day); ok {
		services := []int{legacy.ServiceSeat}
		if run, ok := g.tt.Run(train, ride.ServiceDate); ok {
			services = servicesOf(run)
		}
		return Leg{
			Train:       train,
			ServiceDate: ride.ServiceDate.Format(time.DateOnly),
			Departure:   ride.From.Departure.In(loc),
			Arrival:     ride.To.Arrival.In(loc),
			Services:    services,
		}, nil
	}
	return Leg{}, g.whyNot(train, date, day, from, to)
}

// whyNot says why train has no ride from from to to on date.
func (g gtfsSchedule) whyNot(train, date string, day time.Time, from, to string) error {
	loc := g.tt.Location()
	runs, callsFrom := false, false
	for back := 0; back <= 7; back++ {
		run, ok := g.tt.Run(train, day.AddDate(0, 0, -back))
		if !ok {
			continue
		}
		for i, c := range run.Calls {
			if c.Departure.In(loc).Format(time.DateOnly) != date {
				continue
			}
			runs = true // on that date, at least at one station
			if c.Station != from {
				continue
			}
			callsFrom = true
			for _, d := range run.Calls[i+1:] {
				if d.Station == to {
					return fmt.Errorf("train %s takes no passengers from %s to %s", train, from, to)
				}
			}
		}
	}
	switch {
	case !runs:
		return fmt.Errorf("train %s does not run on %s", train, date)
	case !callsFrom:
		return fmt.Errorf("train %s does not leave %s on %s", train, from, date)
	}
	return fmt.Errorf("train %s does not call at %s after %s on %s", train, to, from, date)
}

// servicesOf is seats, and couchettes and berths for a run that passes
// midnight.
func servicesOf(run timetable.Run) []int {
	last := run.Calls[len(run.Calls)-1].Arrival
	if last.In(run.ServiceDate.Location()).Format(time.DateOnly) != run.ServiceDate.Format(time.DateOnly) {
		return []int{legacy.ServiceSeat, legacy.ServiceCouchette, legacy.ServiceBerth}
	}
	return []int{legacy.ServiceSeat}
}
