package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/alertd/alertd/engine"
)

func errorf(format string, args ...any) error { return fmt.Errorf(format, args...) }

// runServe runs the engine until SIGINT or SIGTERM; with --check-config it
// only validates the settings and says so on stdout.
func runServe(args []string, stdout io.Writer) error {
	s, err := parseServeFlags(args, os.LookupEnv, os.ReadFile)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, serveUsage())
		return nil
	}
	if err != nil {
		return err
	}
	if err := s.validate(); err != nil {
		return err
	}
	if s.checkConfig {
		from := "flags, environment and defaults"
		if s.configFile != "" {
			from = s.configFile + ", flags, environment and defaults"
		}
		fmt.Fprintf(stdout, "alertd: configuration OK (%s)\n", from)
		return nil
	}
	cfg := &s.cfg
	unlock, err := lockDataDir(cfg.DataDir)
	if err != nil {
		return err
	}
	defer unlock()
	log := slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: s.logLevel}))
	slog.SetDefault(log)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()

	e, err := engine.Start(ctx, cfg, log)
	if err != nil {
		return err
	}
	// After Start: a process that cannot start says so in one line, nothing else.
	v := currentVersion()
	log.Info("alertd started", "version", v.Version, "commit", v.Commit, "go", v.Go)
	serveErr := make(chan error, 1)
	go func() { serveErr <- e.Serve() }()
	if cfg.Demo {
		if err := e.StartDemo(ctx); err != nil {
			e.Close()
			return err
		}
	}
	select {
	case <-ctx.Done():
		log.Info("shutting down")
	case err = <-serveErr:
		log.Error("listener failed", "err", err)
	}
	e.Close()
	return err
}

// serveUsage is `alertd serve --help`, from the flag table.
func serveUsage() string {
	var b strings.Builder
	fmt.Fprint(&b, "usage: alertd serve [flags]\n\nA flag wins over its environment variable, which wins over --config, which wins over the default.\n\nflags:\n")
	fs := newServeFlagSet(defaultServeSettings())
	fs.SetOutput(&b)
	fs.PrintDefaults()
	return b.String()
}
