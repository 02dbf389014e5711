package upstream

import (
	"context"
	"time"

	"github.com/jonboulle/clockwork"
)

// Deliver hands lines to sink and retries a refused batch, waiting 50 ms
// and doubling up to 5 s between tries (the engine's ingest backlog drains
// in that time), so a connector loses nothing to a busy moment. It returns
// nil once the sink took the lines, ctx's error when ctx ended first, and
// the sink's error when it is permanent (IsPermanent: retrying cannot help).
// onRetry, if set, hears each refusal before the wait.
func Deliver(ctx context.Context, sink Sink, lines [][]byte, clock clockwork.Clock, onRetry func(err error, wait time.Duration)) error {
	wait := 50 * time.Millisecond
	for {
		err := sink.Send(ctx, lines)
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if IsPermanent(err) {
			return err
		}
		if onRetry != nil {
			onRetry(err, wait)
		}
		t := clock.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.Chan():
		}
		wait = min(2*wait, 5*time.Second)
	}
}
