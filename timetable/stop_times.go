package timetable

import (
	"fmt"
	"slices"
	"strconv"
)

// stopTimes reads stop_times.txt, orders each trip's stops by
// stop_sequence, fills in times left empty, and checks that time never
// runs backwards along a trip.
func (l *loader) stopTimes() error {
	tb, err := openTable(l.fsys, "stop_times.txt", false)
	if err != nil {
		return err
	}
	defer tb.close()
	tripc, arrc, depc := tb.col("trip_id"), tb.col("arrival_time"), tb.col("departure_time")
	stopc, seqc := tb.col("stop_id"), tb.col("stop_sequence")
	pickc := tb.optCol("pickup_type")
	dropc := tb.optCol("drop_off_type")

	// Rows as read, kept trip by trip afterwards.
	var (
		rTrip, rSeq, rStation, rArr, rDep, rLine []int32
		rFlags                                   []uint8
	)
	readTime := func(c int) (int32, error) {
		s := tb.get(c)
		if s == "" {
			return noTime, nil
		}
		v, err := parseGTFSTime(s)
		if err != nil {
			return 0, tb.errf(c, "%v", err)
		}
		return v, nil
	}
	readFlag := func(c int, flag uint8) (uint8, error) {
		switch tb.get(c) {
		case "", "0", "2", "3":
			return 0, nil
		case "1":
			return flag, nil
		}
		return 0, tb.errf(c, "%q: want 0, 1, 2 or 3", tb.get(c))
	}
	for tb.next() {
		ti, ok := l.tripIdx[tb.get(tripc)]
		if !ok {
			return tb.errf(tripc, "%q is no trip_id of trips.txt", tb.get(tripc))
		}
		if ti < 0 {
			continue // a skipped trip
		}
		st, ok := l.stopIdx[tb.get(stopc)]
		if !ok {
			return tb.errf(stopc, "%q is no stop_id of stops.txt", tb.get(stopc))
		}
		if st < 0 {
			return tb.errf(stopc, "%q is an entrance, node or boarding area, not a stop", tb.get(stopc))
		}
		seq, err := strconv.ParseUint(tb.get(seqc), 10, 31)
		if err != nil {
			return tb.errf(seqc, "%q is not a non-negative integer", tb.get(seqc))
		}
		arr, err := readTime(arrc)
		if err != nil {
			return err
		}
		dep, err := readTime(depc)
		if err != nil {
			return err
		}
		f1, err := readFlag(pickc, flagNoPickup)
		if err != nil {
			return err
		}
		f2, err := readFlag(dropc, flagNoDropOff)
		if err != nil {
			return err
		}
		rTrip = append(rTrip, ti)
		rSeq = append(rSeq, int32(seq))
		rStation = append(rStation, st)
		rArr = append(rArr, arr)
		rDep = append(rDep, dep)
		rLine = append(rLine, int32(tb.line))
		rFlags = append(rFlags, f1|f2)
	}
	if err := tb.err(); err != nil {
		return err
	}

	// Count per trip, then place each row in its trip's slot (a counting
	// sort: feeds are usually grouped by trip, but need not be).
	trips := l.t.trips
	count := make([]int32, len(trips)+1)
	for _, ti := range rTrip {
		count[ti+1]++
	}
	for i := 1; i < len(count); i++ {
		count[i] += count[i-1]
	}
	order := make([]int32, len(rTrip))
	next := slices.Clone(count[:len(trips)])
	for r, ti := range rTrip {
		order[next[ti]] = int32(r)
		next[ti]++
	}
	next = nil
	for ti := range trips {
		seg := order[count[ti]:count[ti+1]]
		if !slices.IsSortedFunc(seg, func(a, b int32) int { return int(rSeq[a]) - int(rSeq[b]) }) {
			slices.SortStableFunc(seg, func(a, b int32) int { return int(rSeq[a]) - int(rSeq[b]) })
		}
		for i := 1; i < len(seg); i++ {
			if rSeq[seg[i]] == rSeq[seg[i-1]] {
				return feedErr("stop_times.txt", int(rLine[seg[i]]), "stop_sequence", "%d appears twice in the trip (also on line %d)", rSeq[seg[i]], rLine[seg[i-1]])
			}
		}
	}

	// Keep the trips with two stops or more, in trips.txt order.
	n := 0
	kept := trips[:0]
	for ti := range trips {
		if c := count[ti+1] - count[ti]; c >= 2 {
			n += int(c)
		} else {
			l.skippedShort++
		}
	}
	t := l.t
	t.stStation = make([]int32, n)
	t.stArr = make([]int32, n)
	t.stDep = make([]int32, n)
	t.stFlags = make([]uint8, n)
	byTrain := map[string][]int32{}
	p := int32(0)
	for ti := range trips {
		seg := order[count[ti]:count[ti+1]]
		if len(seg) < 2 {
			continue
		}
		tr := trips[ti]
		tr.first, tr.n = p, int32(len(seg))
		for _, r := range seg {
			t.stStation[p] = rStation[r]
			t.stArr[p] = rArr[r]
			t.stDep[p] = rDep[r]
			t.stFlags[p] = rFlags[r]
			p++
		}
		if err := l.fillTimes(tr, seg, rLine, rArr, rDep); err != nil {
			return err
		}
		byTrain[tr.train] = append(byTrain[tr.train], int32(len(kept)))
		kept = append(kept, tr)
	}
	t.trips = slices.Clip(kept)
	t.byTrain = byTrain
	if l.skippedShort > 0 {
		t.warnings = append(t.warnings, fmt.Sprintf("stop_times.txt: %d trips skipped: fewer than two stops", l.skippedShort))
	}
	if l.interpolated > 0 {
		t.warnings = append(t.warnings, fmt.Sprintf("stop_times.txt: %d stop times had no time and were interpolated between their neighbours", l.interpolated))
	}
	return nil
}

// fillTimes completes trip tr's times in place: an arrival or departure
// given alone stands for both; a stop with neither gets a time
// interpolated evenly between the timed stops around it. The first and
// last stops must have a time. Times must not run backwards.
func (l *loader) fillTimes(tr trip, seg, rLine, rArr, rDep []int32) error {
	t := l.t
	arr := t.stArr[tr.first : tr.first+tr.n]
	dep := t.stDep[tr.first : tr.first+tr.n]
	for i := range arr {
		switch {
		case arr[i] == noTime && dep[i] != noTime:
			arr[i] = dep[i]
		case dep[i] == noTime && arr[i] != noTime:
			dep[i] = arr[i]
		}
	}
	last := len(arr) - 1
	for _, i := range []int{0, last} {
		if arr[i] == noTime {
			return feedErr("stop_times.txt", int(rLine[seg[i]]), "arrival_time", "empty at the trip's first or last stop: a time is required there")
		}
	}
	prev := 0
	for i := 1; i <= last; i++ {
		if arr[i] == noTime {
			continue
		}
		if gap := i - prev; gap > 1 {
			a, b := int64(dep[prev]), int64(arr[i])
			for k := prev + 1; k < i; k++ {
				v := int32(a + (b-a)*int64(k-prev)/int64(gap))
				arr[k], dep[k] = v, v
				l.interpolated++
			}
		}
		prev = i
	}
	for i := 0; i <= last; i++ {
		if dep[i] < arr[i] {
			return feedErr("stop_times.txt", int(rLine[seg[i]]), "departure_time", "before the arrival_time")
		}
		if i > 0 && arr[i] < dep[i-1] {
			return feedErr("stop_times.txt", int(rLine[seg[i]]), "arrival_time", "before the departure from the previous stop (line %d)", rLine[seg[i-1]])
		}
	}
	return nil
}
