package persistence

import (
	"context"
	"time"
)

// SearchStore holds what CA Search (post index and per-account search quota) keep.
type SearchStore interface {
	// PutPostTerms replaces the search terms of each post (all terms of a
	// post at once; a post given twice: the last wins). Terms answer
	// searches of windows older than the in-memory index holds.
	PutPostTerms(ctx context.Context, posts []PostTerms) error
	// SearchPosts returns the stored posts that carry every term of q, with
	// Since <= CreatedAt < Until and (CreatedAt, Tie) below Before when set,
	// newest first (by CreatedAt, then Tie), at most q.Limit. Posts whose
	// terms were put but which are not stored are left out.
	SearchPosts(ctx context.Context, q SearchQuery) ([]Post, error)
	// PostsByIDs returns the stored posts among ids, in no order.
	PostsByIDs(ctx context.Context, ids []string) ([]Post, error)
	// PostsCreatedSince returns up to limit posts with CreatedAt >= since
	// and (CreatedAt, ID) after (afterAt, afterID), in that order: pages
	// for warming the in-memory index. Start with afterAt before since.
	PostsCreatedSince(ctx context.Context, since, afterAt time.Time, afterID string, limit int) ([]Post, error)

	// PutSearchUsage stores each account's count of searches on its UTC
	// day, replacing the count stored for that (account, day).
	PutSearchUsage(ctx context.Context, us []SearchUsage) error
	// SearchUsageOn returns the counts stored for day (a UTC midnight).
	SearchUsageOn(ctx context.Context, day time.Time) ([]SearchUsage, error)
	// PruneSearchUsage deletes the counts of days before day.
	PruneSearchUsage(ctx context.Context, before time.Time) error
}

// PostTerms are the search terms of one post, keyed as the index keys them
// (kind, ':', text). Tie orders posts created in the same millisecond.
type PostTerms struct {
	PostID    string
	CreatedAt time.Time
	Tie       int64
	Terms     []string
}

// SearchQuery asks SearchPosts for posts carrying every one of Terms.
type SearchQuery struct {
	Terms []string // at least one
	Since time.Time
	// Until is exclusive; the zero time means no end.
	Until time.Time
	// Before, when set, continues after the post at (Before.At, Before.Tie).
	Before *SearchPosition
	Limit  int
}

// SearchPosition is a post's place in the search order.
type SearchPosition struct {
	At  time.Time
	Tie int64
}

// SearchUsage is how many CA searches an account made on one UTC day.
type SearchUsage struct {
	AccountID string
	Day       time.Time // UTC midnight
	Used      int
}
