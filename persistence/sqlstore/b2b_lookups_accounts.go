package sqlstore

import (
	"context"
	"fmt"
	"time"

	"github.com/alertd/alertd/persistence"
)

// AddDTBlacklist puts handle on account's list; added is false if it was there.
func (s *Store) AddDTBlacklist(ctx context.Context, account, handle string, at time.Time) (bool, error) {
	res, err := s.w.ExecContext(ctx, `INSERT INTO dt_blacklist (account_id, handle, created_at) VALUES ($1, $2, $3)
		ON CONFLICT (account_id, handle) DO NOTHING`, account, handle, ms(at))
	if err != nil {
		return false, fmt.Errorf("add to blacklist: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("add to blacklist: %w", err)
	}
	return n > 0, nil
}

// RemoveDTBlacklist takes handle off account's list.
func (s *Store) RemoveDTBlacklist(ctx context.Context, account, handle string) error {
	res, err := s.w.ExecContext(ctx, `DELETE FROM dt_blacklist WHERE account_id = $1 AND handle = $2`, account, handle)
	if err != nil {
		return fmt.Errorf("remove from blacklist: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("remove from blacklist: %w", err)
	} else if n == 0 {
		return fmt.Errorf("blacklist %s/%s: %w", account, handle, persistence.ErrNotFound)
	}
	return nil
}

// DTBlacklist returns account's list in the order added.
func (s *Store) DTBlacklist(ctx context.Context, account string) ([]string, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT handle FROM dt_blacklist WHERE account_id = $1 ORDER BY id`, account)
	if err != nil {
		return nil, fmt.Errorf("blacklist: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var h string
		if err := rows.Scan(&h); err != nil {
			return nil, fmt.Errorf("blacklist: %w", err)
		}
		out = append(out, h)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("blacklist: %w", err)
	}
	return out, nil
}

// PutDTWebhook stores or replaces account's B2B webhook setting.
func (s *Store) PutDTWebhook(ctx context.Context, w persistence.DTWebhook) error {
	_, err := s.w.ExecContext(ctx, `INSERT INTO dt_webhooks (account_id, url, secret, updated_at) VALUES ($1, $2, $3, $4)
		ON CONFLICT (account_id) DO UPDATE SET url = excluded.url, secret = excluded.secret, updated_at = excluded.updated_at`,
		w.AccountID, w.URL, w.Secret, ms(w.UpdatedAt))
	if err != nil {
		return fmt.Errorf("put dt webhook: %w", err)
	}
	return nil
}

// DTWebhook returns account's B2B webhook setting.
func (s *Store) DTWebhook(ctx context.Context, account string) (persistence.DTWebhook, error) {
	var w persistence.DTWebhook
	var at int64
	err := s.r.QueryRowContext(ctx, `SELECT account_id, url, secret, updated_at FROM dt_webhooks WHERE account_id = $1`, account).
		Scan(&w.AccountID, &w.URL, &w.Secret, &at)
	if err != nil {
		return persistence.DTWebhook{}, notFound(err, "dt webhook of "+account)
	}
	w.UpdatedAt = fromMS(at)
	return w, nil
}
