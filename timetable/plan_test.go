package timetable

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"
	"time"
)

// Stations of the planner's test feeds.
const (
	paNord  = "8727100" // A
	basel   = "8500010" // B
	zurich  = "8503000" // C
	munchen = "8000261" // D
)

// planFeed is a feed of stations A, B, C, D (the codes above), routes R
// and R2, services S (every day of 2026), WD (Monday to Friday) and
// NEXT (3 December only), trips given as "id,train,service" lines, stop
// times as "trip,arrival,departure,stop,seq[,pickup,dropoff]" lines and
// an optional transfers.txt body (with its header).
func planFeed(t testing.TB, trips, stopTimes, transfers string) *Timetable {
	t.Helper()
	fs := fstest.MapFS{
		"agency.txt":         {Data: []byte("agency_id,agency_name,agency_url,agency_timezone\nA,A,http://a,Europe/Paris\n")},
		"stops.txt":          {Data: []byte("stop_id,stop_code,stop_name\nA," + paNord + ",Paris Nord\nB," + basel + ",Basel SBB\nB1,,Basel SBB voie 1\nC," + zurich + ",Zürich HB\nD," + munchen + ",München Hbf\n")},
		"routes.txt":         {Data: []byte("route_id,route_type\nR,2\nR2,2\n")},
		"calendar.txt":       {Data: []byte("service_id,monday,tuesday,wednesday,thursday,friday,saturday,sunday,start_date,end_date\nS,1,1,1,1,1,1,1,20260101,20261231\nWD,1,1,1,1,1,0,0,20260101,20261231\n")},
		"calendar_dates.txt": {Data: []byte("service_id,date,exception_type\nNEXT,20261203,1\n")},
		"trips.txt":          {Data: []byte("route_id,service_id,trip_id,trip_short_name\n" + trips)},
		"stop_times.txt":     {Data: []byte("trip_id,arrival_time,departure_time,stop_id,stop_sequence,pickup_type,drop_off_type\n" + stopTimes)},
	}
	// stops.txt: B1 needs its parent.
	fs["stops.txt"] = &fstest.MapFile{Data: []byte("stop_id,stop_code,stop_name,location_type,parent_station\nA," + paNord + ",Paris Nord,,\nB," + basel + ",Basel SBB,1,\nB1,,Basel SBB voie 1,0,B\nC," + zurich + ",Zürich HB,,\nD," + munchen + ",München Hbf,,\n")}
	if transfers != "" {
		fs["transfers.txt"] = &fstest.MapFile{Data: []byte(transfers)}
	}
	tt, err := LoadFS(fs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return tt
}

// fmtJourneys is the journeys as "train1+train2 08:00-11:20" lines.
func fmtJourneys(js []Journey) string {
	var b strings.Builder
	for _, j := range js {
		trains := make([]string, len(j.Legs))
		for i, l := range j.Legs {
			trains[i] = l.Train
		}
		fmt.Fprintf(&b, "%s %s-%s\n", strings.Join(trains, "+"), j.Departure().In(paris).Format("01-02 15:04"), j.Arrival().In(paris).Format("01-02 15:04"))
	}
	return b.String()
}

// A -> B, then B -> C three times: 10:05, 10:20, 10:40.
const (
	changeTrips = "R,S,T1,1\nR2,S,T2,2\nR2,S,T3,3\nR2,S,T4,4\n"
	changeTimes = "T1,08:00:00,08:00:00,A,1,,\nT1,10:00:00,10:00:00,B1,2,,\n" +
		"T2,10:05:00,10:05:00,B,1,,\nT2,11:00:00,11:00:00,C,2,,\n" +
		"T3,10:20:00,10:20:00,B1,1,,\nT3,11:20:00,11:20:00,C,2,,\n" +
		"T4,10:40:00,10:40:00,B,1,,\nT4,11:40:00,11:40:00,C,2,,\n"
	transfersHdr = "from_stop_id,to_stop_id,transfer_type,min_transfer_time,from_trip_id,to_trip_id\n"
)

func TestPlanMinTransfer(t *testing.T) {
	q := Query{Origin: paNord, Destination: zurich, Time: at("2026-12-02 07:00"), MaxChanges: 1}
	cases := []struct {
		name      string
		transfers string
		min       time.Duration
		want      string
	}{
		{"default 10m", "", 0, "1+3 12-02 08:00-12-02 11:20\n"},
		{"query's 3m", "", 3 * time.Minute, "1+2 12-02 08:00-12-02 11:00\n"},
		{"station's 25m beats the query's", transfersHdr + "B,B1,2,1500,,\n", 3 * time.Minute, "1+4 12-02 08:00-12-02 11:40\n"},
		{"station's 2m beats the default", transfersHdr + "B1,B1,2,120,,\n", 0, "1+2 12-02 08:00-12-02 11:00\n"},
		{"type 1: the train waits", transfersHdr + "B,B,1,,,\n", 0, "1+2 12-02 08:00-12-02 11:00\n"},
		{"type 3: no change", transfersHdr + "B,B,3,,,\n", 0, ""},
		{"longest of two rows", transfersHdr + "B,B,2,120,,\nB1,B,2,1500,,\n", 0, "1+4 12-02 08:00-12-02 11:40\n"},
		{"a walk to another station is not used", transfersHdr + "B,C,2,60,,\n", 3 * time.Minute, "1+2 12-02 08:00-12-02 11:00\n"},
		{"trip pair beats the station", transfersHdr + "B,B,3,,,\nB,B,2,300,T1,T2\n", 0, "1+2 12-02 08:00-12-02 11:00\n"},
		{"trip pair forbids", transfersHdr + "B,B,3,,T1,T2\n", 3 * time.Minute, "1+3 12-02 08:00-12-02 11:20\n"},
		{"route pair forbids", "from_stop_id,to_stop_id,transfer_type,from_route_id,to_route_id\nB,B,3,R,R2\n", 0, ""},
		{"trip to route beats the route pair", "from_stop_id,to_stop_id,transfer_type,min_transfer_time,from_route_id,to_route_id,from_trip_id,to_trip_id\nB,B,3,,R,R2,,\nB,B,2,60,,R2,T1,\n", 0, "1+2 12-02 08:00-12-02 11:00\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tt := planFeed(t, changeTrips, changeTimes, c.transfers)
			q := q
			q.MinTransfer = c.min
			js, err := tt.Plan(q)
			if err != nil {
				t.Fatal(err)
			}
			if got := fmtJourneys(js); got != c.want {
				t.Errorf("got\n%swant\n%s", got, c.want)
			}
			checkJourneys(t, tt, q, js)
			if walk := strings.Contains(c.transfers, "B,C,"); walk != (len(tt.Warnings()) == 1 && strings.Contains(tt.Warnings()[0], "transfers.txt: 1 rows between two different stations not used")) {
				t.Errorf("warnings %q", tt.Warnings())
			}
		})
	}
}

func TestPlanDominanceAndOrder(t *testing.T) {
	trips := changeTrips + "R,S,T5,5\nR,S,T6,6\nR,S,T7,7\nR,S,T8,8\nR,S,T9,9\n"
	times := changeTimes +
		// T5 direct 08:00-12:30: fewer changes than 1+3, kept.
		"T5,08:00:00,08:00:00,A,1,,\nT5,12:30:00,12:30:00,C,2,,\n" +
		// T6 direct 07:50-12:40: dominated by T5.
		"T6,07:50:00,07:50:00,A,1,,\nT6,12:40:00,12:40:00,C,2,,\n" +
		// T7 09:00 A -> B 10:30, then 4 at 10:40 arrives 11:40: 1 change, dominated by nothing.
		"T7,09:00:00,09:00:00,A,1,,\nT7,10:30:00,10:30:00,B,2,,\n" +
		// T8 A -> D, T9 D -> C: two changes... one change, arriving 11:10 but leaving 07:30.
		"T8,07:30:00,07:30:00,A,1,,\nT8,09:00:00,09:00:00,D,2,,\n" +
		"T9,09:30:00,09:30:00,D,1,,\nT9,11:10:00,11:10:00,C,2,,\n"
	tt := planFeed(t, trips, times, "")
	q := Query{Origin: paNord, Destination: zurich, Time: at("2026-12-02 07:00"), MaxChanges: 1}
	js, err := tt.Plan(q)
	if err != nil {
		t.Fatal(err)
	}
	want := "8+9 12-02 07:30-12-02 11:10\n1+3 12-02 08:00-12-02 11:20\n7+4 12-02 09:00-12-02 11:40\n5 12-02 08:00-12-02 12:30\n"
	if got := fmtJourneys(js); got != want {
		t.Errorf("got\n%swant\n%s", got, want)
	}
	checkJourneys(t, tt, q, js)
	// Direct only.
	q.MaxChanges = 0
	js, _ = tt.Plan(q)
	if got := fmtJourneys(js); got != "5 12-02 08:00-12-02 12:30\n" {
		t.Errorf("direct only: %s", got)
	}
	// At most two, the first to arrive.
	q.MaxChanges, q.MaxTrips = 1, 2
	js, _ = tt.Plan(q)
	if got := fmtJourneys(js); got != "8+9 12-02 07:30-12-02 11:10\n1+3 12-02 08:00-12-02 11:20\n" {
		t.Errorf("max trips 2: %s", got)
	}
	// A window that ends before 08:00 leaves only 8+9 and T6 (T5 leaves
	// at 08:00, outside [07:00, 07:59]).
	q.MaxTrips, q.Window = 0, 59*time.Minute
	js, _ = tt.Plan(q)
	if got := fmtJourneys(js); got != "8+9 12-02 07:30-12-02 11:10\n6 12-02 07:50-12-02 12:40\n" {
		t.Errorf("window 59m: %s", got)
	}
	// Arriving by 11:30: the last to arrive within 4h before.
	js, _ = tt.Plan(Query{Origin: paNord, Destination: zurich, Time: at("2026-12-02 11:30"), ArriveBy: true, MaxChanges: 1})
	if got := fmtJourneys(js); got != "8+9 12-02 07:30-12-02 11:10\n1+3 12-02 08:00-12-02 11:20\n" {
		t.Errorf("arrive by 11:30: %s", got)
	}
}

func TestPlanTwoChanges(t *testing.T) {
	trips := "R,S,T1,1\nR,S,T2,2\nR,S,T3,3\n"
	times := "T1,08:00:00,08:00:00,A,1,,\nT1,09:00:00,09:00:00,B,2,,\n" +
		"T2,09:15:00,09:15:00,B,1,,\nT2,10:00:00,10:00:00,D,2,,\n" +
		"T3,10:30:00,10:30:00,D,1,,\nT3,11:00:00,11:00:00,C,2,,\n"
	tt := planFeed(t, trips, times, "")
	q := Query{Origin: paNord, Destination: zurich, Time: at("2026-12-02 07:00"), MaxChanges: 1}
	if js, _ := tt.Plan(q); len(js) != 0 {
		t.Errorf("one change: %s", fmtJourneys(js))
	}
	q.MaxChanges = 2
	js, _ := tt.Plan(q)
	if got := fmtJourneys(js); got != "1+2+3 12-02 08:00-12-02 11:00\n" {
		t.Errorf("two changes: %s", got)
	}
	checkJourneys(t, tt, q, js)
}

// A change after midnight, onto a train of the next service date, and
// a train that runs on weekdays only.
func TestPlanMidnightAndCalendar(t *testing.T) {
	trips := "R,S,T1,1\nR,NEXT,T2,2\nR,S,T3,3\nR,WD,T4,4\nR,S,T5,5\n"
	times := "T1,23:30:00,23:30:00,A,1,,\nT1,24:40:00,24:40:00,B,2,,\n" +
		// T2 runs on 3 December only, at 01:00.
		"T2,01:00:00,01:00:00,B,1,,\nT2,02:00:00,02:00:00,C,2,,\n" +
		// T3 leaves B at 25:30 of its service date: too late to beat T2.
		"T3,25:30:00,25:30:00,B,1,,\nT3,26:30:00,26:30:00,C,2,,\n" +
		// T4: weekdays; T5 B -> C every day at 12:00.
		"T4,08:00:00,08:00:00,A,1,,\nT4,10:00:00,10:00:00,B,2,,\n" +
		"T5,12:00:00,12:00:00,B,1,,\nT5,13:00:00,13:00:00,C,2,,\n"
	tt := planFeed(t, trips, times, "")
	js, _ := tt.Plan(Query{Origin: paNord, Destination: zurich, Time: at("2026-12-02 23:00"), MaxChanges: 1})
	if got := fmtJourneys(js); got != "1+2 12-02 23:30-12-03 02:00\n" {
		t.Fatalf("after midnight: %s", got)
	}
	if l := js[0].Legs; l[0].ServiceDate.Format(time.DateOnly) != "2026-12-02" || l[1].ServiceDate.Format(time.DateOnly) != "2026-12-03" || l[1].Trip != "T2" || l[1].Route != "R" {
		t.Errorf("legs %+v", l)
	}
	// The next night, T2 does not run: T3 of the 3rd.
	js, _ = tt.Plan(Query{Origin: paNord, Destination: zurich, Time: at("2026-12-03 23:00"), MaxChanges: 1})
	if got := fmtJourneys(js); got != "1+3 12-03 23:30-12-04 02:30\n" {
		t.Errorf("next night: %s", got)
	}
	// Friday 4 December: T4 runs; Saturday 5: it does not.
	js, _ = tt.Plan(Query{Origin: paNord, Destination: zurich, Time: at("2026-12-04 07:00"), MaxChanges: 1})
	if got := fmtJourneys(js); got != "4+5 12-04 08:00-12-04 13:00\n" {
		t.Errorf("Friday: %s", got)
	}
	js, _ = tt.Plan(Query{Origin: paNord, Destination: zurich, Time: at("2026-12-05 07:00"), MaxChanges: 1})
	if got := fmtJourneys(js); got != "" {
		t.Errorf("Saturday: %s", got)
	}
}

// A train that may not be left at B (drop_off_type 1) or boarded there
// (pickup_type 1) gives no change at B.
func TestPlanPickupDropOff(t *testing.T) {
	for _, c := range []struct{ name, times string }{
		{"no drop-off", "T1,08:00:00,08:00:00,A,1,,\nT1,10:00:00,10:00:00,B,2,,1\nT1,11:00:00,11:00:00,D,3,,\nT3,10:20:00,10:20:00,B,1,,\nT3,11:20:00,11:20:00,C,2,,\n"},
		{"no pickup", "T1,08:00:00,08:00:00,A,1,,\nT1,10:00:00,10:00:00,B,2,,\nT3,10:20:00,10:20:00,B,1,1,\nT3,11:20:00,11:20:00,C,2,,\n"},
	} {
		tt := planFeed(t, "R,S,T1,1\nR,S,T3,3\n", c.times, "")
		if js, _ := tt.Plan(Query{Origin: paNord, Destination: zurich, Time: at("2026-12-02 07:00"), MaxChanges: 1}); len(js) != 0 {
			t.Errorf("%s: %s", c.name, fmtJourneys(js))
		}
	}
}

func TestPlanQueryErrors(t *testing.T) {
	tt := planFeed(t, changeTrips, changeTimes, "")
	for _, q := range []Query{
		{MaxChanges: 3}, {MaxChanges: -1}, {Window: -time.Second}, {Window: MaxWindow + time.Second}, {MinTransfer: -time.Second}, {MaxTrips: -1},
	} {
		q.Origin, q.Destination, q.Time = paNord, zurich, at("2026-12-02 07:00")
		if _, err := tt.Plan(q); !errors.Is(err, ErrQuery) {
			t.Errorf("%+v: %v", q, err)
		}
	}
	for _, q := range []Query{
		{Origin: "8799999", Destination: zurich}, {Origin: paNord, Destination: paNord},
	} {
		q.Time = at("2026-12-02 07:00")
		if js, err := tt.Plan(q); err != nil || js != nil {
			t.Errorf("%+v: %v %v", q, js, err)
		}
	}
}

func TestBadTransfers(t *testing.T) {
	cases := []struct {
		body        string
		line        int
		field, part string
	}{
		{transfersHdr + "BXL,BXL,7,,,\n", 2, "transfer_type", "want 0"},
		{transfersHdr + "BXL,BXL,2,,,\n", 2, "min_transfer_time", "seconds"},
		{transfersHdr + "BXL,BXL,2,-5,,\n", 2, "min_transfer_time", "seconds"},
		{transfersHdr + "BXL,BXL,2,999999,,\n", 2, "min_transfer_time", "seconds"},
		{"from_stop_id,to_stop_id,transfer_type\nBXL,BXL,2\n", 2, "min_transfer_time", "no such column"},
		{transfersHdr + "BXL,BXL,0,,,\nX,BXL,3,,,\n", 3, "from_stop_id", `"X" is no stop_id`},
		{transfersHdr + "BXL,Y,3,,,\n", 2, "to_stop_id", `"Y" is no stop_id`},
		{transfersHdr + ",BXL,3,,,\n", 2, "from_stop_id", "required"},
		{transfersHdr + "BXL,BXL,3,,TX,\n", 2, "from_trip_id", `"TX" is no trip_id`},
		{"from_stop_id,to_stop_id\nBXL,BXL\n", 1, "transfer_type", "required column"},
		{"from_stop_id,to_stop_id,transfer_type,from_route_id\nBXL,BXL,3,RX\n", 2, "from_route_id", `"RX" is no route_id`},
	}
	for _, c := range cases {
		fs := fstest.MapFS{}
		for name, f := range goodFeed(t) {
			fs[name] = f
		}
		fs["transfers.txt"] = &fstest.MapFile{Data: []byte(c.body)}
		_, err := LoadFS(fs, Options{})
		var fe *FeedError
		if !errors.As(err, &fe) || fe.File != "transfers.txt" || fe.Line != c.line || fe.Field != c.field || !strings.Contains(fe.Msg, c.part) {
			t.Errorf("%q: %v (%+v)", c.body, err, fe)
		}
	}
}

// checkJourneys checks what every answer of Plan must be: legs that
// chain in place and time with the change each station needs, within the
// window, none dominating another, ordered, at most MaxTrips.
func checkJourneys(t testing.TB, tt *Timetable, q Query, js []Journey) {
	t.Helper()
	q, _ = q.check()
	if len(js) > q.MaxTrips {
		t.Fatalf("%d journeys, max %d", len(js), q.MaxTrips)
	}
	for i, j := range js {
		if len(j.Legs) == 0 || len(j.Legs) > q.MaxChanges+1 {
			t.Fatalf("journey %d has %d legs", i, len(j.Legs))
		}
		if j.Legs[0].From.Station != q.Origin || j.Legs[len(j.Legs)-1].To.Station != q.Destination {
			t.Fatalf("journey %d from %s to %s", i, j.Legs[0].From.Station, j.Legs[len(j.Legs)-1].To.Station)
		}
		if q.ArriveBy {
			if j.Arrival().After(q.Time) || j.Arrival().Before(q.Time.Add(-q.Window)) {
				t.Fatalf("journey %d arrives %v, outside the window", i, j.Arrival())
			}
		} else if j.Departure().Before(q.Time) || j.Departure().After(q.Time.Add(q.Window)) {
			t.Fatalf("journey %d leaves %v, outside the window", i, j.Departure())
		}
		if j.Arrival().Sub(j.Departure()) > MaxJourney {
			t.Fatalf("journey %d takes %v", i, j.Arrival().Sub(j.Departure()))
		}
		for k, l := range j.Legs {
			if !l.To.Arrival.After(l.From.Departure) && !l.To.Arrival.Equal(l.From.Departure) {
				t.Fatalf("journey %d leg %d runs backwards", i, k)
			}
			if r, ok := tt.Ride(l.Train, l.From.Station, l.To.Station, l.From.Departure); !ok || r.Trip != l.Trip && r.Train != l.Train {
				t.Fatalf("journey %d leg %d: train %s does not ride %s -> %s on %v", i, k, l.Train, l.From.Station, l.To.Station, l.From.Departure)
			}
			if k > 0 && !tt.ChangeOK(j.Legs[k-1], l, q.MinTransfer) {
				t.Fatalf("journey %d: change %d at %s from %v to %v not allowed", i, k, l.From.Station, j.Legs[k-1].To.Arrival, l.From.Departure)
			}
		}
		if i > 0 {
			p := js[i-1]
			if c := p.Arrival().Compare(j.Arrival()); c > 0 || c == 0 && (p.Changes() > j.Changes() || p.Changes() == j.Changes() && p.Departure().After(j.Departure())) {
				t.Fatalf("journeys %d and %d out of order", i-1, i)
			}
		}
		for k, o := range js {
			if k != i && !o.Departure().Before(j.Departure()) && !o.Arrival().After(j.Arrival()) && o.Changes() <= j.Changes() {
				t.Fatalf("journey %d is dominated by %d", i, k)
			}
		}
	}
}

// A route is ridden on the earliest trip that can be caught at any of its
// stops. T1 and T2 leave Paris at 06:00; from T1, at Basel at 07:20, the
// route Basel - Zürich - München is boarded on X (08:00; Y left at 07:00),
// but the traveller from T2, at Zürich at 07:30, catches Y there (08:00)
// and reaches München an hour before X.
func TestPlanCatchesAnEarlierTripDownTheRoute(t *testing.T) {
	trips := "R,S,T1,1\nR,S,T2,2\nR2,S,X,10\nR2,S,Y,11\n"
	times := "T1,06:00:00,06:00:00,A,1,,\nT1,07:20:00,07:20:00,B,2,,\n" +
		"T2,06:00:00,06:00:00,A,1,,\nT2,07:30:00,07:30:00,C,2,,\n" +
		"X,08:00:00,08:00:00,B,1,,\nX,09:00:00,09:00:00,C,2,,\nX,10:00:00,10:00:00,D,3,,\n" +
		"Y,07:00:00,07:00:00,B,1,,\nY,08:00:00,08:00:00,C,2,,\nY,09:00:00,09:00:00,D,3,,\n"
	tt := planFeed(t, trips, times, "")
	q := Query{Origin: paNord, Destination: munchen, Time: at("2026-12-02 05:00"), MaxChanges: 1}
	js, err := tt.Plan(q)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmtJourneys(js); got != "2+11 12-02 06:00-12-02 09:00\n" {
		t.Errorf("got\n%s", got)
	}
	checkJourneys(t, tt, q, js)
}

// Plan is safe for concurrent use: searches in parallel (sharing the
// routes and the pool of search states) answer as one at a time does.
func TestPlanConcurrent(t *testing.T) {
	tt := planFeed(t, changeTrips+"R,S,T5,5\n", changeTimes+"T5,08:00:00,08:00:00,A,1,,\nT5,12:30:00,12:30:00,C,2,,\n", "")
	qs := []Query{
		{Origin: paNord, Destination: zurich, Time: at("2026-12-02 07:00"), MaxChanges: 1},
		{Origin: paNord, Destination: zurich, Time: at("2026-12-02 07:00"), MaxChanges: 0},
		{Origin: paNord, Destination: zurich, Time: at("2026-12-02 07:00"), MaxChanges: 2, MinTransfer: 3 * time.Minute},
		{Origin: basel, Destination: zurich, Time: at("2026-12-03 09:00"), MaxChanges: 1},
	}
	want := make([]string, len(qs))
	for i, q := range qs {
		js, _ := tt.Plan(q)
		want[i] = fmtJourneys(js)
	}
	errs := make(chan string, 8*len(qs))
	done := make(chan struct{})
	for g := 0; g < 8; g++ {
		go func() {
			defer func() { done <- struct{}{} }()
			for n := 0; n < 50; n++ {
				i := (g + n) % len(qs)
				js, _ := tt.Plan(qs[i])
				if got := fmtJourneys(js); got != want[i] {
					errs <- fmt.Sprintf("query %d: %q, want %q", i, got, want[i])
					return
				}
			}
		}()
	}
	for g := 0; g < 8; g++ {
		<-done
	}
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// Change is the rule transfers.txt gives the change from one leg to the
// next: the most specific, else the default; false when forbidden or not
// at one station.
func TestChange(t *testing.T) {
	tt := planFeed(t, changeTrips, changeTimes, transfersHdr+"B,B,2,900,,\nB,B,2,300,T1,T2\nB,B,3,,T1,T4\n")
	ride := func(train, from, to string) Leg {
		l, ok := tt.Ride(train, from, to, date("2026-12-02"))
		if !ok {
			t.Fatalf("%s does not ride", train)
		}
		return l
	}
	t1, t2, t3, t4 := ride("1", paNord, basel), ride("2", basel, zurich), ride("3", basel, zurich), ride("4", basel, zurich)
	for _, c := range []struct {
		a, b Leg
		want time.Duration
		ok   bool
	}{
		{t1, t2, 5 * time.Minute, true}, {t1, t3, 15 * time.Minute, true}, {t1, t4, 0, false}, {t2, t3, 0, false},
	} {
		if d, ok := tt.Change(c.a, c.b, DefaultMinTransfer); d != c.want || ok != c.ok {
			t.Errorf("%s -> %s: %v %v, want %v %v", c.a.Train, c.b.Train, d, ok, c.want, c.ok)
		}
	}
	// 1 arrives at 10:00; 2 leaves at 10:05, 3 at 10:20, 4 at 10:40.
	if !tt.ChangeOK(t1, t2, 0) || !tt.ChangeOK(t1, t3, 0) || tt.ChangeOK(t1, t4, 0) {
		t.Error("ChangeOK: 1 -> 2 takes 5 minutes, 1 -> 3 15, 1 -> 4 is forbidden")
	}
	tt = planFeed(t, changeTrips, changeTimes, transfersHdr+"B,B,2,1500,,\n")
	if tt.ChangeOK(ride("1", paNord, basel), ride("3", basel, zurich), 0) {
		t.Error("ChangeOK: 1 -> 3 in 20 minutes where the station needs 25")
	}
}
