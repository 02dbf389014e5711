package engine

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"github.com/alertd/alertd/actors/webhook"
	"github.com/alertd/alertd/persistence/ingestlog"
	"github.com/alertd/alertd/protocol"
)

// The durable ingest path (issue 10, item 12): POST /ingest/v1/observations
// and the connectors append their accepted lines to the ingest log and
// answer once it is fsynced (edge/api/ingest.Durable). Sync moves the log's
// checkpoint: it notes how far the log has been routed, waits until every
// effect of that is in the store (handled, products drained, writer
// flushed, webhook deliveries queued in the store) and records the position;
// segments below it are deleted. At start the records above the checkpoint
// are routed again before the listener accepts. Replaying a record is
// idempotent where it reaches the store: a post the store already has is
// seen, not new (its handle actor loads it), so it is not a second
// social.post.new and the products do not act on it again.

// ingestLogDir is the ingest log's folder under --data-dir. On PostgreSQL
// it is the node's own disk: the log is per process, like its fsync.
const ingestLogDir = "ingest-log"

// checkpointEvery is how often the engine tries to move the checkpoint.
// A try waits for the ingest backlog to be empty (Sync), so under a
// sustained backlog the log grows until ingest pauses.
const checkpointEvery = time.Second

func openIngestLog(cfg *Config) (*ingestlog.Log, error) {
	l, err := ingestlog.Open(filepath.Join(cfg.DataDir, ingestLogDir), ingestlog.Options{NoSync: cfg.IngestFsync == "off"})
	if err != nil {
		return nil, fmt.Errorf("cannot open the ingest log: %w", err)
	}
	return l, nil
}

// replayIngest routes what the log holds above its checkpoint, waits for
// its effects and moves the checkpoint past it.
func (e *Engine) replayIngest() error {
	start := time.Now()
	records, obs, err := e.durable.Replay()
	if err != nil {
		return fmt.Errorf("ingest log replay: %w", err)
	}
	if records == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if err := e.Sync(ctx); err != nil {
		return fmt.Errorf("ingest log replay: %w", err)
	}
	e.log.Info("ingest log replayed", "records", records, "observations", obs, "took", time.Since(start).Round(time.Millisecond))
	return nil
}

// startCheckpoints runs Sync every checkpointEvery until the returned stop
// is called.
func (e *Engine) startCheckpoints() (stop func()) {
	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(checkpointEvery)
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case <-t.C:
			}
			if e.ilog.End() <= e.ilog.Checkpoint() {
				continue
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*checkpointEvery)
			if err := e.Sync(ctx); err != nil {
				e.log.Debug("ingest log checkpoint not moved", "err", err)
			}
			cancel()
		}
	}()
	var once sync.Once
	return func() { once.Do(func() { close(quit); wg.Wait() }) }
}

// checkpoint records pos as applied; Sync calls it once every effect up to
// pos is in the store.
func (e *Engine) checkpoint(pos int64) error {
	e.checkpointMu.Lock()
	defer e.checkpointMu.Unlock()
	if err := e.ilog.SetCheckpoint(pos); err != nil {
		return fmt.Errorf("ingest log checkpoint: %w", err)
	}
	return nil
}

// webhookEngines are every product's webhook engine (Tweet Alerts, cw, ct,
// et): Sync waits until what they were handed is queued in the store.
func (e *Engine) webhookEngines() []*webhook.Engine {
	var out []*webhook.Engine
	if e.xgHooks != nil {
		out = append(out, e.xgHooks)
	}
	if e.watchHooks != nil {
		for _, p := range []protocol.Product{protocol.ProductCW, protocol.ProductCT, protocol.ProductET} {
			if w := e.watchHooks.Engine(p); w != nil {
				out = append(out, w)
			}
		}
	}
	return out
}
