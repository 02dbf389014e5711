//go:build linux

package main

import (
	"context"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/alertd/alertd/bench/internal/alertdproc"
)

// server is the alertd process under test.
type server = alertdproc.Server

// procSample is a process's CPU time and memory at one moment.
type procSample = alertdproc.Sample

// startServer runs `alertd serve` on a free loopback port with an embedded
// store in tmp and waits for /health 200. The child inherits this process's
// RLIMIT_NOFILE (raised before by raiseNoFile). With internal set it also
// serves /metrics and net/http/pprof on another free port (--internal-addr). Stop gives
// it 15 s after SIGTERM, then SIGQUIT (goroutine dump in server.log).
func startServer(ctx context.Context, bin, tmp string, internal bool, ready time.Duration, extraArgs ...string) (*server, error) {
	o := alertdproc.Options{
		Bin:     bin,
		Dir:     tmp,
		DropEnv: []string{"DATABASE_URL=", "ALERTD_ADDR=", "ALERTD_DATA_DIR=", "ALERTD_ADMIN_TOKEN=", "ALERTD_DEMO="},
		// Kill the server if the bench dies without cleaning up.
		SysProcAttr:    alertdproc.KillOnParentDeath(),
		Ready:          ready,
		Grace:          15 * time.Second,
		QuitBeforeKill: true,
	}
	o.Internal = internal
	o.ExtraArgs = extraArgs
	return alertdproc.Start(ctx, o)
}

// raiseNoFile raises this process's open-file soft limit to the hard limit
// (the server, started later, inherits it) and returns the new limit.
func raiseNoFile() (uint64, error) {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r); err != nil {
		return 0, err
	}
	r.Cur = r.Max
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &r); err != nil {
		return 0, err
	}
	return r.Cur, nil
}

// loadAvg is /proc/loadavg's first three fields.
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}
