package main

import (
	"net"
	"net/http"
	"sort"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
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

	latencies vegeta.LatencyMetrics
	seen      map[string]bool
}

// maxErrorSamples bounds the distinct error texts kept.
const maxErrorSamples = 5

// newClient is the load driver's HTTP client: keep-alive connections, one
// per worker, no proxy from the environment; the sequence transport makes
// D's direct pairs.
func newClient(concurrency int) *http.Client {
	tr := &http.Transport{
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        4 * concurrency,
		MaxIdleConnsPerHost: 4 * concurrency,
		IdleConnTimeout:     time.Minute,
		DisableCompression:  true,
	}
	return &http.Client{Transport: &sequenceTransport{next: tr}, Timeout: 30 * time.Second}
}

// attack runs one round of phase p of s, checks every answer and adds the
// results to res.
func attack(s *scenario, tr vegeta.Targeter, p phase, client *http.Client, res *phaseResult) {
	opts := []func(*vegeta.Attacker){vegeta.Client(client), vegeta.Workers(uint64(p.concurrency))}
	pacer := vegeta.ConstantPacer{Freq: p.rate, Per: time.Second}
	if p.rate == 0 {
		opts = append(opts, vegeta.MaxWorkers(uint64(p.concurrency)))
	}
	if res.seen == nil {
		res.Phase, res.Concurrency, res.Rate, res.seen = p.name, p.concurrency, p.rate, map[string]bool{}
	}
	atk := vegeta.NewAttacker(opts...)
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
	res.Successes += successes
	res.Seconds += secs
	res.RoundThroughput = append(res.RoundThroughput, float64(successes)/secs)
}

// finish computes the totals once every round is in.
func (res *phaseResult) finish() {
	if res.Seconds > 0 {
		res.Throughput = float64(res.Successes) / res.Seconds
	}
	if res.Requests == 0 {
		return
	}
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
