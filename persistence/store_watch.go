package persistence

import (
	"context"
	"time"

	"github.com/alertd/alertd/protocol"
)

// WatchStore holds what Community Watch, Convergence Tracker and Engagement Tracker keep.
// The three share one shape, called "watch" here: an account's list of watched
// items (handles for cw and ct, post ids for et), its settings and webhook, the
// events delivered to it, and the detectors' durable state per subject.
type WatchStore interface {
	// AddWatchTarget stores t; ErrExists when (Product, AccountID, Item) is
	// already stored.
	AddWatchTarget(ctx context.Context, t WatchTarget) error
	// SetWatchTargetOptions replaces the options of a stored target;
	// ErrNotFound if it is absent.
	SetWatchTargetOptions(ctx context.Context, p protocol.Product, account, item string, opts []byte) error
	// DeleteWatchTarget removes a target; ErrNotFound if it is absent.
	DeleteWatchTarget(ctx context.Context, p protocol.Product, account, item string) error
	// ListWatchTargets returns every target of p, by account, then in the
	// order they were added.
	ListWatchTargets(ctx context.Context, p protocol.Product) ([]WatchTarget, error)
	// ListWatchTargetsOf is ListWatchTargets of the accounts named.
	ListWatchTargetsOf(ctx context.Context, p protocol.Product, accounts []string) ([]WatchTarget, error)

	// PutWatchSettings replaces the settings of (p, account), keeping its webhook.
	PutWatchSettings(ctx context.Context, p protocol.Product, account string, settings []byte, now time.Time) error
	// PutWatchWebhook replaces the webhook of (p, account), keeping its
	// settings, and returns the config's ID.
	PutWatchWebhook(ctx context.Context, p protocol.Product, account, url, secret string, now time.Time) (int64, error)
	// ListWatchConfigs returns the settings and webhooks of every account of p.
	ListWatchConfigs(ctx context.Context, p protocol.Product) ([]WatchConfig, error)
	// ListWatchConfigsOf is ListWatchConfigs of the accounts named.
	ListWatchConfigsOf(ctx context.Context, p protocol.Product, accounts []string) ([]WatchConfig, error)

	// AppendWatchEvents keeps delivered events (ID is assigned by the store).
	AppendWatchEvents(ctx context.Context, evs []WatchEvent) error
	// WatchEvents returns the newest events of (p, account), newest first, at
	// most limit.
	WatchEvents(ctx context.Context, p protocol.Product, account string, limit int) ([]WatchEvent, error)
	// CountWatchEvents counts the events of (p, account) created at or after since.
	CountWatchEvents(ctx context.Context, p protocol.Product, account string, since time.Time) (int, error)
	// PruneWatchEvents deletes the events of p created before before, except
	// the newest keep of each account, and returns how many it deleted.
	PruneWatchEvents(ctx context.Context, p protocol.Product, before time.Time, keep int) (int, error)

	// PutWatchStates stores each state as the latest of its (Product, Key).
	PutWatchStates(ctx context.Context, states []WatchState) error
	// DeleteWatchStates removes the states of p under keys (absent ones are
	// no error).
	DeleteWatchStates(ctx context.Context, p protocol.Product, keys []string) error
	// ListWatchStates returns every state of p.
	ListWatchStates(ctx context.Context, p protocol.Product) ([]WatchState, error)
}

// WatchTarget is one watched item of an account: a handle (cw, ct) or a post
// id (et).
type WatchTarget struct {
	Product   protocol.Product
	AccountID string
	Item      string
	// Options are the item's own switches as JSON (cw: the new-follower
	// digest); nil when none.
	Options   []byte
	CreatedAt time.Time
}

// WatchConfig is an account's settings and webhook on one product.
type WatchConfig struct {
	// ID is assigned when the config is first stored and never changes
	// (the webhook engine's endpoint id).
	ID        int64
	Product   protocol.Product
	AccountID string
	// Settings as JSON; nil when never set (the product's defaults).
	Settings []byte
	// WebhookURL is "" when no webhook is set. The secret is kept as issued:
	// deliveries are signed with it (cw, ct) or carry it (et).
	WebhookURL    string
	WebhookSecret string
	UpdatedAt     time.Time
}

// WatchEvent is one event delivered to an account (cw deliveries, ct
// convergences), kept for status counts and history.
type WatchEvent struct {
	ID        int64
	Product   protocol.Product
	AccountID string
	Kind      string
	Data      []byte
	CreatedAt time.Time
}

// WatchState is a detector's durable state of one subject (a handle's
// memberships, a post's counts).
type WatchState struct {
	Product   protocol.Product
	Key       string
	Data      []byte
	UpdatedAt time.Time
}
