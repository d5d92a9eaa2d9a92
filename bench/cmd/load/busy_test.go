package main

import (
	"strings"
	"testing"
)

func TestParseStatCPUCountsUserNiceSystemAndSteal(t *testing.T) {
	// user nice system idle iowait irq softirq steal guest guest_nice
	got, err := parseStatCPU("cpu  1000 200 300 99999 888 77 66 50 400 0")
	if err != nil || got != 15.5 {
		t.Fatalf("got %v, %v; want 15.5 s (1550 ticks: user, nice, system, steal)", got, err)
	}
	for _, bad := range []string{"", "cpu0 1 2 3 4", "cpu 1 x 3 4", "intr 1 2 3 4"} {
		if _, err := parseStatCPU(bad); err == nil {
			t.Errorf("parseStatCPU(%q) read a line it should refuse", bad)
		}
	}
}

func TestOthersSinceLeavesOutTheBenchsOwnCPU(t *testing.T) {
	before := cpuReading{machine: 100, own: 40}
	if got := othersSince(before, cpuReading{machine: 130, own: 60}); got != 10 {
		t.Errorf("machine +30 s, bench +20 s: others %v, want 10", got)
	}
	if got := othersSince(before, cpuReading{machine: 120, own: 61}); got != 0 {
		t.Errorf("the bench's clock ahead of the machine's: others %v, want 0", got)
	}
}

// runOf is a scenario's record with the given front CPU and allocation per
// request, and others' CPU seconds over 10 s of attack.
func runOf(name string, cpuUs, kib, others float64) *record {
	return &record{Scenario: name, FrontLogins: -1, Closed: &phaseResult{
		Requests: 1000, Successes: 1000, Seconds: 10, Throughput: 100,
		FrontCPUUs: cpuUs, FrontBytesPerReq: kib * 1024, OthersCPU: others,
	}}
}

// verdictRun has one target that holds (C/A) and one that does not (B/A),
// the rest of the machine using others cores-seconds in each 10 s
// scenario, and worst in Dconv's.
func verdictRun(others, worst float64) *results {
	res := &results{Settings: settings{Rounds: 1, DataFS: "ext4"}, Scenarios: []*record{
		runOf("A", 200, 20, others), runOf("B", 400, 30, others), runOf("C", 201, 21, others),
		runOf("Ddirect", 300, 40, others), runOf("Dconv", 600, 70, worst),
	}}
	res.Other = noteOtherWork(res.Scenarios, defaultBusyThreshold, 3.5)
	return res
}

func holds(t *testing.T, res *results) map[string]string {
	t.Helper()
	recs := map[string]*record{}
	for _, r := range res.Scenarios {
		recs[r.Scenario] = r
	}
	row, _ := res.Other.judged()
	got := map[string]string{}
	for _, v := range judge(verdicts(recs, nil, res.Settings), row) {
		got[v.target] = v.holds
	}
	return got
}

func TestQuietRunJudgesEveryTarget(t *testing.T) {
	res := verdictRun(3, 4) // 0.3 and 0.4 cores besides the bench
	var yes, no int
	for target, h := range holds(t, res) {
		switch {
		case h == "yes":
			yes++
		case h == "**no**":
			no++
			if !strings.Contains(target, "B/A") && !strings.Contains(target, "garbage") {
				t.Errorf("%s: %s", target, h)
			}
		case h != "-":
			t.Errorf("%s: %q, want yes or no on a quiet machine", target, h)
		}
	}
	if yes == 0 || no == 0 {
		t.Fatalf("%d targets hold and %d do not; want both (B/A misses, C/A holds)", yes, no)
	}
}

func TestBusyRunJudgesNoTarget(t *testing.T) {
	for _, tc := range []struct {
		name   string
		res    *results
		reason string
	}{
		{"busy throughout", verdictRun(15, 15), "1.50 cores busy on average"},
		{"busy during one scenario", verdictRun(3, 25), "during Dconv's"},
		{"busy during the micro-benchmarks", func() *results { r := verdictRun(3, 3); r.Other.Micro = 1.2; return r }(), "1.20 during the micro-benchmarks"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := 0
			for target, h := range holds(t, tc.res) {
				if h == "-" {
					continue
				}
				n++
				if h != notJudgedBusy {
					t.Errorf("%s: %q, want %q", target, h, notJudgedBusy)
				}
			}
			if n == 0 {
				t.Fatal("no target at all")
			}
			var b strings.Builder
			writeReport(&b, tc.res, nil)
			report := b.String()
			if !strings.Contains(report, "No target is judged") || !strings.Contains(report, tc.reason) {
				t.Errorf("the report does not say why no target is judged (%q):\n%s", tc.reason, report)
			}
			if strings.Contains(report, "| yes |") || strings.Contains(report, "| **no** |") {
				t.Errorf("a target judged on a busy machine:\n%s", report)
			}
		})
	}
}

func TestRunWithoutTheMachinesLoadJudgesNoTarget(t *testing.T) {
	res := verdictRun(0, 0)
	res.Other = nil
	for target, h := range holds(t, res) {
		if h != "-" && !strings.HasPrefix(h, "not judged") {
			t.Errorf("%s: %q, want not judged", target, h)
		}
	}
}

func TestThresholdIsAFlag(t *testing.T) {
	res := verdictRun(15, 15)
	res.Other = noteOtherWork(res.Scenarios, 2.0, 0)
	if row, why := res.Other.judged(); row != "" {
		t.Fatalf("1.5 cores under a threshold of 2: %q (%s)", row, why)
	}
}
