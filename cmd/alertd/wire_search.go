package main

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/alertd/alertd/actors/handle"
	"github.com/alertd/alertd/actors/search"
	"github.com/alertd/alertd/edge"
)

// wireSearch builds CA Search: the in-memory index fed by a post tap (and
// warmed from the store in the background), the post terms written behind
// for older windows, and the per-account quota with today's counts restored.
// The stop func ends the warming; terms and counts still queued are written
// by the writer's own stop.
func wireSearch(ctx context.Context, e *engine, cfg *Config, taps *handle.Taps, log *slog.Logger) (edge.SearchDeps, func(), error) {
	t := cfg.Timings
	log = log.With("feature", "search")
	now := time.Now()
	quota := search.NewQuota(search.QuotaOptions{Second: t.SearchRateSecond, Minute: t.SearchRateMinute,
		Jobs: e.writer, Store: e.store})
	today := search.DayStart(now)
	used, err := e.store.SearchUsageOn(ctx, today)
	if err != nil {
		return edge.SearchDeps{}, nil, err
	}
	quota.Load(used)
	if err := e.store.PruneSearchUsage(ctx, today.Add(-24*time.Hour)); err != nil {
		log.Warn("prune search usage", "err", err)
	}

	ix := search.NewIndex(search.Options{Window: t.SearchWindow})
	svc := search.NewService(ix, e.store, e.writer, search.DirectoryPeople{Dir: e.dir}, log)
	taps.OnPost(svc.Observe)

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
		cancel()
		wg.Wait()
	}
	return edge.SearchDeps{Service: svc, Quota: quota, Window: t.SearchWindow}, stop, nil
}
