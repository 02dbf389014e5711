package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"syscall"

	"github.com/alertd/alertd/engine"
)

func errorf(format string, args ...any) error { return fmt.Errorf(format, args...) }

// runServe runs the engine until SIGINT or SIGTERM.
func runServe(args []string) error {
	cfg, err := parseServeFlags(args)
	if err != nil {
		return err
	}
	log := slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	slog.SetDefault(log)
	defer startPprof(log)()
	for _, c := range cfg.WebhookAllowCIDRs {
		if _, _, err := net.ParseCIDR(c); err != nil {
			return errorf("--webhook-allow-cidrs: %q is not a CIDR", c)
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()

	e, err := engine.Start(ctx, cfg, log)
	if err != nil {
		return err
	}
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
