package main

import (
	"context"
	"os"
	"path/filepath"
	"time"

	"github.com/alertd/alertd/bench/internal/alertdproc"
)

// server is the alertd process under test.
type server = alertdproc.Server

// startServer runs `alertd serve` on a free loopback port with its data dir
// in tmp and waits for /health to answer 200.
func startServer(ctx context.Context, bin, tmp, databaseURL string, ready time.Duration) (*server, error) {
	return alertdproc.Start(ctx, alertdproc.Options{
		Bin:         bin,
		Dir:         tmp,
		DatabaseURL: databaseURL,
		// Keep the environment from choosing another store or address.
		DropEnv:     []string{"DATABASE_URL=", "ALERTD_ADDR=", "ALERTD_DATA_DIR=", "ALERTD_ADMIN_TOKEN=", "ALERTD_DEMO="},
		SysProcAttr: alertdproc.KillOnParentDeath(),
		Ready:       ready,
		Grace:       20 * time.Second,
		// /debug/pprof/ on another loopback port, to profile a run
		// (printed at start).
		Internal: true,
	})
}

// dirSize is the total size of the files below dir.
func dirSize(dir string) int64 {
	var n int64
	_ = filepath.Walk(dir, func(_ string, info os.FileInfo, err error) error {
		if err == nil && info.Mode().IsRegular() {
			n += info.Size()
		}
		return nil
	})
	return n
}
