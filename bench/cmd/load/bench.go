package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/caddy-osdm/caddy-osdm/tokenauth"
)

// results is what `load bench` writes and `load report` reads.
type results struct {
	Machine   string    `json:"machine"`
	Settings  settings  `json:"settings"`
	Scenarios []*record `json:"scenarios"`
	// LoadAvg is /proc/loadavg before and after the measured rounds: the
	// machine's other work, which makes ratios noisy.
	LoadAvg [2]string `json:"loadavg"`
	// Other is the machine's other work during the measured rounds (and
	// the micro-benchmarks): above its threshold, no target is judged.
	Other *otherWork `json:"other_work,omitempty"`
}

// settings are the run's parameters.
type settings struct {
	Concurrency  int     `json:"concurrency"`
	Rounds       int     `json:"rounds"`
	ClosedSecs   float64 `json:"closed_seconds"`
	WarmupSecs   float64 `json:"warmup_seconds"`
	Rate         int     `json:"rate"`
	OpenSecs     float64 `json:"open_seconds"`
	TokenSeconds float64 `json:"token_lifetime_seconds"`
	// DataFS is the file system type of the fronts' data directories
	// (stat -f), where osdm_convert's journal writes: "tmpfs" or a disk's.
	DataFS string `json:"data_fs,omitempty"`
}

// record is the measurement of one scenario.
type record struct {
	Scenario string       `json:"scenario"`
	Title    string       `json:"title"`
	Front    string       `json:"front"`
	Warmup   *phaseResult `json:"warmup"`
	Closed   *phaseResult `json:"closed"`
	Open     *phaseResult `json:"open,omitempty"`
	Memory   memory       `json:"memory"`
	// FrontLogins is how many logins the front's osdm_token made
	// (caddy_osdm_token_requests_total, result ok); -1 without osdm_token.
	FrontLogins float64 `json:"front_logins"`
	// FrontLoginFailures counts its failed logins.
	FrontLoginFailures float64 `json:"front_login_failures"`
	// PartnerLogins is how many tokens the partner's login service granted
	// to the front's own client (bench-<scenario>) during the run, less
	// DriverLogins: the front's logins as the partner saw them.
	PartnerLogins float64 `json:"partner_logins"`
	// DriverLogins is how many tokens the partner granted the driver as
	// the front's client, to make the front's offers and bookings ahead
	// (a converter front of a D, E or P scenario): not the front's.
	DriverLogins float64 `json:"driver_logins,omitempty"`
	// Offers is how many fresh offers were made for a D scenario.
	Offers int `json:"offers,omitempty"`
	// Bookings is how many fresh bookings were made for an after-sales
	// scenario.
	Bookings int `json:"bookings,omitempty"`
	// PrepareSecs is the time spent making them, between its attacks.
	PrepareSecs float64 `json:"prepare_seconds,omitempty"`
	// Profiled is the unmeasured attack during which the front's CPU
	// profile was taken (-profile-dir): its front CPU per request turns
	// the profile's shares into µs per request (`load pprof`).
	Profiled *phaseResult `json:"profiled,omitempty"`
}

// front is a front Caddy process started by run.sh for one scenario.
type front struct {
	url, admin string
	pid        int
}

// frontFlags parses repeated -front NAME=PORT,ADMINPORT,PID.
type frontFlags map[string]front

func (ff frontFlags) String() string { return fmt.Sprint(map[string]front(ff)) }

func (ff frontFlags) Set(v string) error {
	name, rest, ok := strings.Cut(v, "=")
	parts := strings.Split(rest, ",")
	if !ok || len(parts) != 3 {
		return fmt.Errorf("-front %q: want NAME=PORT,ADMINPORT,PID", v)
	}
	pid, err := strconv.Atoi(parts[2])
	if err != nil {
		return fmt.Errorf("-front %q: pid: %w", v, err)
	}
	ff[name] = front{url: "http://127.0.0.1:" + parts[0], admin: "http://127.0.0.1:" + parts[1], pid: pid}
	return nil
}

// benchFlags are the flags of `load bench`.
type benchFlags struct {
	fronts                           frontFlags
	partner, partnerAdmin, keys, out string
	dataFS                           string
	profileDir, profile              string
	concurrency, rate, rounds        int
	partnerPID                       int
	duration, warmup, openDuration   time.Duration
	profileDuration, tokenLifetime   time.Duration
	busyThreshold                    float64
}

func benchCommand(args []string) error {
	f := benchFlags{fronts: frontFlags{}}
	fs := flag.NewFlagSet("bench", flag.ExitOnError)
	fs.Var(f.fronts, "front", "front Caddy of a scenario: NAME=PORT,ADMINPORT,PID (repeat; NAME is A, B, C, Ddirect or Dconv)")
	fs.StringVar(&f.partner, "partner", "http://127.0.0.1:18441", "sandbox partner base URL")
	fs.StringVar(&f.partnerAdmin, "partner-admin", "http://127.0.0.1:12441", "sandbox partner admin URL")
	fs.IntVar(&f.partnerPID, "partner-pid", 0, "sandbox partner process id (its CPU time per request)")
	fs.StringVar(&f.keys, "keys", "", "directory of caddy osdm-keygen --demo")
	fs.IntVar(&f.concurrency, "c", 8, "workers of the closed loop, each with one request in flight")
	fs.DurationVar(&f.duration, "d", 15*time.Second, "closed-loop time per scenario, split into -rounds")
	fs.IntVar(&f.rounds, "rounds", 5, "rounds: each runs every scenario once in turn, so that a slower spell of the machine hits all alike")
	fs.DurationVar(&f.warmup, "warmup", 2*time.Second, "closed-loop warm-up per scenario before measuring (cold token cache, connections)")
	fs.IntVar(&f.rate, "rate", 200, "requests/s of the open-loop latency phase; 0 skips it")
	fs.DurationVar(&f.openDuration, "open-d", 10*time.Second, "open-loop time per scenario, split into -rounds")
	fs.StringVar(&f.profileDir, "profile-dir", "", "after measuring, profile these scenarios' fronts (CPU and allocations) into this directory")
	fs.StringVar(&f.profile, "profile", "A,B", "scenarios to profile")
	fs.DurationVar(&f.profileDuration, "profile-d", 12*time.Second, "closed-loop time of each profiled run")
	fs.DurationVar(&f.tokenLifetime, "token-lifetime", 15*time.Minute, "the partner's access token lifetime, for the report")
	fs.StringVar(&f.dataFS, "data-fs", "", "file system type of the fronts' data directories (the journal's), for the report's booking target")
	fs.StringVar(&f.out, "out", "", "result file (JSON)")
	fs.Float64Var(&f.busyThreshold, "busy", defaultBusyThreshold, "load besides the bench's own processes (cores kept busy by the rest of the machine, on average over the measured rounds, in all or over one scenario's) above which the report judges no target")
	_ = fs.Parse(args)
	if f.out == "" || f.keys == "" || len(f.fronts) == 0 || f.rounds < 1 {
		return errors.New("bench needs -out, -keys, at least one -front and -rounds >= 1")
	}
	if !(f.busyThreshold > 0) {
		return fmt.Errorf("-busy %v: want a load above 0 (cores)", f.busyThreshold)
	}
	res, err := bench(context.Background(), f)
	if err != nil {
		return err
	}
	data, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(f.out, append(data, '\n'), 0o644)
}

// loginMetric is the partner's count of token requests, by client.
const loginMetric = "caddy_osdm_login_token_requests_total"

// frontSubject is the client a scenario's front logs in as (run.sh sets
// it in the front's environment), so that the partner counts each apart.
func frontSubject(scenario string) string { return "bench-" + scenario }

// directSubject is the client the driver logs in as for the calls it
// sends through the bare proxy.
const directSubject = "bench-direct"

// running is a scenario being measured.
type running struct {
	s      *scenario
	front  front
	env    *env
	tr     vegeta.Targeter // the requests of A, B, C
	sup    *supply         // those of D, E, P
	tokens tokenauth.TokenSource
	client *http.Client
	rec    *record
	before float64 // partner's grants to the front's client at the start
	// driverLogins counts the driver's own logins as the front's client
	// (its preparation); nil when it makes none.
	driverLogins *countedLogins
}

// targeter returns the requests of r's attack of p (with the driver's
// token on a bare front) and, for after the attack, what notes what it
// sent.
func (r *running) targeter(ctx context.Context, p phase) (vegeta.Targeter, func(*phaseResult), error) {
	tr, after := r.tr, func(*phaseResult) {}
	if r.sup != nil {
		var used func() int
		var err error
		if tr, used, err = r.sup.ready(ctx, r.s.name, p); err != nil {
			return nil, nil, err
		}
		after = func(res *phaseResult) {
			rate := 0.0
			if n := len(res.RoundThroughput); n > 0 {
				rate = res.RoundThroughput[n-1]
			}
			r.sup.sent(used(), rate)
		}
	}
	if r.s.front == "bare" {
		tr = authorized(ctx, tr, r.tokens)
	}
	return tr, after, nil
}

// countLogins sets the front's logins at the partner from the partner's
// count of grants to the front's client, after the rounds: those since
// the start, less the driver's own as that client.
func (r *running) countLogins(after float64) {
	r.rec.DriverLogins = r.driverLogins.count()
	r.rec.PartnerLogins = after - r.before - r.rec.DriverLogins
}

func bench(ctx context.Context, f benchFlags) (*results, error) {
	out := &results{Machine: machine(), Settings: settings{
		Concurrency: f.concurrency, Rounds: f.rounds, ClosedSecs: f.duration.Seconds(), WarmupSecs: f.warmup.Seconds(),
		Rate: f.rate, OpenSecs: f.openDuration.Seconds(), TokenSeconds: f.tokenLifetime.Seconds(), DataFS: f.dataFS,
	}}
	tokens, _, err := directTokens(ctx, f.partner, f.keys, directSubject)
	if err != nil {
		return nil, fmt.Errorf("logging in as bench-direct: %w", err)
	}
	defer tokens.Close()
	var runs []*running
	for _, s := range scenarios {
		fr, ok := f.fronts[s.name]
		if !ok {
			continue
		}
		r := &running{s: s, front: fr, env: &env{front: fr.url, ids: newMessageIDs(s.name)}, tokens: tokens,
			client: newClient(f.concurrency), rec: &record{Scenario: s.name, Title: s.title, Front: s.front, FrontLogins: -1}}
		if r.before, err = partnerLogins(ctx, f.partnerAdmin, s.name); err != nil {
			return nil, err
		}
		runs = append(runs, r)
	}

	// Warm-up, in order; A's warm-up rate is the others' first guess at
	// theirs (supply.go).
	floor := 3000.0
	for _, r := range runs {
		if r.s.fresh != nil {
			// A converter front books and changes what was made ahead for
			// it, so the driver makes it as the front's own client.
			prep := tokenauth.TokenSource(tokens)
			if r.s.front != "bare" {
				own, logins, err := directTokens(ctx, f.partner, f.keys, frontSubject(r.s.name))
				if err != nil {
					return nil, fmt.Errorf("%s: logging in as %s: %w", r.s.name, frontSubject(r.s.name), err)
				}
				defer own.Close()
				prep, r.driverLogins = own, logins
			}
			r.sup = newSupply(r.s, r.env, f.partner, prep)
			r.sup.guess = r.sup.share * floor
		} else if r.tr, err = r.s.targets(r.env); err != nil {
			return nil, fmt.Errorf("%s: %w", r.s.name, err)
		}
		r.rec.Warmup = &phaseResult{}
		p := phase{name: "warmup", concurrency: f.concurrency, duration: f.warmup}
		tr, after, err := r.targeter(ctx, p)
		if err != nil {
			return nil, err
		}
		attack(r.s, tr, p, r.client, r.procs(f), r.rec.Warmup)
		after(r.rec.Warmup)
		r.rec.Warmup.finish()
		log.Printf("%s: warm-up %d requests, %.0f req/s, %d errors", r.s.name, r.rec.Warmup.Requests, r.rec.Warmup.Throughput, r.rec.Warmup.Errors)
		if r.s.name == "A" && r.rec.Warmup.Throughput > 0 {
			floor = r.rec.Warmup.Throughput
		}
	}

	phases := []phase{{name: "closed", concurrency: f.concurrency, duration: f.duration / time.Duration(f.rounds)}}
	if f.rate > 0 {
		phases = append(phases, phase{name: "open", concurrency: f.concurrency, rate: f.rate, duration: f.openDuration / time.Duration(f.rounds)})
	}
	out.LoadAvg[0] = loadAvg()
	maxLoad1 := loadAvg1()
	for _, p := range phases {
		for round := range f.rounds {
			// Each round starts with another scenario, so that none is
			// always the one after the heaviest.
			for k := range runs {
				r := runs[(round+k)%len(runs)]
				res := r.rec.Closed
				if p.name == "open" {
					res = r.rec.Open
				}
				if res == nil {
					res = &phaseResult{}
					if p.name == "open" {
						r.rec.Open = res
					} else {
						r.rec.Closed = res
					}
				}
				others, secs := res.OthersCPU, res.Seconds
				tr, after, err := r.targeter(ctx, p)
				if err != nil {
					return nil, err
				}
				attack(r.s, tr, p, r.client, r.procs(f), res)
				after(res)
				maxLoad1 = max(maxLoad1, loadAvg1())
				last := res.RoundThroughput[len(res.RoundThroughput)-1]
				log.Printf("%s %s round %d: %.0f req/s; other work %.2f cores", r.s.name, p.name, round+1, last,
					(res.OthersCPU-others)/max(res.Seconds-secs, 1e-3))
				if res.RanOut {
					log.Printf("%s %s round %d: ran out of fresh offers or bookings before its time was up", r.s.name, p.name, round+1)
				}
			}
		}
	}
	out.LoadAvg[1] = loadAvg()
	var recs []*record
	for _, r := range runs {
		recs = append(recs, r.rec)
	}
	out.Other = noteOtherWork(recs, f.busyThreshold, maxLoad1)
	if row, why := out.Other.judged(); row != "" {
		log.Printf("%s: %s", row, why)
	} else {
		log.Printf("machine quiet enough: %s", why)
	}

	for _, r := range runs {
		for _, p := range []*phaseResult{r.rec.Closed, r.rec.Open} {
			if p != nil {
				p.finish()
			}
		}
		c := r.rec.Closed
		log.Printf("%s: closed %.0f req/s p50 %.2f ms p99 %.2f ms, %d errors", r.s.name, c.Throughput, c.P50Ms, c.P99Ms, c.Errors)
		if r.rec.Memory, err = readMemory(r.front.pid); err != nil {
			return nil, err
		}
		after, err := partnerLogins(ctx, f.partnerAdmin, r.s.name)
		if err != nil {
			return nil, err
		}
		r.countLogins(after)
		if r.sup != nil {
			if r.s.needsOffers {
				r.rec.Offers = r.sup.made
			} else {
				r.rec.Bookings = r.sup.made
			}
			r.rec.PrepareSecs = r.sup.spent.Seconds()
		}
		if r.s.front != "bare" {
			if r.rec.FrontLogins, err = metricSum(ctx, r.front.admin, "caddy_osdm_token_requests_total", `result="ok"`); err != nil {
				return nil, err
			}
			if r.rec.FrontLoginFailures, err = metricSum(ctx, r.front.admin, "caddy_osdm_token_requests_total", `result="failed"`); err != nil {
				return nil, err
			}
		}
		out.Scenarios = append(out.Scenarios, r.rec)
	}

	if f.profileDir != "" {
		for _, r := range runs {
			if strings.Contains(","+f.profile+",", ","+r.s.name+",") {
				if err := profileFront(ctx, r, f); err != nil {
					return nil, fmt.Errorf("profiling %s: %w", r.s.name, err)
				}
			}
		}
	}
	return out, nil
}

// profileFront attacks a front once more, unmeasured, while taking its CPU
// profile, then saves its allocation profile (since the process started).
func profileFront(ctx context.Context, r *running, f benchFlags) error {
	secs := max(1, int(f.profileDuration.Seconds())-2)
	// Its fresh offers or bookings are made before the profile starts.
	p := phase{name: "profile", concurrency: f.concurrency, duration: f.profileDuration}
	tr, after, err := r.targeter(ctx, p)
	if err != nil {
		return err
	}
	profiled := make(chan error, 1)
	go func() {
		time.Sleep(time.Second)
		profiled <- fetchProfile(ctx, r.front.admin, fmt.Sprintf("/debug/pprof/profile?seconds=%d", secs),
			filepath.Join(f.profileDir, r.s.name+".cpu.pprof"), time.Duration(secs+30)*time.Second)
	}()
	res := &phaseResult{}
	attack(r.s, tr, p, r.client, r.procs(f), res)
	after(res)
	res.finish()
	r.rec.Profiled = res
	log.Printf("%s (profiled): %.0f req/s, %d errors", r.s.name, res.Throughput, res.Errors)
	if err := <-profiled; err != nil {
		return err
	}
	return fetchProfile(ctx, r.front.admin, "/debug/pprof/allocs", filepath.Join(f.profileDir, r.s.name+".allocs.pprof"), 30*time.Second)
}

// procs are the processes whose CPU time r's attacks measure.
func (r *running) procs(f benchFlags) processes {
	own := []int{os.Getpid()}
	if f.partnerPID != 0 {
		own = append(own, f.partnerPID)
	}
	for _, fr := range f.fronts {
		own = append(own, fr.pid)
	}
	return processes{front: r.front.pid, partner: f.partnerPID, frontAdmin: r.front.admin, own: own}
}

// partnerLogins is how many tokens the partner granted to the front of
// a scenario so far.
func partnerLogins(ctx context.Context, admin, scenario string) (float64, error) {
	return metricSum(ctx, admin, loginMetric, `client="`+frontSubject(scenario)+`"`, `outcome="granted"`)
}
