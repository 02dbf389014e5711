package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/alertd/alertd/actors/product/tweetalerts"
	"github.com/alertd/alertd/actors/state/targets"
	"github.com/alertd/alertd/edge"
	"github.com/alertd/alertd/edge/api/ingest"
	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
	"github.com/alertd/alertd/upstream"
	"github.com/alertd/alertd/upstream/launchpad"
	"github.com/alertd/alertd/upstream/xapi"
)

// UpstreamConfig configures the real connectors (CONTRACT.md section 8).
// Each is off unless configured.
type UpstreamConfig struct {
	// XBearerToken switches the API v2 connector on (--x-bearer-token).
	XBearerToken string
	// XAPIURL is the API's base (--x-api-url; https://api.x.com).
	XAPIURL string
	// XMaxRules and XMaxRuleLength are the plan's filtered-stream rule
	// limits (--x-max-rules, --x-max-rule-length; Pro: 1000 and 1024).
	XMaxRules, XMaxRuleLength int
	// XProfileEvery and XFollowingEvery are how often monitored profiles
	// and following lists are re-read (--x-profile-every, 15 min;
	// --x-following-every, 1 h): each read is billed by the API.
	XProfileEvery, XFollowingEvery time.Duration
	// SolanaRPCWSURL switches the launchpad connector on (--solana-rpc-ws-url).
	SolanaRPCWSURL string
	// LaunchpadProgram is the program id (--launchpad-program).
	LaunchpadProgram string

	// HandlesEvery is how often the monitored handles are re-read from the
	// registries for the API v2 connector (2 s); RuleDebounce gathers their
	// changes into one rule update (1 s). Tests shorten both.
	HandlesEvery time.Duration
	RuleDebounce time.Duration
}

// DefaultUpstreamConfig has both connectors off.
func DefaultUpstreamConfig() UpstreamConfig {
	return UpstreamConfig{XAPIURL: xapi.DefaultBaseURL, XMaxRules: xapi.ProLimits.MaxRules, XMaxRuleLength: xapi.ProLimits.MaxRuleLen,
		XProfileEvery: 15 * time.Minute, XFollowingEvery: time.Hour,
		LaunchpadProgram: launchpad.DefaultProgram, HandlesEvery: 2 * time.Second, RuleDebounce: time.Second}
}

// UpstreamStats are the connectors' counters; nil for one that is off.
// Accepted counts the observations ingest took from the connectors;
// Rejected the lines it refused (a connector bug).
type UpstreamStats struct {
	X         *xapi.Snapshot
	Launchpad *launchpad.Snapshot
	Accepted  int64
	Rejected  int64
}

// upstreams are the running connectors: each is an upstream.Source fed to
// the in-process ingest sink, on its own goroutine, stopped by stop.
type upstreams struct {
	x       *xapi.Connector
	lp      *launchpad.Connector
	handles *monitoredHandles
	sink    *ingestSink
	cancel  context.CancelFunc
	wg      sync.WaitGroup
}

// checkUpstreams validates the connector settings before anything starts,
// so a bad URL stops `alertd serve` with a one-line reason.
func checkUpstreams(c *UpstreamConfig) error {
	if c.XBearerToken != "" {
		if u, err := url.Parse(c.XAPIURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("--x-api-url: %q is not an http(s) URL", c.XAPIURL)
		}
	}
	if c.SolanaRPCWSURL != "" {
		if u, err := url.Parse(c.SolanaRPCWSURL); err != nil || (u.Scheme != "ws" && u.Scheme != "wss") || u.Host == "" {
			return fmt.Errorf("--solana-rpc-ws-url: %q is not a ws(s) URL", c.SolanaRPCWSURL)
		}
	}
	return nil
}

// startUpstreams starts the configured connectors. The API v2 connector
// learns the monitored handles from the registries through monitoredHandles.
func (e *Engine) startUpstreams(cfg *UpstreamConfig, deps *edge.Deps, log *slog.Logger) (*upstreams, error) {
	u := &upstreams{sink: &ingestSink{ing: deps.Ingest.Router, durable: deps.Ingest.Durable, counts: deps.Ingest.Counts,
		maxBytes: deps.Ingest.MaxBacklogBytes, log: log}}
	if cfg.XBearerToken != "" {
		u.handles = &monitoredHandles{read: handleReader(e.store, e.targets, deps), every: cfg.HandlesEvery,
			ch: make(chan struct{}, 1), log: log}
		x, err := xapi.New(xapi.Config{BaseURL: cfg.XAPIURL, Token: cfg.XBearerToken, Handles: u.handles,
			Limits: xapi.Limits{MaxRules: cfg.XMaxRules, MaxRuleLen: cfg.XMaxRuleLength}, RuleDebounce: cfg.RuleDebounce,
			ProfileEvery: cfg.XProfileEvery, FollowingEvery: cfg.XFollowingEvery, Logger: log})
		if err != nil {
			return nil, err
		}
		u.x = x
	}
	if cfg.SolanaRPCWSURL != "" {
		lp, err := launchpad.New(launchpad.Config{WSURL: cfg.SolanaRPCWSURL, Program: cfg.LaunchpadProgram, Backfill: true, Logger: log})
		if err != nil {
			return nil, err
		}
		u.lp = lp
	}
	ctx, cancel := context.WithCancel(context.Background())
	u.cancel = cancel
	run := func(f func()) {
		u.wg.Add(1)
		go func() {
			defer u.wg.Done()
			f()
		}()
	}
	if u.x != nil {
		// The first rule reconcile must see the full set: an empty one
		// would delete every rule.
		if err := u.handles.refresh(ctx); err != nil {
			cancel()
			return nil, fmt.Errorf("monitored handles: %w", err)
		}
		run(func() { u.handles.run(ctx) })
		run(func() { _ = u.x.Run(ctx, u.sink) })
	}
	if u.lp != nil {
		run(func() { _ = u.lp.Run(ctx, u.sink) })
	}
	if u.x != nil || u.lp != nil {
		run(func() { u.logEvery(ctx, 5*time.Minute, log) })
	}
	return u, nil
}

// logEvery logs the connectors' counters, so an operator can tell from the
// log that they are live (until /metrics exposes them).
func (u *upstreams) logEvery(ctx context.Context, d time.Duration, log *slog.Logger) {
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		s := u.stats()
		if x := s.X; x != nil {
			log.Info("x connector counters", "posts", x.Posts, "users", x.Users, "followings", x.Followings, "keepalives", x.KeepAlives,
				"reconnects", x.Reconnects, "stalls", x.Stalls, "gap_ms", x.GapMillis, "rule_changes", x.RuleChanges,
				"rate_limit_waits", x.RateLimitWaits, "malformed", x.Malformed, "unmonitored", x.Unmonitored, "lag_max_ms", x.LagMillisMax)
		}
		if l := s.Launchpad; l != nil {
			log.Info("launchpad connector counters", "launches", l.Launches, "graduations", l.Graduations, "notifications", l.Notifications,
				"skipped", l.Skipped, "malformed", l.Malformed, "reconnects", l.Reconnects, "backfilled", l.Backfilled, "lag_max_ms", l.LagMillisMax)
		}
	}
}

// stop ends the connectors and waits for their goroutines.
func (u *upstreams) stop() {
	if u == nil {
		return
	}
	u.cancel()
	u.wg.Wait()
}

func (u *upstreams) stats() UpstreamStats {
	var s UpstreamStats
	if u == nil {
		return s
	}
	s.Accepted, s.Rejected = u.sink.accepted.Load(), u.sink.rejected.Load()
	if u.x != nil {
		x := u.x.Stats()
		s.X = &x
	}
	if u.lp != nil {
		l := u.lp.Stats()
		s.Launchpad = &l
	}
	return s
}

// UpstreamStats returns the connectors' counters (the metrics issue exposes
// them in /metrics).
func (e *Engine) UpstreamStats() UpstreamStats { return e.upstreams.stats() }

// errBacklog asks a connector to retry: the engine is behind, exactly when
// POST /ingest/v1/observations would answer 503.
var errBacklog = errors.New("ingest backlog full; retry shortly")

// ingestSink is the connectors' in-process upstream.Sink: the same path as
// POST /ingest/v1/observations (the ingest log, then decode and route), with
// the same backlog push-back, without HTTP.
type ingestSink struct {
	ing      ingest.Ingester
	durable  *ingest.Durable // the ingest log in front, as for HTTP
	counts   *ingest.Counts  // shared with the HTTP ingest API
	maxBytes int64           // the backlog's bound in bytes, as for HTTP
	accepted atomic.Int64
	rejected atomic.Int64
	log      *slog.Logger
}

func (s *ingestSink) Send(ctx context.Context, lines [][]byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if ingest.BacklogFull(s.ing, s.maxBytes) {
		return errBacklog
	}
	rejected := 0
	reject := func(i int, err error) {
		rejected++ // a connector bug: its lines are meant to be valid
		s.log.Warn("connector observation rejected", "err", err)
	}
	n, err := s.durable.Accept(lines, time.Now().UnixMilli(), reject)
	if err != nil {
		return err // the connector retries
	}
	s.accepted.Add(int64(n))
	s.rejected.Add(int64(rejected))
	s.counts.Add(n, rejected)
	return nil
}

// monitoredHandles is the API v2 connector's xapi.HandleSet. The registries
// have no change notification yet, so it re-reads them every `every` (a
// list of subscriptions from the store, then each registry's in-memory
// lists) and signals when the set changed. To be replaced by a hook on the
// registries.
type monitoredHandles struct {
	read  func(context.Context) ([]xapi.Monitored, error)
	every time.Duration
	ch    chan struct{}
	log   *slog.Logger

	mu  sync.Mutex
	cur []xapi.Monitored
}

func (m *monitoredHandles) Monitored() []xapi.Monitored {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.cur)
}

func (m *monitoredHandles) Changed() <-chan struct{} { return m.ch }

// refresh reads the set once and signals a change; on an error the last
// set stays.
func (m *monitoredHandles) refresh(ctx context.Context) error {
	set, err := m.read(ctx)
	if err != nil {
		if ctx.Err() == nil {
			m.log.Warn("monitored handles not read", "err", err)
		}
		return err
	}
	m.mu.Lock()
	same := slices.Equal(set, m.cur)
	m.cur = set
	m.mu.Unlock()
	if !same {
		select {
		case m.ch <- struct{}{}:
		default:
		}
	}
	return nil
}

func (m *monitoredHandles) run(ctx context.Context) {
	t := time.NewTicker(m.every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			_ = m.refresh(ctx) // logged; the last set stays
		}
	}
}

// handleReader reads the monitored handles: the B2B targets of live dt
// subscriptions (following lists when the follows module is on), the Tweet
// Alerts tracked accounts of live xg and dt subscriptions, and the Community
// Watch and Convergence Tracker targets (both need following lists).
func handleReader(store persistence.AccountStore, tg *targets.Registry, deps *edge.Deps) func(context.Context) ([]xapi.Monitored, error) {
	var tracked *tweetalerts.Registry = deps.TweetAlerts.Registry
	cwReg, ctReg := deps.CW.Registry, deps.CT.Registry
	return func(ctx context.Context) ([]xapi.Monitored, error) {
		subs, err := store.ListSubscriptions(ctx)
		if err != nil {
			return nil, err
		}
		now := time.Now()
		set := map[string]bool{} // handle -> following needed
		add := func(following bool, hs ...string) {
			for _, h := range hs {
				if h = protocol.NormalizeHandle(h); protocol.ValidHandle(h) {
					set[h] = set[h] || following
				}
			}
		}
		for i := range subs {
			s := &subs[i]
			if s.Expired(now) {
				continue
			}
			switch s.Product {
			case protocol.ProductB2B:
				if tg != nil {
					add(slices.Contains(s.Modules, protocol.ModuleFollows), tg.ActiveHandles(s.AccountID)...)
				}
				fallthrough // a dt key also tracks accounts on the Tweet Alerts routes
			case protocol.ProductTweetAlerts:
				if tracked != nil {
					for _, t := range tracked.Tracked(s.AccountID) {
						add(false, t.Handle)
					}
				}
			case protocol.ProductCW:
				if cwReg != nil {
					add(true, cwReg.Names(s.AccountID)...)
				}
			case protocol.ProductCT:
				if ctReg != nil {
					add(true, ctReg.Names(s.AccountID)...)
				}
			}
		}
		out := make([]xapi.Monitored, 0, len(set))
		for h, f := range set {
			out = append(out, xapi.Monitored{Handle: h, Following: f})
		}
		slices.SortFunc(out, func(a, b xapi.Monitored) int {
			switch {
			case a.Handle < b.Handle:
				return -1
			case a.Handle > b.Handle:
				return 1
			}
			return 0
		})
		return out, nil
	}
}

var _ upstream.Sink = (*ingestSink)(nil)
