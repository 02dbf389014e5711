package eca

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
)

// ErrActiveEntry refuses a new entry while another is active (spec 3: only
// one active entry may exist at a time).
var ErrActiveEntry = errors.New("another watchlist entry is active")

// SourceAPI is the source of entries added through the REST API.
const SourceAPI = "api"

// Store is what the watchlist needs of the store.
type Store interface {
	CreateECAEntry(ctx context.Context, e persistence.ECAEntry) (persistence.ECAEntry, error)
	EndECAEntry(ctx context.Context, account string, id int64, state persistence.ECAState, at time.Time) error
	ListActiveECAEntries(ctx context.Context, now time.Time) ([]persistence.ECAEntry, error)
	ListActiveECAEntriesOf(ctx context.Context, accounts []string, now time.Time) ([]persistence.ECAEntry, error)
	RecordECAMatch(ctx context.Context, m persistence.ECAMatch) error
	ListECAMatches(ctx context.Context, account string, since time.Time) ([]persistence.ECAMatch, error)
	CountECAMatches(ctx context.Context, account string) (int, error)
}

// Jobs runs store writes off the hot path (the engine's writer).
type Jobs interface {
	Do(name string, f func(ctx context.Context) error)
}

// Watchlist holds the active entry of every account (spec 3 state table):
// created active, it ends expired (its 4 hours elapse: no longer listed),
// matched (a launched token matches: no longer listed) or removed (DELETE).
// Expiry is judged by the clock whenever an entry is looked at, so no timer
// is needed. It is safe for concurrent use.
type Watchlist struct {
	store  Store
	jobs   Jobs
	expiry time.Duration
	now    func() time.Time
	log    *slog.Logger

	writeMu  sync.Mutex           // serialises creations and removals with their store writes
	onChange func(account string) // a cluster announces the account (set before use)
	mu       sync.Mutex
	active   map[string]*persistence.ECAEntry // by account
	index    map[string]map[string]struct{}   // criterion key -> accounts
}

// NewWatchlist returns an empty watchlist; Load fills it.
func NewWatchlist(store Store, jobs Jobs, expiry time.Duration, now func() time.Time, log *slog.Logger) *Watchlist {
	return &Watchlist{store: store, jobs: jobs, expiry: expiry, now: now, log: log,
		active: map[string]*persistence.ECAEntry{}, index: map[string]map[string]struct{}{}}
}

// Load reads the active entries. Should the store hold more than one for an
// account (a crash between a match and its record), the newest stays active
// and the others end as expired.
func (w *Watchlist) Load(ctx context.Context) error {
	list, err := w.store.ListActiveECAEntries(ctx, w.now())
	if err != nil {
		return fmt.Errorf("load eca watchlist: %w", err)
	}
	var superseded []*persistence.ECAEntry
	w.mu.Lock()
	for i := range list {
		e := list[i]
		if old := w.active[e.AccountID]; old != nil {
			w.dropLocked(old)
			superseded = append(superseded, old)
		}
		w.putLocked(&e)
	}
	w.mu.Unlock()
	for _, old := range superseded { // written after the unlock: no lock across store I/O
		if err := w.store.EndECAEntry(ctx, old.AccountID, old.ID, persistence.ECAExpired, w.now()); err != nil &&
			!errors.Is(err, persistence.ErrNotFound) {
			return fmt.Errorf("load eca watchlist: %w", err)
		}
	}
	return nil
}

func criteria(e *persistence.ECAEntry) Criteria {
	return Criteria{Ticker: e.Ticker, TokenName: e.TokenName, ContractAddress: e.ContractAddress, CreatorAddress: e.CreatorAddress}
}

func (w *Watchlist) putLocked(e *persistence.ECAEntry) {
	w.active[e.AccountID] = e
	for _, k := range criteria(e).indexKeys() {
		s := w.index[k]
		if s == nil {
			s = map[string]struct{}{}
			w.index[k] = s
		}
		s[e.AccountID] = struct{}{}
	}
}

func (w *Watchlist) dropLocked(e *persistence.ECAEntry) {
	if w.active[e.AccountID] != e {
		return
	}
	delete(w.active, e.AccountID)
	for _, k := range criteria(e).indexKeys() {
		if s := w.index[k]; s != nil {
			delete(s, e.AccountID)
			if len(s) == 0 {
				delete(w.index, k)
			}
		}
	}
}

// liveLocked returns the account's active entry, ending it first if its time
// is up (recorded as expired through jobs).
func (w *Watchlist) liveLocked(account string, now time.Time) *persistence.ECAEntry {
	e := w.active[account]
	if e == nil {
		return nil
	}
	if now.Before(e.ExpiresAt) {
		return e
	}
	w.dropLocked(e)
	acc, id, at := e.AccountID, e.ID, e.ExpiresAt
	w.jobs.Do("eca expire", func(ctx context.Context) error {
		return ignoreNotFound(w.store.EndECAEntry(ctx, acc, id, persistence.ECAExpired, at))
	})
	return nil
}

// Create adds an active entry for account with normalized, valid criteria;
// ErrActiveEntry while another is active.
func (w *Watchlist) Create(ctx context.Context, account string, c Criteria) (persistence.ECAEntry, error) {
	w.writeMu.Lock()
	defer w.writeMu.Unlock()
	now := w.now()
	w.mu.Lock()
	busy := w.liveLocked(account, now) != nil
	w.mu.Unlock()
	if busy {
		return persistence.ECAEntry{}, ErrActiveEntry
	}
	e, err := w.store.CreateECAEntry(ctx, persistence.ECAEntry{AccountID: account, Ticker: c.Ticker, TokenName: c.TokenName,
		ContractAddress: c.ContractAddress, CreatorAddress: c.CreatorAddress, Source: SourceAPI,
		State: persistence.ECAActive, CreatedAt: now, ExpiresAt: now.Add(w.expiry)})
	if err != nil {
		return persistence.ECAEntry{}, err
	}
	w.mu.Lock()
	w.putLocked(&e)
	w.mu.Unlock()
	w.changed(account)
	return e, nil
}

// Remove ends the account's active entry id as removed; persistence.ErrNotFound
// unless it is active.
func (w *Watchlist) Remove(ctx context.Context, account string, id int64) error {
	w.writeMu.Lock()
	defer w.writeMu.Unlock()
	w.mu.Lock()
	e := w.liveLocked(account, w.now())
	w.mu.Unlock()
	if e == nil || e.ID != id {
		return fmt.Errorf("eca entry %d: %w", id, persistence.ErrNotFound)
	}
	if err := w.store.EndECAEntry(ctx, account, id, persistence.ECARemoved, w.now()); err != nil {
		return err
	}
	w.mu.Lock()
	w.dropLocked(e)
	w.mu.Unlock()
	w.changed(account)
	return nil
}

// Active returns the account's active entries (none or one).
func (w *Watchlist) Active(account string) []persistence.ECAEntry {
	w.mu.Lock()
	defer w.mu.Unlock()
	if e := w.liveLocked(account, w.now()); e != nil {
		return []persistence.ECAEntry{*e}
	}
	return nil
}

// hit is an entry matched by a launched token.
type hit struct {
	entry     persistence.ECAEntry
	matchType string
}

// match ends, as matched, every active entry that launched token l matches,
// and returns them by account. Only token_launched events match.
func (w *Watchlist) match(l *protocol.LaunchpadObs, now time.Time) []hit {
	if l.EventType != protocol.LaunchTokenLaunched {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	var accounts []string
	for _, k := range launchKeys(l) {
		for acc := range w.index[k] {
			accounts = append(accounts, acc)
		}
	}
	slices.Sort(accounts)
	accounts = slices.Compact(accounts)
	var hits []hit
	for _, acc := range accounts {
		e := w.liveLocked(acc, now)
		if e == nil {
			continue
		}
		if mt, ok := MatchType(criteria(e), l); ok {
			w.dropLocked(e)
			hits = append(hits, hit{entry: *e, matchType: mt})
		}
	}
	return hits
}

func ignoreNotFound(err error) error {
	if errors.Is(err, persistence.ErrNotFound) {
		return nil
	}
	return err
}
