// Package targets owns the B2B target lists: which handles each account
// monitors. The Registry keeps every list in memory (sessions read it at
// login, the fan-out follows it) and writes changes through to the store.
package targets

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/alertd/alertd/persistence"
)

// Listener hears about target changes (the live sessions of the account).
type Listener interface {
	TargetAdded(account, handle string)
	TargetRemoved(account, handle string)
}

// Errors of Add and Remove.
var (
	ErrExists     = errors.New("target already tracked")
	ErrLimit      = errors.New("handle limit reached")
	ErrNotTracked = errors.New("target not in set")
)

// Registry is the in-memory, write-through set of targets. Safe for
// concurrent use.
type Registry struct {
	store    persistence.TargetStore
	listener Listener
	now      func() time.Time

	mu     sync.RWMutex
	byAcct map[string][]*persistence.Target // in creation order
	// pending holds handles that some target waits to resolve (no user id yet).
	pending map[string]bool
}

// NewRegistry returns a registry over store; call Load before use.
func NewRegistry(store persistence.TargetStore, l Listener, now func() time.Time) *Registry {
	if now == nil {
		now = time.Now
	}
	return &Registry{store: store, listener: l, now: now, byAcct: map[string][]*persistence.Target{}, pending: map[string]bool{}}
}

// SetListener sets who hears about changes (wired after sessions exist).
func (r *Registry) SetListener(l Listener) { r.listener = l }

// Load reads every target from the store.
func (r *Registry) Load(ctx context.Context) error {
	all, err := r.store.ListAllTargets(ctx)
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := range all {
		t := all[i]
		r.byAcct[t.AccountID] = append(r.byAcct[t.AccountID], &t)
		if t.SocialUserID == nil {
			r.pending[t.Handle] = true
		}
	}
	return nil
}

// List returns copies of account's targets in creation order.
func (r *Registry) List(account string) []persistence.Target {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]persistence.Target, 0, len(r.byAcct[account]))
	for _, t := range r.byAcct[account] {
		out = append(out, *t)
	}
	return out
}

// ActiveHandles returns the handles account monitors now.
func (r *Registry) ActiveHandles(account string) []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]string, 0, len(r.byAcct[account]))
	for _, t := range r.byAcct[account] {
		if t.IsActive {
			out = append(out, t.Handle)
		}
	}
	return out
}

// Counts returns how many targets account has, and how many are active.
func (r *Registry) Counts(account string) (all, active int) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	for _, t := range r.byAcct[account] {
		all++
		if t.IsActive {
			active++
		}
	}
	return all, active
}

// Get returns account's target for handle.
func (r *Registry) Get(account, handle string) (persistence.Target, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	for _, t := range r.byAcct[account] {
		if t.Handle == handle {
			return *t, true
		}
	}
	return persistence.Target{}, false
}

// Add tracks handle for account under ceiling max (active targets only). A
// paused target is reactivated; an active one is ErrExists.
func (r *Registry) Add(ctx context.Context, account, handle, displayName string, socialID *string, max int) (persistence.Target, error) {
	r.mu.Lock()
	var cur *persistence.Target
	active := 0
	for _, t := range r.byAcct[account] {
		if t.Handle == handle {
			cur = t
		}
		if t.IsActive {
			active++
		}
	}
	if cur != nil && cur.IsActive {
		r.mu.Unlock()
		return *cur, ErrExists
	}
	if active >= max {
		r.mu.Unlock()
		return persistence.Target{}, ErrLimit
	}
	var t persistence.Target
	if cur != nil {
		t = *cur
		t.IsActive = true
		if socialID != nil {
			t.SocialUserID = socialID
		}
	} else {
		t = persistence.Target{AccountID: account, Handle: handle, DisplayName: displayName, SocialUserID: socialID,
			IsActive: true, CreatedAt: r.now().UTC()}
	}
	saved, err := r.store.PutTarget(ctx, t)
	if err != nil {
		r.mu.Unlock()
		return persistence.Target{}, err
	}
	if cur != nil {
		*cur = saved
	} else {
		kept := saved // the registry's copy; saved is returned after the unlock
		r.byAcct[account] = append(r.byAcct[account], &kept)
	}
	if saved.SocialUserID == nil {
		r.pending[handle] = true
	}
	r.mu.Unlock()
	if r.listener != nil {
		r.listener.TargetAdded(account, handle)
	}
	return saved, nil
}

// Remove stops tracking handle for account.
func (r *Registry) Remove(ctx context.Context, account, handle string) error {
	r.mu.Lock()
	list := r.byAcct[account]
	i := slices.IndexFunc(list, func(t *persistence.Target) bool { return t.Handle == handle })
	if i < 0 {
		r.mu.Unlock()
		return ErrNotTracked
	}
	if err := r.store.DeleteTarget(ctx, account, handle); err != nil {
		r.mu.Unlock()
		return err
	}
	r.byAcct[account] = slices.Delete(list, i, i+1)
	r.mu.Unlock()
	if r.listener != nil {
		r.listener.TargetRemoved(account, handle)
	}
	return nil
}

// Resolve fills in the user id of every pending target of handle (a user
// observation arrived for it) and returns how many it changed. It costs a
// map lookup unless some target of handle is pending.
func (r *Registry) Resolve(ctx context.Context, handle, socialID, displayName string) (int, error) {
	r.mu.RLock()
	waiting := r.pending[handle]
	r.mu.RUnlock()
	if !waiting {
		return 0, nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.pending, handle)
	n := 0
	for _, list := range r.byAcct {
		for _, t := range list {
			if t.Handle != handle || t.SocialUserID != nil {
				continue
			}
			c := *t
			id := socialID
			c.SocialUserID, c.DisplayName = &id, displayName
			saved, err := r.store.PutTarget(ctx, c)
			if err != nil {
				return n, err
			}
			*t = saved
			n++
		}
	}
	return n, nil
}

// Rename moves the targets of a renamed platform account from handle from to
// handle to, so that sessions opened after the rename follow the account
// (open sessions were moved by the fan-out hub). Targets of from that belong
// to another user id are left alone; an account already tracking to keeps
// that target and drops the old one. It returns how many targets moved.
func (r *Registry) Rename(ctx context.Context, from, to, socialID string) (int, error) {
	if from == to {
		return 0, nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for acct, list := range r.byAcct {
		i := slices.IndexFunc(list, func(t *persistence.Target) bool {
			return t.Handle == from && (t.SocialUserID == nil || *t.SocialUserID == socialID)
		})
		if i < 0 {
			continue
		}
		old := list[i]
		if slices.ContainsFunc(list, func(t *persistence.Target) bool { return t.Handle == to }) {
			if err := r.store.DeleteTarget(ctx, acct, from); err != nil {
				return n, err
			}
			r.byAcct[acct] = slices.Delete(list, i, i+1)
			n++
			continue
		}
		c := *old
		id := socialID
		c.ID, c.Handle, c.SocialUserID = 0, to, &id
		saved, err := r.store.PutTarget(ctx, c)
		if err != nil {
			return n, err
		}
		if err := r.store.DeleteTarget(ctx, acct, from); err != nil {
			return n, err
		}
		*old = saved
		n++
	}
	delete(r.pending, from)
	return n, nil
}
