package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/alertd/alertd/actors/product/b2b"
	"github.com/alertd/alertd/edge"
	"github.com/asynkron/protoactor-go/actor"
)

// syncPoints are what Sync passes through after the ingest backlog: the
// product singletons in dependency order (a feeder before what it feeds),
// then the b2b recorder, which hands its rows to the writer.
type syncPoints struct {
	actors   []*actor.PID
	recorder *b2b.Recorder
}

// singletonsInOrder lists the product singletons for Sync. The cw tracker
// feeds the convergence detector, so it comes first; the others are fed
// only by the handle actors' taps.
func singletonsInOrder(d *edge.Deps) []*actor.PID {
	return []*actor.PID{
		d.Products.CWTracker.PID(), d.Products.CTDetector.PID(), d.Products.ETDetector.PID(),
		d.Products2.Trending.PID(), d.Products2.PumpFun.PID(), d.Products2.ECA.PID(), d.Products2.SA.PID(),
	}
}

// backlogPoll is how often Sync looks at the ingest backlog: the router
// keeps a count, not a notification.
const backlogPoll = 2 * time.Millisecond

// Sync returns once everything the engine accepted before the call has been
// handled: the ingest backlog drained, each product singleton's mailbox
// drained (a round trip through it, in dependency order), the b2b recorder
// and the store writer flushed. Tests call it instead of polling until two
// reads agree or sleeping; what it does not cover is outside the process
// (webhook deliveries) or timed (Search Alerts flush intervals).
//
// Ingest that keeps arriving during Sync delays it; it fails with ctx.
func (e *Engine) Sync(ctx context.Context) error {
	for e.router.Backlog() > 0 {
		select {
		case <-ctx.Done():
			return fmt.Errorf("sync: ingest backlog %d: %w", e.router.Backlog(), ctx.Err())
		case <-time.After(backlogPoll):
		}
	}
	for _, pid := range e.sync.actors {
		if _, err := e.system.Root.RequestFuture(pid, &actor.Touch{}, timeLeft(ctx)).Result(); err != nil {
			return fmt.Errorf("sync: actor %s: %w", pid.Id, err)
		}
	}
	if err := e.sync.recorder.Flush(ctx); err != nil {
		return fmt.Errorf("sync: b2b recorder: %w", err)
	}
	if err := e.writer.Flush(ctx); err != nil {
		return fmt.Errorf("sync: writer: %w", err)
	}
	return nil
}

// timeLeft is ctx's time left for a future (10 s when ctx has no deadline).
func timeLeft(ctx context.Context) time.Duration {
	if dl, ok := ctx.Deadline(); ok {
		return max(time.Until(dl), time.Millisecond)
	}
	return 10 * time.Second
}
