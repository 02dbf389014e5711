package persistence

import (
	"context"
	"time"
)

// Prunable names what --retention deletes by age.
type Prunable string

// The prunable kinds of rows, each with the time it is aged by.
const (
	PrunePosts          Prunable = "posts"              // created_at: the post's time
	PruneObservations   Prunable = "observations"       // detected_at
	PruneTrace          Prunable = "trace"              // event_time
	PruneProfileHistory Prunable = "profile_history"    // scraped_at
	PruneSocialChanges  Prunable = "social_changes"     // changed_at (follow changes of the B2B lookups)
	PruneDeliveries     Prunable = "webhook_deliveries" // created_at; finished deliveries only
	PruneAttempts       Prunable = "webhook_attempts"   // at
	PruneBodies         Prunable = "webhook_bodies"     // created_at; once no delivery points at them
)

// Prunables are the kinds --retention prunes, in the order it does.
var Prunables = []Prunable{PrunePosts, PruneObservations, PruneTrace, PruneProfileHistory, PruneSocialChanges,
	PruneDeliveries, PruneAttempts, PruneBodies}

// RetentionStore deletes what is older than the retention period.
type RetentionStore interface {
	// Prune deletes up to limit rows of kind older than before, oldest
	// first, and returns how many it deleted (fewer than limit: none older
	// is left). A queued webhook delivery is never pruned.
	Prune(ctx context.Context, kind Prunable, before time.Time, limit int) (int, error)
}
