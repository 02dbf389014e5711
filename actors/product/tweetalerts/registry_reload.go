package tweetalerts

import (
	"context"
	"maps"
	"slices"

	"github.com/alertd/alertd/persistence"
)

// OnChange sets f to hear the account of every change this registry
// stores (a cluster announces it; the other nodes Reload the account). Set
// it before use; f must not block.
func (r *Registry) OnChange(f func(account string)) { r.onChange = f }

// changed tells onChange; called by writers after the store took a change.
func (r *Registry) changed(account string) {
	if r.onChange != nil {
		r.onChange(account)
	}
}

// Reload reads the tracked lists, prefs, settings and webhooks of accounts
// (nil: every account) from the store again, because another process
// changed them, and makes memory match. The listener hears the handles
// that left a list and the webhooks that came and went, as for this
// registry's own changes; onChange does not (the change was not made
// here). It holds the writers' lock, so no write of this registry lands
// between its read and the update of memory.
func (r *Registry) Reload(ctx context.Context, accounts []string) error {
	r.wmu.Lock()
	defer r.wmu.Unlock()
	st, err := r.readStored(ctx)
	if err != nil {
		return err
	}
	tracked, prefs, settings, hooks := st.tracked, st.prefs, st.settings, st.hooks
	want := map[string]bool{}
	if accounts == nil {
		for a := range r.lists { // memory's accounts too: those the store no longer has
			want[a] = true
		}
		for a := range r.hooksByAcct {
			want[a] = true
		}
		for a := range r.settings {
			want[a] = true
		}
		for _, t := range tracked {
			want[t.AccountID] = true
		}
		for _, w := range hooks {
			want[w.AccountID] = true
		}
		for _, s := range settings {
			want[s.AccountID] = true
		}
	}
	for _, a := range accounts {
		want[a] = true
	}

	var untracked []prefKey
	var added []persistence.Webhook
	var removed []int64
	r.mu.Lock()
	// Tracked lists: the store's order is the list's (by AddedAt, then handle).
	lists := map[string][]persistence.TrackedHandle{}
	for _, t := range tracked {
		if want[t.AccountID] {
			lists[t.AccountID] = append(lists[t.AccountID], t)
		}
	}
	for a := range want {
		for _, t := range r.lists[a] {
			if !slices.ContainsFunc(lists[a], func(n persistence.TrackedHandle) bool { return n.Handle == t.Handle }) {
				untracked = append(untracked, prefKey{a, t.Handle})
				delete(r.rank, prefKey{a, t.Handle})
				if m := r.watchers[t.Handle]; m != nil {
					delete(m, a)
					if len(m) == 0 {
						delete(r.watchers, t.Handle)
					}
				}
			}
		}
		if l := lists[a]; len(l) > 0 {
			r.lists[a] = l
		} else {
			delete(r.lists, a)
		}
		for i, t := range lists[a] {
			r.rank[prefKey{a, t.Handle}] = i
			r.watchLocked(a, t.Handle)
		}
	}
	// Prefs and settings.
	maps.DeleteFunc(r.prefs, func(k prefKey, _ persistence.HandlePrefs) bool { return want[k.account] })
	for _, p := range prefs {
		if want[p.AccountID] {
			r.prefs[prefKey{p.AccountID, p.Handle}] = p
		}
	}
	maps.DeleteFunc(r.settings, func(a string, _ persistence.TweetAlertsSettings) bool { return want[a] })
	for _, s := range settings {
		if want[s.AccountID] {
			r.settings[s.AccountID] = s
		}
	}
	// Webhooks: the active ones; a known one keeps its entry (failures as
	// the store has them).
	active := map[int64]bool{}
	for _, w := range hooks {
		if !want[w.AccountID] {
			continue
		}
		active[w.ID] = true
		if e := r.hooks[w.ID]; e != nil {
			e.w.ConsecutiveFailures = w.ConsecutiveFailures
			continue
		}
		r.addHookLocked(w)
		added = append(added, w)
	}
	for a := range want {
		for _, id := range slices.Clone(r.hooksByAcct[a]) {
			if !active[id] {
				r.dropHookLocked(id)
				removed = append(removed, id)
			}
		}
	}
	r.mu.Unlock()
	if l := r.listener; l != nil {
		for _, k := range untracked {
			l.Untracked(k.account, k.handle)
		}
		for _, w := range added {
			l.WebhookAdded(w)
		}
		for _, id := range removed {
			l.WebhookRemoved(id)
		}
	}
	return nil
}
