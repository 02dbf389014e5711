package xapi

import (
	"context"
	"errors"
	"sync"

	"github.com/alertd/alertd/upstream"
)

// Connector is the API v2 source: an upstream.Source that keeps the stream's
// rules on the monitored handles, streams their posts and reads their
// profiles and following lists.
type Connector struct {
	cfg   Config
	stats Stats
}

// New returns a connector; Run starts it.
func New(cfg Config) (*Connector, error) {
	if cfg.Token == "" {
		return nil, errors.New("xapi: a bearer token is required")
	}
	if cfg.Handles == nil {
		return nil, errors.New("xapi: a handle set is required")
	}
	cfg.withDefaults()
	return &Connector{cfg: cfg}, nil
}

// Stats returns the live counters.
func (c *Connector) Stats() Snapshot { return c.stats.Snapshot() }

// Run works until ctx ends, then returns nil once every goroutine it started
// has stopped. Its goroutines: the emitter (the sink's only caller), the
// stream, the rule syncer, the users and following loops, and one that
// fans the handle set's change signal out to the three that need it.
func (c *Connector) Run(ctx context.Context, sink upstream.Sink) error {
	cfg := &c.cfg
	log := cfg.Logger
	cl := &client{base: cfg.BaseURL, token: cfg.Token, http: cfg.HTTP, lim: newLimiter(cfg.Clock, &c.stats), stats: &c.stats}
	em := newEmitter(sink, cfg.Clock, &c.stats, log)
	rulesCh, usersCh, followCh := make(chan struct{}, 1), make(chan struct{}, 1), make(chan struct{}, 1)
	rs := &ruleSyncer{c: cl, handles: cfg.Handles, changed: rulesCh, lim: cfg.Limits, debounce: cfg.RuleDebounce,
		clock: cfg.Clock, stats: &c.stats, log: log}
	st := &streamer{c: cl, clock: cfg.Clock, stall: cfg.StallAfter, backfill: cfg.Backfill, emit: em, stats: &c.stats, log: log}
	lk := &lookups{c: cl, handles: cfg.Handles, usersChanged: usersCh, followChanged: followCh, clock: cfg.Clock,
		profileEvery: cfg.ProfileEvery, followingEvery: cfg.FollowingEvery, emit: em, stats: &c.stats, log: log}
	lk.init()

	log.Info("x connector starting", "api", cfg.BaseURL, "max_rules", cfg.Limits.MaxRules, "max_rule_length", cfg.Limits.MaxRuleLen)
	var wg sync.WaitGroup
	for _, f := range []func(context.Context){em.run, st.run, rs.run, lk.runUsers, lk.runFollowing} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(ctx)
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		fanOut(ctx, cfg.Handles.Changed(), rulesCh, usersCh, followCh)
	}()
	wg.Wait()
	log.Info("x connector stopped")
	return nil
}

// fanOut passes each change signal on to every out, never blocking.
func fanOut(ctx context.Context, in <-chan struct{}, outs ...chan struct{}) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-in:
			for _, o := range outs {
				select {
				case o <- struct{}{}:
				default:
				}
			}
		}
	}
}
