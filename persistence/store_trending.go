package persistence

import (
	"context"
	"time"
)

// TrendingStore keeps Trending subscriptions.
type TrendingStore interface {
	// PutTrendingCategories replaces the subscribed categories of account.
	PutTrendingCategories(ctx context.Context, account string, categories []string, now time.Time) error
	// TrendingCategories returns the subscribed categories of account (nil
	// when none).
	TrendingCategories(ctx context.Context, account string) ([]string, error)
}
