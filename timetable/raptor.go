package timetable

import (
	"cmp"
	"math"
	"slices"
	"time"
)

// never is an arrival not (yet) reached.
const never = math.MaxInt64

// label is how a station was reached in a round: on which trip of which
// route, on which service date, boarded and left at which positions of
// the route, and the round of the label it boarded from (0: the origin).
type label struct {
	pat, trip     int32
	idx           int32 // of trip in the route's trips
	board, alight int32
	prev          int32
	d             day
	base          int64
}

// search is the state of one Plan: per round k (0..rounds) and station s,
// the earliest arrival found in round k (arr[k*ns+s]) and how
// (lab[k*ns+s]), and the earliest with at most k trains (eff[k*ns+s],
// found in round effRound[k*ns+s]).
type search struct {
	t          *Timetable
	net        *network
	ns, rounds int
	origin     int32
	dest       int32
	arr        []int64
	lab        []label
	eff        []int64
	effRound   []int8
	marked     []bool
	cur, next  []int32   // stations marked in the round before, and in this one
	seeds      []patStop // the routes leaving the origin at the run's time
	queue      []int32   // per route, the first position to scan from; -1 none
	queued     []int32   // the routes queued
	// destAt is, per route, the last position of the destination on it
	// (-1: it does not call there): the final round scans only routes
	// that reach the destination after where they are boarded.
	destAt    []int32
	minSecs   int32 // the query's MinTransfer, seconds
	lastBoard int64 // no boarding at the origin after this (the window's end)
	limit     int64 // no arrival after this
	days      dayRange
}

// dayRange caches the bases of the service dates a search may use, in
// order: first's, the next date's...
type dayRange struct {
	first day
	bases []int64
}

// newSearch is a search state for rounds rounds, from the timetable's
// pool of them (one pool per number of rounds: a state is sized by it).
func (t *Timetable) newSearch(rounds int) *search {
	net := t.network()
	ns := len(t.stations)
	sr, _ := net.searches[rounds].Get().(*search)
	if sr == nil {
		sr = &search{
			t: t, net: net, ns: ns, rounds: rounds,
			arr:      make([]int64, (rounds+1)*ns),
			lab:      make([]label, (rounds+1)*ns),
			eff:      make([]int64, (rounds+1)*ns),
			effRound: make([]int8, (rounds+1)*ns),
			marked:   make([]bool, ns),
			queue:    make([]int32, len(net.pats)),
			destAt:   make([]int32, len(net.pats)),
		}
		for i := range sr.queue {
			sr.queue[i], sr.destAt[i] = -1, -1
		}
	}
	for i := range sr.arr {
		sr.arr[i], sr.eff[i] = never, never
	}
	return sr
}

// plan runs the search for a checked query between stations o and d.
func (t *Timetable) plan(o, d int32, q Query) []Journey {
	sr := t.newSearch(q.MaxChanges + 1)
	sr.origin, sr.dest = o, d
	atDest := sr.net.at[sr.net.atOff[d]:sr.net.atOff[d+1]]
	for _, ps := range atDest {
		sr.destAt[ps.pat] = max(sr.destAt[ps.pat], ps.pos)
	}
	defer func() {
		for _, ps := range atDest {
			sr.destAt[ps.pat] = -1
		}
		sr.net.searches[sr.rounds].Put(sr)
	}()
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

	// The departures from the origin in [lo, hi], latest first, each with
	// the route and position boarded.
	type departure struct {
		at  int64
		pat int32
		pos int32
	}
	var deps []departure
	t.eventsIn(t.deps[t.depOff[o]:t.depOff[o+1]], lo, hi, func(e *event, tr *trip, _ day, base int64) {
		deps = append(deps, departure{at: base + int64(e.secs), pat: sr.net.patOf[e.trip], pos: e.pos - tr.first})
	})
	slices.SortFunc(deps, func(a, b departure) int { return cmp.Compare(b.at, a.at) })

	var found []Journey
	before := make([]int64, sr.rounds+1)
	for i := 0; i < len(deps); {
		// The departures at one time: in the first round, only their
		// routes can do better than the runs before (later departures).
		at := deps[i].at
		sr.seeds = sr.seeds[:0]
		for ; i < len(deps) && deps[i].at == at; i++ {
			sr.seeds = append(sr.seeds, patStop{pat: deps[i].pat, pos: deps[i].pos})
		}
		for k := 1; k <= sr.rounds; k++ {
			before[k] = sr.arr[k*sr.ns+int(d)]
		}
		sr.run(at)
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
// The first round scans the routes of sr.seeds, those leaving the origin
// at dep; the others would board the trip a run before boarded.
func (sr *search) run(dep int64) {
	sr.set(0, sr.origin, dep)
	for k := 1; k <= sr.rounds; k++ {
		last := k == sr.rounds
		if k == 1 {
			for _, ps := range sr.seeds {
				if !last || sr.destAt[ps.pat] > ps.pos {
					sr.enqueue(ps)
				}
			}
		} else {
			if len(sr.cur) == 0 {
				break
			}
			for _, s := range sr.cur {
				sr.marked[s] = false
				for _, ps := range sr.net.at[sr.net.atOff[s]:sr.net.atOff[s+1]] {
					if !last || sr.destAt[ps.pat] > ps.pos {
						sr.enqueue(ps)
					}
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
	sr.cur = sr.cur[:0]
}

// enqueue queues route ps.pat for scanning from position ps.pos, or from
// an earlier one already queued.
func (sr *search) enqueue(ps patStop) {
	if q := sr.queue[ps.pat]; q < 0 {
		sr.queued = append(sr.queued, ps.pat)
		sr.queue[ps.pat] = ps.pos
	} else if ps.pos < q {
		sr.queue[ps.pat] = ps.pos
	}
}

// best is the earliest arrival at s with at most k trains, and the round
// of the label that has it.
func (sr *search) best(k int, s int32) (int64, int) {
	i := k*sr.ns + int(s)
	return sr.eff[i], int(sr.effRound[i])
}

// set makes a the arrival at s in round k, earlier than any with at most k
// trains: the earliest with k or more trains too.
func (sr *search) set(k int, s int32, a int64) {
	sr.arr[k*sr.ns+int(s)] = a
	for i := k; i <= sr.rounds; i++ {
		j := i*sr.ns + int(s)
		if a < sr.eff[j] {
			sr.eff[j], sr.effRound[j] = a, int8(k)
		}
	}
}

// scan walks route p from position from in round k: it rides the
// earliest trip it can board so far, sets the labels of the stations
// where that trip arrives sooner than known, and changes to an earlier
// trip where one can be caught.
func (sr *search) scan(p int32, from int32, k int) {
	pt := &sr.net.pats[p]
	n := int32(len(pt.stops))
	nt := int32(len(pt.trips))
	cur := label{pat: p, trip: -1}
	target, _ := sr.best(k, sr.dest)
	// In the final round only the destination's label counts: no round
	// boards from the others.
	last := k == sr.rounds
	if last {
		n = sr.destAt[p] + 1
	}
	for j := from; j < n; j++ {
		s := pt.stops[j]
		if cur.trip >= 0 && pt.flags[j]&flagNoDropOff == 0 && s != sr.origin && (!last || s == sr.dest) {
			a := cur.base + int64(pt.arr[j*nt+cur.idx])
			if a <= sr.limit && a < target {
				if known, _ := sr.best(k, s); a < known {
					sr.set(k, s, a)
					l := cur
					l.alight = j
					sr.lab[k*sr.ns+int(s)] = l
					if !sr.marked[s] {
						sr.marked[s] = true
						sr.next = append(sr.next, s)
					}
					if s == sr.dest {
						target = a
					}
				}
			}
		}
		if j == n-1 || pt.flags[j]&flagNoPickup != 0 {
			continue
		}
		ready, r := sr.best(k-1, s)
		if ready == never {
			continue
		}
		// The trip ridden leaves here at curDep: an earlier one of the
		// route may be caught by a traveller who arrived here sooner.
		curDep := int64(never)
		if cur.trip >= 0 {
			curDep = cur.base + int64(pt.dep[j*nt+cur.idx])
		}
		if ready >= curDep {
			continue
		}
		if l, dep, ok := sr.board(pt, j, s, ready, r); ok && dep < curDep {
			l.pat = p
			cur = l
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
	for di, base := range sr.days.bases {
		if base+int64(t.maxSecs) < earliest {
			continue // the date's trips have all left
		}
		if base > bestDep || base > sr.limit {
			break
		}
		d := sr.days.first + day(di)
		deps := pt.dep[int(j)*len(pt.trips) : int(j+1)*len(pt.trips)]
		// The first trip leaving at earliest or later: deps is sorted.
		i, hi := 0, len(deps)
		for want := earliest - base; i < hi; {
			m := int(uint(i+hi) >> 1)
			if int64(deps[m]) < want {
				i = m + 1
			} else {
				hi = m
			}
		}
		for ; i < len(deps); i++ {
			ti := pt.trips[i]
			tr := &t.trips[ti]
			dep := base + int64(deps[i])
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
			best = label{trip: ti, idx: int32(i), board: j, prev: int32(r), d: d, base: base}
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
		// With ArriveBy, a journey arriving before the window dominates
		// those of its departure that arrive in it: it is the better way
		// to be there on time, and none is given.
		if !dominated && (!q.ArriveBy || !j.Arrival().Before(q.Time.Add(-q.Window))) {
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
