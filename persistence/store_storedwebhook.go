package persistence

import (
	"context"
	"time"

	"github.com/alertd/alertd/protocol"
)

// StoredWebhookStore keeps the webhook URLs that Trending, PumpFun, ECA and Search Alerts only store (nothing is sent).
type StoredWebhookStore interface {
	// PutStoredWebhook sets (url non-nil) or clears (nil) the webhook URL of
	// (account, product). These products only store it: nothing is sent.
	PutStoredWebhook(ctx context.Context, w StoredWebhook) error
	// GetStoredWebhook returns the webhook of (account, product); ErrNotFound
	// if none was ever set.
	GetStoredWebhook(ctx context.Context, account string, p protocol.Product) (StoredWebhook, error)
}

// StoredWebhook is the webhook URL of a product that only stores it.
type StoredWebhook struct {
	AccountID string
	Product   protocol.Product
	URL       *string // nil: cleared
	UpdatedAt time.Time
}
