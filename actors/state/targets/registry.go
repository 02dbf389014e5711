// Package targets owns the B2B target lists: which handles each account
// monitors. The Registry keeps every list in memory (sessions read it at
// login, the fan-out follows it); its committer goroutine writes changes to
// the store in batches, one transaction for many rows (group commit). In
// journal mode (journal.go, the embedded store) the committer appends the
// adds and removes to a journal instead, and a flusher goroutine writes the
// store behind it.
//
// Shared memory: Registry.mu guards every list, index and entry, the set of
// dirty keys and journal mode's queue, next id and appended position. It is
// never held across store or journal I/O: reads never wait for the
// store, and neither do writers other than the one waiting for its own commit.
// It is a leaf: nothing else is locked while it is held, and listeners are
// called without it.
//
// Two kinds of change:
//   - Add and Remove (the REST API) are durable when they return: the change
//     is reserved in memory under the lock (so concurrent adds of one handle,
//     or past the ceiling, are refused correctly), written by the committer
//     with others in one transaction (in journal mode: appended to the
//     journal with others in one record; the store follows in larger
//     transactions, see journal.go), and only then shown to readers and
//     listeners, or rolled back if the write failed.
//   - Resolve and Rename (a user was observed) change memory at once and
//     are written in the background; they never wait.
//
// How the store follows memory: a change marks the (account, handle) keys it
// touched dirty; the committer writes, for each dirty key, what memory holds
// for it then (the row, or its absence), so a retry or a later change never
// writes anything older than memory. A failed write of any kind marks its
// keys again, retried with backoff while the process runs (a commit that
// failed on the way back but landed is undone the same way).
//
// Why a crash cannot lose a rename (or a resolve): for these, memory may be
// ahead of the store, never the other way round, so a crash leaves the store
// behind: a
// target still on the old handle, or still without its user id. The handle
// actor writes the user's new handle to the directory table through another
// writer, so after a restart the directory may already know the new handle
// and no rename will be observed again. That is why Resolve, which the user
// actor calls on every observation of a user, does more than fill in pending
// targets: it also moves every target tied to that user id (tied) that is
// not at the handle observed. So the next observation of the user repeats
// whatever the crash lost. Renames are written in one transaction (the new
// row and the old row's deletion together); if a batch fails and is written
// key by key, new rows go before deletions, so a failure in between leaves
// the target twice, never nowhere, and the next Resolve folds the two.
package targets

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
)

// Listener hears about target changes (the live sessions of the account),
// once they are committed, from the committer goroutine. It must not block.
type Listener interface {
	TargetAdded(account, handle string)
	TargetRemoved(account, handle string)
}

// tell has l (when set) hear the adds, then the removes, of a change; the
// caller holds no lock of the registry.
func tell(l Listener, added, removed []persistence.TargetKey) {
	if l == nil {
		return
	}
	for _, k := range added {
		l.TargetAdded(k.AccountID, k.Handle)
	}
	for _, k := range removed {
		l.TargetRemoved(k.AccountID, k.Handle)
	}
}

// Store is what the registry needs of the store.
type Store interface {
	ListAllTargets(ctx context.Context) ([]persistence.Target, error)
	// ListTargetsOf serves Reload of some accounts.
	ListTargetsOf(ctx context.Context, accounts []string) ([]persistence.Target, error)
	WriteTargets(ctx context.Context, put []persistence.Target, del []persistence.TargetKey) ([]persistence.Target, error)
	// WriteTargetRows is journal mode's write (ids given).
	WriteTargetRows(ctx context.Context, put []persistence.Target, del []persistence.TargetKey) error
}

// Errors of Add and Remove.
var (
	ErrExists     = errors.New("target already tracked")
	ErrLimit      = errors.New("handle limit reached")
	ErrNotTracked = errors.New("target not in set")
	ErrClosed     = errors.New("target registry closed")
)

// scatter in Registry.tied means: this user id's targets are at more than
// one handle; the next Resolve of the user looks at every target.
const scatter = ""

// Registry is the in-memory set of targets, written to the store by its
// committer. Safe for concurrent use; Close stops the committer.
type Registry struct {
	store Store
	now   func() time.Time
	log   *slog.Logger
	retry retryPolicy
	// lingerMax bounds how long a round waits to gather more adds.
	lingerMax time.Duration

	mu       sync.RWMutex
	listener Listener
	closed   bool
	accounts map[string]*account
	// at indexes entries by handle, then account.
	at map[string]map[string]*entry
	// unresolved counts, per handle, the entries without a user id: what
	// Resolve must fill in.
	unresolved map[string]int
	// tied is the handle where each user id's targets are (scatter: several).
	// Entries are never removed: a stale one costs one look at an empty
	// handle on the user's next rename.
	tied map[string]string
	// dirty are the keys whose rows must be made to match memory.
	dirty    map[persistence.TargetKey]dirtyKey
	flushers []chan error
	// waiting counts the adds and removes reserved since the committer's
	// last round began (see linger).
	waiting int

	// onChange hears the accounts whose targets the committer wrote
	// (another node's registry reloads them; reload.go).
	onChange func(accounts []string)
	reloads  chan reloadRequest // served by the committer between rounds

	// Journal mode (journal.go); journal is nil without it.
	journal    Journal
	flushRows  int
	flushEvery time.Duration
	nextID     int64      // the id of the next new target (guarded by mu)
	queued     []queuedOp // adds and removes reserved, not yet appended (guarded by mu)
	logged     int64      // journal position after the last append (guarded by mu)
	lastFlush  time.Time  // flusher goroutine only
	flushKick  chan struct{}
	flushStop  chan struct{} // closed by the committer once it has appended its last round
	flushDone  chan struct{}

	kick chan struct{} // cap 1: the committer has work
	stop chan struct{}
	done chan struct{}
}

// Option tunes a Registry.
type Option func(*Registry)

// WithLogger sets where the committer reports store failures.
func WithLogger(l *slog.Logger) Option { return func(r *Registry) { r.log = l } }

// WithRetry sets the backoff of failed background writes: first wait, then
// doubling up to max.
func WithRetry(first, max time.Duration) Option {
	return func(r *Registry) { r.retry = retryPolicy{first: first, max: max} }
}

// WithLinger sets how long a commit round may wait to gather more adds and
// removes (0: never waits).
func WithLinger(d time.Duration) Option { return func(r *Registry) { r.lingerMax = d } }

// NewRegistry returns a registry over store and starts its committer; call
// Load before use and Close when done.
func NewRegistry(store Store, l Listener, now func() time.Time, opts ...Option) *Registry {
	if now == nil {
		now = time.Now
	}
	r := &Registry{store: store, listener: l, now: now, log: slog.Default(),
		retry: retryPolicy{first: 50 * time.Millisecond, max: 5 * time.Second}, lingerMax: 500 * time.Microsecond,
		flushRows: 4096, flushEvery: 200 * time.Millisecond,
		accounts: map[string]*account{}, at: map[string]map[string]*entry{},
		unresolved: map[string]int{}, tied: map[string]string{}, dirty: map[persistence.TargetKey]dirtyKey{},
		reloads: make(chan reloadRequest), kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	for _, o := range opts {
		o(r)
	}
	r.lastFlush = time.Now()
	if r.journal != nil {
		r.flushKick, r.flushStop, r.flushDone = make(chan struct{}, 1), make(chan struct{}), make(chan struct{})
		go r.flushLoop()
	}
	go r.commitLoop()
	return r
}

// SetListener sets who hears about changes (wired after sessions exist).
func (r *Registry) SetListener(l Listener) {
	r.mu.Lock()
	r.listener = l
	r.mu.Unlock()
}

// Load reads every target from the store.
func (r *Registry) Load(ctx context.Context) error {
	all, err := r.store.ListAllTargets(ctx)
	if err != nil {
		return err
	}
	var records []replayed
	if r.journal != nil {
		if records, err = r.readJournal(); err != nil {
			return err
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	var maxID int64
	for i := range all {
		e := &entry{t: all[i], visible: true}
		r.attach(e)
		if id := e.t.SocialUserID; id != nil {
			r.tie(*id, e.t.Handle)
		}
		maxID = max(maxID, e.t.ID)
	}
	if r.journal == nil {
		return nil
	}
	r.replay(records, maxID)
	if len(r.dirty) > 0 {
		r.poke()
	}
	return nil
}

// List returns copies of account's targets in creation order.
func (r *Registry) List(account string) []persistence.Target {
	r.mu.RLock()
	defer r.mu.RUnlock()
	a := r.accounts[account]
	if a == nil {
		return []persistence.Target{}
	}
	out := make([]persistence.Target, 0, len(a.order))
	for _, e := range a.order {
		if e.visible {
			out = append(out, e.t)
		}
	}
	return out
}

// ActiveHandles returns the handles account monitors now.
func (r *Registry) ActiveHandles(account string) []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	a := r.accounts[account]
	if a == nil {
		return []string{}
	}
	out := make([]string, 0, len(a.order))
	for _, e := range a.order {
		if e.visible && e.t.IsActive {
			out = append(out, e.t.Handle)
		}
	}
	return out
}

// Counts returns how many targets account has, and how many are active.
func (r *Registry) Counts(account string) (all, active int) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if a := r.accounts[account]; a != nil {
		for _, e := range a.order {
			if e.visible {
				all++
				if e.t.IsActive {
					active++
				}
			}
		}
	}
	return all, active
}

// Get returns account's target for handle.
func (r *Registry) Get(account, handle string) (persistence.Target, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if e := r.lookup(account, handle); e != nil && e.visible {
		return e.t, true
	}
	return persistence.Target{}, false
}

// Add tracks handle for account under ceiling max (active targets and adds
// in flight). A paused target is reactivated; an active one is ErrExists. It
// returns once the row is committed. If ctx ends first Add returns ctx.Err()
// and the write goes on: the target may still be added. handle may be
// spelled as the customer typed it: the target is its key and keeps the
// spelling as its ScreenName.
func (r *Registry) Add(ctx context.Context, account, handle, displayName string, socialID *string, max int) (persistence.Target, error) {
	key, typed := protocol.NormalizeHandle(handle), protocol.HandleSpelling(handle)
	if typed == key {
		typed = ""
	}
	p, t, err := r.reserveAdd(ctx, account, key, typed, displayName, socialID, max)
	if p == nil {
		return t, err
	}
	r.poke()
	return r.wait(ctx, p)
}

// reserveAdd is Add up to the commit: it returns the op to wait for, or
// Add's answer.
func (r *Registry) reserveAdd(ctx context.Context, account, handle, screenName, displayName string, socialID *string, max int) (*op, persistence.Target, error) {
	r.mu.Lock()
	e, err := r.settled(ctx, account, handle)
	if err != nil {
		return nil, persistence.Target{}, err
	}
	defer r.mu.Unlock()
	if e != nil && e.t.IsActive {
		return nil, e.t, ErrExists
	}
	if a := r.accounts[account]; a != nil && a.active >= max {
		return nil, persistence.Target{}, ErrLimit
	}
	p := &op{done: make(chan struct{})}
	if e != nil {
		r.change(e, func() { e.op, e.t.ScreenName = p, screenName })
		if socialID != nil && e.t.SocialUserID == nil { // known by now: resolve it with the add
			r.setUser(e, *socialID, displayName)
		}
	} else {
		e = &entry{op: p, t: persistence.Target{AccountID: account, Handle: handle, ScreenName: screenName, DisplayName: displayName,
			SocialUserID: socialID, CreatedAt: r.now().UTC()}}
		if r.journal != nil { // the store would assign these (journal.go)
			e.t.ID, e.t.CreatedAt = r.nextID, msTime(e.t.CreatedAt.UnixMilli())
			r.nextID++
		}
		r.attach(e)
		if socialID != nil {
			r.tie(*socialID, handle)
		}
	}
	r.markLocked(e.key())
	r.waiting++
	if r.journal != nil {
		r.queued = append(r.queued, queuedOp{e: e, p: p})
	}
	return p, persistence.Target{}, nil
}

// Remove stops tracking handle for account. It returns once the row is
// deleted (or ctx ends, as for Add).
func (r *Registry) Remove(ctx context.Context, account, handle string) error {
	p, err := r.reserveRemove(ctx, account, handle)
	if p == nil {
		return err
	}
	r.poke()
	_, err = r.wait(ctx, p)
	return err
}

// reserveRemove is Remove up to the commit.
func (r *Registry) reserveRemove(ctx context.Context, account, handle string) (*op, error) {
	r.mu.Lock()
	e, err := r.settled(ctx, account, handle)
	if err != nil {
		return nil, err
	}
	defer r.mu.Unlock()
	if e == nil {
		return nil, ErrNotTracked
	}
	p := &op{remove: true, done: make(chan struct{})}
	r.change(e, func() { e.op = p })
	r.markLocked(e.key())
	r.waiting++
	if r.journal != nil {
		r.queued = append(r.queued, queuedOp{e: e, p: p})
	}
	return p, nil
}

// settled returns the entry of (account, handle) once no op is in flight on
// it, or nil if there is none; a second op on a key waits for the first. It
// is called with r.mu held and returns with it held, unless it fails.
func (r *Registry) settled(ctx context.Context, account, handle string) (*entry, error) {
	for {
		if r.closed {
			r.mu.Unlock()
			return nil, ErrClosed
		}
		e := r.lookup(account, handle)
		if e == nil || e.op == nil {
			return e, nil
		}
		p := e.op
		r.mu.Unlock()
		select {
		case <-p.done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		r.mu.Lock()
	}
}

// wait waits for p's commit.
func (r *Registry) wait(ctx context.Context, p *op) (persistence.Target, error) {
	select {
	case <-p.done:
		return p.saved, p.err
	case <-ctx.Done():
		return persistence.Target{}, ctx.Err()
	}
}
