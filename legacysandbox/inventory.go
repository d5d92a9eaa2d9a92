package legacysandbox

import (
	"strconv"

	"github.com/caddy-osdm/caddy-osdm/internal/placemap"
	"github.com/caddy-osdm/caddy-osdm/legacy"
)

// runKey names the places of one kind in one train run: train, service
// day, travel class and service code.
type runKey struct {
	train       string
	serviceDate string
	class       int
	service     int
}

// inventory holds the taken places of every runKey with at least one.
type inventory struct {
	capacity int
	runs     map[runKey]*placemap.Map
}

func newInventory(capacity int) *inventory {
	return &inventory{capacity: capacity, runs: map[runKey]*placemap.Map{}}
}

// free counts the places left of k.
func (inv *inventory) free(k runKey) int {
	if p := inv.runs[k]; p != nil {
		return p.Free()
	}
	return inv.capacity
}

// take allocates the n lowest free places of k, or returns nil when fewer
// than n are left.
func (inv *inventory) take(k runKey, n int) []int {
	if n < 1 || inv.free(k) < n {
		return nil
	}
	p := inv.runs[k]
	if p == nil {
		p = placemap.New(inv.capacity)
		inv.runs[k] = p
	}
	return p.Take(n)
}

// release frees places taken before; a runKey with no place taken is
// forgotten, so the inventory is bounded by the bookings that hold places.
func (inv *inventory) release(k runKey, idx []int) {
	p := inv.runs[k]
	if p == nil {
		return
	}
	p.Release(idx)
	if p.Used() == 0 {
		delete(inv.runs, k)
	}
}

// placesPerCoach is the size of a coach of each service code.
func placesPerCoach(service int) int {
	switch service {
	case legacy.ServiceCouchette:
		return 36
	case legacy.ServiceBerth:
		return 24
	}
	return 60
}

// firstPlaceNumber is the number of the first place in a coach (seat
// numbers in European trains usually start at 11).
const firstPlaceNumber = 11

// placeOf is where index i of k sits: coach and place number. Coaches are
// numbered from 1 through the train's kinds of places (services in order,
// first class before second), each taking as many coaches as capacity
// needs, so every place of a run has its own coach and number.
func placeOf(k runKey, services []int, i, capacity int) legacy.Place {
	first := 1
	for _, sc := range services {
		per := placesPerCoach(sc)
		coaches := (capacity + per - 1) / per
		for _, class := range []int{legacy.FirstClass, legacy.SecondClass} {
			if sc == k.service && class == k.class {
				return legacy.Place{Coach: strconv.Itoa(first + i/per), Number: strconv.Itoa(firstPlaceNumber + i%per)}
			}
			first += coaches
		}
	}
	return legacy.Place{Coach: "0", Number: strconv.Itoa(i + 1)} // not reached: callers pass a service of the train
}
