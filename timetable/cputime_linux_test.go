package timetable

import (
	"syscall"
	"time"
)

// threadCPU is the CPU time the calling OS thread has used (Linux
// RUSAGE_THREAD), to time one search on a machine others share: unlike
// wall time, it does not count the time the thread waited for a core.
func threadCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
