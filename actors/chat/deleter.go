package chat

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// deleteEvery and deleteBatch bound how long a sent message stays waiting
// in the store: finishes are written in batches (one transaction per batch
// instead of one per message, which would cap the outbox at the store's
// commit rate). A crash in that window sends the message again (at least
// once).
const (
	deleteEvery = 20 * time.Millisecond
	deleteBatch = 256
)

// FinishedKeep is how long the store remembers a finished message's id, so
// that queueing it again is skipped: the ingest log's replay after a crash
// queues a post's alerts again. A post replayed later than this (a process
// down for a day with records above its log's checkpoint) gets no chat
// alerts (TweetAlerts skips it) rather than a second one.
const FinishedKeep = 24 * time.Hour

// pruneEvery is how often the finished ids older than FinishedKeep are
// forgotten.
const pruneEvery = 10 * time.Minute

// deleter finishes sent messages in the store in batches, and prunes the
// finished ones past FinishedKeep, on one goroutine it owns; mu guards ids
// and waits (memory only).
type deleter struct {
	store Store
	log   *slog.Logger
	now   func() time.Time
	mu    sync.Mutex
	ids   []string
	waits []chan struct{} // closed once every id added before them is written
	kick  chan struct{}
	stop  chan struct{}
	done  chan struct{}
}

func newDeleter(store Store, log *slog.Logger, now func() time.Time) *deleter {
	return &deleter{store: store, log: log, now: now, kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
}

func (d *deleter) start() { go d.run() }

// add queues id to be finished; it never blocks.
func (d *deleter) add(id string) {
	d.mu.Lock()
	d.ids = append(d.ids, id)
	n := len(d.ids)
	d.mu.Unlock()
	if n >= deleteBatch {
		select {
		case d.kick <- struct{}{}:
		default:
		}
	}
}

// barrier closes done once every id added so far is finished in the store
// (a read of the outbox after it sees none of them waiting); it never
// blocks. After close it closes done at once.
func (d *deleter) barrier(done chan struct{}) {
	d.mu.Lock()
	d.waits = append(d.waits, done)
	d.mu.Unlock()
	select {
	case d.kick <- struct{}{}:
	default:
	}
}

// sync is barrier, waited for (or until ctx ends).
func (d *deleter) sync(ctx context.Context) {
	done := make(chan struct{})
	d.barrier(done)
	select {
	case <-done:
	case <-ctx.Done():
	case <-d.done:
	}
}

func (d *deleter) run() {
	defer close(d.done)
	t := time.NewTicker(deleteEvery)
	defer t.Stop()
	prune := time.NewTicker(pruneEvery)
	defer prune.Stop()
	for {
		select {
		case <-d.stop:
			d.flush()
			return
		case <-t.C:
		case <-d.kick:
		case <-prune.C:
			d.prune()
		}
		d.flush()
	}
}

// prune forgets the messages finished more than FinishedKeep ago.
func (d *deleter) prune() {
	ctx, cancel := storeCtx()
	defer cancel()
	if err := d.store.PruneChatMessages(ctx, d.now().Add(-FinishedKeep)); err != nil {
		d.log.Warn("chat outbox: prune finished messages", "err", err)
	}
}

// flush writes the ids added so far, then answers the barriers set before
// them; only the deleter's goroutine calls it, so a barrier closes after
// every earlier batch is written.
func (d *deleter) flush() {
	d.mu.Lock()
	ids, waits := d.ids, d.waits
	d.ids, d.waits = nil, nil
	d.mu.Unlock()
	if len(ids) > 0 {
		ctx, cancel := storeCtx()
		if err := d.store.FinishChatMessages(ctx, ids, d.now()); err != nil {
			d.log.Warn("chat outbox: finish sent messages", "n", len(ids), "err", err)
		}
		cancel()
	}
	for _, w := range waits {
		close(w)
	}
}

// close flushes what is queued and stops.
func (d *deleter) close() {
	close(d.stop)
	<-d.done
}
