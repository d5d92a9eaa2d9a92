package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/caddy-osdm/caddy-osdm/tokenauth"
)

// record is what `load run` writes for one scenario, and `load report`
// reads back.
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
	// to the fronts' client (example-railway) during the scenario.
	PartnerLogins float64 `json:"partner_logins"`
	// Offers is how many fresh offers were made for the D scenarios.
	Offers int `json:"offers,omitempty"`
	// LoadAvg is /proc/loadavg before and after the measured phases: the
	// machine's other work, which makes ratios noisy.
	LoadAvg [2]string `json:"loadavg"`
}

// runFlags are the flags of `load run`.
type runFlags struct {
	scenario, front, frontAdmin, partner, partnerAdmin, keys, out string
	floor, cpuProfile, allocProfile                               string
	frontPID, concurrency, rate, offers                           int
	duration, warmup, openDuration                                time.Duration
}

func runCommand(args []string) error {
	var f runFlags
	fs := flag.NewFlagSet("run", flag.ExitOnError)
	fs.StringVar(&f.scenario, "scenario", "", "scenario: A, B, C, Ddirect or Dconv")
	fs.StringVar(&f.front, "front", "http://127.0.0.1:18080", "front Caddy base URL")
	fs.StringVar(&f.frontAdmin, "front-admin", "http://127.0.0.1:12080", "front Caddy admin URL")
	fs.IntVar(&f.frontPID, "front-pid", 0, "front Caddy process id (peak RSS)")
	fs.StringVar(&f.partner, "partner", "http://127.0.0.1:18441", "sandbox partner base URL")
	fs.StringVar(&f.partnerAdmin, "partner-admin", "http://127.0.0.1:12441", "sandbox partner admin URL")
	fs.StringVar(&f.keys, "keys", "", "directory of caddy osdm-keygen --demo")
	fs.IntVar(&f.concurrency, "c", 8, "concurrency of the closed-loop phase (workers, each with one request in flight)")
	fs.DurationVar(&f.duration, "d", 15*time.Second, "duration of the closed-loop phase")
	fs.DurationVar(&f.warmup, "warmup", 2*time.Second, "closed-loop warm-up before measuring (cold token cache, connections)")
	fs.IntVar(&f.rate, "rate", 200, "requests/s of the open-loop latency phase; 0 skips it")
	fs.DurationVar(&f.openDuration, "open-d", 10*time.Second, "duration of the open-loop phase")
	fs.IntVar(&f.offers, "offers", 0, "fresh offers for the D scenarios; 0 estimates from -floor")
	fs.StringVar(&f.floor, "floor", "", "A's result file, to estimate how many offers D needs")
	fs.StringVar(&f.out, "out", "", "result file (JSON)")
	fs.StringVar(&f.cpuProfile, "cpuprofile", "", "save a CPU profile of the front during the closed-loop phase")
	fs.StringVar(&f.allocProfile, "allocprofile", "", "save the front's allocation profile after the run")
	_ = fs.Parse(args)
	if f.out == "" || f.keys == "" || f.frontPID == 0 {
		return errors.New("run needs -scenario, -out, -keys and -front-pid")
	}
	s, err := scenarioNamed(f.scenario)
	if err != nil {
		return err
	}
	rec, err := run(context.Background(), s, f)
	if err != nil {
		return fmt.Errorf("scenario %s: %w", s.name, err)
	}
	data, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(f.out, append(data, '\n'), 0o644)
}

// loginMetric is the partner's count of tokens granted, by client.
const loginMetric = "caddy_osdm_login_token_requests_total"

// frontClient is the client the fronts' osdm_token logs in as.
const frontClient = `client="example-railway"`

func run(ctx context.Context, s *scenario, f runFlags) (*record, error) {
	e := &env{front: f.front, ids: newMessageIDs(s.name)}
	var err error
	if s.front == "bare" || s.needsOffers {
		if e.token, err = directToken(ctx, f.partner, f.keys); err != nil {
			return nil, fmt.Errorf("logging in as bench-direct: %w", err)
		}
	}
	rec := &record{Scenario: s.name, Title: s.title, Front: s.front, FrontLogins: -1}
	if s.needsOffers {
		n := f.offers
		if n == 0 {
			if n, err = estimateOffers(f); err != nil {
				return nil, err
			}
		}
		log.Printf("%s: making %d fresh offers at the partner", s.name, n)
		if e.offers, err = makeOffers(ctx, f.partner, e.token, n); err != nil {
			return nil, err
		}
		rec.Offers = n
	}
	before, err := metricSum(ctx, f.partnerAdmin, loginMetric, frontClient, `outcome="granted"`)
	if err != nil {
		return nil, err
	}
	tr, err := s.targets(e)
	if err != nil {
		return nil, err
	}
	client := newClient(f.concurrency)
	rec.LoadAvg[0] = loadAvg()

	rec.Warmup = attack(s, tr, phase{name: "warmup", concurrency: f.concurrency, duration: f.warmup}, client)
	log.Printf("%s: warm-up %d requests, %d errors", s.name, rec.Warmup.Requests, rec.Warmup.Errors)

	profiled := make(chan error, 1)
	if f.cpuProfile != "" {
		secs := max(1, int(f.duration.Seconds())-2)
		go func() {
			time.Sleep(time.Second)
			profiled <- fetchProfile(ctx, f.frontAdmin, fmt.Sprintf("/debug/pprof/profile?seconds=%d", secs), f.cpuProfile, time.Duration(secs+30)*time.Second)
		}()
	} else {
		profiled <- nil
	}
	rec.Closed = attack(s, tr, phase{name: "closed", concurrency: f.concurrency, duration: f.duration}, client)
	log.Printf("%s: closed loop c=%d: %.0f req/s, p50 %.2f ms, p99 %.2f ms, %d errors",
		s.name, f.concurrency, rec.Closed.Throughput, rec.Closed.P50Ms, rec.Closed.P99Ms, rec.Closed.Errors)
	if err := <-profiled; err != nil {
		return nil, fmt.Errorf("CPU profile: %w", err)
	}
	if f.rate > 0 {
		rec.Open = attack(s, tr, phase{name: "open", concurrency: f.concurrency, rate: f.rate, duration: f.openDuration}, client)
		log.Printf("%s: open loop %d req/s: p50 %.2f ms, p99 %.2f ms, %d errors",
			s.name, f.rate, rec.Open.P50Ms, rec.Open.P99Ms, rec.Open.Errors)
	}

	rec.LoadAvg[1] = loadAvg()
	if rec.Memory, err = readMemory(f.frontPID); err != nil {
		return nil, err
	}
	after, err := metricSum(ctx, f.partnerAdmin, loginMetric, frontClient, `outcome="granted"`)
	if err != nil {
		return nil, err
	}
	rec.PartnerLogins = after - before
	if s.front != "bare" {
		if rec.FrontLogins, err = metricSum(ctx, f.frontAdmin, "caddy_osdm_token_requests_total", `result="ok"`); err != nil {
			return nil, err
		}
		if rec.FrontLoginFailures, err = metricSum(ctx, f.frontAdmin, "caddy_osdm_token_requests_total", `result="failed"`); err != nil {
			return nil, err
		}
	}
	if f.allocProfile != "" {
		if err := fetchProfile(ctx, f.frontAdmin, "/debug/pprof/allocs", f.allocProfile, 30*time.Second); err != nil {
			return nil, fmt.Errorf("allocation profile: %w", err)
		}
	}
	return rec, nil
}

// estimateOffers sizes D's pool from A's closed-loop throughput: a D
// request makes at least two partner calls, so it cannot go faster than A.
func estimateOffers(f runFlags) (int, error) {
	if f.floor == "" {
		return 0, errors.New("D needs -offers or -floor (A's result file)")
	}
	var a record
	data, err := os.ReadFile(f.floor)
	if err == nil {
		err = json.Unmarshal(data, &a)
	}
	if err != nil || a.Closed == nil {
		return 0, fmt.Errorf("reading A's result %s: %v", f.floor, err)
	}
	closed := a.Closed.Throughput * (f.warmup + f.duration).Seconds()
	open := float64(f.rate) * f.openDuration.Seconds()
	return int(math.Ceil(closed+open)) + 200, nil
}

// directToken logs in at the partner as bench-direct, the client whose
// token the driver sends itself through the bare proxy.
func directToken(ctx context.Context, partner, keys string) (string, error) {
	key, err := tokenauth.LoadPrivateKeyFile(filepath.Join(keys, "alpine.pem"))
	if err != nil {
		return "", err
	}
	tokenURL := partner + "/oauth/token"
	signer, err := tokenauth.NewIdentitySigner(tokenauth.IdentityConfig{
		Issuer: "bench-direct", Subject: "bench-direct", Audience: tokenURL, KeyID: "alpine-demo-1",
	}, key, nil)
	if err != nil {
		return "", err
	}
	client, err := tokenauth.NewTokenClient(tokenauth.TokenClientConfig{Partner: partnerName, TokenURL: tokenURL, Signer: signer})
	if err != nil {
		return "", err
	}
	tok, err := client.Token(ctx)
	if err != nil {
		return "", err
	}
	return tok.AccessToken, nil
}
