package osdmsandbox

import (
	"cmp"
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
	"time"

	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// stationPrefix starts an OSDM UIC station code.
const stationPrefix = "urn:uic:stn:"

// stationNames names some well-known UIC stations, so that answers read
// like a real railway's; other stations are "Station NNNNNNN".
var stationNames = map[string]string{
	"8000105": "Frankfurt (Main) Hbf",
	"8000261": "München Hbf",
	"8011160": "Berlin Hbf",
	"8103000": "Wien Hbf",
	"8300046": "Milano Centrale",
	"8400058": "Amsterdam Centraal",
	"8500010": "Basel SBB",
	"8503000": "Zürich HB",
	"8507000": "Bern",
	"8700011": "Paris Gare de Lyon",
	"8727100": "Paris Nord",
	"8814001": "Bruxelles-Midi",
}

// stationNumber returns the 7 digits of a station code "urn:uic:stn:NNNNNNN".
func stationNumber(code string) (string, bool) {
	digits, ok := strings.CutPrefix(code, stationPrefix)
	if !ok || len(digits) != 7 || strings.Trim(digits, "0123456789") != "" {
		return "", false
	}
	return digits, true
}

// stationName is the display name of a station number.
func stationName(number string) string {
	if name, ok := stationNames[number]; ok {
		return name
	}
	return "Station " + number
}

// isNightTrain is the sandbox's rule for which trains run overnight with
// couchettes and berths: numbers starting with 4.
func isNightTrain(train string) bool { return strings.HasPrefix(train, "4") }

// trainHash spreads train numbers over made-up timetables.
func trainHash(train string) uint32 {
	h := fnv.New32a()
	_, _ = h.Write([]byte(train))
	return h.Sum32()
}

// trains are the trains the configuration names: those of another
// reservation system, those scheduled, those unknown to the partner.
type trains struct {
	external  map[string]ExternalInventory
	schedules map[string]schedule
	unknown   map[string]bool
}

// unknownTrain reports whether a search for train finds nothing: numbers
// made only of zeros, and the configured UnknownTrains.
func (tr *trains) unknownTrain(train string) bool {
	return strings.Trim(train, "0") == "" || tr.unknown[train]
}

// timetable gives the departure and arrival of train for a search at
// asked, the departure time (or the arrival time when byArrival), in the
// offset of asked.
//
// A configured Schedule applies on asked's date. Otherwise the train runs
// at the time asked, for a duration derived from its number (45 min to
// 6 h; night trains 8 to 12 h); a departure asked at exactly midnight
// means "that day" and gets a time of day derived from the number too
// (night trains leave in the evening).
func (tr *trains) timetable(train string, asked time.Time, byArrival bool) (dep, arr time.Time) {
	day := time.Date(asked.Year(), asked.Month(), asked.Day(), 0, 0, 0, 0, asked.Location())
	if sc, ok := tr.schedules[train]; ok {
		dep = day.Add(time.Duration(sc.departure) * time.Minute)
		arr = day.Add(time.Duration(sc.arrival) * time.Minute)
		return dep, arr
	}
	h := trainHash(train)
	var duration, timeOfDay time.Duration
	if isNightTrain(train) {
		duration = 8*time.Hour + time.Duration(h%17)*15*time.Minute
		timeOfDay = 19*time.Hour + time.Duration(h%16)*15*time.Minute
	} else {
		duration = 45*time.Minute + time.Duration(h%22)*15*time.Minute
		timeOfDay = 6*time.Hour + time.Duration(h%57)*15*time.Minute
	}
	asked = asked.Truncate(time.Minute)
	switch {
	case byArrival:
		return asked.Add(-duration), asked
	case asked.Equal(day):
		dep = day.Add(timeOfDay)
	default:
		dep = asked
	}
	return dep, dep.Add(duration)
}

// isoDuration formats d as an ISO 8601 duration, e.g. "PT2H30M".
func isoDuration(d time.Duration) string {
	d = d.Round(time.Minute)
	h, m := int(d/time.Hour), int(d%time.Hour/time.Minute)
	switch {
	case h == 0:
		return fmt.Sprintf("PT%dM", m)
	case m == 0:
		return fmt.Sprintf("PT%dH", h)
	}
	return fmt.Sprintf("PT%dH%dM", h, m)
}

// journey is one train run between two stations, as a search found it,
// one timed leg of a trip.
type journey struct {
	train              string
	origin, dest       string // station numbers
	departure, arrival time.Time
	// originName and destName are the stations' names in the GTFS
	// timetable; "" for the sandbox's own (stationName).
	originName, destName string
	// serviceDate is the GTFS timetable's service date of the train
	// (YYYY-MM-DD), the day its run started: a train boarded after
	// midnight is the run of the day before. "" for the sandbox's own.
	serviceDate string
	// carrier runs the train: the one a trip specification named, or
	// (Ref "") the sandbox's operator.
	carrier osdm.NamedCompany
	// change is the transfer leg before this train (none for the first).
	change transfer
	// externalRef is the consumer's reference of the leg it specified;
	// tripRef, on the first journey only, that of the trip.
	externalRef, tripRef string
}

// transfer is the change of train before a journey: the time it takes
// at least, the consumer's reference of the transfer leg it specified,
// and whether the trip shows it as a transfer leg (always, but in a trip
// specified without one: the trip answered has the consumer's legs).
type transfer struct {
	duration    time.Duration
	externalRef string
	shown       bool
}

// runKey names the places of one train on one day: its service date in
// the GTFS timetable, else the date it leaves the journey's origin.
func (j *journey) runKey() runKey {
	if j.serviceDate != "" {
		return runKey{train: j.train, date: j.serviceDate}
	}
	return runKey{train: j.train, date: j.departure.Format(time.DateOnly)}
}

// tripID is stable for the same train, day and stations, so a repeated
// search and a booking name the same trip.
func (j *journey) tripID() string {
	return fmt.Sprintf("trip-%s-%s-%s-%s", j.train, j.departure.Format("20060102T1504"), j.origin, j.dest)
}

// route is the trains of one trip, in order: one journey, or several
// (the legs of a trip specification).
type route []journey

// tripID is stable for the same trains, days and stations, so a repeated
// search and a booking name the same trip.
func (r route) tripID() string {
	if len(r) == 1 {
		return r[0].tripID()
	}
	ids := make([]string, len(r))
	for i := range r {
		ids[i] = strings.TrimPrefix(r[i].tripID(), "trip-")
	}
	return "trip-" + strings.Join(ids, "_")
}

// legID is the id of the timed leg of train i (from 0) of a trip.
func legID(i int) string { return "leg-" + strconv.Itoa(i+1) }

// transferLegID is the id of the transfer leg before train i (from 1).
func transferLegID(i int) string { return "transfer-" + strconv.Itoa(i) }

// trip is the OSDM trip of the route: a timed leg per train, a transfer
// leg between two (those of the consumer in a trip it specified).
func (r route) trip(operator string) osdm.Trip {
	first, last := &r[0], &r[len(r)-1]
	origin := osdm.NewStopPlaceRef(stationPrefix + first.origin)
	dest := osdm.NewStopPlaceRef(stationPrefix + last.dest)
	duration := isoDuration(last.arrival.Sub(first.departure))
	t := osdm.Trip{
		ID:          r.tripID(),
		Duration:    duration,
		Origin:      &origin,
		Destination: &dest,
		StartTime:   first.departure,
		EndTime:     last.arrival,
		Transfers:   len(r) - 1,
		ExternalRef: first.tripRef,
		Direction:   osdm.TripDirectionOutbound,
	}
	for i := range r {
		if i > 0 && r[i].change.shown {
			at := osdm.NewStopPlaceRef(stationPrefix + r[i].origin)
			t.Legs = append(t.Legs, osdm.TripLeg{
				ID:          transferLegID(i),
				ExternalRef: r[i].change.externalRef,
				TransferLeg: &osdm.TransferLeg{
					TransferMode: osdm.TransferModeWalk,
					Start:        osdm.NewStopPlaceRef(stationPrefix + r[i-1].dest),
					End:          at,
					Duration:     isoDuration(r[i].change.duration),
				},
			})
		}
		t.Legs = append(t.Legs, r[i].timedLeg(legID(i), operator))
	}
	return t
}

// timedLeg is the journey as the timed leg id of a trip.
func (j *journey) timedLeg(id, operator string) osdm.TripLeg {
	origin := osdm.NewStopPlaceRef(stationPrefix + j.origin)
	dest := osdm.NewStopPlaceRef(stationPrefix + j.dest)
	return osdm.TripLeg{
		ID:          id,
		ExternalRef: j.externalRef,
		TimedLeg: &osdm.TimedLeg{
			Start: osdm.Board{
				StopPlaceRef:     origin,
				StopPlaceName:    cmp.Or(j.originName, stationName(j.origin)),
				ServiceDeparture: osdm.ServiceTime{TimetabledTime: j.departure},
			},
			End: osdm.Alight{
				StopPlaceRef:   dest,
				StopPlaceName:  cmp.Or(j.destName, stationName(j.dest)),
				ServiceArrival: osdm.ServiceTime{TimetabledTime: j.arrival},
			},
			Service: osdm.DatedJourney{
				PublishedServiceName: serviceName(j.train),
				VehicleNumbers:       []string{j.train},
				Carriers:             []osdm.NamedCompany{j.carrierOr(operator)},
			},
			Duration: isoDuration(j.arrival.Sub(j.departure)),
		},
	}
}

// serviceName is the name shown to travellers, "NJ 402" or "IC 708".
func serviceName(train string) string {
	if isNightTrain(train) {
		return "NJ " + train
	}
	return "IC " + train
}

// carrierOr is the journey's carrier, the operator's when none was named.
func (j *journey) carrierOr(operator string) osdm.NamedCompany {
	if j.carrier.Ref != "" {
		return j.carrier
	}
	return osdm.NamedCompany{Ref: operator, Name: "OSDM Sandbox"}
}
