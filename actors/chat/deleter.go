package chat

import (
	"log/slog"
	"sync"
	"time"
)

// deleteEvery and deleteBatch bound how long a sent message stays stored:
// deletes are written in batches (one transaction per batch instead of one
// per message, which would cap the outbox at the store's commit rate). A
// crash in that window sends the message again (at least once).
const (
	deleteEvery = 20 * time.Millisecond
	deleteBatch = 256
)

// deleter removes sent messages from the store in batches, on one goroutine
// it owns; mu guards ids (memory only).
type deleter struct {
	store Store
	log   *slog.Logger
	mu    sync.Mutex
	ids   []string
	kick  chan struct{}
	stop  chan struct{}
	done  chan struct{}
}

func newDeleter(store Store, log *slog.Logger) *deleter {
	return &deleter{store: store, log: log, kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
}

func (d *deleter) start() { go d.run() }

// add queues id for deletion; it never blocks.
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

func (d *deleter) run() {
	defer close(d.done)
	t := time.NewTicker(deleteEvery)
	defer t.Stop()
	for {
		select {
		case <-d.stop:
			d.flush()
			return
		case <-t.C:
		case <-d.kick:
		}
		d.flush()
	}
}

func (d *deleter) flush() {
	d.mu.Lock()
	ids := d.ids
	d.ids = nil
	d.mu.Unlock()
	if len(ids) == 0 {
		return
	}
	ctx, cancel := storeCtx()
	defer cancel()
	if err := d.store.DeleteChatMessages(ctx, ids); err != nil {
		d.log.Warn("chat outbox: delete sent messages", "n", len(ids), "err", err)
	}
}

// close flushes what is queued and stops.
func (d *deleter) close() {
	close(d.stop)
	<-d.done
}
