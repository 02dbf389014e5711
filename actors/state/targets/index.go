package targets

import (
	"slices"

	"github.com/alertd/alertd/persistence"
)

// entry is one target in memory. Every field is guarded by Registry.mu.
type entry struct {
	t persistence.Target
	// visible is false while the Add that created the entry is in flight:
	// readers do not see a target before its row is committed.
	visible bool
	// op is the Add or Remove in flight on the entry, if any (at most one;
	// a second waits for the first).
	op *op
}

// op is an Add or Remove waiting for its commit. The committer settles it:
// err and saved are written under Registry.mu, then done is closed.
type op struct {
	remove bool
	done   chan struct{}
	err    error
	saved  persistence.Target
}

// counts tells whether e takes one of its account's handles: an active
// target, or an add in flight (reserved, so that concurrent adds cannot pass
// the ceiling together).
func (e *entry) counts() bool {
	if e.op != nil && !e.op.remove {
		return true
	}
	return e.visible && e.t.IsActive
}

// image is the row the store must hold for e, or false for no row.
func (e *entry) image() (persistence.Target, bool) {
	switch {
	case e.op != nil && e.op.remove:
		return persistence.Target{}, false
	case e.op != nil:
		t := e.t
		t.IsActive = true
		return t, true
	default:
		return e.t, e.visible
	}
}

func (e *entry) key() persistence.TargetKey {
	return persistence.TargetKey{AccountID: e.t.AccountID, Handle: e.t.Handle}
}

// account is one account's list.
type account struct {
	order  []*entry // creation order, entries in flight included
	active int      // entries that count toward the ceiling (entry.counts)
}

// lookup returns the entry of (acct, handle), or nil.
func (r *Registry) lookup(acct, handle string) *entry {
	return r.at[handle][acct]
}

// attach adds a new entry to its account's list and to the indexes.
func (r *Registry) attach(e *entry) {
	a := r.accounts[e.t.AccountID]
	if a == nil {
		a = &account{}
		r.accounts[e.t.AccountID] = a
	}
	a.order = append(a.order, e)
	if e.counts() {
		a.active++
	}
	r.index(e)
}

// detach removes e from its account's list and the indexes; an op waiting
// on e is the caller's to settle.
func (r *Registry) detach(e *entry) {
	a := r.accounts[e.t.AccountID]
	if e.counts() {
		a.active--
	}
	if i := slices.Index(a.order, e); i >= 0 {
		a.order = slices.Delete(a.order, i, i+1)
	}
	if len(a.order) == 0 {
		delete(r.accounts, e.t.AccountID)
	}
	r.unindex(e)
}

// change runs f on e, keeping its account's active count right.
func (r *Registry) change(e *entry, f func()) {
	before := e.counts()
	f()
	if after := e.counts(); after != before {
		if after {
			r.accounts[e.t.AccountID].active++
		} else {
			r.accounts[e.t.AccountID].active--
		}
	}
}

// index puts e under its handle and counts it as unresolved if it has no
// user id. tied is kept by the callers (see Registry.tied).
func (r *Registry) index(e *entry) {
	m := r.at[e.t.Handle]
	if m == nil {
		m = map[string]*entry{}
		r.at[e.t.Handle] = m
	}
	m[e.t.AccountID] = e
	if e.t.SocialUserID == nil {
		r.unresolved[e.t.Handle]++
	}
}

// unindex undoes index.
func (r *Registry) unindex(e *entry) {
	h := e.t.Handle
	if m := r.at[h]; m != nil && m[e.t.AccountID] == e {
		delete(m, e.t.AccountID)
		if len(m) == 0 {
			delete(r.at, h)
		}
	}
	if e.t.SocialUserID == nil {
		if r.unresolved[h]--; r.unresolved[h] <= 0 {
			delete(r.unresolved, h)
		}
	}
}

// setUser fills in the user id of e, which has none.
func (r *Registry) setUser(e *entry, socialID, displayName string) {
	id := socialID
	e.t.SocialUserID, e.t.DisplayName = &id, displayName
	if r.unresolved[e.t.Handle]--; r.unresolved[e.t.Handle] <= 0 {
		delete(r.unresolved, e.t.Handle)
	}
	r.tie(socialID, e.t.Handle)
}

// tie records that user id's targets are at handle: if they are known to be
// at another handle, they are now at several (the next Resolve of the user
// gathers them).
func (r *Registry) tie(id, handle string) {
	if cur, ok := r.tied[id]; !ok {
		r.tied[id] = handle
	} else if cur != handle {
		r.tied[id] = scatter
	}
}
