package main

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
)

// A ratio of CPU times measured while other work runs on the machine is
// not a measurement: the other work takes cores, caches and memory
// bandwidth from the fronts, and how much differs from round to round.
// So the driver measures the machine's other work during every measured
// attack: the busy CPU time of the whole machine (/proc/stat) less that
// of the bench's own processes (every front, the partner, the driver:
// /proc/<pid>/stat). Divided by the attack's wall time, it is how many
// cores the rest of the machine kept busy: its load besides the bench.
// Above a threshold, the report judges no target (notJudged).

// machineBusy is the busy CPU time of the whole machine in seconds, from
// the first line of /proc/stat.
func machineBusy() (float64, error) {
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, err
	}
	line, _, _ := strings.Cut(string(data), "\n")
	return parseStatCPU(line)
}

// parseStatCPU reads the aggregate "cpu" line of /proc/stat (user, nice,
// system, idle, iowait, irq, softirq, steal, guest, guest_nice, in
// USER_HZ) and returns user + nice + system + steal in seconds. Guest
// time is inside user and nice already. Interrupt time is left out: with
// IRQ time accounting the kernel charges the softirqs of the bench's own
// loopback traffic to no process, so counting it would put the bench's
// own network work on the others; without, it is in the processes'
// system time anyway. Steal is time the hypervisor gave to other
// machines: work besides the bench too.
func parseStatCPU(line string) (float64, error) {
	f := strings.Fields(line)
	if len(f) < 5 || f[0] != "cpu" {
		return 0, fmt.Errorf("/proc/stat: want the aggregate cpu line, got %.60q", line)
	}
	var ticks int64
	for i, field := range f[1:] {
		// 0 user, 1 nice, 2 system, 7 steal.
		if i != 0 && i != 1 && i != 2 && i != 7 {
			continue
		}
		n, err := strconv.ParseInt(field, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("/proc/stat: field %d: %w", i+1, err)
		}
		ticks += n
	}
	return float64(ticks) / clockTicks, nil
}

// cpuReading is the busy CPU time of the machine and of the bench's own
// processes at one moment, in seconds.
type cpuReading struct {
	machine, own float64
}

// readCPU reads the machine's busy CPU time and the sum of pids'. A
// process that cannot be read counts zero (it exited: run.sh then fails
// the run anyway).
func readCPU(pids []int) cpuReading {
	var r cpuReading
	r.machine, _ = machineBusy()
	for _, pid := range pids {
		if s, err := cpuSeconds(pid); err == nil {
			r.own += s
		}
	}
	return r
}

// othersSince is the CPU time the rest of the machine used between two
// readings, never below zero (the two clocks tick apart).
func othersSince(before, after cpuReading) float64 {
	return max(0, (after.machine-after.own)-(before.machine-before.own))
}

// defaultBusyThreshold is the load besides the bench's own processes (in
// cores kept busy, on average over a scenario's measured attacks) above
// which no target is judged: one core of the 2-core machine the figures
// are measured on.
const defaultBusyThreshold = 1.0

// otherWork is what the rest of the machine did while the bench measured.
type otherWork struct {
	// Threshold is the load besides the bench (cores) above which the
	// run judges no target.
	Threshold float64 `json:"threshold_cores"`
	// Cores is the machine's CPU count.
	Cores int `json:"cores"`
	// Load is the load besides the bench over all measured attacks:
	// the others' CPU seconds per second of attack.
	Load float64 `json:"load_cores"`
	// Worst is the scenario whose attacks saw the highest load besides the
	// bench, and WorstLoad that load.
	Worst     string  `json:"worst_scenario"`
	WorstLoad float64 `json:"worst_load_cores"`
	// LoadAvg is the highest 1-minute load average read at the end of an
	// attack (it counts the bench's own processes too).
	LoadAvg float64 `json:"max_loadavg1"`
	// Micro is the load besides the micro-benchmarks while they ran
	// (load busy); negative when they did not run.
	Micro float64 `json:"micro_load_cores"`
}

// noteOtherWork is the machine's other work during the measured attacks
// (closed and open loop) of recs: over all of them and over the
// scenario that saw the most.
func noteOtherWork(recs []*record, threshold float64, maxLoad1 float64) *otherWork {
	w := &otherWork{Threshold: threshold, Cores: runtime.NumCPU(), LoadAvg: maxLoad1, Micro: -1}
	var others, secs float64
	for _, r := range recs {
		var o, s float64
		for _, p := range []*phaseResult{r.Closed, r.Open} {
			if p != nil {
				o, s = o+p.OthersCPU, s+p.Seconds
			}
		}
		if s == 0 {
			continue
		}
		if l := o / s; w.Worst == "" || l > w.WorstLoad {
			w.Worst, w.WorstLoad = r.Scenario, l
		}
		others, secs = others+o, secs+s
	}
	if secs > 0 {
		w.Load = others / secs
	}
	return w
}

// notJudgedBusy is the Holds of every target of a run on a busy machine.
const notJudgedBusy = "not judged: machine busy"

// judged says whether the run's targets are judged: row is "" when they
// are, else what every target's Holds says instead of yes or no; why says
// what the driver saw. They are not judged when the rest of the machine
// kept more than the threshold busy over all the measured attacks, or
// over one scenario's (each figure is a ratio of two scenarios', so one
// scenario measured under load spoils its ratios), or while the
// micro-benchmarks ran; nor when the run did not record it.
func (w *otherWork) judged() (row, why string) {
	if w == nil {
		return "not judged: other work not recorded", "this run did not record the machine's other work"
	}
	seen := fmt.Sprintf("other work kept %.2f cores busy on average over the measured rounds (the most, %.2f, during %s's); ",
		w.Load, w.WorstLoad, w.Worst)
	if w.Micro >= 0 {
		seen += fmt.Sprintf("%.2f during the micro-benchmarks; ", w.Micro)
	}
	seen += fmt.Sprintf("1-minute load average up to %.2f with the bench's own processes; threshold %.2f of %d cores besides the bench",
		w.LoadAvg, w.Threshold, w.Cores)
	if w.Load > w.Threshold || w.WorstLoad > w.Threshold || w.Micro > w.Threshold {
		return notJudgedBusy, seen
	}
	return "", seen
}

// loadAvg1 is the 1-minute load average; 0 when unknown.
func loadAvg1() float64 {
	f := strings.Fields(loadAvg())
	if len(f) == 0 {
		return 0
	}
	v, _ := strconv.ParseFloat(f[0], 64)
	return v
}
