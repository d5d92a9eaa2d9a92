package main

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/caddy-osdm/caddy-osdm/tokenauth"
)

func TestMetricSumAddsMatchingSamplesOnly(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/metrics" {
			http.NotFound(w, r)
			return
		}
		io.WriteString(w, `# HELP caddy_osdm_login_token_requests_total Token requests.
# TYPE caddy_osdm_login_token_requests_total counter
caddy_osdm_login_token_requests_total{client="bench-B",outcome="granted"} 2
caddy_osdm_login_token_requests_total{client="bench-B",outcome="expired"} 5
caddy_osdm_login_token_requests_total{client="bench-C",outcome="granted"} 7
caddy_osdm_login_token_requests_total_extra{client="bench-B",outcome="granted"} 100
caddy_osdm_token_requests_total 3
`)
	}))
	defer srv.Close()
	for _, tc := range []struct {
		name   string
		labels []string
		want   float64
	}{
		{"caddy_osdm_login_token_requests_total", []string{`client="bench-B"`, `outcome="granted"`}, 2},
		{"caddy_osdm_login_token_requests_total", []string{`client="bench-B"`}, 7},
		{"caddy_osdm_login_token_requests_total", nil, 14},
		{"caddy_osdm_login_token_requests_total", []string{`client="bench-D"`}, 0},
		{"caddy_osdm_token_requests_total", nil, 3},
	} {
		got, err := metricSum(t.Context(), srv.URL, tc.name, tc.labels...)
		if err != nil || got != tc.want {
			t.Errorf("metricSum(%s, %v) = %v, %v; want %v", tc.name, tc.labels, got, err, tc.want)
		}
	}
}

func TestSequenceTransportBooksThenFulfils(t *testing.T) {
	var fulfilled *http.Request
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for _, h := range []string{headerThenFulfil, headerFulfilIdemKey} {
			if r.Header.Get(h) != "" {
				t.Errorf("%s %s carries the driver's header %s", r.Method, r.URL.Path, h)
			}
		}
		switch {
		case r.URL.Path == "/bookings":
			w.WriteHeader(http.StatusCreated)
			io.WriteString(w, `{"booking":{"id":"b 1","bookingCode":"X"}}`)
		case r.URL.EscapedPath() == "/bookings/b%201/fulfillments":
			fulfilled = r.Clone(r.Context())
			w.WriteHeader(http.StatusCreated)
			io.WriteString(w, `{"fulfillments":[{"status":"FULFILLED"}]}`)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/bookings", strings.NewReader(`{}`))
	req.Header = jsonHeader("tok")
	req.Header.Set(headerThenFulfil, "1")
	req.Header.Set(headerFulfilIdemKey, "key-2")
	resp, err := newClient(1).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated || !strings.Contains(string(body), "FULFILLED") {
		t.Fatalf("got %d %s, want the fulfilment's answer", resp.StatusCode, body)
	}
	if fulfilled == nil || fulfilled.Header.Get("Idempotency-Key") != "key-2" || fulfilled.Header.Get("Authorization") != "Bearer tok" {
		t.Fatalf("fulfilment request %v: want Idempotency-Key key-2 and the bearer token", fulfilled)
	}
}

func TestSequenceTransportReturnsAFailedBooking(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/bookings" {
			t.Errorf("unexpected %s %s", r.Method, r.URL.Path)
		}
		w.WriteHeader(http.StatusConflict)
		io.WriteString(w, `{"title":"offer booked already"}`)
	}))
	defer srv.Close()
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/bookings", strings.NewReader(`{}`))
	req.Header.Set(headerThenFulfil, "1")
	resp, err := newClient(1).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusConflict || !strings.Contains(string(body), "booked already") {
		t.Fatalf("got %d %s, want the booking's 409", resp.StatusCode, body)
	}
}

func TestMessageIDsAreUniqueAndOfOneLength(t *testing.T) {
	ids := newMessageIDs("Dconv")
	seen := map[string]bool{}
	for range 2000 {
		id := ids.next()
		if len(id) != len(idPlaceholder) || seen[id] {
			t.Fatalf("id %q: length %d (want %d), seen before %v", id, len(id), len(idPlaceholder), seen[id])
		}
		seen[id] = true
	}
}

func TestReadMicroKeepsTheMedianRun(t *testing.T) {
	file := filepath.Join(t.TempDir(), "micro.txt")
	out := `goos: linux
BenchmarkTokenCacheHit/tokenauth-2         	920122197	         3.0 ns/op	       0 B/op	       0 allocs/op
BenchmarkTokenCacheHit/tokenauth-2         	996902374	         1.0 ns/op	       0 B/op	       0 allocs/op
BenchmarkTokenCacheHit/tokenauth-2         	1000000000	         2.0 ns/op	       0 B/op	       0 allocs/op
BenchmarkValidateRS256/fosite_rfc7523-2   	   12373	    103200 ns/op	   14264 B/op	     204 allocs/op
PASS
`
	if err := os.WriteFile(file, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := readMicro(file)
	if err != nil {
		t.Fatal(err)
	}
	if l := got["BenchmarkTokenCacheHit/tokenauth"]; l.nsPerOp != 2 {
		t.Errorf("cache hit: %+v, want the median 2 ns/op", l)
	}
	if l := got["BenchmarkValidateRS256/fosite_rfc7523"]; l.nsPerOp != 103200 || l.bytesPerOp != 14264 || l.allocsPerOp != 204 {
		t.Errorf("fosite: %+v", l)
	}
}

func TestCPUSecondsAndMemoryOfThisProcess(t *testing.T) {
	busy := 0
	for i := range 50_000_000 {
		busy += i
	}
	secs, err := cpuSeconds(os.Getpid())
	if err != nil || secs <= 0 {
		t.Fatalf("cpuSeconds = %v, %v (after %d); want some CPU time", secs, err, busy)
	}
	m, err := readMemory(os.Getpid())
	if err != nil || m.PeakKiB < m.NowKiB || m.NowKiB == 0 {
		t.Fatalf("readMemory = %+v, %v; want a peak at least the current RSS", m, err)
	}
}

func TestVerdictsJudgeTheFrontCPURatiosOnly(t *testing.T) {
	rec := func(name string, cpuUs, throughput float64) *record {
		return &record{Scenario: name, Closed: &phaseResult{FrontCPUUs: cpuUs, Throughput: throughput, P99Ms: 10, P50Ms: 1, Concurrency: 8,
			FrontBytesPerReq: 30 * 1024, FrontAllocsPerReq: 400}, FrontLogins: -1}
	}
	b := rec("B", 155, 1000)
	b.Closed.FrontBytesPerReq = 46 * 1024 // 16 KiB above A's
	recs := map[string]*record{
		// B is far slower in throughput (information only) but within
		// 1.55x in CPU; C is faster in throughput but 1.06x in CPU.
		"A": rec("A", 100, 3000), "B": b, "C": rec("C", 106, 4000),
		// Dconv is 1.90x its floor: over the tmpfs target, under the
		// disk one; the after-sales scenarios are held to that 1.90.
		"Ddirect": rec("Ddirect", 200, 1000), "Dconv": rec("Dconv", 380, 1000),
		"Edirect": rec("Edirect", 300, 500), "Econv": rec("Econv", 500, 500),
		"Pdirect": rec("Pdirect", 200, 500), "Pconv": rec("Pconv", 400, 500),
	}
	for fs, want := range map[string]map[string]string{
		"tmpfs": {
			"front CPU per request B/A <= 1.55 (converter path)":                                              "yes",
			"front CPU per request C/A <= 1.05 (token layer)":                                                 "**no**",
			"B's garbage above A's per exchange <= 14 KiB (front allocations, closed loop)":                   "**no**",
			"front CPU per request Dconv/Ddirect <= 1.80 (booking, 2 OSDM calls, journal on tmpfs)":           "**no**",
			"front CPU per request Econv/Edirect <= 1.90 (legacy exchange, no worse than Dconv/Ddirect)":      "yes",
			"front CPU per request Pconv/Pdirect <= 1.90 (partial cancellation, no worse than Dconv/Ddirect)": "**no**",
			"(information) B/A throughput, closed loop":                                                       "-",
		},
		"ext2/ext3": {
			"front CPU per request Dconv/Ddirect <= 2.20 (booking, 2 OSDM calls, journal on ext2/ext3)": "yes",
		},
	} {
		holds := map[string]string{}
		for _, v := range verdicts(recs, nil, settings{DataFS: fs}) {
			holds[v.target] = v.holds
		}
		for target, want := range want {
			if got, ok := holds[target]; !ok || got != want {
				t.Errorf("%s: %q: holds %q (present %v), want %q; all: %v", fs, target, got, ok, want, holds)
			}
		}
	}
}

func TestDirectTransportSendsTheConvertersCalls(t *testing.T) {
	var seen []*http.Request
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = append(seen, r.Clone(r.Context()))
		w.Header().Set("Content-Type", "application/problem+json")
		w.WriteHeader(http.StatusServiceUnavailable)
		io.WriteString(w, `{"code":"urn:uic:problem:SERVICE_UNAVAILABLE","title":"down"}`)
	}))
	defer srv.Close()
	body, err := encodeXML(availabilityRequest("T-direct-1"))
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/anything", strings.NewReader(string(body)))
	req.Header = xmlHeader()
	req.Header.Set(headerDirect, "1")
	req.Header.Set("Authorization", "Bearer tok")
	resp, err := newClient(1).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	reply, _ := io.ReadAll(resp.Body)
	if resp.StatusCode/100 != 5 || !strings.Contains(string(reply), "<NegativeReply") || !strings.Contains(string(reply), "T-direct-1") {
		t.Errorf("answer %d %s; want the converter's NegativeReply to T-direct-1", resp.StatusCode, reply)
	}
	if len(seen) == 0 {
		t.Fatal("no OSDM call reached the front")
	}
	for _, r := range seen {
		if r.Method != http.MethodPost || r.URL.Path != "/offers" || r.Header.Get("Authorization") != "Bearer tok" || r.Header.Get(headerDirect) != "" {
			t.Errorf("call %s %s, Authorization %q, %s %q; want POST /offers with the driver's token and without the marker",
				r.Method, r.URL.Path, r.Header.Get("Authorization"), headerDirect, r.Header.Get(headerDirect))
		}
	}
}

// okSource grants a token, then refuses.
type okSource struct{ calls int }

func (s *okSource) Token(context.Context) (*tokenauth.Token, error) {
	s.calls++
	if s.calls > 1 {
		return nil, errors.New("refused")
	}
	return &tokenauth.Token{AccessToken: "t"}, nil
}

func TestDriversPreparationLoginIsNotTheFronts(t *testing.T) {
	logins := &countedLogins{src: &okSource{}}
	for range 2 {
		_, _ = logins.Token(context.Background())
	}
	// The partner granted bench-Dconv 3 tokens before the run and 2 during
	// it: one to the front, one to the driver making the front's offers.
	r := &running{rec: &record{Scenario: "Dconv", FrontLogins: 1, Closed: &phaseResult{Throughput: 100}}, before: 3, driverLogins: logins}
	r.countLogins(5)
	if r.rec.PartnerLogins != 1 || r.rec.DriverLogins != 1 {
		t.Fatalf("partner %v, driver %v logins; want 1 and 1 (a refused login is not a grant)", r.rec.PartnerLogins, r.rec.DriverLogins)
	}
	for _, v := range verdicts(map[string]*record{"Dconv": r.rec}, nil, settings{TokenSeconds: 900, Concurrency: 8}) {
		if strings.HasPrefix(v.target, "one login per token lifetime") {
			if v.holds != "yes" || !strings.Contains(v.measured, "Dconv 1/1 (the partner's count less the driver's 1") {
				t.Fatalf("%+v; want yes, naming the driver's login", v)
			}
			return
		}
	}
	t.Fatal("no login verdict")
}
