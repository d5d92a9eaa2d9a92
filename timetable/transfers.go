package timetable

import (
	"fmt"
	"strconv"
)

// A station's rule for changing trains there, as transfers.txt gives it.
const (
	// transferDefault: transfers.txt says nothing; the query's MinTransfer applies.
	transferDefault = -1
	// transferForbidden: transfer_type 3, no change here.
	transferForbidden = -2
)

// maxTransferSecs bounds min_transfer_time (a day), so that a typo cannot
// make every change at a station impossible without saying so.
const maxTransferSecs = 24 * 3600

// transferRules are the rules of transfers.txt that the planner applies:
// per station, and per pair of trips or routes at a station.
type transferRules struct {
	// station is, per station, the seconds a change there needs at least,
	// or transferDefault or transferForbidden.
	station []int32
	// specific are the rules that name trips or routes, by station; nil
	// when there are none.
	specific map[transferKey]int32
	// hasSpecific says, per station, whether specific names it.
	hasSpecific []bool
}

// transferKey names a rule that names trips or routes at a station: the
// trip_ids or route_ids it names, "" for those it does not.
type transferKey struct {
	station            int32
	fromTrip, toTrip   string
	fromRoute, toRoute string
}

// transfers reads transfers.txt (optional): for each row whose two stops
// are the same station (a stop and its platforms are one station), the
// change there takes at least min_transfer_time (transfer_type 2) or is
// not allowed (3); transfer_type 1 (a timed transfer: the train waits)
// allows a change on arrival; 0 and the in-seat types 4 and 5 change
// nothing. Several rows for one station or pair: the longest time wins, and
// a type 3 forbids. Rows between two different stations (walks) are not
// used: the planner changes trains only where both stop.
func (l *loader) transfers() error {
	t := l.t
	t.transfers.station = make([]int32, len(t.stations))
	for i := range t.transfers.station {
		t.transfers.station[i] = transferDefault
	}
	defer func() { l.tripIdx = nil }() // done with trip ids: let them go
	tb, err := openTable(l.fsys, "transfers.txt", true)
	if err != nil || tb == nil {
		return err
	}
	defer tb.close()
	fromc, toc := tb.optCol("from_stop_id"), tb.optCol("to_stop_id")
	typec, minc := tb.col("transfer_type"), tb.optCol("min_transfer_time")
	fromTripc, toTripc := tb.optCol("from_trip_id"), tb.optCol("to_trip_id")
	fromRoutec, toRoutec := tb.optCol("from_route_id"), tb.optCol("to_route_id")
	walks := 0
	for tb.next() {
		typ := tb.get(typec)
		if len(typ) != 1 || typ[0] < '0' || typ[0] > '5' {
			return tb.errf(typec, "%q: want 0, 1, 2, 3, 4 or 5", typ)
		}
		secs := int32(transferDefault)
		switch typ {
		case "1":
			secs = 0
		case "2":
			if minc < 0 {
				return feedErr("transfers.txt", tb.line, "min_transfer_time", "required with transfer_type 2, and the header has no such column")
			}
			v, err := strconv.Atoi(tb.get(minc))
			if err != nil || v < 0 || v > maxTransferSecs {
				return tb.errf(minc, "%q: want the seconds a change takes, 0..%d, with transfer_type 2", tb.get(minc), maxTransferSecs)
			}
			secs = int32(v)
		case "3":
			secs = transferForbidden
		}
		from, to := tb.get(fromc), tb.get(toc)
		if typ == "4" || typ == "5" {
			continue // in-seat: no change of train
		}
		if from == "" || to == "" {
			name := "from_stop_id"
			if from != "" {
				name = "to_stop_id"
			}
			return feedErr("transfers.txt", tb.line, name, "required with transfer_type %s", typ)
		}
		fs, ok := l.stopIdx[from]
		if !ok {
			return tb.errf(fromc, "%q is no stop_id of stops.txt", from)
		}
		ts, ok := l.stopIdx[to]
		if !ok {
			return tb.errf(toc, "%q is no stop_id of stops.txt", to)
		}
		key := transferKey{station: fs, fromTrip: l.intern(tb.get(fromTripc)), toTrip: l.intern(tb.get(toTripc)),
			fromRoute: l.intern(tb.get(fromRoutec)), toRoute: l.intern(tb.get(toRoutec))}
		for _, r := range []struct {
			c  int
			id string
		}{{fromRoutec, key.fromRoute}, {toRoutec, key.toRoute}} {
			if _, ok := l.routeIDs[r.id]; r.id != "" && !ok {
				return tb.errf(r.c, "%q is no route_id of routes.txt", r.id)
			}
		}
		skipped := false
		for _, r := range []struct {
			c  int
			id string
		}{{fromTripc, key.fromTrip}, {toTripc, key.toTrip}} {
			ti, ok := l.tripIdx[r.id]
			if r.id != "" && !ok {
				return tb.errf(r.c, "%q is no trip_id of trips.txt", r.id)
			}
			// A trip skipped (no usable train number) is never planned.
			skipped = skipped || (r.id != "" && ti < 0)
		}
		switch {
		case fs < 0 || ts < 0 || fs != ts:
			walks++
			continue
		case secs == transferDefault || skipped:
			continue
		}
		if key.fromTrip == "" && key.toTrip == "" && key.fromRoute == "" && key.toRoute == "" {
			t.transfers.station[fs] = mergeTransfer(t.transfers.station[fs], secs)
			continue
		}
		if t.transfers.specific == nil {
			t.transfers.specific = map[transferKey]int32{}
			t.transfers.hasSpecific = make([]bool, len(t.stations))
		}
		old, ok := t.transfers.specific[key]
		if !ok {
			old = transferDefault
		}
		t.transfers.specific[key] = mergeTransfer(old, secs)
		t.transfers.hasSpecific[fs] = true
	}
	if err := tb.err(); err != nil {
		return err
	}
	if walks > 0 {
		t.warnings = append(t.warnings, fmt.Sprintf("transfers.txt: %d rows between two different stations not used: journeys change trains only at a station both trains stop at", walks))
	}
	return nil
}

// mergeTransfer is the rule of two rows for the same change: a
// forbidden change stays forbidden, else the longer time wins.
func mergeTransfer(old, v int32) int32 {
	if old == transferForbidden || v == transferForbidden {
		return transferForbidden
	}
	return max(old, v)
}

// transferSecs is the least time, in seconds, a change at station s from
// trip a to trip b takes, def where transfers.txt says nothing, and false
// when the change is not allowed. Rules naming trips beat those naming
// routes, which beat the station's, as GTFS ranks them.
func (t *Timetable) transferSecs(s, a, b int32, def int32) (int32, bool) {
	r := t.transfers.station[s]
	if t.transfers.hasSpecific != nil && t.transfers.hasSpecific[s] {
		ta, tb := &t.trips[a], &t.trips[b]
		for _, k := range [...]transferKey{
			{station: s, fromTrip: ta.id, toTrip: tb.id},
			{station: s, fromTrip: ta.id, toRoute: tb.route},
			{station: s, fromRoute: ta.route, toTrip: tb.id},
			{station: s, fromRoute: ta.route, toRoute: tb.route},
			{station: s, fromTrip: ta.id},
			{station: s, toTrip: tb.id},
			{station: s, fromRoute: ta.route},
			{station: s, toRoute: tb.route},
		} {
			if v, ok := t.transfers.specific[k]; ok {
				r = v
				break
			}
		}
	}
	switch r {
	case transferForbidden:
		return 0, false
	case transferDefault:
		return def, true
	}
	return r, true
}
