package xapi

import (
	"context"
	"log/slog"
	"time"

	"github.com/alertd/alertd/upstream"
	"github.com/jonboulle/clockwork"
)

// emitBatch is the most lines handed to the sink at once.
const emitBatch = 256

// item is one observation line on its way to the sink; eventMs is the
// post's creation time for the lag counter (0 for other kinds).
type item struct {
	line    []byte
	kind    byte // 'p' post, 'u' user, 'f' following
	eventMs int64
}

// emitter is the only caller of the sink (a Sink is called from one
// goroutine at a time): the stream and the lookups queue lines, run hands
// them over in batches of what is waiting, and retries a batch the sink
// refused for a moment (an ingest backlog) so nothing is dropped.
type emitter struct {
	ch    chan item
	sink  upstream.Sink
	clock clockwork.Clock
	stats *Stats
	log   *slog.Logger
}

func newEmitter(sink upstream.Sink, clock clockwork.Clock, stats *Stats, log *slog.Logger) *emitter {
	return &emitter{ch: make(chan item, 4*emitBatch), sink: sink, clock: clock, stats: stats, log: log}
}

// put queues one line; it blocks while the queue is full (the sink is
// behind) and gives up when ctx ends.
func (e *emitter) put(ctx context.Context, it item) bool {
	select {
	case e.ch <- it:
		return true
	case <-ctx.Done():
		return false
	}
}

// run hands queued lines to the sink until ctx ends.
func (e *emitter) run(ctx context.Context) {
	batch := make([]item, 0, emitBatch)
	lines := make([][]byte, 0, emitBatch)
	for {
		select {
		case <-ctx.Done():
			return
		case it := <-e.ch:
			batch = append(batch[:0], it)
		}
	drain:
		for len(batch) < emitBatch {
			select {
			case it := <-e.ch:
				batch = append(batch, it)
			default:
				break drain
			}
		}
		lines = lines[:0]
		for _, it := range batch {
			lines = append(lines, it.line)
		}
		if !e.send(ctx, lines) {
			return
		}
		now := e.clock.Now().UnixMilli()
		for _, it := range batch {
			switch it.kind {
			case 'p':
				e.stats.Posts.Add(1)
				e.stats.lag(now - it.eventMs)
			case 'u':
				e.stats.Users.Add(1)
			case 'f':
				e.stats.Followings.Add(1)
			}
		}
	}
}

// send hands one batch over (upstream.Deliver retries a busy sink); a
// permanent refusal drops the batch with a log line. False when ctx ended.
func (e *emitter) send(ctx context.Context, lines [][]byte) bool {
	err := upstream.Deliver(ctx, e.sink, lines, e.clock, func(err error, wait time.Duration) {
		e.stats.SinkErrors.Add(1)
		e.log.Warn("ingest busy; retrying", "lines", len(lines), "retry_in", wait.String(), "err", err)
	})
	switch {
	case err == nil:
		return true
	case ctx.Err() != nil:
		return false
	}
	e.stats.SinkErrors.Add(1)
	e.log.Error("ingest refused a batch; dropped", "lines", len(lines), "err", err)
	return true
}
