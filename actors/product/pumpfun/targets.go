package pumpfun

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/alertd/alertd/persistence"
)

// TargetStore is what the registry needs of the store.
type TargetStore interface {
	AddPFTarget(ctx context.Context, t persistence.PFTarget) error
	DeletePFTarget(ctx context.Context, account, wallet string) error
	ListPFTargets(ctx context.Context) ([]persistence.PFTarget, error)
	ListPFTargetsOf(ctx context.Context, accounts []string) ([]persistence.PFTarget, error)
}

// LimitError is an add refused because an alert type's ceiling is full.
type LimitError struct {
	AlertType string
	Used      int
	Limit     int
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("%s limit reached (%d/%d)", e.AlertType, e.Used, e.Limit)
}

// Registry is the in-memory, write-through view of every account's wallet
// targets. It is safe for concurrent use: REST changes it, the detector and
// the sockets read it.
type Registry struct {
	store    TargetStore
	writeMu  sync.Mutex           // serialises changes so that ceilings hold and store and memory agree
	onChange func(account string) // a cluster announces the account (set before use)

	mu        sync.RWMutex
	byAccount map[string][]persistence.PFTarget // creation order
	watchers  map[string]map[string]alertBits   // wallet -> account -> alert types
}

// NewRegistry returns an empty registry over store; Load fills it.
func NewRegistry(store TargetStore) *Registry {
	return &Registry{store: store, byAccount: map[string][]persistence.PFTarget{}, watchers: map[string]map[string]alertBits{}}
}

// Load reads every target from the store.
func (r *Registry) Load(ctx context.Context) error {
	all, err := r.store.ListPFTargets(ctx)
	if err != nil {
		return fmt.Errorf("load pf targets: %w", err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, t := range all {
		r.putLocked(t)
	}
	return nil
}

func (r *Registry) putLocked(t persistence.PFTarget) {
	r.byAccount[t.AccountID] = append(r.byAccount[t.AccountID], t)
	w := r.watchers[t.Wallet]
	if w == nil {
		w = map[string]alertBits{}
		r.watchers[t.Wallet] = w
	}
	w[t.AccountID] = bitsOf(t.AlertTypes)
}

// Add stores a new target. It fails with persistence.ErrExists when the
// wallet is already on the account's list, and with *LimitError when one of
// its alert types already counts limit targets.
func (r *Registry) Add(ctx context.Context, t persistence.PFTarget, limit int) error {
	r.writeMu.Lock()
	defer r.writeMu.Unlock()
	counts, exists := r.count(t.AccountID, t.Wallet)
	if exists {
		return fmt.Errorf("wallet %s: %w", t.Wallet, persistence.ErrExists)
	}
	for _, a := range t.AlertTypes {
		if counts[a] >= limit {
			return &LimitError{AlertType: a, Used: counts[a], Limit: limit}
		}
	}
	if err := r.store.AddPFTarget(ctx, t); err != nil {
		return err
	}
	r.mu.Lock()
	r.putLocked(t)
	r.mu.Unlock()
	r.changed(t.AccountID)
	return nil
}

func (r *Registry) count(account, wallet string) (map[string]int, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	counts := map[string]int{}
	exists := false
	for _, t := range r.byAccount[account] {
		exists = exists || t.Wallet == wallet
		for _, a := range t.AlertTypes {
			counts[a]++
		}
	}
	return counts, exists
}

// Remove deletes the target of (account, wallet); persistence.ErrNotFound if
// it is not on the list.
func (r *Registry) Remove(ctx context.Context, account, wallet string) error {
	r.writeMu.Lock()
	defer r.writeMu.Unlock()
	r.mu.RLock()
	i := slices.IndexFunc(r.byAccount[account], func(t persistence.PFTarget) bool { return t.Wallet == wallet })
	r.mu.RUnlock()
	if i < 0 {
		return fmt.Errorf("wallet %s: %w", wallet, persistence.ErrNotFound)
	}
	if err := r.store.DeletePFTarget(ctx, account, wallet); err != nil && !errors.Is(err, persistence.ErrNotFound) {
		return err
	}
	r.mu.Lock()
	list := slices.Delete(slices.Clone(r.byAccount[account]), i, i+1)
	if len(list) == 0 {
		delete(r.byAccount, account)
	} else {
		r.byAccount[account] = list
	}
	r.unwatchLocked(wallet, account)
	r.mu.Unlock()
	r.changed(account)
	return nil
}

func (r *Registry) unwatchLocked(wallet, account string) {
	if w := r.watchers[wallet]; w != nil {
		delete(w, account)
		if len(w) == 0 {
			delete(r.watchers, wallet)
		}
	}
}

// List returns the account's targets in creation order.
func (r *Registry) List(account string) []persistence.PFTarget {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return slices.Clone(r.byAccount[account])
}

// Counts returns how many of the account's targets count toward each alert type.
func (r *Registry) Counts(account string) map[string]int {
	c, _ := r.count(account, "")
	for _, a := range AlertTypes {
		c[a] += 0
	}
	return c
}

// watching returns the accounts whose target wallet lists alert type bit.
func (r *Registry) watching(wallet string, bit alertBits) []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	var out []string
	for acc, b := range r.watchers[wallet] {
		if b&bit != 0 {
			out = append(out, acc)
		}
	}
	slices.Sort(out)
	return out
}

// Masks is a socket's view of its account's list, read at connect: each
// wallet with the bits of its alert types, as the frames published on the
// wallet's topic carry them (delivery.Event.Mask).
func (r *Registry) Masks(account string) map[string]uint8 {
	r.mu.RLock()
	defer r.mu.RUnlock()
	f := make(map[string]uint8, len(r.byAccount[account]))
	for _, t := range r.byAccount[account] {
		f[t.Wallet] = uint8(bitsOf(t.AlertTypes))
	}
	return f
}
