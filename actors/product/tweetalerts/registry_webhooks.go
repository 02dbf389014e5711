package tweetalerts

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/alertd/alertd/persistence"
)

func (r *Registry) addHookLocked(w persistence.Webhook) {
	r.hooks[w.ID] = &hookEntry{w: w, f: newHookFilter(&w)}
	ids := append(r.hooksByAcct[w.AccountID], w.ID)
	slices.Sort(ids)
	r.hooksByAcct[w.AccountID] = ids
}

func (r *Registry) dropHookLocked(id int64) (persistence.Webhook, bool) {
	e := r.hooks[id]
	if e == nil {
		return persistence.Webhook{}, false
	}
	delete(r.hooks, id)
	acct := e.w.AccountID
	r.hooksByAcct[acct] = slices.DeleteFunc(r.hooksByAcct[acct], func(x int64) bool { return x == id })
	if len(r.hooksByAcct[acct]) == 0 {
		delete(r.hooksByAcct, acct)
	}
	return e.w, true
}

// Webhooks returns account's active webhooks by id.
func (r *Registry) Webhooks(account string) []persistence.Webhook {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]persistence.Webhook, 0, len(r.hooksByAcct[account]))
	for _, id := range r.hooksByAcct[account] {
		out = append(out, r.hooks[id].w)
	}
	return out
}

// ActiveWebhooks returns the webhooks of account that fire under a plan of
// limit webhooks: the oldest (lowest ids) limit of them. After a downgrade
// the newer ones stay stored, fire no more, and fire again after an upgrade.
func (r *Registry) ActiveWebhooks(account string, limit int) []persistence.Webhook {
	all := r.Webhooks(account)
	return all[:max(min(limit, len(all)), 0)]
}

// AllWebhooks returns every active webhook (to put them in the engine at start).
func (r *Registry) AllWebhooks() []persistence.Webhook {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]persistence.Webhook, 0, len(r.hooks))
	for _, e := range r.hooks {
		out = append(out, e.w)
	}
	slices.SortFunc(out, func(a, b persistence.Webhook) int { return int(a.ID - b.ID) })
	return out
}

// AddWebhook stores w (active, for w.AccountID) unless the account already
// has limit active webhooks (ErrWebhookLimit).
func (r *Registry) AddWebhook(ctx context.Context, w persistence.Webhook, limit int) (persistence.Webhook, error) {
	r.wmu.Lock()
	defer r.wmu.Unlock()
	r.mu.RLock()
	n := len(r.hooksByAcct[w.AccountID])
	r.mu.RUnlock()
	if n >= limit {
		return persistence.Webhook{}, ErrWebhookLimit
	}
	w.ID, w.IsActive, w.ConsecutiveFailures = 0, true, 0
	saved, err := r.store.CreateWebhook(ctx, w)
	if err != nil {
		return persistence.Webhook{}, err
	}
	r.mu.Lock()
	r.addHookLocked(saved)
	r.mu.Unlock()
	r.changed(saved.AccountID)
	if r.listener != nil {
		r.listener.WebhookAdded(saved)
	}
	return saved, nil
}

// DeleteWebhook deactivates account's webhook id (ErrNoWebhook if account
// has no such active webhook).
func (r *Registry) DeleteWebhook(ctx context.Context, account string, id int64) error {
	r.wmu.Lock()
	defer r.wmu.Unlock()
	r.mu.RLock()
	e := r.hooks[id]
	r.mu.RUnlock()
	if e == nil || e.w.AccountID != account {
		return ErrNoWebhook
	}
	if err := r.store.DeactivateWebhook(ctx, account, id, r.now().UTC()); err != nil {
		if errors.Is(err, persistence.ErrNotFound) {
			return ErrNoWebhook
		}
		return err
	}
	r.mu.Lock()
	r.dropHookLocked(id)
	r.mu.Unlock()
	r.changed(account)
	if r.listener != nil {
		r.listener.WebhookRemoved(id)
	}
	return nil
}

// EndpointHealth records a webhook's consecutive failures; disabled drops it
// for good (it no longer lists nor counts toward the plan). It implements
// webhook.Health.
func (r *Registry) EndpointHealth(ctx context.Context, id int64, failures int, disabled bool) error {
	r.wmu.Lock()
	defer r.wmu.Unlock()
	if err := r.store.SetWebhookFailures(ctx, id, failures, disabled, r.now().UTC()); err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if disabled {
		if w, ok := r.dropHookLocked(id); ok {
			r.changed(w.AccountID) // under mu: onChange only notes it
		}
		return nil
	}
	if e := r.hooks[id]; e != nil {
		e.w.ConsecutiveFailures = failures
	}
	return nil
}

// MatchWebhooks returns the ids of the active webhooks that a new post of
// handle with text goes to: webhooks of every account that tracks handle
// within its plan (limit gives an account's current tracked-account limit;
// handles past it, after a downgrade, are inactive), within its plan's
// webhook count (hookLimit; nil: no limit; the newest past it are inactive,
// as in ActiveWebhooks), whose filters match.
func (r *Registry) MatchWebhooks(handle, text string, limit, hookLimit func(account string) int) []int64 {
	r.mu.RLock()
	defer r.mu.RUnlock()
	accts := r.watchers[handle]
	if len(accts) == 0 {
		return nil
	}
	var out []int64
	lower := ""
	for acct := range accts {
		ids := r.hooksByAcct[acct]
		if len(ids) == 0 || !r.activeLocked(acct, handle, limit(acct)) {
			continue
		}
		if hookLimit != nil {
			ids = ids[:max(min(hookLimit(acct), len(ids)), 0)]
		}
		if lower == "" {
			lower = strings.ToLower(text)
		}
		for _, id := range ids {
			if e := r.hooks[id]; e.f.matches(handle, lower) {
				out = append(out, id)
			}
		}
	}
	slices.Sort(out)
	return out
}

// IsActive reports whether account tracks handle within a plan of limit
// tracked accounts (after a downgrade the newest past it are inactive).
func (r *Registry) IsActive(account, handle string, limit int) bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.activeLocked(account, handle, limit)
}

// activeLocked reports whether handle ranks within limit on account's list
// (O(1): sockets ask it for every handle they subscribe and re-check).
func (r *Registry) activeLocked(account, handle string, limit int) bool {
	i, ok := r.rank[prefKey{account, handle}]
	return ok && i < limit
}
