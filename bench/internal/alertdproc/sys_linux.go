package alertdproc

import (
	"syscall"
	"time"
)

// KillOnParentDeath kills the server if the bench dies without cleaning up.
func KillOnParentDeath() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

// SelfCPU is this process's user plus system CPU time (the load generator's
// own cost, reported beside the server's).
func SelfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
