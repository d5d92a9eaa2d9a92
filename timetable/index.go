package timetable

import "slices"

// index builds the per-station departures and arrivals, each sorted by
// time of day, for Direct and DirectArriving.
func (l *loader) index() {
	t := l.t
	ns := len(t.stations)
	t.depOff = make([]int32, ns+1)
	t.arrOff = make([]int32, ns+1)
	for _, tr := range t.trips {
		for p := tr.first; p < tr.first+tr.n; p++ {
			s := t.stStation[p]
			if p < tr.first+tr.n-1 && t.stFlags[p]&flagNoPickup == 0 {
				t.depOff[s+1]++
			}
			if p > tr.first && t.stFlags[p]&flagNoDropOff == 0 {
				t.arrOff[s+1]++
			}
			t.maxSecs = max(t.maxSecs, t.stDep[p], t.stArr[p])
		}
	}
	for i := 1; i <= ns; i++ {
		t.depOff[i] += t.depOff[i-1]
		t.arrOff[i] += t.arrOff[i-1]
	}
	t.deps = make([]event, t.depOff[ns])
	t.arrs = make([]event, t.arrOff[ns])
	dn := slices.Clone(t.depOff[:ns])
	an := slices.Clone(t.arrOff[:ns])
	for ti, tr := range t.trips {
		for p := tr.first; p < tr.first+tr.n; p++ {
			s := t.stStation[p]
			if p < tr.first+tr.n-1 && t.stFlags[p]&flagNoPickup == 0 {
				t.deps[dn[s]] = event{secs: t.stDep[p], trip: int32(ti), pos: p}
				dn[s]++
			}
			if p > tr.first && t.stFlags[p]&flagNoDropOff == 0 {
				t.arrs[an[s]] = event{secs: t.stArr[p], trip: int32(ti), pos: p}
				an[s]++
			}
		}
	}
	cmp := func(a, b event) int {
		if a.secs != b.secs {
			return int(a.secs - b.secs)
		}
		return int(a.pos - b.pos)
	}
	for s := 0; s < ns; s++ {
		slices.SortFunc(t.deps[t.depOff[s]:t.depOff[s+1]], cmp)
		slices.SortFunc(t.arrs[t.arrOff[s]:t.arrOff[s+1]], cmp)
	}
}
