// Package watchtest is an in-memory persistence.WatchStore for the tests of
// the watch products' actors (the real stores run the contract suite).
package watchtest

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
)

// Store is a memory WatchStore. Fail, when set, is returned by every write.
type Store struct {
	mu      sync.Mutex
	targets []persistence.WatchTarget
	configs map[string]persistence.WatchConfig
	events  []persistence.WatchEvent
	states  map[string]persistence.WatchState
	nextID  int64
	Fail    error
}

var _ persistence.WatchStore = (*Store)(nil)

// NewStore returns an empty store.
func NewStore() *Store {
	return &Store{configs: map[string]persistence.WatchConfig{}, states: map[string]persistence.WatchState{}}
}

func ck(p protocol.Product, k string) string { return string(p) + "\x00" + k }

func (s *Store) AddWatchTarget(_ context.Context, t persistence.WatchTarget) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.Fail != nil {
		return s.Fail
	}
	for _, x := range s.targets {
		if x.Product == t.Product && x.AccountID == t.AccountID && x.Item == t.Item {
			return persistence.ErrExists
		}
	}
	s.targets = append(s.targets, t)
	return nil
}

func (s *Store) find(p protocol.Product, account, item string) int {
	return slices.IndexFunc(s.targets, func(x persistence.WatchTarget) bool {
		return x.Product == p && x.AccountID == account && x.Item == item
	})
}

func (s *Store) SetWatchTargetOptions(_ context.Context, p protocol.Product, account, item string, opts []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.Fail != nil {
		return s.Fail
	}
	i := s.find(p, account, item)
	if i < 0 {
		return persistence.ErrNotFound
	}
	s.targets[i].Options = opts
	return nil
}

func (s *Store) DeleteWatchTarget(_ context.Context, p protocol.Product, account, item string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.Fail != nil {
		return s.Fail
	}
	i := s.find(p, account, item)
	if i < 0 {
		return persistence.ErrNotFound
	}
	s.targets = slices.Delete(s.targets, i, i+1)
	return nil
}

func (s *Store) ListWatchTargets(_ context.Context, p protocol.Product) ([]persistence.WatchTarget, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []persistence.WatchTarget
	for _, x := range s.targets {
		if x.Product == p {
			out = append(out, x)
		}
	}
	slices.SortStableFunc(out, func(a, b persistence.WatchTarget) int { return cmp.Compare(a.AccountID, b.AccountID) })
	return out, nil
}

func (s *Store) ListWatchTargetsOf(ctx context.Context, p protocol.Product, accounts []string) ([]persistence.WatchTarget, error) {
	all, _ := s.ListWatchTargets(ctx, p)
	return slices.DeleteFunc(all, func(t persistence.WatchTarget) bool { return !slices.Contains(accounts, t.AccountID) }), nil
}

func (s *Store) PutWatchSettings(_ context.Context, p protocol.Product, account string, settings []byte, now time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.Fail != nil {
		return s.Fail
	}
	c := s.configFor(p, account)
	c.Settings, c.UpdatedAt = settings, now
	s.configs[ck(p, account)] = c
	return nil
}

func (s *Store) PutWatchWebhook(_ context.Context, p protocol.Product, account, url, secret string, now time.Time) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.Fail != nil {
		return 0, s.Fail
	}
	c := s.configFor(p, account)
	c.WebhookURL, c.WebhookSecret, c.UpdatedAt = url, secret, now
	s.configs[ck(p, account)] = c
	return c.ID, nil
}

// configFor returns the config of (p, account), with a fresh id if new.
func (s *Store) configFor(p protocol.Product, account string) persistence.WatchConfig {
	c, ok := s.configs[ck(p, account)]
	if !ok {
		s.nextID++
		c = persistence.WatchConfig{ID: s.nextID, Product: p, AccountID: account}
	}
	return c
}

func (s *Store) ListWatchConfigs(_ context.Context, p protocol.Product) ([]persistence.WatchConfig, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []persistence.WatchConfig
	for _, c := range s.configs {
		if c.Product == p {
			out = append(out, c)
		}
	}
	slices.SortFunc(out, func(a, b persistence.WatchConfig) int { return cmp.Compare(a.AccountID, b.AccountID) })
	return out, nil
}

func (s *Store) ListWatchConfigsOf(ctx context.Context, p protocol.Product, accounts []string) ([]persistence.WatchConfig, error) {
	all, _ := s.ListWatchConfigs(ctx, p)
	return slices.DeleteFunc(all, func(c persistence.WatchConfig) bool { return !slices.Contains(accounts, c.AccountID) }), nil
}

func (s *Store) AppendWatchEvents(_ context.Context, evs []persistence.WatchEvent) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.Fail != nil {
		return s.Fail
	}
	for _, e := range evs {
		s.nextID++
		e.ID = s.nextID
		s.events = append(s.events, e)
	}
	return nil
}

func (s *Store) WatchEvents(_ context.Context, p protocol.Product, account string, limit int) ([]persistence.WatchEvent, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []persistence.WatchEvent
	for i := len(s.events) - 1; i >= 0; i-- {
		e := s.events[i]
		if e.Product == p && e.AccountID == account && (limit <= 0 || len(out) < limit) {
			out = append(out, e)
		}
	}
	return out, nil
}

func (s *Store) CountWatchEvents(_ context.Context, p protocol.Product, account string, since time.Time) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, e := range s.events {
		if e.Product == p && e.AccountID == account && !e.CreatedAt.Before(since) {
			n++
		}
	}
	return n, nil
}

func (s *Store) PruneWatchEvents(_ context.Context, p protocol.Product, before time.Time, keep int) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	seen := map[string]int{}
	var kept []persistence.WatchEvent
	n := 0
	for i := len(s.events) - 1; i >= 0; i-- {
		e := s.events[i]
		if e.Product == p {
			seen[e.AccountID]++
			if seen[e.AccountID] > keep && e.CreatedAt.Before(before) {
				n++
				continue
			}
		}
		kept = append(kept, e)
	}
	slices.Reverse(kept)
	s.events = kept
	return n, nil
}

func (s *Store) PutWatchStates(_ context.Context, states []persistence.WatchState) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.Fail != nil {
		return s.Fail
	}
	for _, st := range states {
		s.states[ck(st.Product, st.Key)] = st
	}
	return nil
}

func (s *Store) DeleteWatchStates(_ context.Context, p protocol.Product, keys []string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.Fail != nil {
		return s.Fail
	}
	for _, k := range keys {
		delete(s.states, ck(p, k))
	}
	return nil
}

func (s *Store) ListWatchStates(_ context.Context, p protocol.Product) ([]persistence.WatchState, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []persistence.WatchState
	for _, st := range s.states {
		if st.Product == p {
			out = append(out, st)
		}
	}
	slices.SortFunc(out, func(a, b persistence.WatchState) int { return cmp.Compare(a.Key, b.Key) })
	return out, nil
}

// State returns the state of (p, key), for assertions.
func (s *Store) State(p protocol.Product, key string) (persistence.WatchState, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.states[ck(p, key)]
	return st, ok
}

// Events returns every stored event of p, oldest first, for assertions.
func (s *Store) Events(p protocol.Product) []persistence.WatchEvent {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []persistence.WatchEvent
	for _, e := range s.events {
		if e.Product == p {
			out = append(out, e)
		}
	}
	return out
}

// String summarises the store, for failure messages.
func (s *Store) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return fmt.Sprintf("targets=%d configs=%d events=%d states=%d", len(s.targets), len(s.configs), len(s.events), len(s.states))
}
