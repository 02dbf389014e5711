// Package retention deletes what --retention no longer keeps: posts,
// observations, trace records, profile history, follow changes and the
// webhook delivery log older than the retention period, in small batches,
// off the hot path.
//
// One goroutine, owned by the Pruner (Start, Stop), wakes every Every,
// computes the cut (now - Keep) once, and asks the store to delete each
// prunable kind, Batch rows per statement, oldest first, pausing between
// statements so that the engine's own writes (which share the embedded
// store's single writer) go in between. A pass stops at MaxBatches per kind;
// the next one goes on. Errors are logged and the pass moves to the next kind.
package retention

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/alertd/alertd/persistence"
	"github.com/jonboulle/clockwork"
)

// Defaults.
const (
	DefaultBatch      = 500
	DefaultMaxBatches = 200
	DefaultPause      = 10 * time.Millisecond
	maxEvery          = 10 * time.Minute
	minEvery          = 100 * time.Millisecond
)

// Config builds a Pruner.
type Config struct {
	Store persistence.RetentionStore
	// Keep is the retention period; 0 or less keeps everything (no Pruner
	// is started).
	Keep time.Duration
	// Every is the time between passes; default a tenth of Keep, between
	// 100 ms and 10 minutes.
	Every time.Duration
	// Batch is the rows one statement deletes (DefaultBatch); MaxBatches
	// bounds the statements per kind and pass (DefaultMaxBatches); Pause
	// is the wait between statements (DefaultPause).
	Batch, MaxBatches int
	Pause             time.Duration
	// Clock drives the passes (tests pass a fake one); default the real one.
	Clock clockwork.Clock
	Log   *slog.Logger
	// AfterPass, when set, is called after each pass with the rows it
	// deleted by kind (tests wait on it).
	AfterPass func(deleted map[persistence.Prunable]int)
}

// Pruner runs the passes. Its methods are safe for concurrent use.
type Pruner struct {
	cfg     Config
	deleted []atomic.Uint64 // by index in persistence.Prunables
	quit    chan struct{}
	done    chan struct{}
}

// Start starts the passes; nil when cfg.Keep keeps everything.
func Start(cfg Config) *Pruner {
	if cfg.Keep <= 0 {
		return nil
	}
	if cfg.Every <= 0 {
		cfg.Every = min(maxEvery, max(cfg.Keep/10, minEvery))
	}
	if cfg.Batch <= 0 {
		cfg.Batch = DefaultBatch
	}
	if cfg.MaxBatches <= 0 {
		cfg.MaxBatches = DefaultMaxBatches
	}
	if cfg.Pause <= 0 {
		cfg.Pause = DefaultPause
	}
	if cfg.Clock == nil {
		cfg.Clock = clockwork.NewRealClock()
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	p := &Pruner{cfg: cfg, deleted: make([]atomic.Uint64, len(persistence.Prunables)), quit: make(chan struct{}), done: make(chan struct{})}
	go p.run()
	return p
}

func (p *Pruner) run() {
	defer close(p.done)
	t := p.cfg.Clock.NewTicker(p.cfg.Every)
	defer t.Stop()
	for {
		select {
		case <-p.quit:
			return
		case <-t.Chan():
			p.pass()
		}
	}
}

// pass prunes every kind once.
func (p *Pruner) pass() {
	cut := p.cfg.Clock.Now().Add(-p.cfg.Keep)
	got := make(map[persistence.Prunable]int, len(persistence.Prunables))
	for i, kind := range persistence.Prunables {
		for range p.cfg.MaxBatches {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			n, err := p.cfg.Store.Prune(ctx, kind, cut, p.cfg.Batch)
			cancel()
			if err != nil {
				p.cfg.Log.Warn("retention: prune failed", "kind", string(kind), "err", err)
				break
			}
			got[kind] += n
			p.deleted[i].Add(uint64(n))
			if n < p.cfg.Batch || !p.pause() {
				break
			}
		}
	}
	if n := sum(got); n > 0 {
		p.cfg.Log.Info("retention: pruned", "rows", n, "older_than", cut.UTC().Format(time.RFC3339))
	}
	if p.cfg.AfterPass != nil {
		p.cfg.AfterPass(got)
	}
}

// pause waits between statements; false when the Pruner is stopping.
func (p *Pruner) pause() bool {
	t := time.NewTimer(p.cfg.Pause)
	defer t.Stop()
	select {
	case <-p.quit:
		return false
	case <-t.C:
		return true
	}
}

func sum(m map[persistence.Prunable]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// Stop ends the passes (a pass under way finishes its statement) and waits
// for the goroutine. Nil-safe.
func (p *Pruner) Stop() {
	if p == nil {
		return
	}
	close(p.quit)
	<-p.done
}

// Deleted calls f with the rows deleted since the start, by kind, in the
// order passes prune them. Nil-safe.
func (p *Pruner) Deleted(f func(kind persistence.Prunable, n uint64)) {
	if p == nil {
		return
	}
	for i, k := range persistence.Prunables {
		f(k, p.deleted[i].Load())
	}
}
