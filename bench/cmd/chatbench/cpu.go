//go:build unix

package main

import (
	"syscall"
	"time"
)

// cpuTime is this process's user and system CPU time (engine and bench
// together: they share the process).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
