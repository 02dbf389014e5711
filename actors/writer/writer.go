// Package writer persists what the actors observe, in batches and off the hot
// path. Actors hand it records and go on; one goroutine, owned by the Writer
// and stopped by Stop, writes them to the store.
//
// A batch is never dropped while the engine runs: a failed write is retried
// with backoff (capped at Options.MaxBackoff) until the store takes it, and
// logged at each attempt. Meanwhile nothing else is written, the queue fills
// and the actors that hand rows wait on it, which fills the ingest backlog
// and makes ingest answer 503: pushback, not loss. Flush returns only once
// what was queued before it is written, so the ingest log's checkpoint
// (engine) never moves past a failed batch. Only at Stop does the writer give
// up, after StopGrace, and counts what it abandoned (Abandoned): the ingest
// log still holds those observations and replays them at the next start.
package writer

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/alertd/alertd/persistence"
)

// Store is what the writer needs of the store.
type Store interface {
	persistence.DirectoryStore
	persistence.ObservationStore
	persistence.TraceStore
}

// Options tune batching.
type Options struct {
	// MaxBatch flushes once this many records wait (default 8000). Under
	// a backlog the writer is the one serial stage of ingest, and fewer,
	// larger transactions cost it less: restbench's drain CPU fell by a
	// fifth from 2000 (bench/results/rest-ingest-drain-2026-11-24.md).
	MaxBatch int
	// Interval flushes at least this often while records wait (default 25ms).
	Interval time.Duration
	// Queue is the capacity of the inbound queue (default 65536). When it is
	// full, senders wait: backpressure rather than loss.
	Queue int
	// Backoff is the first wait after a failed write (default 50ms); it
	// doubles up to MaxBackoff (default 5s).
	Backoff, MaxBackoff time.Duration
	// StopGrace bounds the retries once Stop was called (default 10s).
	StopGrace time.Duration
	Logger    *slog.Logger
}

type record struct {
	user  *persistence.User
	post  *persistence.Post
	snap  *persistence.Snapshot
	obs   *persistence.ObservationRecord
	trace *persistence.TraceRecord
	job   func(ctx context.Context) error
	name  string
	joins bool          // job may run in the batch's transaction (Join)
	sync  chan struct{} // Flush marker
}

// Writer batches records into store transactions.
type Writer struct {
	store Store
	opt   Options
	in    chan record
	done  chan struct{}
	once  sync.Once
	log   *slog.Logger

	stopAt    atomic.Int64 // unix ns of Stop; 0 while running
	abandoned atomic.Int64 // records given up at Stop
}

// New starts a writer over store.
func New(store Store, opt Options) *Writer {
	if opt.MaxBatch <= 0 {
		opt.MaxBatch = 8000
	}
	if opt.Interval <= 0 {
		opt.Interval = 25 * time.Millisecond
	}
	if opt.Queue <= 0 {
		opt.Queue = 65536
	}
	if opt.Backoff <= 0 {
		opt.Backoff = 50 * time.Millisecond
	}
	if opt.MaxBackoff <= 0 {
		opt.MaxBackoff = 5 * time.Second
	}
	if opt.StopGrace <= 0 {
		opt.StopGrace = 10 * time.Second
	}
	if opt.Logger == nil {
		opt.Logger = slog.Default()
	}
	w := &Writer{store: store, opt: opt, in: make(chan record, opt.Queue), done: make(chan struct{}), log: opt.Logger}
	go w.loop()
	return w
}

// User queues a user upsert.
func (w *Writer) User(u persistence.User) { w.in <- record{user: &u} }

// Post queues a post upsert.
func (w *Writer) Post(p persistence.Post) { w.in <- record{post: &p} }

// Snapshot queues a snapshot replacement.
func (w *Writer) Snapshot(s persistence.Snapshot) { w.in <- record{snap: &s} }

// Observation queues an observation record.
func (w *Writer) Observation(o persistence.ObservationRecord) { w.in <- record{obs: &o} }

// Trace queues a trace record.
func (w *Writer) Trace(t persistence.TraceRecord) { w.in <- record{trace: &t} }

// Do queues a store write of a feature's own, run in queue order with the
// batches (retried like them). name labels it in logs.
func (w *Writer) Do(name string, f func(ctx context.Context) error) {
	w.in <- record{job: f, name: name}
}

// Join is Do for a write that may share the batch's transaction (Batcher):
// f must write only through store methods that join it (sqlstore: those
// that write through its transactions, never the writer connection on their
// own, which would wait for the batch's connection forever). The writes of
// a flush then commit once, not once per job (a job's commit was a twelfth
// of the embedded writer's CPU under ingest). Joined jobs run after the
// flush's records and before its other jobs; if the batch fails, each runs
// again on its own, like Do's.
func (w *Writer) Join(name string, f func(ctx context.Context) error) {
	w.in <- record{job: f, name: name, joins: true}
}

// Flush waits until everything queued before it is written (or ctx ends).
func (w *Writer) Flush(ctx context.Context) error {
	ch := make(chan struct{})
	select {
	case w.in <- record{sync: ch}:
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Stop writes what is queued and ends the writer. Nothing may be queued after
// Stop is called.
func (w *Writer) Stop() {
	w.once.Do(func() {
		w.stopAt.Store(time.Now().UnixNano())
		close(w.in)
	})
	<-w.done
}

type batch struct {
	users  []persistence.User
	posts  []persistence.Post
	snaps  []persistence.Snapshot
	obs    []persistence.ObservationRecord
	traces []persistence.TraceRecord
	jobs   []record
	syncs  []chan struct{}
	n      int
}

func (b *batch) add(r record) {
	switch {
	case r.user != nil:
		b.users = append(b.users, *r.user)
	case r.post != nil:
		b.posts = append(b.posts, *r.post)
	case r.snap != nil:
		b.snaps = append(b.snaps, *r.snap)
	case r.obs != nil:
		b.obs = append(b.obs, *r.obs)
	case r.trace != nil:
		b.traces = append(b.traces, *r.trace)
	case r.job != nil:
		b.jobs = append(b.jobs, r)
	case r.sync != nil:
		b.syncs = append(b.syncs, r.sync)
		return
	}
	b.n++
}

func (w *Writer) loop() {
	defer close(w.done)
	t := time.NewTicker(w.opt.Interval)
	defer t.Stop()
	var b batch
	for {
		select {
		case r, ok := <-w.in:
			if !ok {
				w.flush(&b)
				return
			}
			b.add(r)
			if r.sync != nil || b.n >= w.opt.MaxBatch {
				w.flush(&b)
			}
		case <-t.C:
			w.flush(&b)
		}
	}
}

// Batcher is a store that can join writes into one transaction
// (sqlstore.Store.Batch).
type Batcher interface {
	Batch(ctx context.Context, fn func(ctx context.Context) error) error
}

// flush writes b, retrying failed parts with backoff: a store outage delays
// persistence but loses nothing that was queued. The writer's own records go
// in one transaction when the store can (Batcher): the commit and the WAL
// pages they share are paid once per batch, not once per kind. If it fails,
// each kind is written and retried on its own, as without a Batcher.
func (w *Writer) flush(b *batch) {
	if b.n > 0 {
		ctx := context.Background()
		b.users, b.posts, b.snaps = dedupeUsers(b.users), dedupePosts(b.posts), dedupeSnaps(b.snaps)
		joined := false
		if bs, ok := w.store.(Batcher); ok {
			joined = bs.Batch(ctx, func(ctx context.Context) error { return w.records(ctx, b) }) == nil
		}
		if !joined {
			w.retry("users", func() error { return w.store.UpsertUsers(ctx, b.users) }, len(b.users))
			w.retry("posts", func() error { return w.store.SavePosts(ctx, b.posts) }, len(b.posts))
			w.retry("snapshots", func() error { return w.store.PutSnapshots(ctx, b.snaps) }, len(b.snaps))
			w.retry("observations", func() error { return w.store.AppendObservations(ctx, b.obs) }, len(b.obs))
			w.retry("trace", func() error { return w.store.AppendTrace(ctx, b.traces) }, len(b.traces))
		}
		for _, j := range b.jobs {
			if j.joins && joined {
				continue // committed with the batch
			}
			w.retry(j.name, func() error { return j.job(ctx) }, 1)
		}
	}
	for _, s := range b.syncs {
		close(s)
	}
	*b = batch{}
}

// records writes the writer's own records of b, then its jobs that join the
// batch (Join), stopping at the first error.
func (w *Writer) records(ctx context.Context, b *batch) error {
	if len(b.users) > 0 {
		if err := w.store.UpsertUsers(ctx, b.users); err != nil {
			return err
		}
	}
	if len(b.posts) > 0 {
		if err := w.store.SavePosts(ctx, b.posts); err != nil {
			return err
		}
	}
	if len(b.snaps) > 0 {
		if err := w.store.PutSnapshots(ctx, b.snaps); err != nil {
			return err
		}
	}
	if len(b.obs) > 0 {
		if err := w.store.AppendObservations(ctx, b.obs); err != nil {
			return err
		}
	}
	if len(b.traces) > 0 {
		if err := w.store.AppendTrace(ctx, b.traces); err != nil {
			return err
		}
	}
	for _, j := range b.jobs {
		if j.joins {
			if err := j.job(ctx); err != nil {
				return err
			}
		}
	}
	return nil
}

// Abandoned is the number of records given up because the store still
// failed StopGrace after Stop. Zero means everything queued was written.
func (w *Writer) Abandoned() int64 { return w.abandoned.Load() }

// retry runs f until it succeeds; only after Stop, past StopGrace, does it
// give up (and count the n records in Abandoned).
func (w *Writer) retry(what string, f func() error, n int) {
	if n == 0 {
		return
	}
	backoff := w.opt.Backoff
	for attempt := 1; ; attempt++ {
		err := f()
		if err == nil {
			if attempt > 1 {
				w.log.Info("store write succeeded after retries", "what", what, "records", n, "attempts", attempt)
			}
			return
		}
		w.log.Error("store write failed; retrying (ingest waits)", "what", what, "records", n, "attempt", attempt, "err", err)
		if at := w.stopAt.Load(); at != 0 && time.Since(time.Unix(0, at)) > w.opt.StopGrace {
			w.abandoned.Add(int64(n))
			w.log.Error("store write abandoned at stop; the ingest log replays it at the next start", "what", what, "records", n)
			return
		}
		time.Sleep(backoff)
		backoff = min(backoff*2, w.opt.MaxBackoff)
	}
}

// The dedupe helpers keep the last record per key, in first-seen order, so a
// batch never upserts one row twice (Postgres refuses that in one statement).
func dedupeUsers(in []persistence.User) []persistence.User {
	return lastPerKey(in, func(u persistence.User) string { return u.ID })
}

func dedupePosts(in []persistence.Post) []persistence.Post {
	return lastPerKey(in, func(p persistence.Post) string { return p.ID })
}

func dedupeSnaps(in []persistence.Snapshot) []persistence.Snapshot {
	return lastPerKey(in, func(s persistence.Snapshot) string { return s.Handle + "\x00" + s.Kind })
}

func lastPerKey[T any](in []T, key func(T) string) []T {
	if len(in) < 2 {
		return in
	}
	idx := make(map[string]int, len(in))
	out := in[:0:0]
	for _, v := range in {
		k := key(v)
		if i, ok := idx[k]; ok {
			out[i] = v
			continue
		}
		idx[k] = len(out)
		out = append(out, v)
	}
	return out
}
