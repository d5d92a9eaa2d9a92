// Package benchcpu reports the CPU time a benchmark's process spends per
// operation, garbage collection included. On a machine shared with other
// work, a benchmark's ns/op is wall-clock time and grows with the load;
// the CPU time the process itself used moves much less, and it is what
// bench/run.sh compares between scenarios. Parallel is the hot-path
// benchmark loop the packages share.
package benchcpu

import "testing"

// Start begins measuring; call the returned function after the benchmark
// loop. It reports the metric "cpu-ns/op": user and system CPU time of
// the whole process (so the GC's background workers too) divided by b.N.
func Start(b *testing.B) (stop func()) {
	start, ok := processCPU()
	return func() {
		end, ok2 := processCPU()
		if ok && ok2 && b.N > 0 {
			b.ReportMetric(float64(end-start)/float64(b.N), "cpu-ns/op")
		}
	}
}
