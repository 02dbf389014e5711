package persistence

import (
	"context"
	"time"
)

// CASearchStore holds what CA Search (post index and per-account search quota) keep.
type CASearchStore interface {
	// PutPostTerms adds search terms to posts (terms already there stay:
	// readers check the post itself). Terms answer searches of windows
	// older than the in-memory index holds.
	PutPostTerms(ctx context.Context, posts []PostTerms) error
	// SearchPosts returns up to q.Limit stored posts with Since <= CreatedAt
	// <= Through that carry every term of q (any post when q has none),
	// newest CreatedAt first; the order within one millisecond is not
	// defined. Terms put for a post that is not stored give nothing.
	SearchPosts(ctx context.Context, q SearchQuery) ([]Post, error)
	// PostsByIDs returns the stored posts among ids, in no order.
	PostsByIDs(ctx context.Context, ids []string) ([]Post, error)
	// PostsCreatedSince returns up to limit posts with CreatedAt >= since
	// and (CreatedAt, ID) after (afterAt, afterID), in that order: pages
	// for warming the in-memory index. Start with afterAt before since.
	PostsCreatedSince(ctx context.Context, since, afterAt time.Time, afterID string, limit int) ([]Post, error)

	// PutSearchUsage stores each account's count of searches on its UTC
	// day; the larger of the stored and the new count of an (account, day)
	// stays (a day's count only grows, and cluster nodes write theirs).
	PutSearchUsage(ctx context.Context, us []SearchUsage) error
	// SearchUsageOn returns the counts stored for day (a UTC midnight).
	SearchUsageOn(ctx context.Context, day time.Time) ([]SearchUsage, error)
	// PruneSearchUsage deletes the counts of days before day.
	PruneSearchUsage(ctx context.Context, before time.Time) error
}

// PostTerms are search terms of one post, keyed as the index keys them
// (kind, ':', text).
type PostTerms struct {
	PostID    string
	CreatedAt time.Time
	Terms     []string
}

// SearchQuery asks SearchPosts for posts carrying every one of Terms.
type SearchQuery struct {
	Terms []string
	Since time.Time
	// Through is the newest CreatedAt wanted, inclusive; zero means no end.
	Through time.Time
	Limit   int
}

// SearchUsage is how many CA searches an account made on one UTC day.
type SearchUsage struct {
	AccountID string
	Day       time.Time // UTC midnight
	Used      int
}
