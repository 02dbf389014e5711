package persistence

import (
	"context"
	"time"

	"github.com/alertd/alertd/protocol"
)

// TrackedHandle is one handle on an account's Tweet Alerts tracked list.
type TrackedHandle struct {
	AccountID string
	Handle    string // lowercase, no @
	AddedAt   time.Time
}

// HandlePrefs are an account's chat-alert preferences for one handle. They
// live apart from the tracked list so that keywords survive a delete and
// return on a re-add (spec 1 "States and transitions").
type HandlePrefs struct {
	AccountID      string
	Handle         string
	Keywords       []string
	Muted          bool
	ExcludeReplies bool
	ExcludeReposts bool
	ExcludeQuotes  bool
}

// TweetAlertsSettings are an account's notification settings (spec 1).
type TweetAlertsSettings struct {
	AccountID           string
	ExcludeReplies      bool
	ContractsOnly       bool
	NotificationsPaused bool
	ExcludeReposts      bool
	AutoTopics          bool
	ContractTopic       bool
}

// DefaultTweetAlertsSettings are the spec's defaults for an account that never
// changed its settings.
func DefaultTweetAlertsSettings(account string) TweetAlertsSettings {
	return TweetAlertsSettings{AccountID: account, AutoTopics: true}
}

// Webhook is a registered Tweet Alerts webhook.
type Webhook struct {
	ID                  int64
	AccountID           string
	URL                 string
	Events              []string
	FilterHandles       []string
	FilterKeywords      []string
	Secret              string // 64 hex characters
	IsActive            bool
	ConsecutiveFailures int
	CreatedAt           time.Time
	// DeactivatedAt is set when the webhook was deleted or disabled.
	DeactivatedAt *time.Time
	// Disabled is true when failures, not the owner, deactivated it.
	Disabled bool
}

// WebhookDelivery is one webhook delivery: written before it is attempted,
// queued until it succeeded, finally failed or lost its endpoint, so a
// restart resumes every delivery still queued (at least once); then kept,
// with its attempts, as the delivery log until --retention prunes it.
type WebhookDelivery struct {
	// Scope names the product whose engine owns the delivery ("xg", "cw"...).
	Scope      string
	EndpointID int64
	// DeliveryID is unique within Scope and sent to receivers so that they
	// can drop duplicates.
	DeliveryID string
	Body       []byte
	// Attempts made so far toward the retry policy (a redelivery starts
	// again from 0; the log keeps every attempt).
	Attempts  int
	CreatedAt time.Time

	// Event is the body's event name (its `event` or `type` member).
	Event string
	// State is DeliveryQueued until the delivery is over.
	State string
	// FinishedAt is when it ended; nil while queued.
	FinishedAt *time.Time
	// Seq orders deliveries as they were stored (the log's cursor).
	Seq int64
}

// TweetAlertsStore holds what the Tweet Alerts consumer API (tracked accounts,
// settings, webhooks and their durable delivery queue) keeps.
type TweetAlertsStore interface {
	// TrackHandles adds handles to their accounts' tracked lists; handles
	// already tracked keep their AddedAt. One transaction.
	TrackHandles(ctx context.Context, hs []TrackedHandle) error
	// UntrackHandle removes handle from account's list (ErrNotFound if it is
	// not there) and, in the same transaction, clears the handle's mute and
	// filters; its keywords stay.
	UntrackHandle(ctx context.Context, account, handle string) error
	// ListTrackedHandles returns every tracked handle, by account, then
	// AddedAt, then handle.
	ListTrackedHandles(ctx context.Context) ([]TrackedHandle, error)

	// PutHandlePrefs inserts or replaces the prefs of (AccountID, Handle).
	PutHandlePrefs(ctx context.Context, p HandlePrefs) error
	// ListHandlePrefs returns every stored prefs row.
	ListHandlePrefs(ctx context.Context) ([]HandlePrefs, error)

	// PutTweetAlertsSettings inserts or replaces an account's settings.
	PutTweetAlertsSettings(ctx context.Context, s TweetAlertsSettings) error
	// ListTweetAlertsSettings returns every account's stored settings.
	ListTweetAlertsSettings(ctx context.Context) ([]TweetAlertsSettings, error)

	// CreateWebhook stores w (ID 0: the store assigns one) and returns it.
	CreateWebhook(ctx context.Context, w Webhook) (Webhook, error)
	// ListActiveWebhooks returns every active webhook by ID.
	ListActiveWebhooks(ctx context.Context) ([]Webhook, error)
	// DeactivateWebhook deactivates the active webhook id of account;
	// ErrNotFound if there is none.
	DeactivateWebhook(ctx context.Context, account string, id int64, at time.Time) error
	// SetWebhookFailures records the consecutive failures of webhook id and,
	// with disable, deactivates it as disabled. Unknown ids are ignored.
	SetWebhookFailures(ctx context.Context, id int64, failures int, disable bool, at time.Time) error

	// The webhook engines' durable delivery queue and its log.
	WebhookLogStore

	// FeedPosts returns up to limit posts of any of handles created before
	// `before`, newest first (ties by id, descending).
	FeedPosts(ctx context.Context, handles []string, before time.Time, limit int) ([]Post, error)

	// ServerSecret returns the secret stored under name, storing candidate
	// first when there is none (the first caller wins; everyone gets the
	// same bytes).
	ServerSecret(ctx context.Context, name string, candidate []byte) ([]byte, error)
	// LinkTelegram maps a Telegram user id to an account's product
	// subscription, replacing an earlier link of that id.
	LinkTelegram(ctx context.Context, telegramID int64, account string, product protocol.Product, at time.Time) error
	// TelegramLink returns the link of a Telegram user id (ErrNotFound if none).
	TelegramLink(ctx context.Context, telegramID int64) (account string, product protocol.Product, err error)
	// TelegramLinkOf is TelegramLink with the link's time, which tells a
	// link apart from a later one of the same user (ErrNotFound if none).
	TelegramLinkOf(ctx context.Context, telegramID int64) (TelegramLinkInfo, error)
	// TelegramLinks lists the Telegram users linked to account's product,
	// oldest link first.
	TelegramLinks(ctx context.Context, account string, product protocol.Product) ([]TelegramLinkInfo, error)
	// UnlinkTelegram removes telegramID's link to account's product
	// (ErrNotFound when it is not linked there).
	UnlinkTelegram(ctx context.Context, telegramID int64, account string, product protocol.Product) error
}

// TelegramLinkInfo is one Telegram user linked to a subscription.
type TelegramLinkInfo struct {
	TelegramID int64
	Account    string
	Product    protocol.Product
	LinkedAt   time.Time // stored to the millisecond
}
