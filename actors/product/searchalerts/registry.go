package searchalerts

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
)

// QueryStore is what the registry needs of the store.
type QueryStore interface {
	CreateSAQuery(ctx context.Context, q persistence.SAQuery) (persistence.SAQuery, error)
	DeleteSAQuery(ctx context.Context, account string, id int64) error
	ListSAQueries(ctx context.Context) ([]persistence.SAQuery, error)
	ListSAQueriesOf(ctx context.Context, accounts []string) ([]persistence.SAQuery, error)
}

// ErrLimit refuses a query beyond protocol.SAMaxQueries.
var ErrLimit = errors.New("query limit reached")

// DuplicateError refuses a query with the same words as a saved one.
type DuplicateError struct{ ID int64 }

func (e *DuplicateError) Error() string {
	return fmt.Sprintf("a query with the same words is already saved (query_id %d)", e.ID)
}

// query is a saved query, compiled.
type query struct {
	persistence.SAQuery
	words []string
	every time.Duration
}

// sameWords is the key of a query's word set (word order does not matter).
func sameWords(words []string) string {
	w := slices.Clone(words)
	slices.Sort(w)
	return strings.Join(w, " ")
}

// Registry is the in-memory, write-through view of every account's queries,
// indexed by their longest word for matching. Safe for concurrent use.
type Registry struct {
	store     QueryStore
	intervals []time.Duration

	writeMu  sync.Mutex
	onChange func(account string) // a cluster announces the account (set before use)
	total    atomic.Int64         // queries of every account: 0 lets the post tap skip work
	mu       sync.RWMutex
	byID     map[int64]*query
	account  map[string][]*query // creation order
	index    map[string][]*query // a query's longest word -> queries
}

// NewRegistry returns an empty registry; Load fills it. intervals are
// protocol.Timings.SAIntervals.
func NewRegistry(store QueryStore, intervals []time.Duration) *Registry {
	return &Registry{store: store, intervals: intervals, byID: map[int64]*query{},
		account: map[string][]*query{}, index: map[string][]*query{}}
}

// Load reads every query from the store.
func (r *Registry) Load(ctx context.Context) error {
	all, err := r.store.ListSAQueries(ctx)
	if err != nil {
		return fmt.Errorf("load sa queries: %w", err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, q := range all {
		c, err := r.compile(q)
		if err != nil {
			return fmt.Errorf("load sa query %d: %w", q.ID, err)
		}
		r.putLocked(c)
	}
	return nil
}

func (r *Registry) compile(q persistence.SAQuery) (*query, error) {
	_, words, err := ParseQuery(q.Text)
	if err != nil {
		return nil, err
	}
	every, ok := IntervalDuration(q.Interval, r.intervals)
	if !ok {
		return nil, fmt.Errorf("unknown interval %q", q.Interval)
	}
	return &query{SAQuery: q, words: words, every: every}, nil
}

func indexWord(words []string) string {
	best := words[0]
	for _, w := range words[1:] {
		if len(w) > len(best) {
			best = w
		}
	}
	return best
}

func (r *Registry) putLocked(q *query) {
	r.total.Add(1)
	r.byID[q.ID] = q
	r.account[q.AccountID] = append(r.account[q.AccountID], q)
	k := indexWord(q.words)
	r.index[k] = append(r.index[k], q)
}

// Create saves a query of account. text must pass ParseQuery and interval be
// one of Intervals. It fails with ErrLimit at protocol.SAMaxQueries queries
// and with *DuplicateError when a query with the same words is saved.
func (r *Registry) Create(ctx context.Context, account, text, interval string, now time.Time) (persistence.SAQuery, error) {
	q, err := r.compile(persistence.SAQuery{AccountID: account, Text: text, Interval: interval, CreatedAt: now})
	if err != nil {
		return persistence.SAQuery{}, err
	}
	q.Text = strings.TrimSpace(text)
	r.writeMu.Lock()
	defer r.writeMu.Unlock()
	r.mu.RLock()
	mine := r.account[account]
	r.mu.RUnlock()
	if len(mine) >= protocol.SAMaxQueries {
		return persistence.SAQuery{}, ErrLimit
	}
	key := sameWords(q.words)
	for _, x := range mine {
		if sameWords(x.words) == key {
			return persistence.SAQuery{}, &DuplicateError{ID: x.ID}
		}
	}
	saved, err := r.store.CreateSAQuery(ctx, q.SAQuery)
	if err != nil {
		return persistence.SAQuery{}, err
	}
	q.SAQuery = saved
	r.mu.Lock()
	r.putLocked(q)
	r.mu.Unlock()
	r.changed(account)
	return saved, nil
}

// Remove deletes query id of account; persistence.ErrNotFound if it has none.
func (r *Registry) Remove(ctx context.Context, account string, id int64) error {
	r.writeMu.Lock()
	defer r.writeMu.Unlock()
	r.mu.RLock()
	q := r.byID[id]
	r.mu.RUnlock()
	if q == nil || q.AccountID != account {
		return fmt.Errorf("sa query %d: %w", id, persistence.ErrNotFound)
	}
	if err := r.store.DeleteSAQuery(ctx, account, id); err != nil && !errors.Is(err, persistence.ErrNotFound) {
		return err
	}
	r.mu.Lock()
	r.dropLocked(q)
	r.mu.Unlock()
	r.changed(account)
	return nil
}

// dropLocked takes q out of memory.
func (r *Registry) dropLocked(q *query) {
	delete(r.byID, q.ID)
	r.total.Add(-1)
	r.account[q.AccountID] = without(r.account[q.AccountID], q)
	if len(r.account[q.AccountID]) == 0 {
		delete(r.account, q.AccountID)
	}
	k := indexWord(q.words)
	r.index[k] = without(r.index[k], q)
	if len(r.index[k]) == 0 {
		delete(r.index, k)
	}
}

func without(list []*query, q *query) []*query {
	return slices.DeleteFunc(slices.Clone(list), func(x *query) bool { return x == q })
}

// List returns the account's queries in creation order.
func (r *Registry) List(account string) []persistence.SAQuery {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]persistence.SAQuery, 0, len(r.account[account]))
	for _, q := range r.account[account] {
		out = append(out, q.SAQuery)
	}
	return out
}

// Count is the number of the account's queries.
func (r *Registry) Count(account string) int {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return len(r.account[account])
}

func (r *Registry) get(id int64) *query {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.byID[id]
}

// empty reports whether no account has a query.
func (r *Registry) empty() bool { return r.total.Load() == 0 }

// match returns the ids of the queries whose words the post's words hold.
func (r *Registry) match(post map[string]struct{}) []int64 {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if len(r.index) == 0 {
		return nil
	}
	var ids []int64
	for w := range post {
		for _, q := range r.index[w] {
			if Matches(q.words, post) {
				ids = append(ids, q.ID)
			}
		}
	}
	slices.Sort(ids)
	return ids
}
