package engine

import (
	"context"
	"log/slog"
	"time"

	"github.com/alertd/alertd/actors/handle"
	"github.com/alertd/alertd/actors/product/ct"
	"github.com/alertd/alertd/actors/product/cw"
	"github.com/alertd/alertd/actors/product/et"
	"github.com/alertd/alertd/actors/product/watchhooks"
	"github.com/alertd/alertd/actors/webhook"
	"github.com/alertd/alertd/engine/cluster"
	"github.com/alertd/alertd/protocol"
)

// wireWatch builds Community Watch, Convergence Tracker and Engagement
// Tracker; the returned stop func (may be nil) runs at shutdown after the
// listener and the actors have stopped, before the store closes.
//
// Three registries, three singletons that hear the handle actors' changes
// (changes.go): the cw tracker (memberships, follows, followers), the
// convergence detector (memberships) and the engagement detector
// (engagement), none feeding another; and one webhook engine each. Their
// frames go out on the delivery hub.
func wireWatch(ctx context.Context, e *Engine, cfg *Config, log *slog.Logger) (watchServices, func(), error) {
	var d watchServices
	now := time.Now
	d.CW = cw.NewRegistry(e.store, now)
	d.CT = ct.NewRegistry(e.store, now)
	d.ET = et.NewRegistry(e.store, now)
	for _, load := range []func(context.Context) error{d.CW.Load, d.CT.Load, d.ET.Load} {
		if err := load(ctx); err != nil {
			return d, nil, err
		}
	}
	if e.feed != nil { // a cluster: lists, settings and webhooks changed on one node reach the others
		shareWatchList(e.feed, d.CW)
		shareWatchList(e.feed, d.CT)
		shareWatchList(e.feed, d.ET)
	}

	guard, err := webhook.NewGuard(cfg.WebhookAllowCIDRs)
	if err != nil {
		return d, nil, err
	}
	hooks := watchhooks.New(watchhooks.Config{Guard: guard, Queue: e.store, System: e.system, Supervisor: e.kit.Supervisor(),
		Owners:  e.webhookOwners(),
		Timings: cfg.Timings, Log: log,
		Sources: map[protocol.Product]watchhooks.Source{protocol.ProductCW: d.CW, protocol.ProductCT: d.CT, protocol.ProductET: d.ET},
		Active: func(p protocol.Product, acct string) bool {
			s, ok := e.registry.Subscription(acct, p)
			return ok && !s.Expired(now())
		}})
	var stops []func()
	stop := func() {
		for i := len(stops) - 1; i >= 0; i-- {
			stops[i]()
		}
	}
	fail := func(err error) (watchServices, func(), error) {
		stop()
		return watchServices{}, nil, err
	}
	stops = append(stops, hooks.Stop) // stopped last: the detectors publish to it (safe unstarted)
	if err := hooks.Start(ctx); err != nil {
		return fail(err)
	}
	d.Hooks = hooks

	loader := handle.StoreLoader{Store: e.store}
	memberships := func(ctx context.Context, hs []string) (map[string]handle.MembershipsView, error) {
		return handle.Memberships(ctx, e.router, hs) // the router exists once Start serves
	}
	d.CTDetector, err = ct.StartDetector(ctx, e.kit, &ct.Deps{Registry: d.CT, Memberships: loader.Memberships, Live: memberships,
		Hub: e.hub, Webhooks: hooks.Sender(protocol.ProductCT), Persist: e.writer, Store: e.store, Now: now, Log: log})
	if err != nil {
		return fail(err)
	}
	stops = append(stops, d.CTDetector.Stop)
	d.CWTracker, err = cw.StartTracker(ctx, e.kit, &cw.Deps{Registry: d.CW, Memberships: memberships,
		Dir: e.dir, Hub: e.hub, Webhooks: hooks.Sender(protocol.ProductCW), Chat: e.chatSink(),
		Persist: e.writer, Store: e.store, Now: now, Log: log})
	if err != nil {
		return fail(err)
	}
	stops = append(stops, d.CWTracker.Stop)
	d.ETDetector, err = et.StartDetector(ctx, e.kit, &et.Deps{Registry: d.ET, Hub: e.hub,
		Webhooks: hooks.Sender(protocol.ProductET), Persist: e.writer, Store: e.store, Log: log})
	if err != nil {
		return fail(err)
	}
	stops = append(stops, d.ETDetector.Stop)

	e.products.cw, e.products.ct, e.products.et = d.CWTracker, d.CTDetector, d.ETDetector

	p := startWatchPruner(e, log)
	stops = append(stops, p.stop)
	return d, stop, nil
}

// watchList is what the feed needs of a watch product's registry.
type watchList interface {
	Product() protocol.Product
	Reload(ctx context.Context, accounts []string) error
	OnChange(f func(account string))
}

// shareWatchList puts r on the cluster's change feed.
func shareWatchList(f *cluster.Feed, r watchList) {
	f.Share(cluster.RegProduct(r.Product()), r.Reload, r.OnChange)
}

// watchServices are what the cw, ct and et APIs use of the three products.
type watchServices struct {
	CW        *cw.Registry
	CWTracker *cw.Tracker

	CT         *ct.Registry
	CTDetector *ct.Detector

	ET         *et.Registry
	ETDetector *et.Detector

	// Hooks checks webhook URLs and hands registered webhooks to the
	// delivery engines.
	Hooks *watchhooks.Hooks
}

// watchPruneEvery is how often delivered-event records are pruned.
const watchPruneEvery = 10 * time.Minute

// watchPruner keeps the delivered-event records small: cw deliveries are
// only counted over 24 hours, ct keeps its last 50 for the history.
type watchPruner struct {
	quit chan struct{}
	done chan struct{}
}

func startWatchPruner(e *Engine, log *slog.Logger) *watchPruner {
	p := &watchPruner{quit: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(p.done)
		t := time.NewTicker(watchPruneEvery)
		defer t.Stop()
		for {
			select {
			case <-p.quit:
				return
			case <-t.C:
				p.prune(e, log)
			}
		}
	}()
	return p
}

func (p *watchPruner) prune(e *Engine, log *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	before := time.Now().Add(-24 * time.Hour)
	for _, x := range []struct {
		p    protocol.Product
		keep int
	}{{protocol.ProductCW, 0}, {protocol.ProductCT, 50}} {
		if _, err := e.store.PruneWatchEvents(ctx, x.p, before, x.keep); err != nil {
			log.Warn("prune delivered events", "product", string(x.p), "err", err)
		}
	}
}

func (p *watchPruner) stop() {
	close(p.quit)
	<-p.done
}
