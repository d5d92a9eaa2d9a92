package legacyprovider

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/caddy-osdm/caddy-osdm/caddymodule/internal/harness"
	"github.com/caddy-osdm/caddy-osdm/internal/redistest"
	"github.com/caddy-osdm/caddy-osdm/legacysandbox"
)

// benchLegacy is a legacy sandbox on 127.0.0.1 that counts messages.
type benchLegacy struct {
	sb   *legacysandbox.Sandbox
	n    atomic.Int64
	addr string
}

func (bl *benchLegacy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	bl.n.Add(1)
	bl.sb.ServeHTTP(w, r)
}

func startBenchLegacy(b *testing.B, latency time.Duration) *benchLegacy {
	b.Helper()
	sb, err := legacysandbox.New(legacysandbox.Config{Latency: latency, Capacity: 10000})
	if err != nil {
		b.Fatal(err)
	}
	bl := &benchLegacy{sb: sb}
	bl.addr = harness.ServeLocal(b, bl)
	return bl
}

// startBenchCaddy runs a Caddy with two routes to the legacy system:
// /osdm/* through osdm_legacy (concurrency given), /legacy/* through a
// bare reverse_proxy.
func startBenchCaddy(b *testing.B, legacyAddr string, concurrency int) string {
	return startBenchCaddyStore(b, legacyAddr, concurrency, "")
}

// startBenchCaddyStore is startBenchCaddy with a store line ("" for a
// bolt file in a temporary folder).
func startBenchCaddyStore(b *testing.B, legacyAddr string, concurrency int, storeLine string) string {
	b.Helper()
	dir := b.TempDir()
	gtfs := harness.LegacyGTFS(b, dir)
	port := harness.FreePort(b)
	if storeLine == "" {
		storeLine = "bolt " + filepath.Join(dir, "bench.db")
	}
	cf := fmt.Sprintf(`{
	admin off
	persist_config off
	auto_https off
	log {
		output discard
	}
}

http://127.0.0.1:%d {
	route /osdm/* {
		uri strip_prefix /osdm
		osdm_legacy {
			partner bench
			timetable %s
			window 12h
			max_trains 8
			concurrency %d
			store %s
		}
		reverse_proxy %s
	}
	route /legacy/* {
		uri strip_prefix /legacy
		reverse_proxy %s
	}
}
`, port, gtfs, concurrency, storeLine, legacyAddr, legacyAddr)
	harness.Load(b, cf)
	return fmt.Sprintf("http://127.0.0.1:%d", port)
}

func benchPost(b *testing.B, client *http.Client, url, ct, body string) {
	resp, err := client.Post(url, ct, strings.NewReader(body))
	if err != nil {
		b.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b.Fatalf("%s: %d %s", url, resp.StatusCode, got)
	}
}

// cpuTime is the process's user+system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportLatency adds p50 and p99 (ms) of the iterations to the result.
func reportLatency(b *testing.B, d []time.Duration) {
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	if len(d) == 0 {
		return
	}
	b.ReportMetric(float64(d[len(d)/2])/1e6, "p50-ms")
	b.ReportMetric(float64(d[len(d)*99/100])/1e6, "p99-ms")
}

// The timetable search of the speed target: 8 trains from 06:00, second
// class: exactly 8 legacy messages.
var benchSearch8 = `{"tripSearchCriteria": {"origin": {"objectType": "StopPlaceRef", "stopPlaceRef": "urn:uic:stn:8727100"},
  "destination": {"objectType": "StopPlaceRef", "stopPlaceRef": "urn:uic:stn:8814001"},
  "departureTime": "` + harness.TravelDay + `T06:00:00+01:00", "parameters": {"numberOfResultsAfter": 8}},
 "offerSearchCriteria": {"travelClasses": ["SECOND"]},
 "anonymousPassengerSpecifications": [{"externalRef": "p1", "type": "ADULT", "age": 40}]}`

// benchSearch1 names one train, second class: one legacy message.
var benchSearch1 = strings.Replace(benchSearch8, `"numberOfResultsAfter": 8`,
	`"dataFilter": {"vehicleFilter": {"exclude": false, "vehicleNumbers": ["9303"]}}`, 1)

// benchAvailability is the legacy message benchSearch1 sends.
var benchAvailability = `<AvailabilityRequest messageId="B-1">
  <Journey><TrainNumber>9303</TrainNumber><DepartureDate>` + harness.TravelDay + `</DepartureDate><DepartureTime>08:10</DepartureTime><From>8727100</From><To>8814001</To></Journey>
  <PlaceRequest><TravelClass>2</TravelClass><ServiceCode>1</ServiceCode><Tariff code="1" count="1"/></PlaceRequest>
</AvailabilityRequest>`

// BenchmarkOSDMLegacySearch8Trains is the fan-out target: an offer search
// over 8 timetable trains against a legacy system answering in 20ms, with
// the messages in parallel (concurrency 8) and in sequence (concurrency
// 1), next to one legacy round trip through a bare reverse_proxy.
func BenchmarkOSDMLegacySearch8Trains(b *testing.B) {
	for _, tc := range []struct {
		name        string
		concurrency int
		path, ct    string
		body        string
		messages    int64
	}{
		{"parallel", 8, "/osdm/offers", "application/json", benchSearch8, 8},
		{"sequential", 1, "/osdm/offers", "application/json", benchSearch8, 8},
		{"one-legacy-round-trip", 8, "/legacy/", "application/xml", benchAvailability, 1},
	} {
		b.Run(tc.name, func(b *testing.B) {
			bl := startBenchLegacy(b, 20*time.Millisecond)
			base := startBenchCaddy(b, bl.addr, tc.concurrency)
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}
			benchPost(b, client, base+tc.path, tc.ct, tc.body) // warm up
			bl.n.Store(0)
			d := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				start := time.Now()
				benchPost(b, client, base+tc.path, tc.ct, tc.body)
				d = append(d, time.Since(start))
			}
			b.StopTimer()
			if got := bl.n.Load(); got != tc.messages*int64(b.N) {
				b.Fatalf("%d legacy messages for %d searches, want %d each", got, b.N, tc.messages)
			}
			b.ReportMetric(float64(bl.n.Load())/float64(b.N), "legacy-msgs/op")
			reportLatency(b, d)
		})
	}
}

// BenchmarkOSDMLegacyOneTrainCPU is the CPU target: a search naming one
// train (one legacy message) through osdm_legacy, next to the same legacy
// message through a bare reverse_proxy. cpu-µs/op is the whole process's
// CPU (client, Caddy, legacy sandbox) per call: the sandbox and client
// costs are in both, so the difference is the façade's.
func BenchmarkOSDMLegacyOneTrainCPU(b *testing.B) {
	cases := []struct {
		name, path, ct, body, store string
	}{
		{"osdm_legacy-bolt", "/osdm/offers", "application/json", benchSearch1, ""},
		{"reverse_proxy", "/legacy/", "application/xml", benchAvailability, ""},
	}
	if os.Getenv("OSDM_TEST_REDIS") != "" {
		// A Redis of the benchmark's that persists: the osdm app refuses
		// one that does not, and the inline form cannot say accept_volatile.
		addr := redistest.Server(b)
		prefix := fmt.Sprintf("osdm-bench-%d:", time.Now().UnixNano())
		cases = append(cases, struct{ name, path, ct, body, store string }{
			"osdm_legacy-redis", "/osdm/offers", "application/json", benchSearch1, "redis " + addr + " " + prefix})
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			bl := startBenchLegacy(b, 0)
			base := startBenchCaddyStore(b, bl.addr, 4, tc.store)
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}
			benchPost(b, client, base+tc.path, tc.ct, tc.body)
			b.ReportAllocs()
			cpu := cpuTime()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				benchPost(b, client, base+tc.path, tc.ct, tc.body)
			}
			b.StopTimer()
			b.ReportMetric(float64((cpuTime()-cpu).Microseconds())/float64(b.N), "cpu-µs/op")
		})
	}
}
