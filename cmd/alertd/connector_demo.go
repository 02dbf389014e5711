package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/alertd/alertd/engine"
	"github.com/alertd/alertd/upstream/launchpad"
	"github.com/alertd/alertd/upstream/launchpad/launchpadfake"
	"github.com/alertd/alertd/upstream/xapi/xapifake"
)

const connectorDemoUsage = `usage: alertd connector-demo [flags] x|launchpad

Runs one real connector against its local fake, with no credentials: the
fake speaks the platform's API v2 (x) or Solana's JSON-RPC (launchpad) on
loopback, the engine runs with the connector pointed at it, and the fake is
fed synthetic posts or token launches. It prints a ready key and where to
connect to watch events arrive through the connector's path.

`

// runConnectorDemo is `alertd connector-demo`.
func runConnectorDemo(args []string) error {
	fs := flag.NewFlagSet("connector-demo", flag.ContinueOnError)
	fs.Usage = func() { fmt.Fprint(fs.Output(), connectorDemoUsage); fs.PrintDefaults() }
	addr := fs.String("addr", "127.0.0.1:8080", "public listener of the engine")
	dataDir := fs.String("data-dir", "", "embedded store directory (a fresh temp dir when empty)")
	rate := fs.Float64("rate", 2, "posts or launches per second fed to the fake")
	if err := fs.Parse(args); err != nil {
		return err
	}
	which := fs.Arg(0)
	if (which != "x" && which != "launchpad") || fs.NArg() != 1 {
		fs.Usage()
		return errorf("name one connector: x or launchpad")
	}
	if *rate <= 0 {
		return errorf("--rate must be positive")
	}
	log := slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	cfg := engine.DefaultConfig()
	cfg.Addr, cfg.AdminToken = *addr, "adm_connector_demo"
	if cfg.DataDir = *dataDir; cfg.DataDir == "" {
		dir, err := os.MkdirTemp("", "alertd-connector-demo-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		cfg.DataDir = dir
	}
	if which == "x" {
		return demoX(ctx, &cfg, *rate, log)
	}
	return demoLaunchpad(ctx, &cfg, *rate, log)
}

// demoEngine starts and serves the engine; the returned func closes it.
func demoEngine(ctx context.Context, cfg *engine.Config, log *slog.Logger) (*engine.Engine, func(), error) {
	e, err := engine.Start(ctx, cfg, log)
	if err != nil {
		return nil, nil, err
	}
	go func() { _ = e.Serve() }()
	return e, e.Close, nil
}

// demoCall calls the engine's REST or admin API and returns the envelope's data.
func demoCall(e *engine.Engine, method, path, bearer string, body any) (json.RawMessage, error) {
	b, _ := json.Marshal(body)
	req, err := http.NewRequest(method, "http://"+e.Addr().String()+path, bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+bearer)
	req.Header.Set("Content-Type", "application/json")
	r, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer r.Body.Close()
	raw, _ := io.ReadAll(r.Body)
	if r.StatusCode/100 != 2 {
		return nil, errorf("%s %s: HTTP %d %s", method, path, r.StatusCode, raw)
	}
	var env struct {
		Data json.RawMessage `json:"data"`
	}
	err = json.Unmarshal(raw, &env)
	return env.Data, err
}

func demoKey(e *engine.Engine, body map[string]any) (string, error) {
	d, err := demoCall(e, "POST", "/admin/v1/keys", e.AdminToken(), body)
	if err != nil {
		return "", err
	}
	var k struct {
		Key string `json:"key"`
	}
	return k.Key, json.Unmarshal(d, &k)
}

// every calls f at rate per second until ctx ends, and logs the
// connector's counters every 10 s.
func every(ctx context.Context, rate float64, e *engine.Engine, log *slog.Logger, f func(n int)) {
	t := time.NewTicker(time.Duration(float64(time.Second) / rate))
	defer t.Stop()
	s := time.NewTicker(10 * time.Second)
	defer s.Stop()
	for n := 0; ; {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			f(n)
			n++
		case <-s.C:
			st := e.UpstreamStats()
			switch {
			case st.X != nil:
				log.Info("connector-demo: x counters", "posts", st.X.Posts, "users", st.X.Users, "rule_changes", st.X.RuleChanges,
					"reconnects", st.X.Reconnects, "malformed", st.X.Malformed, "lag_max_ms", st.X.LagMillisMax)
			case st.Launchpad != nil:
				log.Info("connector-demo: launchpad counters", "launches", st.Launchpad.Launches, "graduations", st.Launchpad.Graduations,
					"skipped", st.Launchpad.Skipped, "malformed", st.Launchpad.Malformed, "reconnects", st.Launchpad.Reconnects)
			}
		}
	}
}

func demoX(ctx context.Context, cfg *engine.Config, rate float64, log *slog.Logger) error {
	fake := xapifake.New(xapifake.Options{})
	base := fake.Start()
	defer fake.Close()
	users := fake.SeedAccounts(20)
	cfg.Upstream.XBearerToken, cfg.Upstream.XAPIURL = fake.Token(), base
	e, closeEngine, err := demoEngine(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer closeEngine()
	key, err := demoKey(e, map[string]any{"product": "dt", "plan": "enterprise"})
	if err != nil {
		return err
	}
	for _, u := range users {
		if _, err := demoCall(e, "POST", "/v1/dt/targets", key, map[string]any{"handle": u.Username}); err != nil {
			return err
		}
	}
	fmt.Printf(`
alertd connector-demo x: the API v2 connector against a local fake of the API at %s
  dt key: %s (monitors %d synthetic accounts; the connector puts them into stream rules)
  watch:  connect ws://%s/v1/dt/realtime/ws and send {"op":2,"d":"%s"}
  log:    "x rules added", "x stream connected", then counters every 10 s; Ctrl-C stops.

`, base, key, len(users), e.Addr(), key)
	r := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 1))
	every(ctx, rate, e, log, func(n int) {
		fake.Publish(xapifake.RandomPost(r, users[r.IntN(len(users))], fmt.Sprint(1_870_000_000_000_000_000+n), time.Now()))
	})
	return nil
}

func demoLaunchpad(ctx context.Context, cfg *engine.Config, rate float64, log *slog.Logger) error {
	fake := launchpadfake.New()
	url := fake.Start()
	defer fake.Close()
	cfg.Upstream.SolanaRPCWSURL = url
	e, closeEngine, err := demoEngine(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer closeEngine()
	key, err := demoKey(e, map[string]any{"product": "pf", "max_wallets": 6})
	if err != nil {
		return err
	}
	wallets := make([]string, 3)
	for i := range wallets {
		wallets[i] = launchpadfake.Address(fmt.Sprint("demo wallet ", i))
		if _, err := demoCall(e, "POST", "/v1/pf/targets", key, map[string]any{"wallet_address": wallets[i], "label": fmt.Sprint("dev ", i)}); err != nil {
			return err
		}
	}
	fmt.Printf(`
alertd connector-demo launchpad: the launchpad connector against a local Solana RPC fake at %s
  pf key: %s (watches %d wallets that launch tokens on the fake)
  watch:  connect ws://%s/v1/pf/ws?api_key=%s
  log:    "launchpad subscribed", then counters every 10 s; Ctrl-C stops.

`, url, key, len(wallets), e.Addr(), key)
	r := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 2))
	var mints []launchpadfake.CreateEvent
	every(ctx, rate, e, log, func(n int) {
		w := wallets[r.IntN(len(wallets))]
		sig := launchpadfake.Signature(fmt.Sprint("demo tx ", n, " ", r.Uint64()))
		if len(mints) > 0 && n%5 == 4 { // now and then a token graduates
			c := mints[r.IntN(len(mints))]
			fake.Send(sig, launchpadfake.Logs(launchpad.DefaultProgram, "Buy", launchpadfake.TradeEvent{Mint: c.Mint}.Data(),
				launchpadfake.CompleteEvent{User: c.User, Mint: c.Mint, BondingCurve: c.BondingCurve, Timestamp: time.Now().Unix()}.Data()), false)
			return
		}
		c := launchpadfake.RandomLaunch(r, w, n, time.Now().Unix())
		mints = append(mints, c)
		fake.Send(sig, launchpadfake.Logs(launchpad.DefaultProgram, "Create", c.Data()), false)
	})
	return nil
}
