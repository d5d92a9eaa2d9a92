package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Targets. The front's CPU per request against its floor is the measure
// of the targets: throughput and latency ratios move with the machine's other
// work (the partner and the driver share the front's cores), so they are
// reported as information only.
const (
	targetConvertCPU      = 1.55 // B/A front CPU per request
	targetTokenCPU        = 1.05 // C/A front CPU per request
	targetBookingCPUDisk  = 2.20 // Dconv/Ddirect front CPU per request, journal on a disk
	targetBookingCPUTmpfs = 1.80 // the same with the journal on tmpfs (no sync cost)
	targetGarbageKiB      = 14.0 // B's front allocations per exchange above A's
	targetRSSExtraMiB     = 30.0
	targetCacheSpeedup    = 5.0 // ReuseTokenSource ns/op over ours
)

// bookingTarget is the Dconv/Ddirect target for the file system of the
// fronts' data directories (the journal's bolt file).
func bookingTarget(fs string) float64 {
	if fs == "tmpfs" || fs == "ramfs" {
		return targetBookingCPUTmpfs
	}
	return targetBookingCPUDisk
}

// Micro-benchmarks that `load report` compares (see bench/*_test.go).
const (
	benchCacheOurs    = "BenchmarkTokenCacheHit/tokenauth"
	benchCachePeer    = "BenchmarkTokenCacheHit/oauth2_ReuseTokenSource"
	benchValidateOurs = "BenchmarkValidateRS256/tokenauth"
	benchValidatePeer = "BenchmarkValidateRS256/fosite_rfc7523"
)

func reportCommand(args []string) error {
	fs := flag.NewFlagSet("report", flag.ExitOnError)
	in := fs.String("in", "", "results of load bench (JSON)")
	microFile := fs.String("micro", "", "output of go test -bench -benchmem in bench/ (optional)")
	out := fs.String("out", "", "markdown file to write (default: beside -in, results.md)")
	_ = fs.Parse(args)
	if *in == "" {
		return errors.New("report needs -in")
	}
	if *out == "" {
		*out = filepath.Join(filepath.Dir(*in), "results.md")
	}
	data, err := os.ReadFile(*in)
	if err != nil {
		return err
	}
	var res results
	if err := json.Unmarshal(data, &res); err != nil {
		return fmt.Errorf("%s: %w", *in, err)
	}
	var micro map[string]benchLine
	if *microFile != "" {
		if micro, err = readMicro(*microFile); err != nil {
			return err
		}
	}
	var b strings.Builder
	writeReport(&b, &res, micro)
	fmt.Print(b.String())
	return os.WriteFile(*out, []byte(b.String()), 0o644)
}

// writeReport writes the machine, the scenario table and the verdicts.
func writeReport(b *strings.Builder, res *results, micro map[string]benchLine) {
	recs := map[string]*record{}
	for _, r := range res.Scenarios {
		recs[r.Scenario] = r
	}
	st := res.Settings
	fmt.Fprintf(b, "# caddy-osdm benchmark, %s\n\n", time.Now().UTC().Format(time.RFC3339))
	fmt.Fprintf(b, "Machine: %s. Load average %s before the measured rounds, %s after.\n\n", res.Machine, res.LoadAvg[0], res.LoadAvg[1])
	row, why := res.Other.judged()
	if row != "" {
		fmt.Fprintf(b, "**No target is judged (%s)**: %s. Measure again with nothing else running.\n\n", row, why)
	} else {
		fmt.Fprintf(b, "Machine quiet enough to judge the targets: %s.\n\n", why)
	}
	fmt.Fprintf(b, "Each scenario: %.0f s warm-up, then %d interleaved rounds (every round runs each scenario in turn): closed loop, %d workers, %.0f s in all; open loop, %d req/s, %.0f s in all. One front Caddy process per scenario; one sandbox partner process for all.\n\n",
		st.WarmupSecs, st.Rounds, st.Concurrency, st.ClosedSecs, st.Rate, st.OpenSecs)
	b.WriteString("| Scenario | req/s (closed) | p50 ms | p99 ms | errors | p50 ms (open) | p99 ms (open) | errors (open) | peak RSS MiB | CPU µs/req front / partner / driver | front KiB / allocs per req | logins (front / partner) |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---|\n")
	for _, s := range scenarios {
		r := recs[s.name]
		if r == nil || r.Closed == nil {
			continue
		}
		c := r.Closed
		op50, op99, oerr := "-", "-", "-"
		if r.Open != nil {
			op50, op99, oerr = f2(r.Open.P50Ms), f2(r.Open.P99Ms), strconv.FormatUint(r.Open.Errors, 10)
		}
		logins := "-"
		if r.FrontLogins >= 0 {
			logins = fmt.Sprintf("%.0f / %.0f", r.FrontLogins, r.PartnerLogins)
			if r.DriverLogins > 0 {
				logins += fmt.Sprintf(" (+%.0f the driver's)", r.DriverLogins)
			}
		}
		ranOut := ""
		if c.RanOut || (r.Open != nil && r.Open.RanOut) {
			ranOut = " (offers or bookings ran out)"
		}
		fmt.Fprintf(b, "| %s%s | %.0f | %s | %s | %d | %s | %s | %s | %.1f | %.0f / %.0f / %.0f | %.1f / %.0f | %s |\n",
			s.name, ranOut, c.Throughput, f2(c.P50Ms), f2(c.P99Ms), c.Errors, op50, op99, oerr, mib(r.Memory.PeakKiB),
			c.FrontCPUUs, c.PartnerCPUUs, c.DriverCPUUs, c.FrontBytesPerReq/1024, c.FrontAllocsPerReq, logins)
	}
	b.WriteString("\n")
	for _, s := range scenarios {
		fmt.Fprintf(b, "- %s: %s\n", s.name, s.title)
	}
	var made []string
	for _, s := range scenarios {
		if r := recs[s.name]; r != nil && (r.Offers > 0 || r.Bookings > 0) {
			what := fmt.Sprintf("%d offers", r.Offers)
			if r.Bookings > 0 {
				what = fmt.Sprintf("%d bookings", r.Bookings)
			}
			made = append(made, fmt.Sprintf("%s %s in %.0f s", s.name, what, r.PrepareSecs))
		}
	}
	if len(made) > 0 {
		fmt.Fprintf(b, "\nMade straight at the partner between attacks (not measured): %s.\n", strings.Join(made, ", "))
	}
	b.WriteString("\n## Targets\n\n| Target | Measured | Holds |\n|---|---|---|\n")
	for _, v := range judge(verdicts(recs, micro, st), row) {
		fmt.Fprintf(b, "| %s | %s | %s |\n", v.target, v.measured, v.holds)
	}
	var errs []string
	for _, s := range scenarios {
		if r := recs[s.name]; r != nil {
			for _, p := range []*phaseResult{r.Warmup, r.Closed, r.Open} {
				if p != nil && len(p.ErrorSamples) > 0 {
					errs = append(errs, fmt.Sprintf("- %s %s: %s", s.name, p.Phase, strings.Join(p.ErrorSamples, "; ")))
				}
			}
		}
	}
	if len(errs) > 0 {
		b.WriteString("\n## Errors seen\n\n" + strings.Join(errs, "\n") + "\n")
	}
	if len(micro) > 0 {
		b.WriteString("\n## Micro-benchmarks (median run)\n\n| Benchmark | ns/op | B/op | allocs/op |\n|---|---:|---:|---:|\n")
		names := make([]string, 0, len(micro))
		for n := range micro {
			names = append(names, n)
		}
		slices.Sort(names)
		for _, n := range names {
			m := micro[n]
			fmt.Fprintf(b, "| %s | %.1f | %.0f | %.0f |\n", n, m.nsPerOp, m.bytesPerOp, m.allocsPerOp)
		}
	}
}

// roundRatios describes the ratio of two scenarios' closed-loop throughput
// round by round: median, lowest and highest.
func roundRatios(num, den *record) string {
	var rs []float64
	for i := range min(len(num.Closed.RoundThroughput), len(den.Closed.RoundThroughput)) {
		if d := den.Closed.RoundThroughput[i]; d > 0 {
			rs = append(rs, num.Closed.RoundThroughput[i]/d)
		}
	}
	if len(rs) == 0 {
		return ""
	}
	slices.Sort(rs)
	return fmt.Sprintf("; per round: median %s, %s..%s", f2(rs[len(rs)/2]), f2(rs[0]), f2(rs[len(rs)-1]))
}

// verdict is one target's line.
type verdict struct{ target, measured, holds string }

func verdicts(recs map[string]*record, micro map[string]benchLine, st settings) []verdict {
	var vs []verdict
	a, b, c := recs["A"], recs["B"], recs["C"]
	dd, dc := recs["Ddirect"], recs["Dconv"]
	if ok(a) && ok(b) {
		vs = append(vs, cpuVerdict("B/A", "converter path", b, a, targetConvertCPU))
	}
	if ok(a) && ok(c) {
		vs = append(vs, cpuVerdict("C/A", "token layer", c, a, targetTokenCPU))
	}
	if ok(a) && ok(b) {
		kib := (b.Closed.FrontBytesPerReq - a.Closed.FrontBytesPerReq) / 1024
		vs = append(vs, verdict{fmt.Sprintf("B's garbage above A's per exchange <= %.0f KiB (front allocations, closed loop)", targetGarbageKiB),
			fmt.Sprintf("%+.1f KiB (%.1f KiB in %.0f allocations vs %.1f KiB in %.0f)", kib, b.Closed.FrontBytesPerReq/1024, b.Closed.FrontAllocsPerReq,
				a.Closed.FrontBytesPerReq/1024, a.Closed.FrontAllocsPerReq), yes(kib <= targetGarbageKiB)})
	}
	booking := bookingTarget(st.DataFS)
	fsName := st.DataFS
	if fsName == "" {
		fsName = "unknown file system"
	}
	if ok(dd) && ok(dc) {
		vs = append(vs, cpuVerdict("Dconv/Ddirect", "booking, 2 OSDM calls, journal on "+fsName, dc, dd, booking))
		// The after-sales scenarios are held to what the booking achieved
		// in the same run.
		booking = dc.Closed.FrontCPUUs / dd.Closed.FrontCPUUs
	}
	ed, ec := recs["Edirect"], recs["Econv"]
	if ok(ed) && ok(ec) {
		vs = append(vs, cpuVerdict("Econv/Edirect", "legacy exchange, no worse than Dconv/Ddirect", ec, ed, booking))
	}
	pd, pc := recs["Pdirect"], recs["Pconv"]
	if ok(pd) && ok(pc) {
		vs = append(vs, cpuVerdict("Pconv/Pdirect", "partial cancellation, no worse than Dconv/Ddirect", pc, pd, booking))
	}
	if ok(a) && ok(b) {
		e := mib(b.Memory.PeakKiB) - mib(a.Memory.PeakKiB)
		vs = append(vs, verdict{fmt.Sprintf("peak RSS B - A <= %.0f MiB", targetRSSExtraMiB),
			fmt.Sprintf("%+.1f MiB (%.1f vs %.1f)", e, mib(b.Memory.PeakKiB), mib(a.Memory.PeakKiB)), yes(e <= targetRSSExtraMiB)})
	}
	if ok(dd) && ok(dc) {
		e := mib(dc.Memory.PeakKiB) - mib(dd.Memory.PeakKiB)
		vs = append(vs, verdict{fmt.Sprintf("peak RSS Dconv - Ddirect <= %.0f MiB", targetRSSExtraMiB),
			fmt.Sprintf("%+.1f MiB", e), yes(e <= targetRSSExtraMiB)})
	}
	var logins []string
	one := true
	for _, s := range scenarios {
		if r := recs[s.name]; r != nil && r.FrontLogins >= 0 {
			l := fmt.Sprintf("%s %.0f/%.0f", s.name, r.FrontLogins, r.PartnerLogins)
			if r.DriverLogins > 0 {
				l += fmt.Sprintf(" (the partner's count less the driver's %.0f for its preparation)", r.DriverLogins)
			}
			logins = append(logins, l)
			one = one && r.FrontLogins == 1 && r.PartnerLogins == 1 && r.FrontLoginFailures == 0
		}
	}
	if len(logins) > 0 {
		vs = append(vs, verdict{fmt.Sprintf("one login per token lifetime (%s, longer than the run) per partner, at any concurrency (%d workers)", time.Duration(st.TokenSeconds*float64(time.Second)), st.Concurrency),
			"front/partner count: " + strings.Join(logins, ", "), yes(one)})
	}
	if ours, peer := micro[benchCacheOurs], micro[benchCachePeer]; ours.nsPerOp > 0 && peer.nsPerOp > 0 {
		r := peer.nsPerOp / ours.nsPerOp
		vs = append(vs, verdict{fmt.Sprintf("token cache hit >= %.0fx faster than x/oauth2 ReuseTokenSource (RunParallel), 0 allocs", targetCacheSpeedup),
			fmt.Sprintf("%.1fx (%.1f vs %.1f ns/op), %.0f allocs/op", r, ours.nsPerOp, peer.nsPerOp, ours.allocsPerOp),
			yes(r >= targetCacheSpeedup && ours.allocsPerOp == 0)})
	}
	if ours, peer := micro[benchValidateOurs], micro[benchValidatePeer]; ours.nsPerOp > 0 && peer.nsPerOp > 0 {
		r := peer.nsPerOp / ours.nsPerOp
		vs = append(vs, verdict{"RS256 identity-token validation at least as fast as fosite's RFC 7523 handler",
			fmt.Sprintf("%.2fx (%.0f vs %.0f ns/op)", r, ours.nsPerOp, peer.nsPerOp), yes(r >= 1)})
	}
	// Information, not targets: throughput and latency ratios.
	if ok(a) && ok(b) {
		r := b.Closed.Throughput / a.Closed.Throughput
		vs = append(vs, verdict{"(information) B/A throughput, closed loop", f2(r) + roundRatios(b, a) +
			fmt.Sprintf("; whole machine (front + partner + driver) %.0f vs %.0f µs per request", cpuAll(b), cpuAll(a)), "-"})
		d := b.Closed.P99Ms - a.Closed.P99Ms
		vs = append(vs, verdict{fmt.Sprintf("(information) B p99 - A p99, closed loop (c=%d)", a.Closed.Concurrency),
			fmt.Sprintf("%+.2f ms (%s vs %s)", d, f2(b.Closed.P99Ms), f2(a.Closed.P99Ms)), "-"})
		if a.Open != nil && b.Open != nil {
			d := b.Open.P99Ms - a.Open.P99Ms
			vs = append(vs, verdict{fmt.Sprintf("(information) B p99 - A p99, open loop (%d req/s)", a.Open.Rate),
				fmt.Sprintf("%+.2f ms (%s vs %s)", d, f2(b.Open.P99Ms), f2(a.Open.P99Ms)), "-"})
		}
	}
	if ok(a) && ok(c) {
		r := c.Closed.Throughput / a.Closed.Throughput
		vs = append(vs, verdict{"(information) C/A throughput, closed loop", f2(r) + roundRatios(c, a), "-"})
	}
	if ok(dd) && ok(dc) {
		r := dc.Closed.Throughput / dd.Closed.Throughput
		vs = append(vs, verdict{"(information) Dconv/Ddirect throughput, closed loop", f2(r) + roundRatios(dc, dd), "-"})
		vs = append(vs, verdict{"(information) Dconv/Ddirect p50 latency, closed loop", f2(dc.Closed.P50Ms / dd.Closed.P50Ms), "-"})
	}
	return vs
}

// judge gives every target of vs (those with a yes or no) the Holds row
// instead, when the run is not judged (row not ""): a run on a busy
// machine neither meets nor misses a target.
func judge(vs []verdict, row string) []verdict {
	if row == "" {
		return vs
	}
	out := make([]verdict, len(vs))
	for i, v := range vs {
		if v.holds != "-" {
			v.holds = row
		}
		out[i] = v
	}
	return out
}

// cpuVerdict is the target on the front's CPU per request of num against
// its floor den (closed loop).
func cpuVerdict(name, what string, num, den *record, target float64) verdict {
	r := num.Closed.FrontCPUUs / den.Closed.FrontCPUUs
	return verdict{fmt.Sprintf("front CPU per request %s <= %.2f (%s)", name, target, what),
		fmt.Sprintf("%s (%.0f vs %.0f µs, %+.0f)", f2(r), num.Closed.FrontCPUUs, den.Closed.FrontCPUUs, num.Closed.FrontCPUUs-den.Closed.FrontCPUUs),
		yes(r <= target)}
}

// cpuAll is the CPU time per request of the three processes together.
func cpuAll(r *record) float64 {
	return r.Closed.FrontCPUUs + r.Closed.PartnerCPUUs + r.Closed.DriverCPUUs
}

func ok(r *record) bool { return r != nil && r.Closed != nil && r.Closed.Throughput > 0 }

func yes(b bool) string {
	if b {
		return "yes"
	}
	return "**no**"
}

func f2(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }

func mib(kib int64) float64 { return float64(kib) / 1024 }

// machine describes this machine: cores, CPU model, memory, Go.
func machine() string {
	model := "unknown CPU"
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if k, v, found := strings.Cut(sc.Text(), ":"); found && strings.TrimSpace(k) == "model name" {
				model = strings.TrimSpace(v)
				break
			}
		}
		f.Close()
	}
	mem := "unknown memory"
	if f, err := os.Open("/proc/meminfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if k, v, found := strings.Cut(sc.Text(), ":"); found && k == "MemTotal" {
				kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
				mem = fmt.Sprintf("%.1f GiB", kb/1024/1024)
				break
			}
		}
		f.Close()
	}
	return fmt.Sprintf("%d CPUs (%s), %s memory, %s %s/%s", runtime.NumCPU(), model, mem, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

// benchLine is one `go test -bench` result.
type benchLine struct{ nsPerOp, bytesPerOp, allocsPerOp float64 }

// readMicro reads `go test -bench -benchmem` output, keeping for each
// benchmark (GOMAXPROCS suffix removed) the run with the median ns/op.
func readMicro(file string) (map[string]benchLine, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	runs := map[string][]benchLine{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 4 || !strings.HasPrefix(fields[0], "Benchmark") {
			continue
		}
		name := fields[0]
		if i := strings.LastIndex(name, "-"); i > 0 {
			if _, err := strconv.Atoi(name[i+1:]); err == nil {
				name = name[:i]
			}
		}
		var l benchLine
		for i := 2; i+1 < len(fields); i += 2 {
			v, err := strconv.ParseFloat(fields[i], 64)
			if err != nil {
				continue
			}
			switch fields[i+1] {
			case "ns/op":
				l.nsPerOp = v
			case "B/op":
				l.bytesPerOp = v
			case "allocs/op":
				l.allocsPerOp = v
			}
		}
		runs[name] = append(runs[name], l)
	}
	out := map[string]benchLine{}
	for name, ls := range runs {
		slices.SortFunc(ls, func(x, y benchLine) int {
			switch {
			case x.nsPerOp < y.nsPerOp:
				return -1
			case x.nsPerOp > y.nsPerOp:
				return 1
			}
			return 0
		})
		out[name] = ls[len(ls)/2]
	}
	return out, sc.Err()
}
