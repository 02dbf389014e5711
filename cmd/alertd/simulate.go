package main

import (
	"context"
	"flag"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/alertd/alertd/upstream"
	"github.com/alertd/alertd/upstream/sim"
)

// runSimulate posts a synthetic upstream to a running engine's ingest API.
func runSimulate(args []string) error {
	fs := flag.NewFlagSet("simulate", flag.ContinueOnError)
	server := fs.String("server", envOr("ALERTD_SERVER", "http://"+envOr("ALERTD_ADDR", "127.0.0.1:8080")), "engine base URL (ALERTD_SERVER)")
	token := fs.String("admin-token", envOr("ALERTD_ADMIN_TOKEN", ""), "admin token; read from <data-dir>/admin-token when empty (ALERTD_ADMIN_TOKEN)")
	dataDir := fs.String("data-dir", envOr("ALERTD_DATA_DIR", "./data"), "where to find admin-token (ALERTD_DATA_DIR)")
	rate := fs.Float64("rate", 100, "observations per second")
	users := fs.Int("users", 300, "synthetic users")
	seed := fs.Int64("seed", time.Now().UnixNano(), "random seed (fixed for a repeatable stream)")
	duration := fs.Duration("duration", 0, "stop after this long (0: until interrupted)")
	total := fs.Int("total", 0, "stop after this many observations (0: no limit)")
	batch := fs.Int("batch", 0, "observations per request (0: the simulator default)")
	every := fs.Duration("progress", 2*time.Second, "progress line interval")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *token == "" {
		b, err := os.ReadFile(filepath.Join(*dataDir, "admin-token"))
		if err != nil {
			return errorf("no admin token: pass --admin-token or run where %s/admin-token exists", *dataDir)
		}
		*token = strings.TrimSpace(string(b))
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	sink := upstream.NewHTTPSink(strings.TrimRight(*server, "/"), *token)
	src := sim.New(sim.Config{Seed: *seed, Users: *users, Rate: *rate, Duration: *duration, Total: *total, Batch: *batch})
	pctx, stopProgress := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); src.Progress(pctx, os.Stderr, *every) }()
	err := src.Run(ctx, sink)
	stopProgress() // prints the final line
	wg.Wait()
	return err
}
