package engine

import (
	"context"
	"fmt"
	"time"
)

// backlogPoll is how often Sync looks at the ingest backlog: the router
// keeps a count, not a notification.
const backlogPoll = 2 * time.Millisecond

// Sync returns once everything the engine accepted before the call has been
// handled: the ingest backlog drained (the handle actors have handled every
// routed observation and told the products), each product singleton's
// mailbox drained (kit.Barrier: a round trip through each, feeders first —
// the b2b recorder hands its rows to the writer on the way), the store
// writer flushed and the webhook deliveries queued in the store. Then the
// ingest log's checkpoint moves to where the log had been routed when Sync
// began (wire_ingest.go). Tests call it instead of polling until two reads
// agree or sleeping; what it does not cover is outside the process (webhook
// attempts) or timed (Search Alerts flush intervals).
//
// Ingest that keeps arriving during Sync delays it; it fails with ctx, and
// then the checkpoint stays.
func (e *Engine) Sync(ctx context.Context) error {
	pos := int64(-1)
	if e.durable != nil {
		pos = e.durable.Routed()
	}
	for e.router.Backlog() > 0 {
		select {
		case <-ctx.Done():
			return fmt.Errorf("sync: ingest backlog %d: %w", e.router.Backlog(), ctx.Err())
		case <-time.After(backlogPoll):
		}
	}
	if err := e.kit.Barrier(ctx); err != nil {
		return fmt.Errorf("sync: %w", err)
	}
	if err := e.products.b2b.Flush(ctx); err != nil {
		return fmt.Errorf("sync: b2b recorder: %w", err)
	}
	if err := e.writer.Flush(ctx); err != nil {
		return fmt.Errorf("sync: writer: %w", err)
	}
	for _, w := range e.webhookEngines() {
		if err := w.Flush(ctx); err != nil {
			return fmt.Errorf("sync: webhook queue: %w", err)
		}
	}
	if pos >= 0 {
		return e.checkpoint(pos)
	}
	return nil
}
