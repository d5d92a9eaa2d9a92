package main

import (
	"encoding/json"
	"net"
	"net/http"
	"os"
	"sort"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/caddy-osdm/caddy-osdm/converter"
)

// phase is one attack: closed loop (rate 0: each of concurrency workers
// sends its next request as soon as the last one is answered) or open loop
// (a fixed rate, whatever the answers take).
type phase struct {
	name        string
	concurrency int
	rate        int
	duration    time.Duration
}

// phaseResult is what the attacks of one phase of a scenario measured,
// over all its rounds. Latencies are in milliseconds.
type phaseResult struct {
	Phase        string   `json:"phase"`
	Concurrency  int      `json:"concurrency"`
	Rate         int      `json:"rate,omitempty"`
	Seconds      float64  `json:"seconds"`
	Requests     uint64   `json:"requests"`
	Successes    uint64   `json:"successes"`
	Errors       uint64   `json:"errors"`
	ErrorSamples []string `json:"error_samples,omitempty"`
	// Throughput is good answers per second of attack (from the first
	// request sent to the last answer), over all rounds.
	Throughput float64 `json:"throughput"`
	// RoundThroughput is the throughput of each round, in round order.
	RoundThroughput []float64 `json:"round_throughput,omitempty"`
	MeanMs          float64   `json:"mean_ms"`
	P50Ms           float64   `json:"p50_ms"`
	P90Ms           float64   `json:"p90_ms"`
	P99Ms           float64   `json:"p99_ms"`
	MaxMs           float64   `json:"max_ms"`
	// RanOut: an attack ended early because the fresh offers ran out.
	RanOut bool `json:"ran_out,omitempty"`
	// CPU seconds (user + system) the front Caddy, the partner Caddy and
	// the load driver used during the attacks, and the same per request
	// in microseconds: unlike throughput, hardly moved by the machine's
	// other work.
	FrontCPU   float64 `json:"front_cpu_seconds"`
	PartnerCPU float64 `json:"partner_cpu_seconds"`
	DriverCPU  float64 `json:"driver_cpu_seconds"`
	FrontCPUUs float64 `json:"front_cpu_us_per_request"`
	// Memory the front allocated during the attacks (Go memstats
	// TotalAlloc and Mallocs, from its admin /debug/vars), in all and per
	// request: the garbage its collector has to chase.
	FrontAllocBytes   float64 `json:"front_alloc_bytes"`
	FrontAllocs       float64 `json:"front_allocs"`
	FrontBytesPerReq  float64 `json:"front_bytes_per_request"`
	FrontAllocsPerReq float64 `json:"front_allocs_per_request"`
	PartnerCPUUs      float64 `json:"partner_cpu_us_per_request"`
	DriverCPUUs       float64 `json:"driver_cpu_us_per_request"`
	// OthersCPU is the CPU time the rest of the machine (every process
	// but the bench's own) used during the attacks, and OthersLoad the
	// same per second of attack: the cores it kept busy (busy.go).
	OthersCPU  float64 `json:"others_cpu_seconds"`
	OthersLoad float64 `json:"others_load_cores"`

	latencies vegeta.LatencyMetrics
	seen      map[string]bool
}

// maxErrorSamples bounds the distinct error texts kept.
const maxErrorSamples = 5

// newClient is the load driver's HTTP client: keep-alive connections, one
// per worker, no proxy from the environment; the sequence transport makes
// D's direct pairs, the direct transport the after-sales floors.
func newClient(concurrency int) *http.Client {
	tr := &http.Transport{
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        4 * concurrency,
		MaxIdleConnsPerHost: 4 * concurrency,
		IdleConnTimeout:     time.Minute,
		DisableCompression:  true,
	}
	c, err := converter.New(converter.Config{Partner: partnerName})
	if err != nil {
		panic(err) // the configuration is a constant
	}
	return &http.Client{Transport: &sequenceTransport{next: &directTransport{next: tr, c: c}}, Timeout: 30 * time.Second}
}

// processes are the processes whose CPU time an attack measures (a zero
// pid is not measured), and the front's admin endpoint for its memstats;
// own are all the bench's processes (every front, the partner, the
// driver), whose CPU time is not the machine's other work.
type processes struct {
	front, partner int
	frontAdmin     string
	own            []int
}

// memstats is the part of a Go process's runtime.MemStats the attacks
// read, from the expvar page of Caddy's admin endpoint.
type memstats struct {
	TotalAlloc, Mallocs float64
}

// frontMemstats reads the front's allocation counters; zero if unknown.
func (ps processes) frontMemstats() memstats {
	var v struct{ Memstats memstats }
	if ps.frontAdmin == "" {
		return v.Memstats
	}
	resp, err := http.Get(ps.frontAdmin + "/debug/vars")
	if err != nil {
		return v.Memstats
	}
	defer resp.Body.Close()
	_ = json.NewDecoder(resp.Body).Decode(&v)
	return v.Memstats
}

// cpu reads the CPU seconds of the front, the partner and this driver.
func (ps processes) cpu() (front, partner, driver float64) {
	if ps.front != 0 {
		front, _ = cpuSeconds(ps.front)
	}
	if ps.partner != 0 {
		partner, _ = cpuSeconds(ps.partner)
	}
	driver, _ = cpuSeconds(os.Getpid())
	return front, partner, driver
}

// attack runs one round of phase p of s, checks every answer and adds the
// results, and the CPU time of the processes, to res.
func attack(s *scenario, tr vegeta.Targeter, p phase, client *http.Client, ps processes, res *phaseResult) {
	opts := []func(*vegeta.Attacker){vegeta.Client(client), vegeta.Workers(uint64(p.concurrency))}
	pacer := vegeta.ConstantPacer{Freq: p.rate, Per: time.Second}
	if p.rate == 0 {
		opts = append(opts, vegeta.MaxWorkers(uint64(p.concurrency)))
	}
	if res.seen == nil {
		res.Phase, res.Concurrency, res.Rate, res.seen = p.name, p.concurrency, p.rate, map[string]bool{}
	}
	atk := vegeta.NewAttacker(opts...)
	m0 := ps.frontMemstats()
	o0 := readCPU(ps.own)
	f0, p0, d0 := ps.cpu()
	start := time.Now()
	var successes uint64
	for r := range atk.Attack(tr, pacer, p.duration, s.name+"/"+p.name) {
		if r.Error == vegeta.ErrNoTargets.Error() {
			res.RanOut = true
			continue
		}
		if r.Error == "" && r.Code/100 == 2 {
			if why := s.check(r.Body); why != "" {
				r.Error = why
			}
		} else if r.Error == "" {
			r.Error = "status " + http.StatusText(int(r.Code))
		}
		res.Requests++
		res.latencies.Add(r.Latency)
		if r.Error == "" {
			successes++
			continue
		}
		res.Errors++
		if key := errorKey(r); !res.seen[key] && len(res.ErrorSamples) < maxErrorSamples {
			res.seen[key] = true
			res.ErrorSamples = append(res.ErrorSamples, key)
			sort.Strings(res.ErrorSamples)
		}
	}
	secs := time.Since(start).Seconds()
	f1, p1, d1 := ps.cpu()
	o1 := readCPU(ps.own)
	m1 := ps.frontMemstats()
	res.OthersCPU += othersSince(o0, o1)
	res.FrontAllocBytes += m1.TotalAlloc - m0.TotalAlloc
	res.FrontAllocs += m1.Mallocs - m0.Mallocs
	res.FrontCPU += f1 - f0
	res.PartnerCPU += p1 - p0
	res.DriverCPU += d1 - d0
	res.Successes += successes
	res.Seconds += secs
	res.RoundThroughput = append(res.RoundThroughput, float64(successes)/secs)
}

// finish computes the totals once every round is in.
func (res *phaseResult) finish() {
	if res.Seconds > 0 {
		res.Throughput = float64(res.Successes) / res.Seconds
		res.OthersLoad = res.OthersCPU / res.Seconds
	}
	if res.Requests == 0 {
		return
	}
	us := func(secs float64) float64 { return secs * 1e6 / float64(res.Requests) }
	res.FrontCPUUs, res.PartnerCPUUs, res.DriverCPUUs = us(res.FrontCPU), us(res.PartnerCPU), us(res.DriverCPU)
	res.FrontBytesPerReq = res.FrontAllocBytes / float64(res.Requests)
	res.FrontAllocsPerReq = res.FrontAllocs / float64(res.Requests)
	l := &res.latencies
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	res.MeanMs = ms(l.Total) / float64(res.Requests)
	res.P50Ms, res.P90Ms, res.P99Ms, res.MaxMs = ms(l.Quantile(0.5)), ms(l.Quantile(0.9)), ms(l.Quantile(0.99)), ms(l.Max)
}

// errorKey is an error's text with the status, short enough to list.
func errorKey(r *vegeta.Result) string {
	s := r.Error
	if len(s) > 300 {
		s = s[:300]
	}
	return http.StatusText(int(r.Code)) + ": " + s
}
