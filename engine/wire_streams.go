package engine

import (
	"context"
	"log/slog"
	"time"

	"github.com/alertd/alertd/actors/product/eca"
	"github.com/alertd/alertd/actors/product/pumpfun"
	"github.com/alertd/alertd/actors/product/searchalerts"
	"github.com/alertd/alertd/actors/product/trending"
	"github.com/alertd/alertd/engine/cluster"
	"github.com/alertd/alertd/protocol"
)

// wireStreams builds Trending, PumpFun, ECA and Search Alerts, whose actors
// hear the feed observations and the posts seen (changes.go): trending
// posts, launchpad events (PumpFun wallet events, ECA matches), callouts and
// market caps (PumpFun), and every post (Search Alerts matches them on its
// own actor). None feeds another singleton. The stop func stops their
// actors.
func wireStreams(ctx context.Context, e *Engine, cfg *Config, log *slog.Logger) (streamServices, func(), error) {
	t := cfg.Timings
	tr, err := trending.New(ctx, e.kit, e.hub, log)
	if err != nil {
		return streamServices{}, nil, err
	}
	pf, err := pumpfun.New(ctx, e.kit, pumpfun.Config{Store: e.store, Jobs: e.writer, Hub: e.hub, Now: time.Now, Log: log})
	if err != nil {
		tr.Stop()
		return streamServices{}, nil, err
	}
	ec, err := eca.New(ctx, e.kit, eca.Config{Store: e.store, Jobs: e.writer, Hub: e.hub, Expiry: t.ECAExpiry,
		MatchesTTL: t.ECAMatchesTTL, Now: time.Now, Log: log, RecordFirst: e.feed != nil})
	if err != nil {
		tr.Stop()
		pf.Stop()
		return streamServices{}, nil, err
	}
	sa, err := searchalerts.New(ctx, e.kit, searchalerts.Config{Store: e.store, Hub: e.hub, Intervals: t.SAIntervals, Now: time.Now, Log: log})
	if err != nil {
		tr.Stop()
		pf.Stop()
		ec.Stop()
		return streamServices{}, nil, err
	}
	if e.feed != nil { // a cluster: lists changed on one node reach the others
		e.feed.Share(cluster.RegProduct(protocol.ProductPumpFun), pf.Targets.Reload, pf.Targets.OnChange)
		e.feed.Share(cluster.RegProduct(protocol.ProductECA), ec.Watchlist.Reload, ec.Watchlist.OnChange)
		e.feed.Share(cluster.RegProduct(protocol.ProductSA), sa.Queries.Reload, sa.Queries.OnChange)
	}
	e.products.trending, e.products.pumpfun, e.products.eca, e.products.searchalerts = tr, pf, ec, sa
	stop := func() {
		tr.Stop()
		pf.Stop()
		ec.Stop()
		sa.Stop()
	}
	return streamServices{PumpFun: pf, ECA: ec, SA: sa}, stop, nil
}

// streamServices are what the PumpFun, ECA and Search Alerts APIs use of
// their products (the Trending API reads only the store).
type streamServices struct {
	PumpFun *pumpfun.Service
	ECA     *eca.Service
	SA      *searchalerts.Service
}
