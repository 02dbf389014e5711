package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/alertd/alertd/actors/account"
	"github.com/alertd/alertd/actors/directory"
	"github.com/alertd/alertd/actors/fanout"
	"github.com/alertd/alertd/actors/handle"
	"github.com/alertd/alertd/actors/session"
	"github.com/alertd/alertd/actors/targets"
	"github.com/alertd/alertd/actors/writer"
	"github.com/alertd/alertd/edge"
	"github.com/alertd/alertd/edge/ws"
	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/persistence/embedded"
	"github.com/alertd/alertd/persistence/postgres"
	"github.com/alertd/alertd/protocol"
	"github.com/asynkron/protoactor-go/actor"
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

	e, err := startEngine(ctx, cfg, log)
	if err != nil {
		return err
	}
	serveErr := make(chan error, 1)
	go func() { serveErr <- e.server.Serve() }()
	log.Info("alertd serving", "addr", e.server.Addr().String(), "store", e.store.Kind())

	var demo *demoRun
	if cfg.Demo {
		if demo, err = startDemo(ctx, cfg, e, log); err != nil {
			e.close(log)
			return err
		}
	}
	select {
	case <-ctx.Done():
		log.Info("shutting down")
	case err = <-serveErr:
		log.Error("listener failed", "err", err)
	}
	if demo != nil {
		demo.stop()
	}
	e.close(log)
	return err
}

// engine is the running process: store, actors and listener.
type engine struct {
	store    persistence.Store
	registry *account.Registry
	dir      *directory.Directory
	system   *actor.ActorSystem
	writer   *writer.Writer
	router   *handle.Router
	server   *edge.Server
	admin    string
	targets  *targets.Registry
	sessions *session.Deps
	ws       *ws.Hub
	stops    []func()
}

func openStore(ctx context.Context, cfg *Config) (persistence.Store, error) {
	if cfg.DatabaseURL != "" {
		if !strings.HasPrefix(cfg.DatabaseURL, "postgres://") && !strings.HasPrefix(cfg.DatabaseURL, "postgresql://") {
			return nil, errors.New("--database-url must be a postgres:// URL")
		}
		return postgres.Open(ctx, cfg.DatabaseURL)
	}
	return embedded.Open(ctx, cfg.DataDir)
}

func startEngine(ctx context.Context, cfg *Config, log *slog.Logger) (*engine, error) {
	octx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	st, err := openStore(octx, cfg)
	if err != nil {
		return nil, fmt.Errorf("cannot open store: %w", err)
	}
	e := &engine{store: st}
	fail := func(err error) (*engine, error) {
		st.Close()
		return nil, err
	}
	if e.admin, err = adminToken(cfg, log); err != nil {
		return fail(err)
	}
	e.registry = account.NewRegistry(st, time.Now)
	if err := e.registry.Load(octx); err != nil {
		return fail(err)
	}
	e.dir = directory.New()
	users, err := st.ListUsers(octx)
	if err != nil {
		return fail(fmt.Errorf("load users: %w", err))
	}
	if err := e.dir.Load(users); err != nil {
		return fail(fmt.Errorf("load users: %w", err))
	}
	e.targets = targets.NewRegistry(st, nil, time.Now)
	if err := e.targets.Load(octx); err != nil {
		return fail(fmt.Errorf("load targets: %w", err))
	}
	t := cfg.Timings
	hub := fanout.NewHub()
	recent := fanout.NewRecent(t.ReplayWindow.Milliseconds(), 500)
	e.stops = append(e.stops, recent.StartSweeper(time.Minute, time.Now))
	live := session.NewLive()
	e.targets.SetListener(live)
	e.sessions = &session.Deps{Registry: e.registry, Hub: hub, Recent: recent, Targets: e.targets,
		Blocker: session.NewBlocker(protocol.MaxFailedLogins, t.FailedLoginWindow, t.IPBlock, t.BlockedAcceptEvery),
		Limits:  session.NewConnLimit(), Live: live, Timings: t, Now: time.Now, Log: log}
	if e.ws, err = ws.NewHub(ws.Config{Logger: log}); err != nil {
		return fail(fmt.Errorf("websocket hub: %w", err))
	}
	if err := e.ws.Start(); err != nil {
		return fail(fmt.Errorf("websocket hub: %w", err))
	}
	e.system = actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger {
		return log.With("lib", "protoactor")
	}))
	e.writer = writer.New(st, writer.Options{Logger: log})
	deps := edge.Deps{Store: st, Registry: e.registry, Dir: e.dir, AdminToken: e.admin, Timings: t, Log: log,
		Sessions: e.sessions, WS: e.ws, Targets: e.targets}
	taps := &handle.Taps{}
	if err := e.wireFeatures(octx, cfg, taps, log, &deps); err != nil {
		e.stopFeatures()
		_ = e.ws.Shutdown(context.Background())
		e.writer.Stop()
		e.system.Shutdown()
		return fail(err)
	}
	e.router = handle.NewRouter(e.system, &handle.Deps{Dir: e.dir, Writer: e.writer, Log: log, Timings: t,
		Hub: hub, Recent: recent, Trace: handle.WriterTrace{W: e.writer}, Resolver: e.targets, Taps: taps})
	deps.Ingest = e.router
	e.server = edge.New(deps)
	if err := e.server.Listen(cfg.Addr); err != nil {
		_ = e.ws.Shutdown(context.Background())
		e.stopFeatures()
		e.writer.Stop()
		e.system.Shutdown()
		return fail(fmt.Errorf("cannot listen on %s: %w", cfg.Addr, err))
	}
	return e, nil
}

// wireFeatures builds each feature's services (wire_*.go) into deps.
func (e *engine) wireFeatures(ctx context.Context, cfg *Config, taps *handle.Taps, log *slog.Logger, deps *edge.Deps) error {
	var err error
	var stop func()
	keep := func(name string) error {
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if stop != nil {
			e.stops = append(e.stops, stop)
		}
		return nil
	}
	deps.Lookups, stop, err = wireLookups(ctx, e, cfg, taps, log)
	if err := keep("lookups"); err != nil {
		return err
	}
	deps.Search, stop, err = wireSearch(ctx, e, cfg, taps, log)
	if err := keep("search"); err != nil {
		return err
	}
	deps.Consumer, stop, err = wireConsumer(ctx, e, cfg, taps, log)
	if err := keep("consumer"); err != nil {
		return err
	}
	deps.Products, stop, err = wireProducts(ctx, e, cfg, taps, log)
	if err := keep("products"); err != nil {
		return err
	}
	deps.Products2, stop, err = wireProducts2(ctx, e, cfg, taps, log)
	return keep("products2")
}

// stopFeatures runs the features' stop funcs, last wired first.
func (e *engine) stopFeatures() {
	for i := len(e.stops) - 1; i >= 0; i-- {
		e.stops[i]()
	}
	e.stops = nil
}

// close stops accepting, drains the actors, flushes the writer and closes
// the store, in that order, so nothing accepted is lost.
func (e *engine) close(log *slog.Logger) {
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := e.server.Shutdown(sctx); err != nil {
		log.Warn("listener shutdown", "err", err)
	}
	e.router.Stop()
	e.stopFeatures()
	e.writer.Stop()
	e.system.Shutdown()
	if err := e.store.Close(); err != nil {
		log.Warn("store close", "err", err)
	}
	log.Info("stopped")
}

// adminToken returns the configured token, or the one kept in
// <data-dir>/admin-token, generating (and logging, once) a new one if none.
func adminToken(cfg *Config, log *slog.Logger) (string, error) {
	if cfg.AdminToken != "" {
		return cfg.AdminToken, nil
	}
	path := filepath.Join(cfg.DataDir, "admin-token")
	if b, err := os.ReadFile(path); err == nil {
		if t := strings.TrimSpace(string(b)); t != "" {
			return t, nil
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("read admin token: %w", err)
	}
	if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
		return "", fmt.Errorf("create data dir: %w", err)
	}
	var b [24]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	t := "adm_" + hex.EncodeToString(b[:])
	if err := os.WriteFile(path, []byte(t+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("write admin token: %w", err)
	}
	log.Info("generated admin token; it is stored in the data dir and not shown again", "path", path, "admin_token", t)
	return t, nil
}
