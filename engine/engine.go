// Package engine builds and runs one alertd process from a Config: it opens
// the store, loads the registries, spawns the actors, wires each product
// (wire_<product>.go) and binds the public listener. cmd/alertd fills the
// Config from flags; the end-to-end tests start it in process.
package engine

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/alertd/alertd/actors/delivery"
	"github.com/alertd/alertd/actors/handle"
	"github.com/alertd/alertd/actors/kit"
	"github.com/alertd/alertd/actors/product/b2b"
	"github.com/alertd/alertd/actors/product/tweetalerts"
	"github.com/alertd/alertd/actors/product/watchhooks"
	"github.com/alertd/alertd/actors/session"
	"github.com/alertd/alertd/actors/state/account"
	"github.com/alertd/alertd/actors/state/directory"
	"github.com/alertd/alertd/actors/state/targets"
	"github.com/alertd/alertd/actors/webhook"
	"github.com/alertd/alertd/actors/writer"
	"github.com/alertd/alertd/edge"
	adminapi "github.com/alertd/alertd/edge/api/admin"
	"github.com/alertd/alertd/edge/api/console"
	ctapi "github.com/alertd/alertd/edge/api/ct"
	cwapi "github.com/alertd/alertd/edge/api/cw"
	ecaapi "github.com/alertd/alertd/edge/api/eca"
	etapi "github.com/alertd/alertd/edge/api/et"
	ingestapi "github.com/alertd/alertd/edge/api/ingest"
	"github.com/alertd/alertd/edge/api/pages"
	pumpfunapi "github.com/alertd/alertd/edge/api/pumpfun"
	searchalertsapi "github.com/alertd/alertd/edge/api/searchalerts"
	trendingapi "github.com/alertd/alertd/edge/api/trending"
	"github.com/alertd/alertd/edge/ws"
	"github.com/alertd/alertd/engine/cluster"
	"github.com/alertd/alertd/internal/metrics"
	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/persistence/embedded"
	"github.com/alertd/alertd/persistence/ingestlog"
	"github.com/alertd/alertd/persistence/postgres"
	"github.com/alertd/alertd/persistence/retention"
	"github.com/alertd/alertd/protocol"
	"github.com/asynkron/protoactor-go/actor"
)

// Engine is one running alertd process: store, actors and listener. Start
// builds it, Serve accepts, Close stops it without losing what was accepted.
type Engine struct {
	store    persistence.Store
	registry *account.Registry
	dir      *directory.Directory
	system   *actor.ActorSystem
	writer   *writer.Writer
	kit      *kit.Kit
	router   *handle.Router
	server   *edge.Server
	admin    string
	targets  *targets.Registry
	hub      *delivery.Hub
	sessions *session.Deps
	ws       *ws.Hub
	stops    []func()
	log      *slog.Logger
	cfg      *Config
	demo     *demoRun

	upstreams    *upstreams            // the real connectors (wire_upstream.go)
	xgHooks      *webhook.Engine       // Tweet Alerts webhooks (wire_tweetalerts.go), for the console
	watchHooks   *watchhooks.Hooks     // cw, ct and et webhooks (wire_watch.go)
	ingested     ingestapi.Counts      // what ingest accepted and rejected (HTTP and connectors)
	tweetAlerts  *tweetalerts.Registry // tracked lists, for the demo
	sampler      *console.Sampler      // the console's rates (wire_console.go)
	syncRecorder *b2b.Recorder         // flushed by Sync (sync.go)
	products     products              // the product actors that hear the changes (changes.go)
	chat         *chatServices         // the chat-messenger bot (wire_chat.go); nil without a token

	cluster    *cluster.Node     // this node of a cluster; nil for one node (--cluster-name empty)
	feed       *cluster.Feed     // registry changes between the nodes; nil for one node
	owners     *cluster.Owners   // which node sends each webhook endpoint's deliveries; nil for one node
	pruner     *retention.Pruner // --retention; nil when it keeps everything
	metrics    *metrics.Metrics  // /metrics (wire_metrics.go)
	internal   *metrics.Internal // --internal-addr's listener; nil when unset
	storeStats storeStats        // the store's size and webhook queue, cached for scrapes

	// REST windows and CA Search quotas across the nodes; nil for one node.
	rates *cluster.RateCounts

	ilog            *ingestlog.Log     // the durable ingest log (wire_ingest.go)
	tjournal        *ingestlog.Log     // the target registry's journal, embedded store only (wire_targets.go)
	durable         *ingestapi.Durable // ingest through the log
	checkpointMu    sync.Mutex         // serialises the log's SetCheckpoint
	stopCheckpoints func()
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

// Start opens the store, loads the registries, spawns the actors and binds
// the listener (cfg.Addr; port 0 picks one). Serve starts accepting.
func Start(ctx context.Context, cfg *Config, log *slog.Logger) (*Engine, error) {
	if log == nil {
		log = slog.Default()
	}
	if err := cfg.CheckCluster(); err != nil {
		return nil, err
	}
	octx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	st, err := openStore(octx, cfg)
	if err != nil {
		return nil, fmt.Errorf("cannot open store: %w", err)
	}
	e := &Engine{store: st, log: log, cfg: cfg}
	fail := func(err error) (*Engine, error) {
		if e.targets != nil {
			e.targets.Close()
		}
		if e.tjournal != nil {
			_ = e.tjournal.Close()
		}
		st.Close()
		return nil, err
	}
	if e.admin, err = adminToken(cfg, log); err != nil {
		return fail(err)
	}
	if err := checkUpstreams(&cfg.Upstream); err != nil {
		return fail(err)
	}
	proxies, err := ParseTrustedProxies(cfg.TrustedProxies)
	if err != nil {
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
	if e.targets, e.tjournal, err = newTargets(cfg, st, log); err != nil {
		return fail(err)
	}
	if err := e.targets.Load(octx); err != nil {
		return fail(fmt.Errorf("load targets: %w", err))
	}
	t := cfg.Timings
	hub := delivery.NewHub()
	e.hub = hub
	recent := delivery.NewRecent(t.ReplayWindow.Milliseconds(), 500)
	e.stops = append(e.stops, recent.StartSweeper(time.Minute, time.Now))
	e.targets.SetListener(delivery.Lists{Hub: hub, Product: protocol.ProductB2B})
	e.sessions = &session.Deps{Registry: e.registry, Hub: hub, Recent: recent, Targets: e.targets,
		Blocker: session.NewBlocker(protocol.MaxFailedLogins, t.FailedLoginWindow, t.IPBlock, t.BlockedAcceptEvery),
		Limits:  session.NewConnLimit(), Stats: &session.Stats{}, Timings: t, Now: time.Now, Log: log,
		Pending: session.NewPending(cfg.Limits.MaxPending)}
	send, err := ws.ParseSendPath(cfg.WSSend)
	if err != nil {
		return fail(err)
	}
	// Direct writes (ws.Config.DirectWrites) stay off: in the lead's quiet
	// runs of session 6 they cost as much CPU per delivery as the writers
	// and raised the p99 by 2 ms (one publisher writes the whole fan-out
	// on one core, where the writers spread it over both;
	// bench/results/fanout-2026-11-25-s6-quiet-direct.md).
	if e.ws, err = ws.NewHub(ws.Config{Logger: log, Send: send}); err != nil {
		return fail(fmt.Errorf("websocket hub: %w", err))
	}
	if err := e.ws.Start(); err != nil {
		return fail(fmt.Errorf("websocket hub: %w", err))
	}
	e.system = actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger {
		return log.With("lib", "protoactor")
	}))
	// From here on a failure unwinds what was started (abortStart).
	abort := func(err error) (*Engine, error) {
		e.abortStart()
		return fail(err)
	}
	if err := e.startCluster(cfg, hub, log); err != nil {
		return abort(err)
	}
	if e.kit, err = kit.New(e.system, kit.WithLogger(log)); err != nil {
		return abort(err)
	}
	e.writer = writer.New(st, writer.Options{Logger: log})
	e.pruner = retention.Start(retention.Config{Store: st, Keep: cfg.Retention, Every: cfg.RetentionEvery, Log: log})
	deps := edge.Deps{Store: st, Accounts: e.registry, AdminToken: e.admin, Timings: t, Log: log,
		Sessions: e.sessions, WS: e.ws, Admin: adminapi.Deps{Accounts: e.registry, Links: st}, TrustedProxies: proxies,
		Limits: cfg.Limits}
	if err := e.wireFeatures(octx, cfg, log, &deps); err != nil {
		return abort(err)
	}
	routerOpts := []handle.Option{handle.WithSupervisor(e.kit.Supervisor())}
	if e.cluster != nil {
		routerOpts = append(routerOpts, handle.WithPlacement(e.cluster))
	}
	e.router = handle.NewRouter(e.system, &handle.Deps{Dir: e.dir, Writer: e.writer, Log: log, Timings: t,
		Hub: hub, Recent: recent, Trace: handle.WriterTrace{W: e.writer}, Resolver: e.targets, Subs: e.products.subscriptions(),
		Loader: handle.StoreLoader{Store: st, Window: t.LateMaxAge}},
		routerOpts...)
	if e.cluster != nil {
		e.cluster.Attach(e.router)
		for _, w := range e.webhookEngines() {
			e.owners.Add(w) // before the feed: its goroutine hands wakes to them
		}
		if e.chat != nil {
			e.owners.Add(e.chat.Outbox)
		}
		e.feed.Start() // every registry is wired
		e.owners.Start()
		deps.Cluster = e.cluster
	}
	if e.ilog, err = openIngestLog(cfg); err != nil {
		return abort(err)
	}
	e.durable = ingestapi.NewDurable(e.router, e.ilog)
	deps.Ingest = ingestapi.Deps{Router: e.router, Counts: &e.ingested, Durable: e.durable, MaxBacklogBytes: cfg.IngestBacklogBytes}
	e.tweetAlerts = deps.TweetAlerts.Registry
	deps.Console = e.wireConsole(&deps)
	deps.Pages = pages.Deps{TelegramBotID: pages.BotID(cfg.TelegramBotToken)}
	deps.Admin.Webhooks = e.webhookLogs()
	deps.StoreBytes = func(ctx context.Context) int64 { return e.storeStats.size(ctx, e) }
	e.metrics = metrics.New(e.reading)
	if cfg.InternalAddr == "" {
		deps.Metrics = e.metrics.FastHTTP()
	}
	e.server = edge.New(deps)
	err = e.replayIngest() // before the listener: /health is not 200 before it
	if err == nil {
		if err = e.server.Listen(cfg.Addr); err != nil {
			err = fmt.Errorf("cannot listen on %s: %w", cfg.Addr, err)
		}
	}
	if err != nil {
		return abort(err)
	}
	e.stopCheckpoints = e.startCheckpoints()
	if e.upstreams, err = e.startUpstreams(&cfg.Upstream, &deps, log); err != nil {
		e.Close()
		return nil, err
	}
	e.sampler.Start() // its first reading is the baseline: once everything that counts is wired
	if cfg.InternalAddr != "" {
		if e.internal, err = metrics.ServeInternal(cfg.InternalAddr, e.metrics, log); err != nil {
			e.Close()
			return nil, fmt.Errorf("cannot listen on --internal-addr %s: %w", cfg.InternalAddr, err)
		}
	}
	return e, nil
}

// wireFeatures builds each product's services (wire_<product>.go) and the
// Deps of its API (edge/api/<product>).
func (e *Engine) wireFeatures(ctx context.Context, cfg *Config, log *slog.Logger, deps *edge.Deps) error {
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
	deps.B2B, stop, err = wireB2B(ctx, e, cfg, log)
	if err := keep("b2b"); err != nil {
		return err
	}
	deps.CASearch, stop, err = wireCASearch(ctx, e, cfg, log)
	if err := keep("casearch"); err != nil {
		return err
	}
	deps.TweetAlerts, stop, err = wireTweetAlerts(ctx, e, cfg, log)
	if err := keep("tweetalerts"); err != nil {
		return err
	}
	stop, err = wireChat(ctx, e, cfg, deps.TweetAlerts.Registry, log)
	if err := keep("chat"); err != nil {
		return err
	}
	var w watchServices
	w, stop, err = wireWatch(ctx, e, cfg, log)
	if err := keep("watch"); err != nil {
		return err
	}
	e.watchHooks = w.Hooks
	deps.CW = cwapi.Deps{Registry: w.CW, Tracker: w.CWTracker, Hooks: w.Hooks, Store: e.store, Dir: e.dir}
	deps.CT = ctapi.Deps{Registry: w.CT, Detector: w.CTDetector, Tracker: w.CWTracker, Hooks: w.Hooks, Store: e.store, Dir: e.dir}
	deps.ET = etapi.Deps{Registry: w.ET, Detector: w.ETDetector, Hooks: w.Hooks}
	var st streamServices
	st, stop, err = wireStreams(ctx, e, cfg, log)
	if err := keep("streams"); err != nil {
		return err
	}
	deps.Trending = trendingapi.Deps{Store: e.store}
	deps.PumpFun = pumpfunapi.Deps{Service: st.PumpFun, Store: e.store}
	deps.ECA = ecaapi.Deps{Service: st.ECA, Store: e.store}
	deps.SearchAlerts = searchalertsapi.Deps{Service: st.SA, Store: e.store}
	if stop := e.startChatBot(cfg, w.CW, st.PumpFun.Targets); stop != nil {
		e.stops = append(e.stops, stop)
	}
	return nil
}

// stopFeatures runs the features' stop funcs, last wired first.
// abortStart stops what a failed Start had started, the last first; what
// Start had not reached yet is nil (the feature stops are empty).
func (e *Engine) abortStart() {
	if e.router != nil {
		e.router.Stop()
	}
	e.stopFeatures()
	_ = e.ws.Shutdown(context.Background())
	if e.kit != nil {
		e.kit.Close()
	}
	e.pruner.Stop()
	if e.writer != nil {
		e.writer.Stop()
	}
	if e.ilog != nil {
		_ = e.ilog.Close()
	}
	e.shutdownSystem()
}

func (e *Engine) stopFeatures() {
	for i := len(e.stops) - 1; i >= 0; i-- {
		e.stops[i]()
	}
	e.stops = nil
}

// Close stops accepting, drains the actors, flushes the writer and closes
// the store, in that order, so nothing accepted is lost.
func (e *Engine) Close() {
	log := e.log
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if e.demo != nil {
		e.demo.stop()
	}
	e.upstreams.stop()
	e.sampler.Stop()
	if e.internal != nil {
		e.internal.Close()
	}
	if err := e.server.Shutdown(sctx); err != nil {
		log.Warn("listener shutdown", "err", err)
	}
	// The last checkpoint, once nothing more comes in: a clean restart
	// replays nothing. If the store does not take everything in time, the
	// checkpoint stays and the next start replays the rest.
	if e.stopCheckpoints != nil {
		e.stopCheckpoints()
	}
	if err := e.Sync(sctx); err != nil {
		log.Warn("ingest log: last checkpoint not taken; the next start replays from the previous one", "err", err)
	}
	e.router.Stop() // user actors may still tell handle grains
	if e.cluster != nil {
		e.cluster.Stop() // its grains drain while the writer and the products still run
	}
	e.stopFeatures()
	e.kit.Close()
	e.targets.Close() // after the router: user actors tell it about renames
	if e.tjournal != nil {
		if err := e.tjournal.Close(); err != nil {
			log.Warn("target journal close", "err", err)
		}
	}
	e.pruner.Stop()
	e.writer.Stop()
	if err := e.ilog.Close(); err != nil {
		log.Warn("ingest log close", "err", err)
	}
	e.shutdownSystem()
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

// Serve accepts connections until Close; it returns a listener failure.
func (e *Engine) Serve() error {
	e.log.Info("alertd serving", "addr", e.server.Addr().String(), "store", e.store.Kind(), "ws_send", e.ws.SendPath().String())
	return e.server.Serve()
}

// StartDemo issues and prints the demo keys and runs the synthetic upstream
// against the engine's own ingest API (--demo). Close stops it.
func (e *Engine) StartDemo(ctx context.Context) error {
	d, err := startDemo(ctx, e.cfg, e, e.log)
	if err != nil {
		return err
	}
	e.demo = d
	return nil
}

// Addr is the bound public address.
func (e *Engine) Addr() net.Addr { return e.server.Addr() }

// AdminToken is the bearer of /admin/v1 and /ingest/v1.
func (e *Engine) AdminToken() string { return e.admin }

// InternalAddr is the bound --internal-addr; nil when it is not set.
func (e *Engine) InternalAddr() net.Addr {
	if e.internal == nil {
		return nil
	}
	return e.internal.Addr()
}

// Store is the open store.
func (e *Engine) Store() persistence.Store { return e.store }
