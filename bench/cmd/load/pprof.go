package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// pprofCommand compares the fronts' CPU profiles that `load bench
// -profile-dir` took, function by function, in µs of front CPU per
// request: a function's share of its profile times the front CPU per
// request measured during the profiled attack. Flat time (in the function
// itself) and cumulative time (with what it calls) are compared apart.
func pprofCommand(args []string) error {
	fs := flag.NewFlagSet("pprof", flag.ExitOnError)
	dir := fs.String("dir", "", "directory of results.json and <scenario>.cpu.pprof")
	base := fs.String("base", "A", "the scenario the others are compared with")
	vs := fs.String("vs", "B,C", "scenarios to compare with -base")
	n := fs.Int("n", 40, "rows per table")
	_ = fs.Parse(args)
	if *dir == "" {
		return errors.New("pprof needs -dir")
	}
	data, err := os.ReadFile(filepath.Join(*dir, "results.json"))
	if err != nil {
		return err
	}
	var res results
	if err := json.Unmarshal(data, &res); err != nil {
		return err
	}
	perReq := map[string]float64{}
	for _, r := range res.Scenarios {
		if r.Profiled != nil {
			perReq[r.Scenario] = r.Profiled.FrontCPUUs
		}
	}
	var b strings.Builder
	baseProf, err := readProfile(filepath.Join(*dir, *base+".cpu.pprof"), perReq[*base])
	if err != nil {
		return err
	}
	for _, s := range strings.Split(*vs, ",") {
		p, err := readProfile(filepath.Join(*dir, s+".cpu.pprof"), perReq[s])
		if err != nil {
			return err
		}
		writeComparison(&b, *base, s, baseProf, p, perReq, *n)
	}
	fmt.Print(b.String())
	return os.WriteFile(filepath.Join(*dir, "pprof-compare.md"), []byte(b.String()), 0o644)
}

// cpuProfile is a profile's functions in µs per request.
type cpuProfile struct {
	flat, cum map[string]float64
}

// readProfile reads `go tool pprof -top` of file (flat, then cum) and
// scales each function's share by usPerReq.
func readProfile(file string, usPerReq float64) (*cpuProfile, error) {
	if usPerReq <= 0 {
		return nil, fmt.Errorf("%s: no front CPU per request of its profiled attack in results.json", file)
	}
	p := &cpuProfile{flat: map[string]float64{}, cum: map[string]float64{}}
	out, err := exec.Command("go", "tool", "pprof", "-top", "-nodecount=100000", file).Output()
	if err != nil {
		return nil, fmt.Errorf("go tool pprof %s: %w", file, err)
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	rows := false
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) >= 5 && f[0] == "flat" {
			rows = true
			continue
		}
		if !rows || len(f) < 6 {
			continue
		}
		flat, err1 := strconv.ParseFloat(strings.TrimSuffix(f[1], "%"), 64)
		cum, err2 := strconv.ParseFloat(strings.TrimSuffix(f[4], "%"), 64)
		if err1 != nil || err2 != nil {
			continue
		}
		name := strings.Join(f[5:], " ")
		p.flat[name] += flat / 100 * usPerReq
		p.cum[name] += cum / 100 * usPerReq
	}
	return p, sc.Err()
}

// writeComparison writes two tables, cumulative and flat, of the
// functions whose µs per request differ most between base and s.
func writeComparison(b *strings.Builder, base, s string, bp, sp *cpuProfile, perReq map[string]float64, n int) {
	fmt.Fprintf(b, "# %s against %s: front CPU per request %.0f vs %.0f µs (%+.0f), %.2fx\n\n",
		s, base, perReq[s], perReq[base], perReq[s]-perReq[base], perReq[s]/perReq[base])
	for _, kind := range []string{"cum", "flat"} {
		bm, sm := bp.cum, sp.cum
		if kind == "flat" {
			bm, sm = bp.flat, sp.flat
		}
		names := map[string]bool{}
		for k := range bm {
			names[k] = true
		}
		for k := range sm {
			names[k] = true
		}
		list := make([]string, 0, len(names))
		for k := range names {
			list = append(list, k)
		}
		slices.SortFunc(list, func(x, y string) int {
			dx, dy := sm[x]-bm[x], sm[y]-bm[y]
			switch {
			case dx > dy:
				return -1
			case dx < dy:
				return 1
			}
			return strings.Compare(x, y)
		})
		fmt.Fprintf(b, "## %s time, µs per request, largest differences\n\n| function | %s | %s | difference |\n|---|---:|---:|---:|\n", kind, base, s)
		for i, k := range list {
			if i == n {
				break
			}
			fmt.Fprintf(b, "| %s | %.1f | %.1f | %+.1f |\n", k, bm[k], sm[k], sm[k]-bm[k])
		}
		b.WriteString("\n")
	}
}
