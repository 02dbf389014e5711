package persistence

import (
	"context"
	"time"
)

// ECAStore keeps ECA watchlist entries and their matches.
type ECAStore interface {
	// CreateECAEntry stores a new active entry (ID 0; the store assigns one)
	// and returns it as stored.
	CreateECAEntry(ctx context.Context, e ECAEntry) (ECAEntry, error)
	// EndECAEntry moves the active entry id of account to state (removed,
	// expired or matched) at `at`; ErrNotFound unless it is active.
	EndECAEntry(ctx context.Context, account string, id int64, state ECAState, at time.Time) error
	// ListActiveECAEntries returns the entries in state active that expire
	// after now, oldest first.
	ListActiveECAEntries(ctx context.Context, now time.Time) ([]ECAEntry, error)
	// ListActiveECAEntriesOf is ListActiveECAEntries of the accounts named.
	ListActiveECAEntriesOf(ctx context.Context, accounts []string, now time.Time) ([]ECAEntry, error)
	// RecordECAMatch ends the match's entry as matched and stores the match,
	// in one transaction; ErrNotFound unless the entry is active.
	RecordECAMatch(ctx context.Context, m ECAMatch) error
	// ListECAMatches returns the matches of account at or after since, newest first.
	ListECAMatches(ctx context.Context, account string, since time.Time) ([]ECAMatch, error)
	// CountECAMatches is the number of matches account ever had.
	CountECAMatches(ctx context.Context, account string) (int, error)
}

// ECAState is the lifecycle state of a watchlist entry (spec 3 state table).
type ECAState string

const (
	ECAActive  ECAState = "active"
	ECAExpired ECAState = "expired"
	ECAMatched ECAState = "matched"
	ECARemoved ECAState = "removed"
)

// ECAEntry is one ECA watchlist entry. Empty criteria are unset.
type ECAEntry struct {
	ID              int64
	AccountID       string
	Ticker          string
	TokenName       string
	ContractAddress string
	CreatorAddress  string
	Source          string
	State           ECAState
	CreatedAt       time.Time
	ExpiresAt       time.Time
}

// ECAMatch is a match of an entry with a launched token; Data is the match
// frame's data JSON.
type ECAMatch struct {
	AccountID string
	EntryID   int64
	MatchedAt time.Time
	Data      []byte
}
