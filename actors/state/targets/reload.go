package targets

import (
	"context"
	"maps"
	"slices"

	"github.com/alertd/alertd/persistence"
)

// reloadRequest is a Reload for the committer.
type reloadRequest struct {
	ctx      context.Context
	accounts []string // nil: every account
	done     chan error
}

// OnChange sets f to hear, from the committer, the accounts whose targets
// it wrote: adds, removes, renames and resolves (a cluster announces them
// to the other nodes, which Reload them). Set it before use.
func (r *Registry) OnChange(f func(accounts []string)) {
	r.mu.Lock()
	r.onChange = f
	r.mu.Unlock()
}

// Reload reads the targets of accounts (nil: every account) from the store
// again, because another process changed them, and makes memory match:
// targets that came are added and those that went are removed, and the
// listener hears both as for this registry's own changes (onChange does
// not: the change was not made here).
//
// It runs on the committer between two rounds, so no write of this
// registry is in flight while the store is read and nothing it commits
// lands between the read and the update of memory. Keys that wait for a
// write (an add or remove in flight, a rename or resolve not yet written)
// keep what memory holds: that change is newer than the store's row, and
// is written next. The committer does not commit while it reads: a Reload
// delays this node's adds by one read of the store, of the accounts named
// only (a full reload, after the feed's connection came back, reads all).
func (r *Registry) Reload(ctx context.Context, accounts []string) error {
	q := reloadRequest{ctx: ctx, accounts: accounts, done: make(chan error, 1)}
	select {
	case r.reloads <- q:
	case <-r.done:
		return ErrClosed
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case err := <-q.done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// reload is Reload on the committer.
func (r *Registry) reload(ctx context.Context, accounts []string) error {
	var rows []persistence.Target
	var err error
	if accounts == nil {
		rows, err = r.store.ListAllTargets(ctx)
	} else {
		rows, err = r.store.ListTargetsOf(ctx, accounts) // the committer waits for these accounts' rows only
	}
	if err != nil {
		return err
	}
	stored := map[string][]persistence.Target{}
	for _, t := range rows {
		stored[t.AccountID] = append(stored[t.AccountID], t)
	}
	r.mu.Lock()
	if accounts == nil {
		all := maps.Clone(stored)
		for a := range r.accounts {
			all[a] = stored[a]
		}
		accounts = slices.Sorted(maps.Keys(all))
	}
	var added, removed []persistence.TargetKey
	for _, a := range accounts {
		ad, rm := r.reloadAccount(a, stored[a])
		added, removed = append(added, ad...), append(removed, rm...)
	}
	l := r.listener
	r.mu.Unlock()
	tell(l, added, removed)
	return nil
}

// reloadAccount makes account's entries match rows, its targets in the
// store, but for keys waiting for a write. It returns the active targets
// that came and went. r.mu is held.
func (r *Registry) reloadAccount(account string, rows []persistence.Target) (added, removed []persistence.TargetKey) {
	byHandle := make(map[string]persistence.Target, len(rows))
	for _, t := range rows {
		byHandle[t.Handle] = t
	}
	if a := r.accounts[account]; a != nil {
		for _, e := range slices.Clone(a.order) {
			row, ok := byHandle[e.t.Handle]
			delete(byHandle, e.t.Handle)
			if _, waits := r.dirty[e.key()]; waits || e.op != nil {
				continue
			}
			was := e.visible && e.t.IsActive
			if !ok {
				r.detach(e)
				if was {
					removed = append(removed, e.key())
				}
				continue
			}
			r.refresh(e, row)
			if now := e.t.IsActive; now != was {
				if now {
					added = append(added, e.key())
				} else {
					removed = append(removed, e.key())
				}
			}
		}
	}
	for _, t := range rows { // in the store's creation order
		if _, new := byHandle[t.Handle]; !new {
			continue
		}
		k := persistence.TargetKey{AccountID: account, Handle: t.Handle}
		if _, waits := r.dirty[k]; waits {
			continue // a rename here moved it; its deletion is written next
		}
		e := &entry{t: t, visible: true}
		r.attach(e)
		if id := t.SocialUserID; id != nil {
			r.tie(*id, t.Handle)
		}
		if t.IsActive {
			added = append(added, k)
		}
	}
	return added, removed
}

// refresh takes row's fields into e, a settled entry of the same key.
func (r *Registry) refresh(e *entry, row persistence.Target) {
	r.change(e, func() { e.t.IsActive = row.IsActive })
	e.t.ID, e.t.CreatedAt, e.t.ScreenName = row.ID, row.CreatedAt, row.ScreenName
	if row.SocialUserID != nil && e.t.SocialUserID == nil {
		r.setUser(e, *row.SocialUserID, row.DisplayName)
	} else if row.DisplayName != "" {
		e.t.DisplayName = row.DisplayName
	}
}

// announce tells onChange the accounts of the items a round wrote: adds
// and removes, and renames and resolves too (another node's registry
// reloads them: its sessions follow a rename observed here).
func (r *Registry) announce(items []item) {
	r.mu.RLock()
	f := r.onChange
	r.mu.RUnlock()
	if f == nil {
		return
	}
	var accounts []string
	seen := map[string]bool{}
	for i := range items {
		if a := items[i].key.AccountID; items[i].err == nil && !seen[a] {
			seen[a] = true
			accounts = append(accounts, a)
		}
	}
	if len(accounts) > 0 {
		f(accounts)
	}
}
