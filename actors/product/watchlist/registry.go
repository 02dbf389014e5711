// Package watchlist owns the accounts of the three "watch" products (Community
// Watch, Convergence Tracker, Engagement Tracker): each account's watched
// items (handles or post ids), its settings and its webhook. A Registry keeps
// one product in memory, so that detectors read it without touching the
// store, and writes every change through to the store before it shows.
package watchlist

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
)

// Errors of the Registry's changes.
var (
	ErrExists     = errors.New("already watched")
	ErrLimit      = errors.New("plan limit reached")
	ErrNotWatched = errors.New("not watched")
)

// Item is one watched item of an account with its options O.
type Item[O any] struct {
	Name    string
	Opts    O
	AddedAt time.Time
}

// Webhook is an account's webhook on the product; URL "" means none.
type Webhook struct {
	// ID names the account's config for good: the webhook engine's endpoint.
	ID        int64
	URL       string
	Secret    string
	UpdatedAt time.Time
}

type account[S, O any] struct {
	items    []*Item[O] // in add order
	settings S
	webhook  Webhook
}

// Registry is one product's accounts, with settings S and per-item options
// O (both JSON-encoded in the store). Safe for concurrent use.
type Registry[S, O any] struct {
	product  protocol.Product
	store    persistence.WatchStore
	now      func() time.Time
	defaults func() S

	mu     sync.RWMutex
	accts  map[string]*account[S, O]
	byItem map[string]map[string]struct{} // item -> accounts watching it
	// writeMu serialises changes so that the store and memory agree.
	writeMu sync.Mutex
	// onChange hears the accounts whose entries this registry changed (a
	// cluster tells the other nodes, which Reload); nil for one node.
	onChange func(account string)
}

// New returns an empty registry of product p; defaults gives the settings of
// an account that never set any. Call Load before use.
func New[S, O any](p protocol.Product, store persistence.WatchStore, defaults func() S, now func() time.Time) *Registry[S, O] {
	if now == nil {
		now = time.Now
	}
	return &Registry[S, O]{product: p, store: store, now: now, defaults: defaults,
		accts: map[string]*account[S, O]{}, byItem: map[string]map[string]struct{}{}}
}

// Product is the registry's product.
func (r *Registry[S, O]) Product() protocol.Product { return r.product }

// Load reads the product's targets and configs from the store.
func (r *Registry[S, O]) Load(ctx context.Context) error {
	st, err := r.readStored(ctx, nil)
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.applyLocked(st, nil)
}

func (r *Registry[S, O]) accountLocked(id string) *account[S, O] {
	a := r.accts[id]
	if a == nil {
		a = &account[S, O]{settings: r.defaults()}
		r.accts[id] = a
	}
	return a
}

func (r *Registry[S, O]) indexLocked(acct, item string) {
	set := r.byItem[item]
	if set == nil {
		set = map[string]struct{}{}
		r.byItem[item] = set
	}
	set[acct] = struct{}{}
}

func (r *Registry[S, O]) unindexLocked(acct, item string) {
	if set := r.byItem[item]; set != nil {
		delete(set, acct)
		if len(set) == 0 {
			delete(r.byItem, item)
		}
	}
}

func (a *account[S, O]) find(item string) int {
	return slices.IndexFunc(a.items, func(it *Item[O]) bool { return it.Name == item })
}

// Add watches item for acct under the ceiling max (the number of items).
func (r *Registry[S, O]) Add(ctx context.Context, acct, item string, opts O, max int) (Item[O], error) {
	added, _, err := r.AddMany(ctx, acct, []string{item}, func(string) O { return opts }, max)
	if err != nil {
		return Item[O]{}, err
	}
	if len(added) == 0 {
		return Item[O]{}, ErrExists
	}
	return added[0], nil
}

// AddMany watches every item of items that acct does not watch yet, all or
// none: ErrLimit when the new ones do not fit under max. It returns the items
// added and the names already watched, each in the order given (a name given
// twice counts once).
func (r *Registry[S, O]) AddMany(ctx context.Context, acct string, items []string, opts func(string) O, max int) (added []Item[O], existing []string, err error) {
	r.writeMu.Lock()
	defer r.writeMu.Unlock()
	defer func() {
		if len(added) > 0 { // those stored, even when a later one failed
			r.changed(acct)
		}
	}()
	r.mu.RLock()
	var fresh []string
	have := 0
	if a := r.accts[acct]; a != nil {
		have = len(a.items)
		for _, it := range items {
			if a.find(it) >= 0 {
				if !slices.Contains(existing, it) {
					existing = append(existing, it)
				}
			} else if !slices.Contains(fresh, it) {
				fresh = append(fresh, it)
			}
		}
	} else {
		for _, it := range items {
			if !slices.Contains(fresh, it) {
				fresh = append(fresh, it)
			}
		}
	}
	r.mu.RUnlock()
	if len(fresh) == 0 {
		return nil, existing, nil
	}
	if have+len(fresh) > max {
		return nil, existing, ErrLimit
	}
	now := r.now().UTC().Truncate(time.Millisecond)
	for _, name := range fresh {
		it := Item[O]{Name: name, Opts: opts(name), AddedAt: now}
		raw, err := encodeOpts(it.Opts)
		if err != nil {
			return added, existing, err
		}
		err = r.store.AddWatchTarget(ctx, persistence.WatchTarget{Product: r.product, AccountID: acct, Item: name, Options: raw, CreatedAt: now})
		if err != nil && !errors.Is(err, persistence.ErrExists) {
			return added, existing, err
		}
		r.mu.Lock()
		a := r.accountLocked(acct)
		a.items = append(a.items, &it)
		r.indexLocked(acct, name)
		r.mu.Unlock()
		added = append(added, it)
	}
	return added, existing, nil
}

// encodeOpts stores options as JSON, and the zero options as nothing.
func encodeOpts[O any](o O) ([]byte, error) {
	b, err := json.Marshal(o)
	if err != nil {
		return nil, err
	}
	var zero O
	if z, _ := json.Marshal(zero); string(z) == string(b) {
		return nil, nil
	}
	return b, nil
}

// Remove stops watching item for acct.
func (r *Registry[S, O]) Remove(ctx context.Context, acct, item string) error {
	r.writeMu.Lock()
	defer r.writeMu.Unlock()
	if !r.Has(acct, item) {
		return ErrNotWatched
	}
	if err := r.store.DeleteWatchTarget(ctx, r.product, acct, item); err != nil && !errors.Is(err, persistence.ErrNotFound) {
		return err
	}
	r.mu.Lock()
	a := r.accts[acct]
	if i := a.find(item); i >= 0 {
		a.items = slices.Delete(a.items, i, i+1)
	}
	r.unindexLocked(acct, item)
	r.mu.Unlock()
	r.changed(acct)
	return nil
}

// SetOptions replaces the options of one watched item.
func (r *Registry[S, O]) SetOptions(ctx context.Context, acct, item string, opts O) (Item[O], error) {
	r.writeMu.Lock()
	defer r.writeMu.Unlock()
	if !r.Has(acct, item) {
		return Item[O]{}, ErrNotWatched
	}
	raw, err := encodeOpts(opts)
	if err != nil {
		return Item[O]{}, err
	}
	if err := r.store.SetWatchTargetOptions(ctx, r.product, acct, item, raw); err != nil {
		return Item[O]{}, err
	}
	r.mu.Lock()
	a := r.accts[acct]
	it := a.items[a.find(item)]
	it.Opts = opts
	out := *it
	r.mu.Unlock()
	r.changed(acct)
	return out, nil
}

// Items returns copies of acct's items, in the order they were added.
func (r *Registry[S, O]) Items(acct string) []Item[O] {
	r.mu.RLock()
	defer r.mu.RUnlock()
	a := r.accts[acct]
	if a == nil {
		return []Item[O]{}
	}
	out := make([]Item[O], len(a.items))
	for i, it := range a.items {
		out[i] = *it
	}
	return out
}

// Names returns the names of acct's items, in the order they were added.
func (r *Registry[S, O]) Names(acct string) []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	a := r.accts[acct]
	if a == nil {
		return []string{}
	}
	out := make([]string, len(a.items))
	for i, it := range a.items {
		out[i] = it.Name
	}
	return out
}

// Item returns acct's item named item.
func (r *Registry[S, O]) Item(acct, item string) (Item[O], bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if a := r.accts[acct]; a != nil {
		if i := a.find(item); i >= 0 {
			return *a.items[i], true
		}
	}
	return Item[O]{}, false
}

// Has reports whether acct watches item.
func (r *Registry[S, O]) Has(acct, item string) bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	_, ok := r.byItem[item][acct]
	return ok
}

// Count is the number of items acct watches.
func (r *Registry[S, O]) Count(acct string) int {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if a := r.accts[acct]; a != nil {
		return len(a.items)
	}
	return 0
}

// Watched reports whether any account watches item. It is the detectors'
// first check on every observation, so it costs one map lookup.
func (r *Registry[S, O]) Watched(item string) bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return len(r.byItem[item]) > 0
}

// Watchers returns the accounts that watch item, sorted.
func (r *Registry[S, O]) Watchers(item string) []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	set := r.byItem[item]
	out := make([]string, 0, len(set))
	for a := range set {
		out = append(out, a)
	}
	slices.Sort(out)
	return out
}

// AllItems returns every item any account watches, sorted.
func (r *Registry[S, O]) AllItems() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]string, 0, len(r.byItem))
	for it := range r.byItem {
		out = append(out, it)
	}
	slices.Sort(out)
	return out
}

// Webhooks returns every account's webhook, by account.
func (r *Registry[S, O]) Webhooks() map[string]Webhook {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := map[string]Webhook{}
	for id, a := range r.accts {
		if a.webhook.URL != "" {
			out[id] = a.webhook
		}
	}
	return out
}

// Settings returns acct's settings (the defaults if never set).
func (r *Registry[S, O]) Settings(acct string) S {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if a := r.accts[acct]; a != nil {
		return a.settings
	}
	return r.defaults()
}

// UpdateSettings applies change to acct's settings and stores the result.
// change may refuse with an error, which UpdateSettings returns unchanged.
func (r *Registry[S, O]) UpdateSettings(ctx context.Context, acct string, change func(*S) error) (S, error) {
	r.writeMu.Lock()
	defer r.writeMu.Unlock()
	s := r.Settings(acct)
	if err := change(&s); err != nil {
		return s, err
	}
	raw, err := json.Marshal(s)
	if err != nil {
		return s, err
	}
	if err := r.store.PutWatchSettings(ctx, r.product, acct, raw, r.now().UTC()); err != nil {
		return s, err
	}
	r.mu.Lock()
	r.accountLocked(acct).settings = s
	r.mu.Unlock()
	r.changed(acct)
	return s, nil
}

// Webhook returns acct's webhook; ok is false when none is set.
func (r *Registry[S, O]) Webhook(acct string) (w Webhook, ok bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if a := r.accts[acct]; a != nil && a.webhook.URL != "" {
		return a.webhook, true
	}
	return Webhook{}, false
}

// SetWebhook replaces acct's webhook.
func (r *Registry[S, O]) SetWebhook(ctx context.Context, acct, url, secret string) (Webhook, error) {
	r.writeMu.Lock()
	defer r.writeMu.Unlock()
	now := r.now().UTC().Truncate(time.Millisecond)
	id, err := r.store.PutWatchWebhook(ctx, r.product, acct, url, secret, now)
	if err != nil {
		return Webhook{}, err
	}
	w := Webhook{ID: id, URL: url, Secret: secret, UpdatedAt: now}
	r.mu.Lock()
	r.accountLocked(acct).webhook = w
	r.mu.Unlock()
	r.changed(acct)
	return w, nil
}
