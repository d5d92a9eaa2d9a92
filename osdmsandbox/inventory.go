package osdmsandbox

import (
	"strconv"

	"github.com/caddy-osdm/caddy-osdm/internal/placemap"
	"github.com/caddy-osdm/caddy-osdm/osdm"
)

// runKey names one train on one day: its service date in a GTFS
// timetable, else the date of its departure in the offset of the search.
type runKey struct {
	train string
	date  string
}

// group is a kind of place in a train: travel class and accommodation.
type group struct {
	class osdm.TravelClass
	acc   osdm.AccommodationType
}

// groupsOf lists the kinds of places of a train, in coach order: day
// trains have seats, night trains also couchettes and berths.
func groupsOf(train string) []group {
	gs := []group{
		{osdm.TravelClassFirst, osdm.AccommodationSeat},
		{osdm.TravelClassSecond, osdm.AccommodationSeat},
	}
	if isNightTrain(train) {
		gs = append(gs,
			group{osdm.TravelClassFirst, osdm.AccommodationCouchette},
			group{osdm.TravelClassSecond, osdm.AccommodationCouchette},
			group{osdm.TravelClassFirst, osdm.AccommodationBerth},
			group{osdm.TravelClassSecond, osdm.AccommodationBerth},
		)
	}
	return gs
}

// placesPerCoach is the size of a coach of each accommodation.
func placesPerCoach(acc osdm.AccommodationType) int {
	switch acc {
	case osdm.AccommodationCouchette:
		return 36
	case osdm.AccommodationBerth:
		return 24
	}
	return 60
}

// firstPlaceNumber is the number of the first place in a coach (seat
// numbers in European trains usually start at 11).
const firstPlaceNumber = 11

// place is where index i of group g sits in train: coach and place number.
// Coaches are numbered from 1 through the groups in groupsOf order, each
// group taking as many coaches as capacity needs.
func place(train string, g group, i, capacity int) (coach, number string) {
	first := 1
	for _, other := range groupsOf(train) {
		per := placesPerCoach(other.acc)
		if other == g {
			return strconv.Itoa(first + i/per), strconv.Itoa(firstPlaceNumber + i%per)
		}
		first += (capacity + per - 1) / per
	}
	return "0", "0" // not reached: callers only pass groups of the train
}

// run holds the places of one train run.
type run struct {
	groups map[group]*placemap.Map
	held   int // places taken in all groups
}

// inventory holds the taken places of every train run with at least one.
type inventory struct {
	capacity int
	runs     map[runKey]*run
}

func newInventory(capacity int) *inventory {
	return &inventory{capacity: capacity, runs: map[runKey]*run{}}
}

// free counts the places left in group g of run k.
func (inv *inventory) free(k runKey, g group) int {
	if r := inv.runs[k]; r != nil {
		if p := r.groups[g]; p != nil {
			return p.Free()
		}
	}
	return inv.capacity
}

// take allocates the n lowest free places of group g of run k, or returns
// nil when fewer than n are left.
func (inv *inventory) take(k runKey, g group, n int) []int {
	if n < 1 || inv.free(k, g) < n {
		return nil
	}
	r := inv.runs[k]
	if r == nil {
		r = &run{groups: map[group]*placemap.Map{}}
		inv.runs[k] = r
	}
	p := r.groups[g]
	if p == nil {
		p = placemap.New(inv.capacity)
		r.groups[g] = p
	}
	got := p.Take(n)
	r.held += len(got)
	return got
}

// release frees places taken before; a run with no place taken is
// forgotten, so the inventory is bounded by the bookings that hold places.
func (inv *inventory) release(k runKey, g group, idx []int) {
	r := inv.runs[k]
	if r == nil {
		return
	}
	p := r.groups[g]
	if p == nil {
		return
	}
	r.held -= p.Release(idx)
	if r.held <= 0 {
		delete(inv.runs, k)
	}
}
