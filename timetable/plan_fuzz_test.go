package timetable

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// fuzzBytes hands out the fuzzer's bytes, zeros when they run out.
type fuzzBytes []byte

func (b *fuzzBytes) next(n int) int {
	if len(*b) == 0 {
		return 0
	}
	v := int((*b)[0]) % n
	*b = (*b)[1:]
	return v
}

// randomFeed makes a feed of up to 8 trips over the stations A, B, C, D
// (after-midnight times, three calendars, pickup and drop-off flags) and
// a transfers.txt with station and trip-pair rules, from the bytes.
func randomFeed(b *fuzzBytes) (trips, times, transfers string) {
	stops := []string{"A", "B", "B1", "C", "D"}
	services := []string{"S", "WD", "NEXT"}
	var tb, sb strings.Builder
	n := 2 + b.next(7)
	var last []int // the stops of the trip before
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&tb, "R,%s,T%d,%d\n", services[b.next(3)], i, i)
		secs := 5*3600 + b.next(64)*20*60 // 05:00 to past 26:00
		if b.next(3) == 0 {
			secs = 6 * 3600 // trips leaving at one time: runs of several routes
		}
		k := 2 + b.next(3)
		// Often the stops of the trip before: trips of one route, which
		// may overtake one another.
		same := last != nil && b.next(2) == 0
		if same {
			k = len(last)
		}
		var these []int
		prev := -1
		for j := 1; j <= k; j++ {
			s := b.next(len(stops))
			if s == prev {
				s = (s + 1) % len(stops)
			}
			if same {
				s = last[j-1]
			}
			prev = s
			these = append(these, s)
			arr := secs
			if j > 1 {
				arr += 5*60 + b.next(24)*5*60
			}
			dep := arr + b.next(3)*60
			pick, drop := "", ""
			if b.next(8) == 0 {
				pick = "1"
			}
			if b.next(8) == 0 {
				drop = "1"
			}
			fmt.Fprintf(&sb, "T%d,%s,%s,%s,%d,%s,%s\n", i, hms(arr), hms(dep), stops[s], j, pick, drop)
			secs = dep
		}
		last = these
	}
	var xb strings.Builder
	xb.WriteString(transfersHdr)
	for _, s := range []string{"B", "C", "D"} {
		switch b.next(4) {
		case 1:
			fmt.Fprintf(&xb, "%s,%s,2,%d,,\n", s, s, b.next(40)*60)
		case 2:
			fmt.Fprintf(&xb, "%s,%s,3,,,\n", s, s)
		case 3:
			fmt.Fprintf(&xb, "%s,%s,1,,,\n", s, s)
		}
	}
	if b.next(2) == 0 {
		a, c := 1+b.next(n), 1+b.next(n)
		if b.next(2) == 0 {
			fmt.Fprintf(&xb, "B,B,3,,T%d,T%d\n", a, c)
		} else {
			fmt.Fprintf(&xb, "B,B,2,%d,T%d,T%d\n", b.next(30)*60, a, c)
		}
	}
	return tb.String(), sb.String(), xb.String()
}

func hms(s int) string { return fmt.Sprintf("%02d:%02d:%02d", s/3600, s/60%60, s%60) }

// FuzzPlan plans on random feeds, in December and across the nights the
// clocks change: every answer holds the invariants of checkJourneys, and
// its departures, arrivals and changes are those of the journeys a search
// of every combination of trains finds.
func FuzzPlan(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte("\x04\x00\x10\x01\x00\x00\x00\x00\x00\x03\x02\x00\x00\x00\x01\x00\x11\x01\x03\x05\x00\x00\x00"))
	f.Add([]byte("a fairly long seed of bytes to make several trips with changes at B and C, transfers too"))
	f.Fuzz(func(t *testing.T, data []byte) {
		b := fuzzBytes(data)
		trips, times, transfers := randomFeed(&b)
		tt := planFeed(t, trips, times, transfers)
		codes := []string{paNord, basel, zurich, munchen}
		o := b.next(4)
		d := (o + 1 + b.next(3)) % 4
		q := Query{
			Origin: codes[o], Destination: codes[d],
			Time:        at([]string{"2026-12-02 04:00", "2026-03-28 18:00", "2026-10-24 18:00"}[b.next(3)]).Add(time.Duration(b.next(48)) * 30 * time.Minute),
			ArriveBy:    b.next(3) == 0,
			Window:      time.Duration(b.next(12)) * 30 * time.Minute,
			MaxChanges:  b.next(3),
			MinTransfer: time.Duration(b.next(20)) * time.Minute,
			MaxTrips:    b.next(7),
		}
		js, err := tt.Plan(q)
		if err != nil {
			t.Fatal(err)
		}
		checkJourneys(t, tt, q, js)
		got := make([]triple, len(js))
		for i, j := range js {
			got[i] = triple{j.Departure().Unix(), j.Arrival().Unix(), j.Changes()}
		}
		if want := bruteForce(tt, q); !slices.Equal(got, want) {
			t.Fatalf("query %+v\ntrips:\n%s%s%s\ngot  %v\nwant %v\n%s", q, trips, times, transfers, got, want, fmtJourneys(js))
		}
	})
}

type triple struct {
	dep, arr int64
	changes  int
}

// bruteForce is what Plan must answer, found by trying every train from
// the origin, every station it goes to, every train from there...
func bruteForce(tt *Timetable, q Query) []triple {
	q, _ = q.check()
	o, d := tt.byCode[q.Origin], tt.byCode[q.Destination]
	w, long := int64(q.Window/time.Second), int64(MaxJourney/time.Second)
	var lo, hi, limit int64
	if q.ArriveBy {
		limit = q.Time.Unix()
		lo, hi = limit-w-long, limit
	} else {
		lo = q.Time.Unix()
		hi, limit = lo+w, lo+w+long
	}
	type inst struct {
		trip int32
		base int64
	}
	var insts []inst
	for dd := dayIn(time.Unix(lo, 0), tt.loc) - 3; dd <= dayIn(time.Unix(limit, 0), tt.loc)+1; dd++ {
		for ti := range tt.trips {
			if tt.cal.runs(tt.trips[ti].service, dd) {
				insts = append(insts, inst{int32(ti), dd.base(tt.loc)})
			}
		}
	}
	def := int32(q.MinTransfer / time.Second)
	var found []triple
	var ride func(start int64, in inst, i int32, changes int)
	ride = func(start int64, in inst, i int32, changes int) {
		tr := &tt.trips[in.trip]
		for j := i + 1; j < tr.n; j++ {
			p := tr.first + j
			s := tt.stStation[p]
			a := in.base + int64(tt.stArr[p])
			// A ride goes somewhere: not back to where it was boarded
			// (the same station at another platform, say).
			if tt.stFlags[p]&flagNoDropOff != 0 || a > limit || s == o || s == tt.stStation[tr.first+i] {
				continue
			}
			if s == d {
				found = append(found, triple{start, a, changes})
				continue
			}
			if changes == q.MaxChanges {
				continue
			}
			for _, n := range insts {
				nt := &tt.trips[n.trip]
				for k := int32(0); k < nt.n-1; k++ {
					np := nt.first + k
					if tt.stStation[np] != s || tt.stFlags[np]&flagNoPickup != 0 {
						continue
					}
					secs, ok := tt.transferSecs(s, in.trip, n.trip, def)
					if ok && n.base+int64(tt.stDep[np]) >= a+int64(secs) {
						ride(start, n, k, changes+1)
					}
				}
			}
		}
	}
	for _, in := range insts {
		tr := &tt.trips[in.trip]
		for k := int32(0); k < tr.n-1; k++ {
			p := tr.first + k
			dep := in.base + int64(tt.stDep[p])
			if tt.stStation[p] == o && tt.stFlags[p]&flagNoPickup == 0 && dep >= lo && dep <= hi {
				ride(dep, in, k, 0)
			}
		}
	}
	// The Pareto set, ordered, cut.
	var kept []triple
	for _, j := range found {
		if j.arr-j.dep > long {
			continue
		}
		kept = append(kept, j)
	}
	slices.SortFunc(kept, func(a, b triple) int {
		if a.arr != b.arr {
			return int(a.arr - b.arr)
		}
		if a.changes != b.changes {
			return a.changes - b.changes
		}
		return int(a.dep - b.dep)
	})
	kept = slices.Compact(kept)
	var out []triple
	for i, j := range kept {
		dominated := false
		for k, x := range kept {
			if k != i && x.dep >= j.dep && x.arr <= j.arr && x.changes <= j.changes {
				dominated = true
				break
			}
		}
		if !dominated && (!q.ArriveBy || j.arr >= limit-w) {
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
