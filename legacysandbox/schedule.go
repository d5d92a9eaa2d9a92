package legacysandbox

import (
	"fmt"
	"hash/fnv"
	"strings"
	"time"

	"github.com/caddy-osdm/caddy-osdm/legacy"
)

// Schedule says which trains run, when, and where they call: what the
// sandbox needs of a timetable. Demo is the built-in one; NewGTFSSchedule
// reads a GTFS feed.
type Schedule interface {
	// Leg returns the run of train whose departure from station from (a
	// 7-digit UIC code) falls on date (YYYY-MM-DD, the calendar day at
	// from), with its later call at to. An error means no such run: the
	// train does not run that day, or does not call at both stations in
	// that order; its text says which and becomes the TRAIN_NOT_FOUND text.
	Leg(train, date, from, to string) (Leg, error)
}

// Leg is one train run between two of its calls.
type Leg struct {
	// Train is the train number.
	Train string
	// ServiceDate is the run's service day, YYYY-MM-DD: places are counted
	// per train and service day. It differs from the departure date at
	// the station for the calls of a run after midnight.
	ServiceDate string
	// Departure is the departure from the first station, in its local zone.
	Departure time.Time
	// Arrival is the arrival at the second station, in its local zone.
	Arrival time.Time
	// Services lists the service codes the train offers (legacy.ServiceSeat,
	// legacy.ServiceCouchette, legacy.ServiceBerth), in that order.
	Services []int
}

// offers reports whether the leg's train has places of service code sc.
func (l Leg) offers(sc int) bool {
	for _, s := range l.Services {
		if s == sc {
			return true
		}
	}
	return false
}

// Demo returns the built-in demo timetable: every train number of 1..5
// letters or digits runs every day between any two stations, except
// numbers made only of zeros ("0", "000"), which never run. Its times
// derive from the number: day trains leave between 06:00 and 20:00 and
// take 45 min to 6 h; trains whose number starts with 4 are night trains,
// leave between 19:00 and 22:45, take 8 to 12 h, and have couchettes and
// berths besides seats. Times are in the Europe/Paris zone (CET, UTC+1,
// when the machine has no zone database).
func Demo() Schedule { return demo{loc: demoLocation()} }

func demoLocation() *time.Location {
	if loc, err := time.LoadLocation("Europe/Paris"); err == nil {
		return loc
	}
	return time.FixedZone("CET", 3600)
}

type demo struct{ loc *time.Location }

// Leg implements Schedule.
func (d demo) Leg(train, date, from, to string) (Leg, error) {
	if strings.Trim(train, "0") == "" {
		return Leg{}, fmt.Errorf("train %s does not run", train)
	}
	day, err := time.ParseInLocation(time.DateOnly, date, d.loc)
	if err != nil {
		return Leg{}, fmt.Errorf("departure date %q is not a date", date)
	}
	if from == to {
		return Leg{}, fmt.Errorf("train %s does not run from %s to itself", train, from)
	}
	h := fnv.New32a()
	_, _ = h.Write([]byte(train))
	n := h.Sum32()
	var timeOfDay, duration time.Duration
	services := []int{legacy.ServiceSeat}
	if isNightTrain(train) {
		timeOfDay = 19*time.Hour + time.Duration(n%16)*15*time.Minute
		duration = 8*time.Hour + time.Duration(n%17)*15*time.Minute
		services = append(services, legacy.ServiceCouchette, legacy.ServiceBerth)
	} else {
		timeOfDay = 6*time.Hour + time.Duration(n%57)*15*time.Minute
		duration = 45*time.Minute + time.Duration(n%22)*15*time.Minute
	}
	// Wall-clock time of day, so that a DST change day keeps the times.
	dep := time.Date(day.Year(), day.Month(), day.Day(), int(timeOfDay/time.Hour), int(timeOfDay%time.Hour/time.Minute), 0, 0, d.loc)
	return Leg{Train: train, ServiceDate: date, Departure: dep, Arrival: dep.Add(duration), Services: services}, nil
}

// isNightTrain is the demo's rule for night trains: numbers starting with 4.
func isNightTrain(train string) bool { return strings.HasPrefix(train, "4") }
