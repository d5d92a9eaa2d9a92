package timetable

import (
	"slices"
	"strings"
	"sync"
)

// network is the feed as the planner searches it: the trips grouped into
// routes (RAPTOR's word), each a stop sequence that its trips all follow
// without overtaking one another, and per station the routes calling there.
// It is built from the timetable on the first Plan and read-only after.
type network struct {
	pats []pattern
	// at lists the routes calling at each station, with the position of
	// the call: station s's are at[atOff[s]:atOff[s+1]].
	at    []patStop
	atOff []int32
	// tripID finds a trip by its trip_id.
	tripID map[string]int32
	// patOf is the route of each trip.
	patOf []int32
	// searches pools the planner's search states, by number of rounds.
	searches [MaxChangesLimit + 2]sync.Pool
}

// pattern is a route: a stop sequence (stations and boarding flags) and
// the trips that follow it, in order of departure at every stop (no trip
// overtakes another), with their times stop by stop: the departure of
// trip i (of trips) from stop j is dep[j*len(trips)+i], so that the trips
// leaving a stop are one sorted run of memory.
type pattern struct {
	stops    []int32
	flags    []uint8
	trips    []int32
	dep, arr []int32
}

// patStop is a route's call at a station: the route and the position.
type patStop struct{ pat, pos int32 }

// network is the planner's view of t, built once.
func (t *Timetable) network() *network {
	t.netOnce.Do(func() { t.net = buildNetwork(t) })
	return t.net
}

func buildNetwork(t *Timetable) *network {
	n := &network{tripID: make(map[string]int32, len(t.trips))}
	// Group the trips by stop sequence and flags.
	groups := map[string][]int32{}
	var keys []string
	var kb strings.Builder
	for ti := range t.trips {
		tr := &t.trips[ti]
		n.tripID[tr.id] = int32(ti)
		kb.Reset()
		for p := tr.first; p < tr.first+tr.n; p++ {
			s := t.stStation[p]
			kb.WriteByte(byte(s))
			kb.WriteByte(byte(s >> 8))
			kb.WriteByte(byte(s >> 16))
			kb.WriteByte(byte(s >> 24))
			kb.WriteByte(t.stFlags[p])
		}
		k := kb.String()
		if _, ok := groups[k]; !ok {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], int32(ti))
	}
	// Within a group, trips by departure from the first stop; a trip that
	// would overtake (or be overtaken by) the last of a route starts
	// another route of the same stops.
	for _, k := range keys {
		trips := groups[k]
		slices.SortStableFunc(trips, func(a, b int32) int {
			return int(t.stDep[t.trips[a].first]) - int(t.stDep[t.trips[b].first])
		})
		var chains [][]int32
		for _, ti := range trips {
			placed := false
			for c := range chains {
				if t.follows(chains[c][len(chains[c])-1], ti) {
					chains[c] = append(chains[c], ti)
					placed = true
					break
				}
			}
			if !placed {
				chains = append(chains, []int32{ti})
			}
		}
		first := &t.trips[trips[0]]
		stops := t.stStation[first.first : first.first+first.n]
		flags := t.stFlags[first.first : first.first+first.n]
		for _, c := range chains {
			p := pattern{stops: stops, flags: flags, trips: slices.Clip(c),
				dep: make([]int32, len(stops)*len(c)), arr: make([]int32, len(stops)*len(c))}
			for i, ti := range c {
				first := t.trips[ti].first
				for j := range stops {
					p.dep[j*len(c)+i] = t.stDep[first+int32(j)]
					p.arr[j*len(c)+i] = t.stArr[first+int32(j)]
				}
			}
			n.pats = append(n.pats, p)
		}
	}
	n.patOf = make([]int32, len(t.trips))
	for pi, p := range n.pats {
		for _, ti := range p.trips {
			n.patOf[ti] = int32(pi)
		}
	}
	n.atOff = make([]int32, len(t.stations)+1)
	for _, p := range n.pats {
		for _, s := range p.stops {
			n.atOff[s+1]++
		}
	}
	for i := 1; i < len(n.atOff); i++ {
		n.atOff[i] += n.atOff[i-1]
	}
	n.at = make([]patStop, n.atOff[len(t.stations)])
	next := slices.Clone(n.atOff[:len(t.stations)])
	for pi, p := range n.pats {
		for j, s := range p.stops {
			n.at[next[s]] = patStop{pat: int32(pi), pos: int32(j)}
			next[s]++
		}
	}
	return n
}

// follows says whether trip b never leaves or arrives anywhere before
// trip a (same stops): b can come after a in one route.
func (t *Timetable) follows(a, b int32) bool {
	ta, tb := &t.trips[a], &t.trips[b]
	for i := int32(0); i < ta.n; i++ {
		if t.stDep[tb.first+i] < t.stDep[ta.first+i] || t.stArr[tb.first+i] < t.stArr[ta.first+i] {
			return false
		}
	}
	return true
}
