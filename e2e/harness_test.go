package e2e

// The in-process harness: one engine per server, started on a loopback port
// with a Config the test sets, and spoken to over real HTTP and WebSockets.

import (
	"context"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/alertd/alertd/engine"
	"github.com/alertd/alertd/internal/testkit"
)

// TestMain checks that no engine goroutine outlives its test's Close.
func TestMain(m *testing.M) { testkit.VerifyTestMain(m, removeNodeBinary) }

// storeMode is one store the suite runs against.
type storeMode = testkit.Store

// forEachStore runs f once per store (testkit.ForEachStore: in parallel with
// the other tests; -short skips the whole suite).
func forEachStore(t *testing.T, f func(t *testing.T, m storeMode)) {
	t.Helper()
	testkit.ForEachStore(t, f)
}

// serverOpts are what a test chooses of a server.
type serverOpts struct {
	dataDir    string // default: a fresh t.TempDir()
	dbURL      string // "" = embedded store
	adminToken string // default: a random one
	// configure changes the Config before Start: timings, webhook CIDRs.
	configure func(c *engine.Config)
}

// loopbackHooks lets webhooks reach the test's receivers on 127.0.0.1.
func loopbackHooks(c *engine.Config) { c.WebhookAllowCIDRs = []string{"127.0.0.0/8"} }

// server is one running engine.
type server struct {
	opts        serverOpts
	eng         *engine.Engine
	base        string // http://127.0.0.1:port
	admin       string // admin bearer token
	log         *testkit.LogBuffer
	served      chan error
	closed      bool
	clusterAddr string // a cluster node's --cluster-addr (startNode)
}

const syncWait = 30 * time.Second // a -race engine on PostgreSQL on a busy 2-core box

// startServer starts an engine and registers its Close as a cleanup.
func startServer(t *testing.T, opts serverOpts) *server {
	t.Helper()
	if opts.dataDir == "" {
		opts.dataDir = t.TempDir()
	}
	if opts.adminToken == "" {
		opts.adminToken = "adm_e2e_" + testkit.RandomHex(16)
	}
	cfg := engine.DefaultConfig()
	cfg.Addr, cfg.DataDir, cfg.DatabaseURL, cfg.AdminToken = "127.0.0.1:0", opts.dataDir, opts.dbURL, opts.adminToken
	if send := os.Getenv("ALERTD_TEST_WS_SEND"); send != "" {
		cfg.WSSend = send // the whole suite on one send path (--ws-send; default io_uring)
	}
	if opts.configure != nil {
		opts.configure(&cfg)
	}
	s := &server{opts: opts, admin: opts.adminToken, log: &testkit.LogBuffer{}, served: make(chan error, 1)}
	log := slog.New(slog.NewJSONHandler(s.log, &slog.HandlerOptions{Level: slog.LevelInfo}))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	eng, err := engine.Start(ctx, &cfg, log)
	if err != nil {
		t.Fatalf("engine.Start: %v\nlog:\n%s", err, testkit.Tail(s.log.String(), 4000))
	}
	s.eng, s.base = eng, "http://"+eng.Addr().String()
	go func() { s.served <- eng.Serve() }()
	t.Cleanup(func() {
		s.stop(t)
		if t.Failed() {
			t.Logf("engine log of %s (tail):\n%s", s.base, testkit.Tail(s.log.String(), 6000))
		}
	})
	return s
}

// stop closes the engine (listener, actors, writer, store) and waits for
// Serve to return; later calls do nothing.
func (s *server) stop(t *testing.T) {
	t.Helper()
	if s.closed {
		return
	}
	s.closed = true
	// The client may hold a connection it dialed but never used (net/http
	// dials ahead); fasthttp's shutdown would wait for it as for a request.
	httpClient.CloseIdleConnections()
	s.eng.Close()
	select {
	case err := <-s.served:
		if err != nil {
			t.Errorf("Serve after Close: %v", err)
		}
	case <-time.After(15 * time.Second):
		t.Errorf("Serve did not return within 15 s of Close")
	}
}

// restart closes the engine and starts a new one over the same data dir or
// database, with the same options.
func (s *server) restart(t *testing.T) *server {
	t.Helper()
	s.stop(t)
	return startServer(t, s.opts)
}

// sync waits until the engine has handled everything it accepted so far
// (engine.Sync): ingest, the product actors, the store writer.
func (s *server) sync(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), syncWait)
	defer cancel()
	if err := s.eng.Sync(ctx); err != nil {
		t.Fatalf("engine Sync: %v", err)
	}
}

// subtests run one after the other on one server; each makes its own
// accounts and handles, so they do not interfere.
type subtests []struct {
	name string
	f    func(*testing.T, *server)
}

func (c subtests) run(t *testing.T, s *server) {
	t.Helper()
	for _, st := range c {
		t.Run(st.name, func(t *testing.T) { st.f(t, s) })
	}
}

// afterSync checks cond once the engine has handled everything it
// accepted: whatever ingest causes inside the engine is there by then, so
// one look decides (no polling until two reads agree).
func (s *server) afterSync(t *testing.T, what string, cond func() (ok bool, last string)) {
	t.Helper()
	s.sync(t)
	if ok, last := cond(); !ok {
		t.Fatalf("%s: not so after Sync; got: %s", what, last)
	}
}
