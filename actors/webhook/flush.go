package webhook

import (
	"context"
	"time"
)

// flushPoll is how often Flush looks at the write-ahead count.
const flushPoll = 2 * time.Millisecond

// Flush returns once every delivery published before the call is in the
// store's queue (durable), or with ctx's error. The ingest log's checkpoint
// (engine.Sync) waits on it.
func (e *Engine) Flush(ctx context.Context) error {
	e.wal.mu.Lock()
	target := e.wal.added
	e.wal.mu.Unlock()
	for {
		e.wal.mu.Lock()
		stored := e.wal.stored
		e.wal.mu.Unlock()
		if stored >= target {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(flushPoll):
		}
	}
}
