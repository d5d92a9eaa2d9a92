package timetable

import (
	"archive/zip"
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"
)

// genParams shapes a generated feed: lines of stopsPerLine stations drawn
// from stations, each run tripsPerLine times a day (half each way).
type genParams struct {
	stations, lines, tripsPerLine, stopsPerLine int
}

// national is the size of a national railway: 50 000 trips, 1 000 000
// stop times, 3 000 stations.
var national = genParams{stations: 3000, lines: 500, tripsPerLine: 100, stopsPerLine: 20}

// genLine is the stations of line l, as indices, in the outbound order.
func genLine(p genParams, l int) []int {
	r := rand.New(rand.NewPCG(uint64(l), 7))
	st := make([]int, 0, p.stopsPerLine)
	seen := map[int]bool{}
	for len(st) < p.stopsPerLine {
		s := r.IntN(p.stations)
		if l%5 == 0 && len(st) == 0 {
			s = l % 10 // a few hubs that many lines start from
		}
		if !seen[s] {
			seen[s] = true
			st = append(st, s)
		}
	}
	return st
}

// genTrip is trip k of line l: its stations and times (seconds of the
// service day), departures from 05:00 to past midnight.
func genTrip(p genParams, l, k int) (st, arr, dep []int) {
	i := l*p.tripsPerLine + k
	line := genLine(p, l)
	sec := 5*3600 + (k/2)*(20*3600/(p.tripsPerLine/2+1)) + (l%7)*60
	for j := 0; j < p.stopsPerLine; j++ {
		s := line[j]
		if k%2 == 1 {
			s = line[p.stopsPerLine-1-j]
		}
		a := sec
		if j > 0 {
			a += 60 * (5 + (i+j)%10)
		}
		d := a + 60*(j%3)
		st, arr, dep = append(st, s), append(arr, a), append(dep, d)
		sec = d
	}
	return st, arr, dep
}

func genCode(s int) string { return strconv.Itoa(8700000 + s) }

// genFeed writes a GTFS feed of shape p into dir, in the usual form of a
// national feed (stop_times grouped by trip), with a year of calendar: a
// weekday service, a weekend one, a daily one, each with holidays removed
// and some dates added.
func genFeed(t testing.TB, dir string, p genParams) {
	t.Helper()
	write := func(name string, fill func(w *bufio.Writer)) {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		w := bufio.NewWriterSize(f, 1<<20)
		fill(w)
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
	write("agency.txt", func(w *bufio.Writer) {
		w.WriteString("agency_id,agency_name,agency_url,agency_timezone\nNAT,National Rail,https://rail.example,Europe/Paris\n")
	})
	write("stops.txt", func(w *bufio.Writer) {
		w.WriteString("stop_id,stop_code,stop_name,stop_lat,stop_lon\n")
		for s := 0; s < p.stations; s++ {
			fmt.Fprintf(w, "S%d,%s,Station %d,48.%04d,2.%04d\n", s, genCode(s), s, s, s)
		}
	})
	write("routes.txt", func(w *bufio.Writer) {
		w.WriteString("route_id,agency_id,route_short_name,route_type\n")
		for l := 0; l < p.lines; l++ {
			fmt.Fprintf(w, "L%d,NAT,L%d,2\n", l, l)
		}
	})
	write("calendar.txt", func(w *bufio.Writer) {
		w.WriteString("service_id,monday,tuesday,wednesday,thursday,friday,saturday,sunday,start_date,end_date\n")
		w.WriteString("WD,1,1,1,1,1,0,0,20261201,20271130\nWE,0,0,0,0,0,1,1,20261201,20271130\nALL,1,1,1,1,1,1,1,20261201,20271130\n")
	})
	write("calendar_dates.txt", func(w *bufio.Writer) {
		w.WriteString("service_id,date,exception_type\n")
		for _, d := range []string{"20261225", "20270101", "20270329", "20270501", "20270714"} {
			fmt.Fprintf(w, "WD,%s,2\nWE,%s,1\nALL,%s,2\n", d, d, d)
		}
	})
	services := []string{"WD", "WE", "ALL"}
	write("trips.txt", func(w *bufio.Writer) {
		w.WriteString("route_id,service_id,trip_id,trip_short_name,direction_id\n")
		for l := 0; l < p.lines; l++ {
			for k := 0; k < p.tripsPerLine; k++ {
				i := l*p.tripsPerLine + k
				// Two trips share each train number, on different services.
				fmt.Fprintf(w, "L%d,%s,T%d,%d,%d\n", l, services[i%3], i, 10000+i/2, k%2)
			}
		}
	})
	write("stop_times.txt", func(w *bufio.Writer) {
		w.WriteString("trip_id,arrival_time,departure_time,stop_id,stop_sequence,pickup_type,drop_off_type\n")
		hms := func(s int) string {
			return fmt.Sprintf("%02d:%02d:%02d", s/3600, s/60%60, s%60)
		}
		for l := 0; l < p.lines; l++ {
			for k := 0; k < p.tripsPerLine; k++ {
				i := l*p.tripsPerLine + k
				st, arr, dep := genTrip(p, l, k)
				for j := range st {
					fmt.Fprintf(w, "T%d,%s,%s,S%d,%d,0,0\n", i, hms(arr[j]), hms(dep[j]), st[j], j+1)
				}
			}
		}
	})
}

var (
	nationalOnce sync.Once
	nationalDir  string
	nationalTT   *Timetable
	nationalErr  error
)

// nationalFeed generates the national feed once per test binary.
func nationalFeed(b *testing.B) string {
	nationalOnce.Do(func() {
		nationalDir, nationalErr = os.MkdirTemp("", "gtfs-national-")
		if nationalErr == nil {
			genFeed(b, nationalDir, national)
		}
	})
	if nationalErr != nil {
		b.Fatal(nationalErr)
	}
	return nationalDir
}

func nationalTimetable(b *testing.B) *Timetable {
	dir := nationalFeed(b)
	if nationalTT == nil {
		nationalTT = load(b, dir, Options{})
	}
	return nationalTT
}

func TestMain(m *testing.M) {
	code := m.Run()
	if nationalDir != "" {
		os.RemoveAll(nationalDir)
	}
	os.Exit(code)
}

// TestGeneratedFeed checks the generator and the loader against each
// other on a small feed of the same shape: every trip is found by Run and
// every pair of its stations by Direct.
func TestGeneratedFeed(t *testing.T) {
	p := genParams{stations: 50, lines: 6, tripsPerLine: 10, stopsPerLine: 8}
	dir := t.TempDir()
	genFeed(t, dir, p)
	tt := load(t, dir, Options{})
	if s, trips, st := tt.Stats(); s != p.stations || trips != p.lines*p.tripsPerLine || st != trips*p.stopsPerLine {
		t.Fatalf("stats %d %d %d", s, trips, st)
	}
	// Each trip between its second and its last-but-one station, on a
	// Monday (WD and ALL run, WE does not) and on Christmas Day, a Friday
	// (WD and ALL removed, WE added).
	for _, day := range []string{"2026-12-07", "2026-12-25"} {
		for l := 0; l < p.lines; l++ {
			for k := 0; k < p.tripsPerLine; k++ {
				i := l*p.tripsPerLine + k
				st, arr, dep := genTrip(p, l, k)
				train := strconv.Itoa(10000 + i/2)
				n := len(st)
				leave := date(day).Add(time.Duration(dep[1]) * time.Second)
				reach := date(day).Add(time.Duration(arr[n-2]) * time.Second)
				runs := (i%3 == 1) == (day == "2026-12-25")
				found := false
				for _, leg := range tt.Direct(genCode(st[1]), genCode(st[n-2]), leave, time.Hour, 50, 50) {
					if leg.Train == train && leg.From.Departure.Equal(leave) {
						found = true
						if !leg.To.Arrival.Equal(reach) || leg.ServiceDate.Format("2006-01-02") != day {
							t.Errorf("trip %d on %s: %v", i, day, leg)
						}
					}
				}
				if found != runs {
					t.Errorf("trip %d (train %s, service %d) on %s: found %v, want %v", i, train, i%3, day, found, runs)
				}
				if r, ok := tt.Run(train, date(day)); runs && (!ok || r.Train != train) {
					t.Errorf("Run(%s, %s) = %v, %v", train, day, r, ok)
				}
			}
		}
	}
}

func BenchmarkLoadNational(b *testing.B) {
	b.Run("folder", func(b *testing.B) { benchLoad(b, nationalFeed(b)) })
	b.Run("zip", func(b *testing.B) {
		zipPath := filepath.Join(b.TempDir(), "national.zip")
		zipDir(b, nationalFeed(b), zipPath)
		benchLoad(b, zipPath)
	})
}

// cpuTime is the CPU time the process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// zipDir writes the files of dir into a deflated zip at path.
func zipDir(b *testing.B, dir, path string) {
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	zw := zip.NewWriter(f)
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		w, err := zw.Create(e.Name())
		if err != nil {
			b.Fatal(err)
		}
		src, err := os.Open(filepath.Join(dir, e.Name()))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := io.Copy(w, src); err != nil {
			b.Fatal(err)
		}
		src.Close()
	}
	if err := zw.Close(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
}

func benchLoad(b *testing.B, dir string) {
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	b.ReportAllocs()
	cpu0 := cpuTime()
	b.ResetTimer()
	var tt *Timetable
	for i := 0; i < b.N; i++ {
		var err error
		if tt, err = Load(dir, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	// CPU time (the GC's included) moves less than wall time on a shared machine.
	b.ReportMetric((cpuTime()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
	var after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&after)
	s, trips, st := tt.Stats()
	if trips != 50000 || st != 1000000 {
		b.Fatalf("national feed: %d stations, %d trips, %d stop times", s, trips, st)
	}
	b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/(1<<20), "MiB-live-heap")
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N)/(1<<20), "MiB-allocated/op")
	runtime.KeepAlive(tt)
}

// BenchmarkDirectWindow asks for the direct trains between two stations
// of a line around a time of day: a ±4h window, 6 after and 2 before.
func BenchmarkDirectWindow(b *testing.B) {
	tt := nationalTimetable(b)
	type q struct {
		o, d string
		at   time.Time
	}
	r := rand.New(rand.NewPCG(1, 2))
	qs := make([]q, 1024)
	for i := range qs {
		st := genLine(national, r.IntN(national.lines))
		j := r.IntN(national.stopsPerLine - 1)
		k := j + 1 + r.IntN(national.stopsPerLine-1-j)
		day := date("2026-12-01").AddDate(0, 0, r.IntN(360))
		qs[i] = q{genCode(st[j]), genCode(st[k]), day.Add(time.Duration(6+r.IntN(16)) * time.Hour)}
		if i%2 == 1 {
			qs[i].o, qs[i].d = qs[i].d, qs[i].o
		}
	}
	legs := 0
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		x := qs[i%len(qs)]
		legs += len(tt.Direct(x.o, x.d, x.at, 4*time.Hour, 6, 2))
	}
	b.ReportMetric(float64(legs)/float64(b.N), "legs/op")
}

func BenchmarkRun(b *testing.B) {
	tt := nationalTimetable(b)
	r := rand.New(rand.NewPCG(3, 4))
	type q struct {
		train string
		day   time.Time
	}
	qs := make([]q, 1024)
	for i := range qs {
		qs[i] = q{strconv.Itoa(10000 + r.IntN(25000)), date("2026-12-01").AddDate(0, 0, r.IntN(360))}
	}
	found := 0
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		x := qs[i%len(qs)]
		if _, ok := tt.Run(x.train, x.day); ok {
			found++
		}
	}
	b.ReportMetric(float64(found)/float64(b.N), "found/op")
}

// BenchmarkPlanNational plans journeys with up to one change (a 4h
// window, the defaults otherwise) on the national feed between stations
// of two random lines; half the lines start from a few hubs, so many
// searches find journeys with a change, the others search the whole
// network in vain. It reports the median and 99th percentile of a search's
// wall time, and of its CPU time (what a search costs when the machine is
// shared: the wall time then includes the waits for a core).
func BenchmarkPlanNational(b *testing.B) {
	for _, changes := range []int{1, 2} {
		b.Run(fmt.Sprintf("changes=%d", changes), func(b *testing.B) { benchPlan(b, changes) })
	}
}

func benchPlan(b *testing.B, maxChanges int) {
	tt := nationalTimetable(b)
	tt.network() // built on the first search: not what is measured
	r := rand.New(rand.NewPCG(5, 6))
	qs := make([]Query, 512)
	for i := range qs {
		la, lb := r.IntN(national.lines), r.IntN(national.lines)
		if i%2 == 0 { // lines from the hubs
			la, lb = 5*r.IntN(national.lines/5), 5*r.IntN(national.lines/5)
		}
		oa, ob := genLine(national, la), genLine(national, lb)
		o, d := oa[r.IntN(len(oa))], ob[r.IntN(len(ob))]
		if o == d {
			d = ob[(slices.Index(ob, d)+1)%len(ob)]
		}
		day := date("2026-12-01").AddDate(0, 0, r.IntN(360))
		qs[i] = Query{Origin: genCode(o), Destination: genCode(d), Time: day.Add(time.Duration(6+r.IntN(14)) * time.Hour), MaxChanges: maxChanges}
	}
	times := make([]time.Duration, 0, b.N)
	cpus := make([]time.Duration, 0, b.N)
	found, changes := 0, 0
	// One OS thread, so that its CPU time is the search's.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c0, t0 := threadCPU(), time.Now()
		js, err := tt.Plan(qs[i%len(qs)])
		times = append(times, time.Since(t0))
		cpus = append(cpus, threadCPU()-c0)
		if err != nil {
			b.Fatal(err)
		}
		found += len(js)
		for _, j := range js {
			changes += j.Changes()
		}
	}
	b.StopTimer()
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	slices.Sort(times)
	slices.Sort(cpus)
	b.ReportMetric(ms(times[len(times)/2]), "p50-ms")
	b.ReportMetric(ms(times[len(times)*99/100]), "p99-ms")
	b.ReportMetric(ms(cpus[len(cpus)/2]), "p50-cpu-ms")
	b.ReportMetric(ms(cpus[len(cpus)*99/100]), "p99-cpu-ms")
	b.ReportMetric(float64(found)/float64(b.N), "journeys/op")
	b.ReportMetric(float64(changes)/float64(max(found, 1)), "changes/journey")
}

// BenchmarkNetworkNational builds the planner's routes of the national
// feed (done once, on the first search) and reports the heap they keep.
func BenchmarkNetworkNational(b *testing.B) {
	tt := nationalTimetable(b)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	b.ReportAllocs()
	b.ResetTimer()
	var n *network
	for i := 0; i < b.N; i++ {
		n = buildNetwork(tt)
	}
	b.StopTimer()
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(len(n.pats)), "routes")
	b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/(1<<20), "MiB-live-heap")
	runtime.KeepAlive(n)
}
