package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
)

// PutStoredWebhook sets or clears the webhook URL of (account, product).
func (s *Store) PutStoredWebhook(ctx context.Context, w persistence.StoredWebhook) error {
	var url sql.NullString
	if w.URL != nil {
		url = sql.NullString{String: *w.URL, Valid: true}
	}
	_, err := s.w.ExecContext(ctx, `INSERT INTO stored_webhooks (account_id, product, url, updated_at)
		VALUES ($1, $2, $3, $4)
		ON CONFLICT (account_id, product) DO UPDATE SET url = excluded.url, updated_at = excluded.updated_at`,
		w.AccountID, string(w.Product), url, ms(w.UpdatedAt))
	if err != nil {
		return fmt.Errorf("put stored webhook: %w", err)
	}
	return nil
}

// GetStoredWebhook returns the webhook of (account, product).
func (s *Store) GetStoredWebhook(ctx context.Context, account string, p protocol.Product) (persistence.StoredWebhook, error) {
	w := persistence.StoredWebhook{AccountID: account, Product: p}
	var url sql.NullString
	var updated int64
	err := s.r.QueryRowContext(ctx, `SELECT url, updated_at FROM stored_webhooks WHERE account_id = $1 AND product = $2`,
		account, string(p)).Scan(&url, &updated)
	if err != nil {
		return w, notFound(err, "stored webhook")
	}
	if url.Valid {
		v := url.String
		w.URL = &v
	}
	w.UpdatedAt = fromMS(updated)
	return w, nil
}

// PutTrendingCategories replaces the subscribed categories of account.
func (s *Store) PutTrendingCategories(ctx context.Context, account string, categories []string, now time.Time) error {
	list, err := encodeList(categories)
	if err != nil {
		return fmt.Errorf("put trending categories: %w", err)
	}
	_, err = s.w.ExecContext(ctx, `INSERT INTO trending_subscriptions (account_id, categories, updated_at)
		VALUES ($1, $2, $3)
		ON CONFLICT (account_id) DO UPDATE SET categories = excluded.categories, updated_at = excluded.updated_at`,
		account, list, ms(now))
	if err != nil {
		return fmt.Errorf("put trending categories: %w", err)
	}
	return nil
}

// TrendingCategories returns the subscribed categories of account.
func (s *Store) TrendingCategories(ctx context.Context, account string) ([]string, error) {
	var list string
	err := s.r.QueryRowContext(ctx, `SELECT categories FROM trending_subscriptions WHERE account_id = $1`, account).Scan(&list)
	if err == sql.ErrNoRows {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("trending categories: %w", err)
	}
	return decodeList(list)
}
