package targets

import (
	"context"
	"fmt"
	"time"

	"github.com/alertd/alertd/persistence"
)

// writeTimeout bounds one store call of the committer.
const writeTimeout = 10 * time.Second

// dirtyKey is a key waiting for the committer.
type dirtyKey struct {
	attempts  int       // failed writes so far
	notBefore time.Time // backoff after a failure; zero: at once
}

type retryPolicy struct{ first, max time.Duration }

// after is the backoff before attempt n+1, having failed n times.
func (p retryPolicy) after(n int) time.Duration {
	d := p.first
	for i := 1; i < n && d < p.max; i++ {
		d *= 2
	}
	return min(d, p.max)
}

// markLocked asks the committer to make key's row match memory. A fresh mark
// clears a backoff: something new is to be written.
func (r *Registry) markLocked(k persistence.TargetKey) { r.dirty[k] = dirtyKey{} }

// poke wakes the committer.
func (r *Registry) poke() {
	select {
	case r.kick <- struct{}{}:
	default:
	}
}

// Flush waits until every change made before it is written, and says
// whether all were (a barrier for tests and shutdown). It writes keys that
// wait for a retry at once.
func (r *Registry) Flush(ctx context.Context) error {
	ch := make(chan error, 1)
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return ErrClosed
	}
	r.flushers = append(r.flushers, ch)
	r.mu.Unlock()
	r.poke()
	select {
	case err := <-ch:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close refuses new Adds and Removes, writes what is dirty (one last try)
// and stops the committer. Resolve and Rename after Close change memory only.
func (r *Registry) Close() {
	r.mu.Lock()
	first := !r.closed
	r.closed = true
	r.mu.Unlock()
	if first {
		close(r.stop)
	}
	<-r.done
}

// commitLoop is the committer: each round writes every dirty key that is
// due in one transaction, so the adds that arrived while the last round
// was writing share the next one (group commit).
func (r *Registry) commitLoop() {
	defer close(r.done)
	retry := time.NewTimer(time.Hour)
	retry.Stop()
	lastOps := 0
	for {
		select {
		case <-r.kick:
		case <-retry.C:
		case q := <-r.reloads:
			q.done <- r.reload(q.ctx, q.accounts)
			continue
		case <-r.stop:
			if r.journal != nil {
				r.journalRound()
				close(r.flushStop) // the flusher writes what is dirty and stops
				<-r.flushDone
			} else {
				r.commit(true, nil)
			}
			r.mu.Lock()
			left := len(r.dirty)
			r.mu.Unlock()
			if left > 0 {
				r.log.Error("target registry closed with changes not written; the store is behind memory until the users are observed again", "keys", left)
			}
			return
		}
		r.linger(lastOps)
		if r.journal != nil {
			lastOps = r.journalRound()
			select { // the flusher decides whether the store is due
			case r.flushKick <- struct{}{}:
			default:
			}
			continue
		}
		var next time.Duration
		if lastOps, next, _ = r.commit(false, nil); next > 0 {
			retry.Reset(next)
		}
	}
}

// linger lets a round gather more adds and removes: it waits until as many
// are waiting as the last round carried (the callers it answered come back
// with their next request), or r.lingerMax has passed. A round's fixed cost
// (transaction, commit) is then shared by more rows. A lone caller (last
// round of one) does not wait at all.
func (r *Registry) linger(want int) {
	if want <= 1 || r.lingerMax <= 0 {
		return
	}
	deadline := time.NewTimer(r.lingerMax)
	defer deadline.Stop()
	for {
		r.mu.RLock()
		enough := r.waiting >= want || len(r.flushers) > 0 || r.closed
		r.mu.RUnlock()
		if enough {
			return
		}
		select {
		case <-r.kick:
		case <-deadline.C:
			return
		case <-r.stop:
			return
		}
	}
}

// item is one key of a round: the row to write (put) or to delete, and the
// op it settles, as they were when the round began.
type item struct {
	key      persistence.TargetKey
	e        *entry
	p        *op
	put      bool
	row      persistence.Target
	attempts int
	err      error
}

// commit runs one round and returns how many adds and removes it carried,
// how long until the next key is due for a retry (0: none waits), and
// whether it wrote every dirty key (none skipped or failed). force writes
// keys in backoff too; so does a waiting Flush. In journal mode the ops are
// settled by journalRound: a round here only makes the store match memory,
// and written (if set) is called before a waiting Flush returns.
func (r *Registry) commit(force bool, written func(complete bool)) (ops int, retry time.Duration, complete bool) {
	r.mu.Lock()
	flushers := r.flushers
	r.flushers = nil
	if r.journal == nil {
		r.waiting = 0
	}
	force = force || len(flushers) > 0
	now := time.Now()
	var items []item
	skipped := 0
	for k, d := range r.dirty {
		if !force && d.notBefore.After(now) {
			skipped++
			continue
		}
		delete(r.dirty, k)
		it := item{key: k, attempts: d.attempts}
		if e := r.lookup(k.AccountID, k.Handle); e != nil {
			it.e = e
			it.row, it.put = e.image()
			if r.journal == nil {
				it.p = e.op
				if e.op != nil {
					ops++
				}
			}
		}
		items = append(items, it)
	}
	r.mu.Unlock()

	if len(items) > 0 {
		r.write(items)
	}
	added, removed, done, failed := r.settle(items)
	r.announce(items)
	if len(added)+len(removed) > 0 {
		r.mu.RLock()
		l := r.listener
		r.mu.RUnlock()
		tell(l, added, removed)
	}
	for _, p := range done {
		close(p.done)
	}
	var err error
	if failed != nil {
		err = fmt.Errorf("targets: %w", failed)
	}
	complete = skipped == 0 && failed == nil
	if written != nil {
		written(complete)
	}
	for _, ch := range flushers {
		ch <- err
	}
	return ops, r.nextRetry(), complete
}

// write stores items in one transaction. If that fails and there is more
// than one, it writes them one by one, rows before deletions (so a rename
// cut in two by a failure leaves the target twice, never nowhere), and
// marks in each item whether it was written.
func (r *Registry) write(items []item) {
	ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
	defer cancel()
	var put []persistence.Target
	var del []persistence.TargetKey
	for _, it := range items {
		if it.put {
			put = append(put, it.row)
		} else {
			del = append(del, it.key)
		}
	}
	if r.journal != nil { // rows keep the ids memory gave them
		err := r.store.WriteTargetRows(ctx, put, del)
		for i := range items {
			items[i].err = err
		}
		if err == nil || len(items) == 1 {
			return
		}
		r.log.Warn("target flush failed; writing key by key", "keys", len(items), "err", err)
		for _, rows := range []bool{true, false} {
			for i := range items {
				if it := &items[i]; it.put == rows {
					ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
					if it.put {
						it.err = r.store.WriteTargetRows(ctx, []persistence.Target{it.row}, nil)
					} else {
						it.err = r.store.WriteTargetRows(ctx, nil, []persistence.TargetKey{it.key})
					}
					cancel()
				}
			}
		}
		return
	}
	saved, err := r.store.WriteTargets(ctx, put, del)
	if err == nil || len(items) == 1 {
		j := 0
		for i := range items {
			items[i].err = err
			if err == nil && items[i].put {
				items[i].row = saved[j]
				j++
			}
		}
		return
	}
	r.log.Warn("target batch write failed; writing key by key", "keys", len(items), "err", err)
	for _, rows := range []bool{true, false} {
		for i := range items {
			it := &items[i]
			if it.put != rows {
				continue
			}
			ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
			if it.put {
				var s []persistence.Target
				if s, it.err = r.store.WriteTargets(ctx, []persistence.Target{it.row}, nil); it.err == nil {
					it.row = s[0]
				}
			} else {
				_, it.err = r.store.WriteTargets(ctx, nil, []persistence.TargetKey{it.key})
			}
			cancel()
		}
	}
}

// settle applies a round's outcome to memory: committed ops become visible
// (or leave), failed ones are rolled back, and failed keys are marked again
// with backoff, to be written from what memory holds by then. It returns
// what to tell the listener, the ops to wake, and the last failure.
func (r *Registry) settle(items []item) (added, removed []persistence.TargetKey, done []*op, failed error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := time.Now()
	nfail := 0
	for i := range items {
		it := &items[i]
		e, p := it.e, it.p
		ours := p != nil && e.op == p // not settled meanwhile (a rename may drop an entry)
		if it.err == nil {
			if it.put && r.lookup(it.key.AccountID, it.key.Handle) == e {
				e.t.ID, e.t.CreatedAt = it.row.ID, it.row.CreatedAt
			}
			if !ours {
				continue
			}
			if p.remove {
				r.detach(e)
				e.op = nil
				removed = append(removed, e.key())
			} else {
				r.change(e, func() { e.op, e.visible, e.t.IsActive = nil, true, true })
				p.saved = e.t
				added = append(added, e.key())
			}
			done = append(done, p)
			continue
		}
		nfail++
		failed = it.err
		if _, again := r.dirty[it.key]; !again {
			r.dirty[it.key] = dirtyKey{attempts: it.attempts + 1, notBefore: now.Add(r.retry.after(it.attempts + 1))}
		}
		if !ours {
			continue
		}
		if !e.visible { // a new target that never was
			r.detach(e)
			e.op = nil
		} else {
			r.change(e, func() { e.op = nil })
		}
		p.err = it.err
		done = append(done, p)
	}
	if nfail > 0 {
		r.log.Error("target store write failed; retrying with backoff", "keys", nfail, "of", len(items), "err", failed)
	}
	return added, removed, done, failed
}

// nextRetry is the wait until the first key in backoff is due (0: none).
func (r *Registry) nextRetry() time.Duration {
	r.mu.RLock()
	defer r.mu.RUnlock()
	var first time.Time
	for _, d := range r.dirty {
		if !d.notBefore.IsZero() && (first.IsZero() || d.notBefore.Before(first)) {
			first = d.notBefore
		}
	}
	if first.IsZero() {
		return 0
	}
	return max(time.Until(first), time.Millisecond)
}
