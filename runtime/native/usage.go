package native

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Usage is what a service's processes use now: resident memory and CPU
// time, summed over its process group (a service is one process group:
// mariadbd, a JVM, the chdb front and what they spawn).
type Usage struct {
	// RSS is resident memory in bytes.
	RSS int64
	// CPU is user+system CPU time since the processes started.
	CPU time.Duration
	// Procs counts the processes.
	Procs int
}

// clockTicks is USER_HZ, which Linux fixes at 100 for /proc/*/stat.
const clockTicks = 100

// GroupUsage sums /proc's figures over the process group pgid.
func GroupUsage(pgid int) Usage {
	var u Usage
	entries, _ := os.ReadDir("/proc")
	page := int64(os.Getpagesize())
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// The command name (field 2) may hold spaces; fields after it
		// follow the last ')'.
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		// f[0] is field 3 (state); pgrp is field 5, utime 14, stime 15,
		// rss 24.
		if len(f) < 22 {
			continue
		}
		if g, _ := strconv.Atoi(f[2]); g != pgid && pid != pgid {
			continue
		}
		ut, _ := strconv.ParseInt(f[11], 10, 64)
		st, _ := strconv.ParseInt(f[12], 10, 64)
		rss, _ := strconv.ParseInt(f[21], 10, 64)
		u.RSS += rss * page
		u.CPU += time.Duration(ut+st) * time.Second / clockTicks
		u.Procs++
	}
	return u
}
