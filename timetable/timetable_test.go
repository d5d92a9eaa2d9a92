package timetable

import (
	"archive/zip"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

var paris, _ = time.LoadLocation("Europe/Paris")

func load(t testing.TB, path string, opts Options) *Timetable {
	t.Helper()
	tt, err := Load(path, opts)
	if err != nil {
		t.Fatalf("Load(%s): %v", path, err)
	}
	return tt
}

func at(s string) time.Time {
	v, err := time.ParseInLocation("2006-01-02 15:04", s, paris)
	if err != nil {
		panic(err)
	}
	return v
}

func date(s string) time.Time {
	v, err := time.ParseInLocation("2006-01-02", s, paris)
	if err != nil {
		panic(err)
	}
	return v
}

func fmtCall(c Call) string {
	return fmt.Sprintf("%s %-20s arr %s dep %s", c.Station, c.Name, c.Arrival.Format("2006-01-02 15:04 MST"), c.Departure.Format("2006-01-02 15:04 MST"))
}

func fmtLeg(l Leg) string {
	return fmt.Sprintf("%s of %s: %s -> %s", l.Train, l.ServiceDate.Format("2006-01-02"), fmtCall(l.From), fmtCall(l.To))
}

// dump answers a fixed set of questions about the hand-made feed, for the
// golden file.
func dump(tt *Timetable) string {
	var b strings.Builder
	s, tr, st := tt.Stats()
	fmt.Fprintf(&b, "zone %s, %d stations, %d trips, %d stop times\n", tt.Location(), s, tr, st)
	for _, w := range tt.Warnings() {
		fmt.Fprintf(&b, "warning: %s\n", w)
	}
	runs := []struct{ train, date string }{
		{"9301", "2026-03-02"}, {"9301", "2026-03-07"}, {"9301", "2026-03-28"}, {"9301", "2026-04-06"},
		{"9315", "2026-03-15"}, {"9315", "2026-03-29"}, {"9399", "2026-03-28"}, {"9300", "2026-03-29"},
		{"9321", "2026-03-29"}, {"9321", "2026-03-31"}, {"EUROSTAR1", "2026-03-02"}, {"9999", "2026-03-02"},
		{"9315", "2026-05-01"}, {"9398", "2026-10-25"},
	}
	for _, r := range runs {
		run, ok := tt.Run(r.train, date(r.date))
		if !ok {
			fmt.Fprintf(&b, "\nRun %s %s: none\n", r.train, r.date)
			continue
		}
		fmt.Fprintf(&b, "\nRun %s %s: %s of %s\n", r.train, r.date, run.Train, run.ServiceDate.Format(time.RFC3339))
		for _, c := range run.Calls {
			fmt.Fprintf(&b, "  %s\n", fmtCall(c))
		}
	}
	qs := []struct {
		from, to, at  string
		win           time.Duration
		after, before int
	}{
		{"8727100", "8814001", "2026-03-02 08:30", 4 * time.Hour, 2, 1},
		{"8727100", "8814001", "2026-04-06 08:30", 4 * time.Hour, 2, 1},
		{"8727100", "8722326", "2026-03-02 06:00", 5 * time.Hour, 5, 0},
		{"8722326", "8814001", "2026-03-03 00:30", time.Hour, 1, 1},
		{"8814001", "8727100", "2026-03-02 08:30", 4 * time.Hour, 5, 5},
		{"8727100", "8400058", "2026-03-28 22:00", 4 * time.Hour, 3, 3},
		{"8727100", "8400058", "2026-03-29 08:00", 0, 1, 1},
	}
	for _, q := range qs {
		fmt.Fprintf(&b, "\nDirect %s -> %s at %s ±%s after %d before %d:\n", q.from, q.to, q.at, q.win, q.after, q.before)
		for _, l := range tt.Direct(q.from, q.to, at(q.at), q.win, q.after, q.before) {
			fmt.Fprintf(&b, "  %s\n", fmtLeg(l))
		}
	}
	fmt.Fprintf(&b, "\nDirectArriving 8727100 -> 8814001 by 2026-03-02 11:00 within 4h, 2:\n")
	for _, l := range tt.DirectArriving("8727100", "8814001", at("2026-03-02 11:00"), 4*time.Hour, 2) {
		fmt.Fprintf(&b, "  %s\n", fmtLeg(l))
	}
	return b.String()
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update once)", err)
	}
	if got != string(want) {
		t.Errorf("differs from %s (-update rewrites it):\n%s", path, got)
	}
}

func TestGoldenFeed(t *testing.T) {
	golden(t, "feed.golden", dump(load(t, "testdata/feed", Options{})))
}

// zipFolder writes the files of dir into a zip, under prefix.
func zipFolder(t *testing.T, dir, prefix string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "feed.zip")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if prefix != "" {
		// What macOS adds beside a zipped folder: a folder without agency.txt.
		if _, err := zw.Create("__MACOSX/" + prefix + "._agency.txt"); err != nil {
			t.Fatal(err)
		}
	}
	for _, e := range ents {
		w, err := zw.Create(prefix + e.Name())
		if err != nil {
			t.Fatal(err)
		}
		src, err := os.Open(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(w, src)
		src.Close()
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	return path
}

func TestZipSameAsFolder(t *testing.T) {
	want := dump(load(t, "testdata/feed", Options{}))
	for _, prefix := range []string{"", "gtfs-2026/"} {
		got := dump(load(t, zipFolder(t, "testdata/feed", prefix), Options{}))
		if got != want {
			t.Errorf("zip with prefix %q reads otherwise than the folder:\n%s", prefix, got)
		}
	}
}

func TestStopIDMode(t *testing.T) {
	tt := load(t, "testdata/stopid", Options{StationCode: "stop_id"})
	if name, ok := tt.StationName("8000105"); !ok || name != "Frankfurt(Main)Hbf" {
		t.Errorf("StationName(8000105) = %q, %v", name, ok)
	}
	berlin, _ := time.LoadLocation("Europe/Berlin")
	if tt.Location().String() != "Europe/Berlin" {
		t.Errorf("zone %v", tt.Location())
	}
	legs := tt.Direct("8011160", "8000261", time.Date(2026, 12, 2, 7, 0, 0, 0, berlin), 2*time.Hour, 2, 2)
	if len(legs) != 2 || legs[0].Train != "599" || legs[1].Train != "ICE 1" {
		t.Fatalf("Direct Berlin -> München: %v", legs)
	}
	if got := legs[0].To.Arrival.Format("15:04"); got != "14:20" {
		t.Errorf("599 arrives %s", got)
	}
	if _, ok := tt.Run("599", time.Date(2026, 12, 3, 0, 0, 0, 0, time.UTC)); ok {
		t.Error("599 runs on 3 December, a date calendar_dates.txt does not add")
	}
	// The same feed read by stop_code is refused: "BL" is no UIC code.
	_, err := Load("testdata/stopid", Options{})
	fe, ok := err.(*FeedError)
	if !ok || fe.File != "stops.txt" || fe.Line != 2 || fe.Field != "stop_code" {
		t.Errorf("stop_code mode on a stop_id feed: %v", err)
	}
	if _, err := Load("testdata/stopid", Options{StationCode: "stop_name"}); err == nil {
		t.Error("StationCode stop_name accepted")
	}
}

// TestFeedFacts asserts, one by one, what the golden file shows.
func TestFeedFacts(t *testing.T) {
	tt := load(t, "testdata/feed", Options{})
	run := func(train, d string) (Run, bool) { return tt.Run(train, date(d)) }

	if _, ok := run("9301", "2026-04-06"); !ok {
		// WD is removed on Easter Monday, but WE does not run on Mondays either.
	} else {
		t.Error("9301 runs on 2026-04-06, removed by calendar_dates")
	}
	if r, ok := run("9301", "2026-03-28"); !ok || r.Calls[0].Departure.Format("15:04") != "07:16" {
		t.Errorf("9301 on Saturday 2026-03-28 (added to WD, first trip wins): %v %v", ok, r)
	}
	if r, ok := run("9301", "2026-03-07"); !ok || r.Calls[0].Departure.Format("15:04") != "08:16" {
		t.Errorf("9301 on Saturday 2026-03-07 is the weekend trip: %v %v", ok, r)
	}
	if _, ok := run("9315", "2026-03-15"); ok {
		t.Error("9315 runs on 2026-03-15, removed by calendar_dates")
	}
	if _, ok := run("9321", "2026-03-31"); ok {
		t.Error("9321 (calendar_dates only) runs on 2026-03-31")
	}
	if _, ok := run("EUROSTAR1", "2026-03-02"); ok {
		t.Error("a 9-character train number was kept")
	}
	if r, ok := run("9315", "2026-03-02"); !ok || r.Calls[0].Station != "8727100" || r.Calls[0].Name != "Paris Nord" {
		t.Errorf("a platform is its parent station: %+v", r)
	}

	// After midnight: 24:45 of 2 March is 00:45 on 3 March.
	r, _ := run("9399", "2026-03-02")
	if got := r.Calls[1].Arrival; !got.Equal(at("2026-03-03 00:45")) {
		t.Errorf("24:45:00 of 2026-03-02 = %v", got)
	}
	if !r.ServiceDate.Equal(date("2026-03-02")) {
		t.Errorf("ServiceDate %v", r.ServiceDate)
	}

	// DST: clocks go 02:00 CET -> 03:00 CEST on 2026-03-29. Times count
	// from noon minus 12h: 23:00 CET on the 28th for service date 29th.
	r, _ = run("9399", "2026-03-28") // 23:40 .. 26:30 across the change
	if d := r.Calls[3].Arrival.Sub(r.Calls[0].Departure); d != 2*time.Hour+50*time.Minute {
		t.Errorf("9399 across the DST change takes %v, want 2h50m", d)
	}
	if got := r.Calls[3].Arrival.Format("2006-01-02 15:04 MST"); got != "2026-03-29 03:30 CEST" {
		t.Errorf("9399 reaches Amsterdam at %s", got)
	}
	r, _ = run("9315", "2026-03-29")
	if got := r.Calls[0].Departure.Format("15:04 MST"); got != "09:13 CEST" {
		t.Errorf("9315 on the DST day leaves at %s, want 09:13 CEST", got)
	}
	r, _ = run("9300", "2026-03-29")
	if got := r.Calls[0].Departure.Format("2006-01-02 15:04 MST"); got != "2026-03-29 00:30 CET" {
		t.Errorf("01:30:00 on the DST day (noon-12h = 23:00 CET) = %s", got)
	}
	if r.Calls[0].Departure.UTC().Format("15:04") != "23:30" {
		t.Errorf("01:30:00 on 2026-03-29 in UTC: %v", r.Calls[0].Departure.UTC())
	}

	// Autumn: clocks go 03:00 CEST -> 02:00 CET on 2026-10-25; noon-12h is
	// 01:00 CEST, so 01:30:00 is 02:30 CEST and 03:30:00, two hours
	// later, 03:30 CET.
	r, _ = run("9398", "2026-10-25")
	if got := r.Calls[0].Departure.Format(time.RFC3339); got != "2026-10-25T02:30:00+02:00" {
		t.Errorf("01:30:00 on 2026-10-25 = %s", got)
	}
	if got := r.Calls[1].Arrival.Format(time.RFC3339); got != "2026-10-25T03:30:00+01:00" {
		t.Errorf("03:30:00 on 2026-10-25 = %s", got)
	}

	// Interpolated stop: halfway between 08:00 and 09:30.
	r, _ = run("9321", "2026-03-30")
	if got := r.Calls[1].Arrival.Format("15:04"); got != "08:45" {
		t.Errorf("interpolated Lille: %s", got)
	}

	legs := tt.Direct("8727100", "8814001", at("2026-03-02 08:30"), 4*time.Hour, 2, 1)
	if len(legs) != 3 || legs[0].Train != "9301" || legs[1].Train != "9315" || legs[2].Train != "9350" {
		t.Errorf("Direct Paris -> Bruxelles on 2 March: %v", legs)
	}
	legs = tt.Direct("8727100", "8814001", at("2026-03-02 08:30"), 4*time.Hour, 1, 0)
	if len(legs) != 1 || legs[0].Train != "9315" {
		t.Errorf("after 1, before 0: %v", legs)
	}
	legs = tt.Direct("8727100", "8722326", at("2026-03-02 06:00"), 5*time.Hour, 5, 0)
	if len(legs) != 1 || legs[0].Train != "9301" {
		t.Errorf("Direct Paris -> Lille: %v", legs)
	}
	for _, l := range legs {
		if l.Train == "9350" {
			t.Error("9350 cannot be left at Lille (drop_off_type 1)")
		}
	}
	legs = tt.Direct("8722326", "8814001", at("2026-03-03 00:30"), time.Hour, 1, 0)
	if len(legs) != 1 || legs[0].Train != "9399" || !legs[0].ServiceDate.Equal(date("2026-03-02")) {
		t.Errorf("a departure after midnight belongs to the day before: %v", legs)
	}
	if legs := tt.Direct("8814001", "8727100", at("2026-03-02 08:30"), 4*time.Hour, 5, 5); len(legs) != 0 {
		t.Errorf("no train runs Bruxelles -> Paris: %v", legs)
	}
	if legs := tt.Direct("8727100", "8727100", at("2026-03-02 08:30"), 4*time.Hour, 5, 5); len(legs) != 0 {
		t.Errorf("origin = destination: %v", legs)
	}
	if legs := tt.Direct("0000000", "8727100", at("2026-03-02 08:30"), 4*time.Hour, 5, 5); len(legs) != 0 {
		t.Errorf("unknown station: %v", legs)
	}
	// Ride: by the date the train leaves the origin, not its service date.
	if l, ok := tt.Ride("9399", "8722326", "8814001", date("2026-03-03")); !ok || !l.ServiceDate.Equal(date("2026-03-02")) ||
		!l.From.Departure.Equal(at("2026-03-03 00:47")) || !l.To.Arrival.Equal(at("2026-03-03 01:30")) {
		t.Errorf("Ride 9399 Lille -> Bruxelles leaving 3 March: %v %v", l, ok)
	}
	if l, ok := tt.Ride("9399", "8727100", "8814001", date("2026-03-02")); !ok || !l.From.Departure.Equal(at("2026-03-02 23:40")) {
		t.Errorf("Ride 9399 Paris -> Bruxelles leaving 2 March: %v %v", l, ok)
	}
	if l, ok := tt.Ride("9399", "8722326", "8814001", date("2026-03-02")); !ok || !l.ServiceDate.Equal(date("2026-03-01")) {
		t.Errorf("Ride 9399 Lille -> Bruxelles leaving 2 March is the run of 1 March: %v %v", l, ok)
	}
	if _, ok := tt.Ride("9399", "8814001", "8727100", date("2026-03-02")); ok {
		t.Error("Ride in the wrong direction")
	}
	if _, ok := tt.Ride("9350", "8727100", "8722326", date("2026-03-02")); ok {
		t.Error("Ride to a stop with drop_off_type 1")
	}
	if _, ok := tt.Ride("9350", "8814001", "8722326", date("2026-03-02")); ok {
		t.Error("Ride backwards")
	}
	if _, ok := tt.Ride("9315", "8727100", "8814001", date("2026-03-15")); ok {
		t.Error("Ride on a removed date")
	}

	arr := tt.DirectArriving("8727100", "8814001", at("2026-03-02 11:00"), 4*time.Hour, 2)
	if len(arr) != 2 || arr[0].Train != "9301" || arr[1].Train != "9315" {
		t.Errorf("DirectArriving: %v", arr)
	}
}

// TestConcurrentQueries: a loaded Timetable is read-only; many goroutines
// ask at once (run with -race) and all get the same answers.
func TestConcurrentQueries(t *testing.T) {
	tt := load(t, "testdata/feed", Options{})
	want := dump(tt)
	got := make(chan string, 8)
	for range 8 {
		go func() {
			got <- dump(tt)
		}()
	}
	for range 8 {
		if d := <-got; d != want {
			t.Errorf("a concurrent dump differs:\n%s", d)
		}
	}
}
