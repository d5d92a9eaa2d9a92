//go:build !unix

package benchcpu

// processCPU is not measured on this system: no metric is reported.
func processCPU() (int64, bool) { return 0, false }
