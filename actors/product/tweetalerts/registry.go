package tweetalerts

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/alertd/alertd/persistence"
)

// Errors of the Registry.
var (
	ErrPlanFull       = errors.New("plan limit reached")
	ErrNotTracked     = errors.New("handle not tracked")
	ErrNoWebhook      = errors.New("no such webhook")
	ErrWebhookLimit   = errors.New("webhook limit reached")
	ErrBadPrefsTarget = errors.New("empty account or handle")
)

// Store is what the Registry keeps in persistence.
type Store interface {
	TrackHandles(ctx context.Context, hs []persistence.TrackedHandle) error
	UntrackHandle(ctx context.Context, account, handle string) error
	ListTrackedHandles(ctx context.Context) ([]persistence.TrackedHandle, error)
	PutHandlePrefs(ctx context.Context, p persistence.HandlePrefs) error
	ListHandlePrefs(ctx context.Context) ([]persistence.HandlePrefs, error)
	PutTweetAlertsSettings(ctx context.Context, s persistence.TweetAlertsSettings) error
	ListTweetAlertsSettings(ctx context.Context) ([]persistence.TweetAlertsSettings, error)
	CreateWebhook(ctx context.Context, w persistence.Webhook) (persistence.Webhook, error)
	ListActiveWebhooks(ctx context.Context) ([]persistence.Webhook, error)
	DeactivateWebhook(ctx context.Context, account string, id int64, at time.Time) error
	SetWebhookFailures(ctx context.Context, id int64, failures int, disable bool, at time.Time) error
}

// Listener hears changes that other parts follow: the webhook engine
// (endpoints) and the WebSocket stream (untracked handles). Calls come after
// the change is stored, outside the Registry's locks.
type Listener interface {
	WebhookAdded(w persistence.Webhook)
	WebhookRemoved(id int64)
	Untracked(account, handle string)
}

type prefKey struct{ account, handle string }

type hookEntry struct {
	w persistence.Webhook
	f hookFilter
}

// Registry is the in-memory, write-through state of the consumer API:
// tracked lists, per-handle prefs, settings and active webhooks. Reads never
// touch the store; writes are stored first, then applied. Safe for
// concurrent use.
type Registry struct {
	store    Store
	now      func() time.Time
	listener Listener
	onChange func(account string) // registry_reload.go

	wmu sync.Mutex // serialises writers so that store and memory agree

	mu          sync.RWMutex
	lists       map[string][]persistence.TrackedHandle // by AddedAt, then handle
	rank        map[prefKey]int                        // a tracked handle's index in its account's list
	watchers    map[string]map[string]struct{}         // handle -> accounts tracking it
	prefs       map[prefKey]persistence.HandlePrefs
	settings    map[string]persistence.TweetAlertsSettings
	hooks       map[int64]*hookEntry
	hooksByAcct map[string][]int64 // by id
}

// NewRegistry returns an empty registry over store; call Load before use.
func NewRegistry(store Store, now func() time.Time) *Registry {
	if now == nil {
		now = time.Now
	}
	return &Registry{store: store, now: now,
		lists: map[string][]persistence.TrackedHandle{}, rank: map[prefKey]int{}, watchers: map[string]map[string]struct{}{},
		prefs: map[prefKey]persistence.HandlePrefs{}, settings: map[string]persistence.TweetAlertsSettings{},
		hooks: map[int64]*hookEntry{}, hooksByAcct: map[string][]int64{}}
}

// SetListener sets who hears about changes (before the first change).
func (r *Registry) SetListener(l Listener) { r.listener = l }

// stored is what the registry keeps, as the store has it (Load, Reload).
type stored struct {
	tracked  []persistence.TrackedHandle
	prefs    []persistence.HandlePrefs
	settings []persistence.TweetAlertsSettings
	hooks    []persistence.Webhook
}

func (r *Registry) readStored(ctx context.Context) (st stored, err error) {
	if st.tracked, err = r.store.ListTrackedHandles(ctx); err != nil {
		return st, err
	}
	if st.prefs, err = r.store.ListHandlePrefs(ctx); err != nil {
		return st, err
	}
	if st.settings, err = r.store.ListTweetAlertsSettings(ctx); err != nil {
		return st, err
	}
	st.hooks, err = r.store.ListActiveWebhooks(ctx)
	return st, err
}

// Load reads everything from the store.
func (r *Registry) Load(ctx context.Context) error {
	st, err := r.readStored(ctx)
	if err != nil {
		return err
	}
	tracked, prefs, settings, hooks := st.tracked, st.prefs, st.settings, st.hooks
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, t := range tracked {
		r.rank[prefKey{t.AccountID, t.Handle}] = len(r.lists[t.AccountID])
		r.lists[t.AccountID] = append(r.lists[t.AccountID], t)
		r.watchLocked(t.AccountID, t.Handle)
	}
	for _, p := range prefs {
		r.prefs[prefKey{p.AccountID, p.Handle}] = p
	}
	for _, s := range settings {
		r.settings[s.AccountID] = s
	}
	for _, w := range hooks {
		r.addHookLocked(w)
	}
	return nil
}

func (r *Registry) watchLocked(account, handle string) {
	m := r.watchers[handle]
	if m == nil {
		m = map[string]struct{}{}
		r.watchers[handle] = m
	}
	m[account] = struct{}{}
}

// Tracked returns a copy of account's list, oldest first.
func (r *Registry) Tracked(account string) []persistence.TrackedHandle {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return slices.Clone(r.lists[account])
}

// Count is the number of handles account tracks.
func (r *Registry) Count(account string) int {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return len(r.lists[account])
}

// Get returns account's entry for handle and its rank (0 = oldest).
func (r *Registry) Get(account, handle string) (persistence.TrackedHandle, int, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	for i, t := range r.lists[account] {
		if t.Handle == handle {
			return t, i, true
		}
	}
	return persistence.TrackedHandle{}, -1, false
}

// IsTracked reports whether account tracks handle.
func (r *Registry) IsTracked(account, handle string) bool {
	_, _, ok := r.Get(account, handle)
	return ok
}

// Track adds handles (normalized, deduplicated) to account's list under
// limit: a handle already tracked is reported in existing; one for which
// eligible is false (unknown or suspended) is skipped silently, as are the
// handles beyond the remaining slots. ErrPlanFull when the list is full
// before anything is added.
func (r *Registry) Track(ctx context.Context, account string, handles []string, limit int, eligible func(string) bool) (added, existing []string, total int, err error) {
	r.wmu.Lock()
	defer r.wmu.Unlock()
	r.mu.RLock()
	cur := r.lists[account]
	have := make(map[string]bool, len(cur))
	for _, t := range cur {
		have[t.Handle] = true
	}
	n := len(cur)
	r.mu.RUnlock()
	added, existing = []string{}, []string{}
	for _, h := range handles {
		if have[h] {
			existing = append(existing, h)
		}
	}
	if n >= limit {
		return added, existing, n, ErrPlanFull
	}
	for _, h := range handles {
		if have[h] || n+len(added) >= limit || !eligible(h) {
			continue
		}
		added = append(added, h)
	}
	if len(added) == 0 {
		return added, existing, n, nil
	}
	// AddedAt strictly increases along the list (one millisecond apart at
	// least), so that the list keeps the order handles were added in, the
	// request's order included, across restarts too.
	at := r.now().UTC().Truncate(time.Millisecond)
	if len(cur) > 0 {
		if last := cur[len(cur)-1].AddedAt; !at.After(last) {
			at = last.Add(time.Millisecond)
		}
	}
	rows := make([]persistence.TrackedHandle, len(added))
	for i, h := range added {
		rows[i] = persistence.TrackedHandle{AccountID: account, Handle: h, AddedAt: at.Add(time.Duration(i) * time.Millisecond)}
	}
	if err := r.store.TrackHandles(ctx, rows); err != nil {
		return nil, nil, n, err
	}
	r.mu.Lock()
	list := append(r.lists[account], rows...)
	for i, h := range added {
		r.rank[prefKey{account, h}] = len(list) - len(added) + i
		r.watchLocked(account, h)
	}
	r.lists[account] = list
	total = len(list)
	r.mu.Unlock()
	r.changed(account)
	return added, existing, total, nil
}

// Untrack removes handle from account's list; its keywords stay, its mute
// and filters are cleared. ErrNotTracked if it is not on the list.
func (r *Registry) Untrack(ctx context.Context, account, handle string) (total int, err error) {
	r.wmu.Lock()
	defer r.wmu.Unlock()
	if !r.IsTracked(account, handle) {
		return r.Count(account), ErrNotTracked
	}
	if err := r.store.UntrackHandle(ctx, account, handle); err != nil {
		if errors.Is(err, persistence.ErrNotFound) {
			return r.Count(account), ErrNotTracked
		}
		return 0, err
	}
	r.mu.Lock()
	r.lists[account] = slices.DeleteFunc(r.lists[account], func(t persistence.TrackedHandle) bool { return t.Handle == handle })
	delete(r.rank, prefKey{account, handle})
	for i, t := range r.lists[account] { // the ones behind it move up
		r.rank[prefKey{account, t.Handle}] = i
	}
	if len(r.lists[account]) == 0 {
		delete(r.lists, account)
	}
	if m := r.watchers[handle]; m != nil {
		delete(m, account)
		if len(m) == 0 {
			delete(r.watchers, handle)
		}
	}
	k := prefKey{account, handle}
	if p, ok := r.prefs[k]; ok {
		p.Muted, p.ExcludeReplies, p.ExcludeReposts, p.ExcludeQuotes = false, false, false, false
		r.prefs[k] = p
	}
	total = len(r.lists[account])
	r.mu.Unlock()
	r.changed(account)
	if r.listener != nil {
		r.listener.Untracked(account, handle)
	}
	return total, nil
}
