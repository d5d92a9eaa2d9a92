package main

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// memory is a process's resident set, in KiB, from /proc/<pid>/status.
type memory struct {
	// PeakKiB is VmHWM: the peak resident set since the process started.
	PeakKiB int64 `json:"peak_rss_kib"`
	// NowKiB is VmRSS at the time of reading.
	NowKiB int64 `json:"rss_kib"`
}

// readMemory reads the resident set of process pid.
func readMemory(pid int) (memory, error) {
	var m memory
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return m, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		key, val, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		var dst *int64
		switch key {
		case "VmHWM":
			dst = &m.PeakKiB
		case "VmRSS":
			dst = &m.NowKiB
		default:
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(val), " kB"), 10, 64)
		if err != nil {
			return m, fmt.Errorf("/proc/%d/status %s: %w", pid, key, err)
		}
		*dst = n
	}
	if err := sc.Err(); err != nil {
		return m, err
	}
	if m.PeakKiB == 0 {
		return m, fmt.Errorf("/proc/%d/status has no VmHWM", pid)
	}
	return m, nil
}

// loadAvg is the first three fields of /proc/loadavg.
func loadAvg() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(data))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}
