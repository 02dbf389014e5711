package engine

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/alertd/alertd/actors/product/casearch"
	casearchapi "github.com/alertd/alertd/edge/api/casearch"
)

// wireCASearch builds CA Search: the in-memory index fed by the indexer
// actor (singleton "casearch", told every post seen; it feeds no singleton)
// and warmed from the store in the background, the post terms written
// behind for older windows, and the per-account quota with today's counts
// restored. The stop func stops the indexer and ends the warming; terms and
// counts still queued are written by the writer's own stop.
func wireCASearch(ctx context.Context, e *Engine, cfg *Config, log *slog.Logger) (casearchapi.Deps, func(), error) {
	t := cfg.Timings
	log = log.With("feature", "search")
	now := time.Now()
	quota := casearch.NewQuota(casearch.QuotaOptions{Second: t.SearchRateSecond, Minute: t.SearchRateMinute,
		Jobs: e.writer, Store: e.store})
	today := casearch.DayStart(now)
	used, err := e.store.SearchUsageOn(ctx, today)
	if err != nil {
		return casearchapi.Deps{}, nil, err
	}
	quota.Load(used)
	if e.rates != nil { // a cluster: every node's calls count
		e.rates.ShareQuota(quota, func(ctx context.Context) error {
			used, err := e.store.SearchUsageOn(ctx, casearch.DayStart(time.Now()))
			if err == nil {
				quota.Load(used)
			}
			return err
		})
	}
	if err := e.store.PruneSearchUsage(ctx, today.Add(-24*time.Hour)); err != nil {
		log.Warn("prune search usage", "err", err)
	}

	ix := casearch.NewIndex(casearch.Options{Window: t.SearchWindow})
	svc := casearch.NewService(ix, e.store, e.writer, casearch.DirectoryPeople{Dir: e.dir}, log)
	indexer, err := casearch.StartIndexer(ctx, e.kit, svc)
	if err != nil {
		return casearchapi.Deps{}, nil, err
	}
	e.products.casearch = indexer

	wctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := svc.Warm(wctx); err != nil && wctx.Err() == nil {
			log.Error("search index not warmed: searches are answered from the store", "err", err)
		}
	}()
	stop := func() {
		indexer.Stop()
		cancel()
		wg.Wait()
	}
	return casearchapi.Deps{Service: svc, Quota: quota, Window: t.SearchWindow}, stop, nil
}
