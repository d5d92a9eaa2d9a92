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

// phaseResult is what one attack measured. Latencies are in milliseconds.
type phaseResult struct {
	Phase        string   `json:"phase"`
	Concurrency  int      `json:"concurrency"`
	Rate         int      `json:"rate,omitempty"`
	Seconds      float64  `json:"seconds"`
	Requests     uint64   `json:"requests"`
	Successes    uint64   `json:"successes"`
	Errors       uint64   `json:"errors"`
	ErrorSamples []string `json:"error_samples,omitempty"`
	// Throughput is good answers per second over the attack and the wait
	// for its last answers, as vegeta computes it.
	Throughput float64 `json:"throughput"`
	MeanMs     float64 `json:"mean_ms"`
	P50Ms      float64 `json:"p50_ms"`
	P90Ms      float64 `json:"p90_ms"`
	P99Ms      float64 `json:"p99_ms"`
	MaxMs      float64 `json:"max_ms"`
	// RanOut: the attack ended early because the fresh offers ran out.
	RanOut bool `json:"ran_out,omitempty"`
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

// attack runs one phase of s against the targets and checks every answer.
func attack(s *scenario, tr vegeta.Targeter, p phase, client *http.Client) *phaseResult {
	opts := []func(*vegeta.Attacker){vegeta.Client(client), vegeta.Workers(uint64(p.concurrency))}
	pacer := vegeta.ConstantPacer{Freq: p.rate, Per: time.Second}
	if p.rate == 0 {
		opts = append(opts, vegeta.MaxWorkers(uint64(p.concurrency)))
	}
	atk := vegeta.NewAttacker(opts...)
	var m vegeta.Metrics
	res := &phaseResult{Phase: p.name, Concurrency: p.concurrency, Rate: p.rate}
	seen := map[string]bool{}
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
			r.Error = http.StatusText(int(r.Code))
		}
		if r.Error == "" {
			res.Successes++
		} else {
			res.Errors++
			if key := errorKey(r); !seen[key] && len(res.ErrorSamples) < maxErrorSamples {
				seen[key] = true
				res.ErrorSamples = append(res.ErrorSamples, key)
			}
		}
		r.Body = nil
		m.Add(r)
	}
	m.Close()
	res.Requests = m.Requests
	res.Seconds = (m.Duration + m.Wait).Seconds()
	if res.Seconds > 0 {
		res.Throughput = float64(res.Successes) / res.Seconds
	}
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	res.MeanMs, res.P50Ms, res.P90Ms, res.P99Ms, res.MaxMs =
		ms(m.Latencies.Mean), ms(m.Latencies.P50), ms(m.Latencies.P90), ms(m.Latencies.P99), ms(m.Latencies.Max)
	sort.Strings(res.ErrorSamples)
	return res
}

// errorKey is an error's text with the status, short enough to list.
func errorKey(r *vegeta.Result) string {
	s := r.Error
	if len(s) > 300 {
		s = s[:300]
	}
	return http.StatusText(int(r.Code)) + ": " + s
}
