package persistence

import (
	"context"
	"time"
)

// SearchAlertsStore keeps Search Alerts queries.
type SearchAlertsStore interface {
	// CreateSAQuery stores a new query (ID 0; the store assigns one) and
	// returns it as stored.
	CreateSAQuery(ctx context.Context, q SAQuery) (SAQuery, error)
	// DeleteSAQuery removes query id of account; ErrNotFound if absent.
	DeleteSAQuery(ctx context.Context, account string, id int64) error
	// ListSAQueries returns every query, by account then id.
	ListSAQueries(ctx context.Context) ([]SAQuery, error)
	// ListSAQueriesOf returns the queries of the accounts named, by account
	// then id.
	ListSAQueriesOf(ctx context.Context, accounts []string) ([]SAQuery, error)
}

// SAQuery is a saved Search Alerts query.
type SAQuery struct {
	ID        int64
	AccountID string
	Text      string
	Interval  string // one of the interval options, e.g. "5m"
	CreatedAt time.Time
}
