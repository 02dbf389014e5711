package persistence

import (
	"context"
	"time"

	"github.com/alertd/alertd/protocol"
)

// ProductStore2 holds what Trending, PumpFun, ECA and Search Alerts keep.
type ProductStore2 interface {
	// PutStoredWebhook sets (url non-nil) or clears (nil) the webhook URL of
	// (account, product). These products only store it: nothing is sent.
	PutStoredWebhook(ctx context.Context, w StoredWebhook) error
	// GetStoredWebhook returns the webhook of (account, product); ErrNotFound
	// if none was ever set.
	GetStoredWebhook(ctx context.Context, account string, p protocol.Product) (StoredWebhook, error)

	// PutTrendingCategories replaces the subscribed categories of account.
	PutTrendingCategories(ctx context.Context, account string, categories []string, now time.Time) error
	// TrendingCategories returns the subscribed categories of account (nil
	// when none).
	TrendingCategories(ctx context.Context, account string) ([]string, error)

	// AddPFTarget stores a new wallet target; ErrExists if (AccountID,
	// Wallet) is already stored.
	AddPFTarget(ctx context.Context, t PFTarget) error
	// DeletePFTarget removes the target of (account, wallet); ErrNotFound if absent.
	DeletePFTarget(ctx context.Context, account, wallet string) error
	// ListPFTargets returns every target, by account then creation order.
	ListPFTargets(ctx context.Context) ([]PFTarget, error)
	// AppendPFEvents stores wallet events and keeps only the newest keep
	// events of each account concerned.
	AppendPFEvents(ctx context.Context, evs []PFEvent, keep int) error
	// ListPFEvents returns the newest events of account, newest first.
	ListPFEvents(ctx context.Context, account string, limit int) ([]PFEvent, error)

	// CreateECAEntry stores a new active entry (ID 0; the store assigns one)
	// and returns it as stored.
	CreateECAEntry(ctx context.Context, e ECAEntry) (ECAEntry, error)
	// EndECAEntry moves the active entry id of account to state (removed,
	// expired or matched) at `at`; ErrNotFound unless it is active.
	EndECAEntry(ctx context.Context, account string, id int64, state ECAState, at time.Time) error
	// ListActiveECAEntries returns the entries in state active that expire
	// after now, oldest first.
	ListActiveECAEntries(ctx context.Context, now time.Time) ([]ECAEntry, error)
	// RecordECAMatch ends the match's entry as matched and stores the match,
	// in one transaction; ErrNotFound unless the entry is active.
	RecordECAMatch(ctx context.Context, m ECAMatch) error
	// ListECAMatches returns the matches of account at or after since, newest first.
	ListECAMatches(ctx context.Context, account string, since time.Time) ([]ECAMatch, error)
	// CountECAMatches is the number of matches account ever had.
	CountECAMatches(ctx context.Context, account string) (int, error)

	// CreateSAQuery stores a new query (ID 0; the store assigns one) and
	// returns it as stored.
	CreateSAQuery(ctx context.Context, q SAQuery) (SAQuery, error)
	// DeleteSAQuery removes query id of account; ErrNotFound if absent.
	DeleteSAQuery(ctx context.Context, account string, id int64) error
	// ListSAQueries returns every query, by account then id.
	ListSAQueries(ctx context.Context) ([]SAQuery, error)
}

// StoredWebhook is the webhook URL of a product that only stores it.
type StoredWebhook struct {
	AccountID string
	Product   protocol.Product
	URL       *string // nil: cleared
	UpdatedAt time.Time
}

// PFTarget is a wallet on an account's PumpFun list, with the alert types it
// counts toward (callouts makes it a caller).
type PFTarget struct {
	AccountID  string
	Wallet     string
	Label      string
	AlertTypes []string
	CreatedAt  time.Time
}

// PFEvent is a wallet event recorded for an account (GET /v1/pf/events).
type PFEvent struct {
	AccountID         string
	Wallet            string
	Mint              string
	TokenName         string
	TokenSymbol       string
	EventType         string
	DetectedAt        time.Time
	DeliveryLatencyMS int64
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

// SAQuery is a saved Search Alerts query.
type SAQuery struct {
	ID        int64
	AccountID string
	Text      string
	Interval  string // one of the interval options, e.g. "5m"
	CreatedAt time.Time
}
