//go:build !linux

package timetable

import "time"

// threadCPU is 0 where the thread's CPU time is not read: the benchmark
// reports wall times only.
func threadCPU() time.Duration { return 0 }
