package persistence

import (
	"context"
	"time"
)

// The states of a webhook delivery.
const (
	DeliveryQueued    = "queued"    // waiting for an attempt, or between attempts
	DeliveryDelivered = "delivered" // answered 2xx
	DeliveryFailed    = "failed"    // a final answer, or its attempts spent
	DeliveryDropped   = "dropped"   // its endpoint was removed or disabled first
)

// The results of one attempt.
const (
	AttemptOK     = "ok"     // 2xx
	AttemptRetry  = "retry"  // failed; the delivery is tried again later
	AttemptFailed = "failed" // failed, and the delivery with it
)

// WebhookAttempt is one attempt of a delivery, as the log keeps it.
type WebhookAttempt struct {
	DeliveryID string
	At         time.Time
	// StatusCode is the receiver's answer; 0 when there was none (a
	// connection error or a timeout, said by Error).
	StatusCode int
	Latency    time.Duration
	Error      string
	// Result is AttemptOK, AttemptRetry or AttemptFailed.
	Result string
	// Attempts is the delivery's count toward its retry policy after this
	// attempt (RecordAttempts stores it on the delivery).
	Attempts int
	// Seq is the delivery's Seq when the engine knows it (0: found by
	// DeliveryID).
	Seq int64
}

// WebhookLogEntry is one delivery of the log with its attempts, oldest
// first.
type WebhookLogEntry struct {
	WebhookDelivery
	Log []WebhookAttempt
}

// RedeliverFilter selects the finished deliveries of an endpoint to queue
// again: by id, or by creation time (Since inclusive, Until exclusive; zero
// Until: no end) and state (empty: failed and dropped ones).
type RedeliverFilter struct {
	IDs          []string
	Since, Until time.Time
	States       []string
}

// WebhookLogStore is the durable webhook delivery queue of every product's
// webhook engine, and the delivery log it leaves behind.
type WebhookLogStore interface {
	// InsertDeliveries queues deliveries; one whose (Scope, DeliveryID) is
	// already stored is skipped. One transaction.
	InsertDeliveries(ctx context.Context, ds []WebhookDelivery) error
	// RecordAttempts logs attempts of scope's deliveries and stores, on
	// each delivery, its Attempts count and, after an AttemptOK or
	// AttemptFailed, its final state and finish time. One transaction.
	RecordAttempts(ctx context.Context, scope string, as []WebhookAttempt) error
	// DropDeliveries ends the queued deliveries of scope with these ids as
	// DeliveryDropped (their endpoint is gone).
	DropDeliveries(ctx context.Context, scope string, ids []string, at time.Time) error
	// DropEndpointDeliveries ends every queued delivery of an endpoint as
	// DeliveryDropped.
	DropEndpointDeliveries(ctx context.Context, scope string, endpoint int64, at time.Time) error
	// ListDeliveries returns the queued deliveries of scope, oldest first.
	ListDeliveries(ctx context.Context, scope string) ([]WebhookDelivery, error)
	// QueuedEndpoints returns the endpoints of scope that have queued
	// deliveries, in ascending order (what an engine reads back at start).
	QueuedEndpoints(ctx context.Context, scope string) ([]int64, error)
	// ListEndpointDeliveries returns the oldest queued deliveries of an
	// endpoint, up to limit, oldest first (what an endpoint reads back when
	// its memory queue drains).
	ListEndpointDeliveries(ctx context.Context, scope string, endpoint int64, limit int) ([]WebhookDelivery, error)
	// QueuedDeliveries is the number of queued deliveries, every scope's.
	QueuedDeliveries(ctx context.Context) (int64, error)
	// DeliveryLog returns up to limit deliveries of an endpoint, newest
	// first, with their attempts; before > 0 starts below that Seq.
	DeliveryLog(ctx context.Context, scope string, endpoint int64, before int64, limit int) ([]WebhookLogEntry, error)
	// RequeueDeliveries queues again the finished deliveries of an
	// endpoint that f selects (state queued, attempts 0, no finish time)
	// and returns them, oldest first. Queued ones are left alone.
	RequeueDeliveries(ctx context.Context, scope string, endpoint int64, f RedeliverFilter) ([]WebhookDelivery, error)
}
