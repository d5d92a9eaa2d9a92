package timetable

import (
	"math"
	"slices"
	"sort"
	"sync"
	"time"
)

// never is an arrival not (yet) reached.
const never = math.MaxInt64

// label is how a station was reached in a round: on which trip of which
// route, on which service date, boarded and left at which positions of
// the route, and the round of the label it boarded from (0: the origin).
type label struct {
	pat, trip     int32
	board, alight int32
	prev          int32
	d             day
	base          int64
}

// search is the state of one Plan: per round k (0..rounds) and station s,
// the earliest arrival with at most k trains (arr[k*ns+s]) and how
// (lab[k*ns+s]).
type search struct {
	t          *Timetable
	net        *network
	ns, rounds int
	origin     int32
	dest       int32
	arr        []int64
	lab        []label
	marked     []bool
	cur, next  []int32 // stations marked in the round before, and in this one
	queue      []int32 // per route, the first position to scan from; -1 none
	queued     []int32 // the routes queued
	minSecs    int32   // the query's MinTransfer, seconds
	lastBoard  int64   // no boarding at the origin after this (the window's end)
	limit      int64   // no arrival after this
	days       dayRange
}

// dayRange caches the bases of the service dates a search may use.
type dayRange struct {
	first day
	bases []int64
}

func (r *dayRange) base(d day) (int64, bool) {
	i := int(d - r.first)
	if i < 0 || i >= len(r.bases) {
		return 0, false
	}
	return r.bases[i], true
}

var searchPool sync.Pool

func (t *Timetable) newSearch(rounds int) *search {
	net := t.network()
	ns := len(t.stations)
	sr, _ := searchPool.Get().(*search)
	if sr == nil || sr.t != t || sr.rounds != rounds {
		sr = &search{
			t: t, net: net, ns: ns, rounds: rounds,
			arr:    make([]int64, (rounds+1)*ns),
			lab:    make([]label, (rounds+1)*ns),
			marked: make([]bool, ns),
			queue:  make([]int32, len(net.pats)),
		}
		for i := range sr.queue {
			sr.queue[i] = -1
		}
	}
	for i := range sr.arr {
		sr.arr[i] = never
	}
	return sr
}

// plan runs the search for a checked query between stations o and d.
func (t *Timetable) plan(o, d int32, q Query) []Journey {
	sr := t.newSearch(q.MaxChanges + 1)
	defer searchPool.Put(sr)
	sr.origin, sr.dest = o, d
	sr.minSecs = int32(q.MinTransfer / time.Second)

	w := int64(q.Window / time.Second)
	long := int64(MaxJourney / time.Second)
	var lo, hi int64 // departures from the origin
	if q.ArriveBy {
		sr.limit = q.Time.Unix()
		lo, hi = sr.limit-w-long, sr.limit
	} else {
		lo = q.Time.Unix()
		hi = lo + w
		sr.limit = hi + long
	}
	sr.lastBoard = hi
	first := dayIn(time.Unix(lo-int64(t.maxSecs)-2*3600, 0), t.loc)
	last := dayIn(time.Unix(sr.limit+2*3600, 0), t.loc)
	sr.days = dayRange{first: first, bases: make([]int64, 0, last-first+1)}
	for dd := first; dd <= last; dd++ {
		sr.days.bases = append(sr.days.bases, dd.base(t.loc))
	}

	// The departures from the origin in [lo, hi], latest first.
	var deps []int64
	t.eventsIn(t.deps[t.depOff[o]:t.depOff[o+1]], lo, hi, func(e *event, _ *trip, _ day, base int64) {
		deps = append(deps, base+int64(e.secs))
	})
	slices.Sort(deps)
	deps = slices.Compact(deps)

	var found []Journey
	before := make([]int64, sr.rounds+1)
	for i := len(deps) - 1; i >= 0; i-- {
		for k := 1; k <= sr.rounds; k++ {
			before[k] = sr.arr[k*sr.ns+int(d)]
		}
		sr.run(deps[i])
		for k := 1; k <= sr.rounds; k++ {
			if sr.arr[k*sr.ns+int(d)] < before[k] {
				found = append(found, sr.journey(k))
			}
		}
	}
	return pareto(found, q, lo, hi)
}

// run is one RAPTOR run from the origin at time dep, keeping the labels of
// the runs before (later departures): only what it improves is marked.
func (sr *search) run(dep int64) {
	sr.arr[int(sr.origin)] = dep
	sr.cur = append(sr.cur[:0], sr.origin)
	for k := 1; k <= sr.rounds && len(sr.cur) > 0; k++ {
		for _, s := range sr.cur {
			sr.marked[s] = false
			for _, ps := range sr.net.at[sr.net.atOff[s]:sr.net.atOff[s+1]] {
				if q := sr.queue[ps.pat]; q < 0 {
					sr.queued = append(sr.queued, ps.pat)
					sr.queue[ps.pat] = ps.pos
				} else if ps.pos < q {
					sr.queue[ps.pat] = ps.pos
				}
			}
		}
		sr.next = sr.next[:0]
		for _, p := range sr.queued {
			sr.scan(p, sr.queue[p], k)
			sr.queue[p] = -1
		}
		sr.queued = sr.queued[:0]
		for _, s := range sr.next {
			sr.marked[s] = false
		}
		sr.cur, sr.next = sr.next, sr.cur
	}
	for _, s := range sr.cur {
		sr.marked[s] = false
	}
	sr.cur = sr.cur[:0]
}

// best is the earliest arrival at s with at most k trains, and the round
// of the label that has it.
func (sr *search) best(k int, s int32) (int64, int) {
	a, r := int64(never), -1
	for i := 0; i <= k; i++ {
		if v := sr.arr[i*sr.ns+int(s)]; v < a {
			a, r = v, i
		}
	}
	return a, r
}

// scan walks route p from position from in round k: it rides the
// earliest trip it can board so far, sets the labels of the stations
// where that trip arrives sooner than known, and changes to an earlier
// trip where one can be caught.
func (sr *search) scan(p int32, from int32, k int) {
	t := sr.t
	pt := &sr.net.pats[p]
	n := int32(len(pt.stops))
	cur := label{pat: p, trip: -1}
	var curDep int64
	for j := from; j < n; j++ {
		s := pt.stops[j]
		if cur.trip >= 0 && pt.flags[j]&flagNoDropOff == 0 && s != sr.origin {
			a := cur.base + int64(t.stArr[t.trips[cur.trip].first+j])
			if a <= sr.limit {
				known, _ := sr.best(k, s)
				target, _ := sr.best(k, sr.dest)
				if a < known && a < target {
					i := k*sr.ns + int(s)
					sr.arr[i] = a
					l := cur
					l.alight = j
					sr.lab[i] = l
					if !sr.marked[s] {
						sr.marked[s] = true
						sr.next = append(sr.next, s)
					}
				}
			}
		}
		if j == n-1 || pt.flags[j]&flagNoPickup != 0 {
			continue
		}
		ready, r := sr.best(k-1, s)
		if ready == never || (cur.trip >= 0 && ready >= curDep) {
			continue
		}
		if l, dep, ok := sr.board(pt, j, s, ready, r); ok && (cur.trip < 0 || dep < curDep) {
			l.pat = p
			cur, curDep = l, dep
		}
	}
}

// board finds the earliest trip of route pt that can be boarded at
// position j (station s) by a traveller who arrived at ready with the
// label of round r: at the origin (r 0) any trip leaving at ready or later
// and no later than the window's end; elsewhere one leaving no sooner than
// the change from the trip arrived with takes, where a change is allowed.
func (sr *search) board(pt *pattern, j int32, s int32, ready int64, r int) (label, int64, bool) {
	t := sr.t
	var from int32 = -1
	if r > 0 {
		from = sr.lab[r*sr.ns+int(s)].trip
	}
	specific := r > 0 && t.transfers.hasSpecific != nil && t.transfers.hasSpecific[s]
	earliest := ready
	if r > 0 && !specific {
		secs, ok := t.transferSecs(s, from, from, sr.minSecs)
		if !ok {
			return label{}, 0, false
		}
		earliest += int64(secs)
	}
	best := label{trip: -1}
	bestDep := int64(never)
	d0 := dayIn(time.Unix(earliest-int64(t.maxSecs)-2*3600, 0), t.loc)
	for d := d0; ; d++ {
		base, ok := sr.days.base(d)
		if !ok {
			if d < sr.days.first {
				continue
			}
			break
		}
		if base > bestDep || base > sr.limit {
			break
		}
		trips := pt.trips
		i := sort.Search(len(trips), func(i int) bool {
			return base+int64(t.stDep[t.trips[trips[i]].first+j]) >= earliest
		})
		for ; i < len(trips); i++ {
			ti := trips[i]
			tr := &t.trips[ti]
			dep := base + int64(t.stDep[tr.first+j])
			if dep >= bestDep {
				break
			}
			if !t.cal.runs(tr.service, d) {
				continue
			}
			if specific {
				secs, ok := t.transferSecs(s, from, ti, sr.minSecs)
				if !ok || dep < ready+int64(secs) {
					continue
				}
			}
			best = label{trip: ti, board: j, prev: int32(r), d: d, base: base}
			bestDep = dep
			break
		}
	}
	if best.trip < 0 || (r == 0 && bestDep > sr.lastBoard) {
		return label{}, 0, false
	}
	return best, bestDep, true
}

// journey rebuilds the journey of the destination's label in round k.
func (sr *search) journey(k int) Journey {
	var rides []ride
	s := sr.dest
	for k > 0 {
		l := sr.lab[k*sr.ns+int(s)]
		tr := &sr.t.trips[l.trip]
		rides = append(rides, ride{trip: l.trip, from: tr.first + l.board, to: tr.first + l.alight, d: l.d, base: l.base})
		s = sr.net.pats[l.pat].stops[l.board]
		k = int(l.prev)
	}
	j := Journey{Legs: make([]Leg, len(rides))}
	for i := range rides {
		j.Legs[len(rides)-1-i] = sr.t.leg(rides[i])
	}
	return j
}

// pareto keeps the journeys in the query's window that no other
// dominates (leaves no earlier, arrives no later, no more changes; of
// equal ones, the first), ordered by arrival, changes and departure, at
// most q.MaxTrips of them. lo and hi bound the departures searched.
func pareto(js []Journey, q Query, lo, hi int64) []Journey {
	long := MaxJourney
	kept := js[:0]
	for _, j := range js {
		dep, arr := j.Departure(), j.Arrival()
		if arr.Sub(dep) > long || dep.Unix() < lo || dep.Unix() > hi {
			continue
		}
		if q.ArriveBy && (arr.After(q.Time) || arr.Before(q.Time.Add(-q.Window))) {
			continue
		}
		kept = append(kept, j)
	}
	slices.SortStableFunc(kept, func(a, b Journey) int {
		if c := a.Arrival().Compare(b.Arrival()); c != 0 {
			return c
		}
		if c := a.Changes() - b.Changes(); c != 0 {
			return c
		}
		return a.Departure().Compare(b.Departure())
	})
	var out []Journey
	for i, j := range kept {
		dominated := false
		for k, o := range kept {
			if k == i {
				continue
			}
			if !o.Departure().Before(j.Departure()) && !o.Arrival().After(j.Arrival()) && o.Changes() <= j.Changes() {
				same := o.Departure().Equal(j.Departure()) && o.Arrival().Equal(j.Arrival()) && o.Changes() == j.Changes()
				if !same || k < i {
					dominated = true
					break
				}
			}
		}
		if !dominated {
			out = append(out, j)
		}
	}
	if len(out) > q.MaxTrips {
		if q.ArriveBy {
			out = out[len(out)-q.MaxTrips:]
		} else {
			out = out[:q.MaxTrips]
		}
	}
	return out
}
