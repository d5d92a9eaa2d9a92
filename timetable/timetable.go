package timetable

import (
	"sort"
	"sync"
	"time"
)

// DefaultWindow is the window Direct and DirectArriving use when given 0.
const DefaultWindow = 4 * time.Hour

// Call is a train's stop: the UIC station code (7 digits), the stop's name,
// and arrival and departure as absolute times in the agency's time zone.
type Call struct {
	Station, Name      string
	Arrival, Departure time.Time
}

// Run is one train on one service date.
type Run struct {
	// Train is the train number (GTFS trip_short_name, 1..5 characters).
	Train string
	// ServiceDate is local midnight of the service date the run belongs to
	// (a run past midnight keeps the date it started on).
	ServiceDate time.Time
	// Calls are the train's stops in order.
	Calls []Call
}

// Leg is a direct ride of a train between two of its calls.
type Leg struct {
	// Train is the train number.
	Train string
	// Trip and Route are the GTFS trip_id and route_id of the train.
	Trip, Route string
	// ServiceDate is local midnight of the run's service date.
	ServiceDate time.Time
	// From is the call where the ride starts, To the call where it ends.
	From, To Call
}

// Timetable is a GTFS feed indexed for the two questions the reverse
// direction asks: (train, date) -> calls, and (origin, destination, time)
// -> direct trains. It is read-only after Load and safe for concurrent use.
type Timetable struct {
	loc *time.Location

	stations []station
	byCode   map[string]int32

	trips   []trip
	byTrain map[string][]int32

	// Stop times, trip after trip, each trip's in stop_sequence order.
	stStation []int32
	stArr     []int32 // seconds from noon-12h of the service date
	stDep     []int32
	stFlags   []uint8

	// Departures (and arrivals) per station, sorted by time of day:
	// station s's are deps[depOff[s]:depOff[s+1]].
	deps, arrs     []event
	depOff, arrOff []int32
	maxSecs        int32

	cal calendar

	// transfers are the minimum transfer times of transfers.txt.
	transfers transferRules

	// net is the network the planner searches, built on first use.
	netOnce sync.Once
	net     *network

	stopRows int
	warnings []string
}

type station struct {
	code, name string
}

type trip struct {
	train   string
	id      string // trip_id
	route   string // route_id
	service int32
	first   int32 // index of the first stop time
	n       int32 // number of stop times
}

// event is a departure or an arrival of a trip at a station.
type event struct {
	secs int32 // from noon-12h of the service date
	trip int32
	pos  int32 // stop time index
}

const (
	flagNoPickup  = 1 << iota // pickup_type 1: no boarding here
	flagNoDropOff             // drop_off_type 1: no alighting here
)

// Location is the agency's time zone: the zone of every time the
// timetable gives.
func (t *Timetable) Location() *time.Location { return t.loc }

// Stats counts the stations (distinct UIC codes), the trips kept (those
// with a usable train number) and their stop times.
func (t *Timetable) Stats() (stops, trips, stopTimes int) {
	return len(t.stations), len(t.trips), len(t.stStation)
}

// Warnings says what Load skipped, one sentence per kind (e.g. trips whose
// train number is too long), for the caller's log. Empty when nothing was.
func (t *Timetable) Warnings() []string { return append([]string(nil), t.warnings...) }

// StationName is the name of the station with that UIC code.
func (t *Timetable) StationName(code string) (string, bool) {
	s, ok := t.byCode[code]
	if !ok {
		return "", false
	}
	return t.stations[s].name, true
}

// HasTrain says whether any trip of the feed has that train number, on
// whatever date.
func (t *Timetable) HasTrain(train string) bool {
	_, ok := t.byTrain[train]
	return ok
}

// Run is the train with that number on that service date: its calls and
// times. The date is serviceDate's year, month and day in serviceDate's own
// location (pass a time in Location(), or a date at UTC midnight). When
// several trips share the number and all run that date, the first in
// trips.txt wins. False when no trip of that number runs that date.
func (t *Timetable) Run(train string, serviceDate time.Time) (Run, bool) {
	y, m, d := serviceDate.Date()
	sd := dayOf(y, m, d)
	for _, ti := range t.byTrain[train] {
		tr := &t.trips[ti]
		if !t.cal.runs(tr.service, sd) {
			continue
		}
		base := sd.base(t.loc)
		r := Run{Train: tr.train, ServiceDate: sd.midnight(t.loc), Calls: make([]Call, tr.n)}
		for i := range r.Calls {
			r.Calls[i] = t.call(tr.first+int32(i), base)
		}
		return r, true
	}
	return Run{}, false
}

func (t *Timetable) call(pos int32, base int64) Call {
	st := &t.stations[t.stStation[pos]]
	return Call{
		Station:   st.code,
		Name:      st.name,
		Arrival:   time.Unix(base+int64(t.stArr[pos]), 0).In(t.loc),
		Departure: time.Unix(base+int64(t.stDep[pos]), 0).In(t.loc),
	}
}

// ride is a trip's ride between two of its stop times on one service
// date: a Leg before its calls are made.
type ride struct {
	trip     int32
	from, to int32 // stop time indexes
	d        day
	base     int64 // d's base
}

// leg is the Leg of r.
func (t *Timetable) leg(r ride) Leg {
	tr := &t.trips[r.trip]
	return Leg{Train: tr.train, Trip: tr.id, Route: tr.route, ServiceDate: r.d.midnight(t.loc), From: t.call(r.from, r.base), To: t.call(r.to, r.base)}
}

// serviceDays calls f for each service date whose times may fall in
// [lo, hi] (unix seconds), with the base of that date.
func (t *Timetable) serviceDays(lo, hi int64, f func(d day, base int64)) {
	first := dayIn(time.Unix(lo-int64(t.maxSecs)-2*3600, 0), t.loc)
	last := dayIn(time.Unix(hi+2*3600, 0), t.loc)
	for d := first; d <= last; d++ {
		base := d.base(t.loc)
		if base+int64(t.maxSecs) < lo || base > hi {
			continue
		}
		f(d, base)
	}
}

// eventsIn calls f for each event of evs (one station's departures or
// arrivals, sorted by time of day) that falls in [lo, hi] (unix seconds)
// on a service date its trip runs, with the trip, the date and its base.
func (t *Timetable) eventsIn(evs []event, lo, hi int64, f func(e *event, tr *trip, d day, base int64)) {
	t.serviceDays(lo, hi, func(d day, base int64) {
		i := sort.Search(len(evs), func(i int) bool { return base+int64(evs[i].secs) >= lo })
		for ; i < len(evs) && base+int64(evs[i].secs) <= hi; i++ {
			e := &evs[i]
			tr := &t.trips[e.trip]
			if t.cal.runs(tr.service, d) {
				f(e, tr, d, base)
			}
		}
	})
}

// Direct is the direct trains from origin to destination (UIC codes) that
// leave origin within window of from (DefaultWindow when 0): the `after`
// first leaving at or after from and the `before` last leaving before it,
// in order of departure. A train counts when it may be boarded at origin
// and left at destination (pickup_type and drop_off_type not 1) and calls
// at destination after origin.
func (t *Timetable) Direct(origin, destination string, from time.Time, window time.Duration, after, before int) []Leg {
	o, ok1 := t.byCode[origin]
	dst, ok2 := t.byCode[destination]
	if !ok1 || !ok2 || o == dst || (after <= 0 && before <= 0) {
		return nil
	}
	if window <= 0 {
		window = DefaultWindow
	}
	at := from.Unix()
	w := int64(window / time.Second)
	lo, hi := at-w, at+w
	if before <= 0 {
		lo = at
	}
	if after <= 0 {
		hi = at - 1
	}
	evs := t.deps[t.depOff[o]:t.depOff[o+1]]
	type found struct {
		dep int64
		ride
	}
	var hits []found
	t.eventsIn(evs, lo, hi, func(e *event, tr *trip, d day, base int64) {
		end := tr.first + tr.n
		for p := e.pos + 1; p < end; p++ {
			if t.stStation[p] == dst && t.stFlags[p]&flagNoDropOff == 0 {
				hits = append(hits, found{dep: base + int64(e.secs), ride: ride{trip: e.trip, from: e.pos, to: p, d: d, base: base}})
				return
			}
		}
	})
	sort.Slice(hits, func(i, j int) bool {
		if hits[i].dep != hits[j].dep {
			return hits[i].dep < hits[j].dep
		}
		return t.trips[hits[i].trip].train < t.trips[hits[j].trip].train
	})
	split := sort.Search(len(hits), func(i int) bool { return hits[i].dep >= at })
	loI := max(split-max(before, 0), 0)
	hiI := min(split+max(after, 0), len(hits))
	legs := make([]Leg, 0, hiI-loI)
	for _, h := range hits[loI:hiI] {
		legs = append(legs, t.leg(h.ride))
	}
	return legs
}

// DirectArriving is the direct trains from origin to destination that
// reach destination within window before by (DefaultWindow when 0), at or
// before by: the n last to arrive, in order of departure.
func (t *Timetable) DirectArriving(origin, destination string, by time.Time, window time.Duration, n int) []Leg {
	o, ok1 := t.byCode[origin]
	dst, ok2 := t.byCode[destination]
	if !ok1 || !ok2 || o == dst || n <= 0 {
		return nil
	}
	if window <= 0 {
		window = DefaultWindow
	}
	hi := by.Unix()
	lo := hi - int64(window/time.Second)
	evs := t.arrs[t.arrOff[dst]:t.arrOff[dst+1]]
	type found struct {
		arr, dep int64
		ride
	}
	var hits []found
	t.eventsIn(evs, lo, hi, func(e *event, tr *trip, d day, base int64) {
		for p := e.pos - 1; p >= tr.first; p-- {
			if t.stStation[p] == o && t.stFlags[p]&flagNoPickup == 0 {
				hits = append(hits, found{arr: base + int64(e.secs), dep: base + int64(t.stDep[p]), ride: ride{trip: e.trip, from: p, to: e.pos, d: d, base: base}})
				return
			}
		}
	})
	sort.Slice(hits, func(i, j int) bool { return hits[i].arr < hits[j].arr })
	if len(hits) > n {
		hits = hits[len(hits)-n:]
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].dep < hits[j].dep })
	legs := make([]Leg, 0, len(hits))
	for _, h := range hits {
		legs = append(legs, t.leg(h.ride))
	}
	return legs
}

// Ride is the ride of the train with that number from origin to
// destination (UIC codes) that leaves origin on departureDate, a calendar
// date at origin (its year, month and day in its own location, as in a
// legacy message's DepartureDate). It differs from the service date for a
// train leaving after midnight. False when the train does not run that
// day, does not call at both (destination after origin), or may not be
// boarded at origin or left at destination.
func (t *Timetable) Ride(train, origin, destination string, departureDate time.Time) (Leg, bool) {
	o, ok1 := t.byCode[origin]
	dst, ok2 := t.byCode[destination]
	if !ok1 || !ok2 || o == dst {
		return Leg{}, false
	}
	y, m, d := departureDate.Date()
	want := dayOf(y, m, d)
	back := day(t.maxSecs/86400 + 1)
	for _, ti := range t.byTrain[train] {
		tr := &t.trips[ti]
		end := tr.first + tr.n
		for p := tr.first; p < end-1; p++ {
			if t.stStation[p] != o || t.stFlags[p]&flagNoPickup != 0 {
				continue
			}
			for sd := want - back; sd <= want; sd++ {
				if !t.cal.runs(tr.service, sd) {
					continue
				}
				base := sd.base(t.loc)
				if dayIn(time.Unix(base+int64(t.stDep[p]), 0), t.loc) != want {
					continue
				}
				for q := p + 1; q < end; q++ {
					if t.stStation[q] == dst && t.stFlags[q]&flagNoDropOff == 0 {
						return t.leg(ride{trip: ti, from: p, to: q, d: sd, base: base}), true
					}
				}
			}
		}
	}
	return Leg{}, false
}
