package targets

import (
	"fmt"
	"time"

	"github.com/alertd/alertd/persistence"
	json "github.com/goccy/go-json"
)

// Journal mode (WithJournal) makes an Add or Remove durable by appending it
// to a log instead of by a store transaction, and writes the store behind
// the log in large transactions. Why: the store's cost is per page, and the
// rows of a round of adds (as many as requests in flight, tens) each land on
// their own index page; a transaction of thousands of rows costs a third as
// much per row. The append costs one write for the whole round.
//
// How a round goes, on the committer goroutine: the adds and removes
// reserved since the last round are appended to the journal as one record
// (each key's image: the row with its id, or its absence) and answered
// (visible, listeners told) once Append returns. Their keys stay dirty, and
// the flusher goroutine (flushLoop: every flushEvery, or once flushRows keys
// are dirty, or on Flush and Close) writes every dirty key's image with
// Store.WriteTargetRows in one transaction, beside the committer, then moves
// the journal's checkpoint to the position appended before the flush took
// its keys: every record below it is in the store, since its keys were
// dirty until then (or written by an earlier flush). A flush that skipped or
// failed a key leaves the checkpoint where it was. The committer and the
// flusher share memory only under Registry.mu.
//
// Ids: the store cannot assign a row's id before the add is answered (the
// list shows it), so the registry does, counting on from the largest id it
// loaded or replayed; a row keeps its id across a rename.
//
// After a crash, Load reads the store and then replays the journal above its
// checkpoint, record by record (later images win), and marks the replayed
// keys dirty: the first flush writes them. A rename or resolve is not
// journaled (as without a journal: memory may be ahead of the store for
// those, and the next observation of the user repeats what a crash lost).
// Durability is the journal's: the engine opens it as the embedded store
// commits (written to the file, not fsynced; it survives a crash of the
// process).

// Journal is the log of journal mode; *ingestlog.Log is one.
type Journal interface {
	// Append makes payload durable and returns the position after it.
	Append(payload []byte) (end int64, err error)
	// Replay calls fn with every record above the checkpoint, in order.
	Replay(fn func(end int64, payload []byte) error) error
	// SetCheckpoint records that every record below pos is in the store.
	SetCheckpoint(pos int64) error
}

// WithJournal turns journal mode on over j (see above). The store must not
// be shared with another registry (the ids are this one's), so not with a
// cluster's Reload: the engine uses it on the embedded store only. OnChange
// hears the accounts each flush wrote. The caller closes j after Close.
func WithJournal(j Journal) Option { return func(r *Registry) { r.journal = j } }

// WithJournalFlush sets when journal mode writes the store: once rows keys
// are dirty, or every at the latest.
func WithJournalFlush(rows int, every time.Duration) Option {
	return func(r *Registry) { r.flushRows, r.flushEvery = rows, every }
}

// queuedOp is an Add or Remove reserved in journal mode, not yet appended.
type queuedOp struct {
	e *entry
	p *op
}

// journalRecord is one record of the journal: the images of a round's keys.
type journalRecord struct {
	Put []journalRow            `json:"p,omitempty"`
	Del []persistence.TargetKey `json:"d,omitempty"`
}

// journalRow is a target row as the journal keeps it.
type journalRow struct {
	ID           int64   `json:"id"`
	AccountID    string  `json:"a"`
	Handle       string  `json:"h"`
	ScreenName   string  `json:"s,omitempty"`
	DisplayName  string  `json:"n,omitempty"`
	SocialUserID *string `json:"u,omitempty"`
	IsActive     bool    `json:"on"`
	CreatedAt    int64   `json:"t"` // epoch milliseconds, as the store keeps it
}

func toJournalRow(t persistence.Target) journalRow {
	return journalRow{ID: t.ID, AccountID: t.AccountID, Handle: t.Handle, ScreenName: t.ScreenName, DisplayName: t.DisplayName,
		SocialUserID: t.SocialUserID, IsActive: t.IsActive, CreatedAt: t.CreatedAt.UnixMilli()}
}

func (j journalRow) target() persistence.Target {
	return persistence.Target{ID: j.ID, AccountID: j.AccountID, Handle: j.Handle, ScreenName: j.ScreenName, DisplayName: j.DisplayName,
		SocialUserID: j.SocialUserID, IsActive: j.IsActive, CreatedAt: msTime(j.CreatedAt)}
}

// msTime is t as the store gives it back: whole milliseconds, UTC.
func msTime(ms int64) time.Time { return time.UnixMilli(ms).UTC() }

// journalRound appends the adds and removes reserved since the last round
// as one record and settles them: visible (or gone) and answered if the
// append succeeded, rolled back with its error if not. It returns how many
// it carried.
func (r *Registry) journalRound() int {
	r.mu.Lock()
	queued := r.queued
	r.queued = nil
	r.waiting = 0
	var rec journalRecord
	live := queued[:0]
	for _, q := range queued {
		if q.e.op != q.p { // settled meanwhile: a rename folded it into another target
			continue
		}
		live = append(live, q)
		if row, put := q.e.image(); put {
			rec.Put = append(rec.Put, toJournalRow(row))
		} else {
			rec.Del = append(rec.Del, q.e.key())
		}
	}
	r.mu.Unlock()
	if len(live) == 0 {
		return 0
	}
	payload, err := json.Marshal(rec)
	var end int64
	if err == nil {
		end, err = r.journal.Append(payload)
	}
	if err != nil {
		err = fmt.Errorf("targets: journal: %w", err)
		r.log.Error("target journal append failed; the adds and removes of the round are refused", "ops", len(live), "err", err)
	}

	r.mu.Lock()
	var added, removed []persistence.TargetKey
	done := make([]*op, 0, len(live))
	for _, q := range live {
		e, p := q.e, q.p
		if e.op != p {
			continue
		}
		switch {
		case err != nil:
			if !e.visible { // a new target that never was
				r.detach(e)
				e.op = nil
			} else {
				r.change(e, func() { e.op = nil })
			}
			p.err = err
			r.markLocked(e.key()) // a flush may have written the op's image already
		case p.remove:
			r.detach(e)
			e.op = nil
			removed = append(removed, e.key())
		default:
			r.change(e, func() { e.op, e.visible, e.t.IsActive = nil, true, true })
			p.saved = e.t
			added = append(added, e.key())
		}
		done = append(done, p)
	}
	if err == nil {
		r.logged = end
	}
	l := r.listener
	r.mu.Unlock()
	tell(l, added, removed)
	for _, p := range done {
		close(p.done)
	}
	return len(live)
}

// flushLoop is the flusher goroutine of journal mode: it writes the store
// behind the journal when flushDue says so, beside the committer, so that
// the adds and removes appended meanwhile do not wait for the store. It
// stops after a last flush once the committer closes flushStop.
func (r *Registry) flushLoop() {
	defer close(r.flushDone)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	for {
		select {
		case <-r.flushKick:
		case <-timer.C:
		case <-r.flushStop:
			r.flush(true)
			return
		}
		var next time.Duration
		due, wait := r.flushDue()
		if due {
			next = r.flush(false)
			_, wait = r.flushDue()
		}
		if wait > 0 && (next == 0 || wait < next) {
			next = wait
		}
		if next > 0 {
			timer.Reset(next)
		}
	}
}

// flushDue says whether journal mode writes the store now, and if not, how
// long until it must (0: nothing to write).
func (r *Registry) flushDue() (bool, time.Duration) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if len(r.flushers) > 0 || r.closed || len(r.dirty) >= r.flushRows {
		return true, 0
	}
	if len(r.dirty) == 0 {
		return false, 0
	}
	wait := r.flushEvery - time.Since(r.lastFlush)
	return wait <= 0, max(wait, 0)
}

// flush writes the dirty keys to the store and, if it wrote them all, moves
// the journal's checkpoint to what was appended before it began.
func (r *Registry) flush(force bool) (retry time.Duration) {
	r.lastFlush = time.Now()
	r.mu.RLock()
	logged := r.logged // before the keys are taken: every record up to here has its keys dirty or written
	r.mu.RUnlock()
	_, retry, _ = r.commit(force, func(complete bool) {
		if !complete {
			return
		}
		if err := r.journal.SetCheckpoint(logged); err != nil {
			r.log.Error("target journal checkpoint failed", "err", err)
		}
	})
	return retry
}

// replayed is one journal record read back at Load.
type replayed struct {
	end int64
	rec journalRecord
}

// readJournal reads the journal above its checkpoint (Load, journal mode,
// before it takes r.mu: no lock across the file reads).
func (r *Registry) readJournal() ([]replayed, error) {
	var out []replayed
	err := r.journal.Replay(func(end int64, payload []byte) error {
		x := replayed{end: end}
		if err := json.Unmarshal(payload, &x.rec); err != nil {
			return fmt.Errorf("targets: journal record at %d: %w", end, err)
		}
		out = append(out, x)
		return nil
	})
	return out, err
}

// replay applies the records read back to memory, in order (later images
// win), marks the keys they touch dirty, and sets the next id above every
// id seen. Called with r.mu held.
func (r *Registry) replay(records []replayed, maxID int64) {
	for _, x := range records {
		for _, k := range x.rec.Del {
			if e := r.lookup(k.AccountID, k.Handle); e != nil {
				r.detach(e)
			}
			r.markLocked(k)
		}
		for _, jr := range x.rec.Put {
			t := jr.target()
			maxID = max(maxID, t.ID)
			if e := r.lookup(t.AccountID, t.Handle); e != nil {
				r.change(e, func() { r.unindex(e); e.t = t; r.index(e) })
			} else {
				r.attach(&entry{t: t, visible: true})
			}
			if id := t.SocialUserID; id != nil {
				r.tie(*id, t.Handle)
			}
			r.markLocked(persistence.TargetKey{AccountID: t.AccountID, Handle: t.Handle})
		}
		r.logged = x.end
	}
	r.nextID = maxID + 1
}
