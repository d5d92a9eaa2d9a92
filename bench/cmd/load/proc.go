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

// clockTicks is USER_HZ, the unit of the CPU times in /proc/<pid>/stat:
// 100 on every Linux architecture this runs on.
const clockTicks = 100

// cpuSeconds is the user plus system CPU time process pid has used.
func cpuSeconds(pid int) (float64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name, in parentheses, may hold spaces: fields count
	// from the last ')'. utime and stime are fields 14 and 15 of the line.
	s := string(data)
	rest := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(rest) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: too few fields", pid)
	}
	utime, err1 := strconv.ParseInt(rest[11], 10, 64)
	stime, err2 := strconv.ParseInt(rest[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("/proc/%d/stat: bad utime or stime", pid)
	}
	return float64(utime+stime) / clockTicks, nil
}
