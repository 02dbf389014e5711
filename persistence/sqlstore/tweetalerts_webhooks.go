package sqlstore

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/alertd/alertd/persistence"
)

const webhookCols = `id, account_id, url, events, filter_handles, filter_keywords, secret, is_active,
	consecutive_failures, created_at, deactivated_at, disabled`

// CreateWebhook stores w and returns it with its new id.
func (s *Store) CreateWebhook(ctx context.Context, w persistence.Webhook) (persistence.Webhook, error) {
	events, err := encodeList(w.Events)
	if err != nil {
		return w, fmt.Errorf("create webhook: %w", err)
	}
	fh, err := encodeList(w.FilterHandles)
	if err != nil {
		return w, fmt.Errorf("create webhook: %w", err)
	}
	fk, err := encodeList(w.FilterKeywords)
	if err != nil {
		return w, fmt.Errorf("create webhook: %w", err)
	}
	row := s.w.QueryRowContext(ctx, `INSERT INTO xg_webhooks (account_id, url, events, filter_handles,
			filter_keywords, secret, is_active, consecutive_failures, created_at, deactivated_at, disabled)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING `+webhookCols,
		w.AccountID, w.URL, events, fh, fk, w.Secret, w.IsActive, w.ConsecutiveFailures, ms(w.CreatedAt),
		msPtr(w.DeactivatedAt), w.Disabled)
	out, err := scanWebhook(row)
	if err != nil {
		return w, fmt.Errorf("create webhook: %w", err)
	}
	return out, nil
}

// ListActiveWebhooks returns every active webhook by id.
func (s *Store) ListActiveWebhooks(ctx context.Context) ([]persistence.Webhook, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT `+webhookCols+` FROM xg_webhooks WHERE is_active ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("list webhooks: %w", err)
	}
	defer rows.Close()
	var out []persistence.Webhook
	for rows.Next() {
		w, err := scanWebhook(rows)
		if err != nil {
			return nil, fmt.Errorf("list webhooks: %w", err)
		}
		out = append(out, w)
	}
	return out, rows.Err()
}

// DeactivateWebhook deactivates account's active webhook id.
func (s *Store) DeactivateWebhook(ctx context.Context, account string, id int64, at time.Time) error {
	res, err := s.w.ExecContext(ctx, `UPDATE xg_webhooks SET is_active = FALSE, deactivated_at = $1
		WHERE id = $2 AND account_id = $3 AND is_active`, ms(at), id, account)
	if err != nil {
		return fmt.Errorf("deactivate webhook: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("deactivate webhook: %w", err)
	} else if n == 0 {
		return fmt.Errorf("webhook %d: %w", id, persistence.ErrNotFound)
	}
	return nil
}

// SetWebhookFailures records failures and, with disable, disables webhook id.
func (s *Store) SetWebhookFailures(ctx context.Context, id int64, failures int, disable bool, at time.Time) error {
	var err error
	if disable {
		_, err = s.w.ExecContext(ctx, `UPDATE xg_webhooks SET consecutive_failures = $1, is_active = FALSE,
			disabled = TRUE, deactivated_at = $2 WHERE id = $3 AND is_active`, failures, ms(at), id)
	} else {
		_, err = s.w.ExecContext(ctx, `UPDATE xg_webhooks SET consecutive_failures = $1 WHERE id = $2`, failures, id)
	}
	if err != nil {
		return fmt.Errorf("set webhook failures: %w", err)
	}
	return nil
}

func scanWebhook(r scanner) (persistence.Webhook, error) {
	var (
		w                persistence.Webhook
		events, fh, fk   string
		created          int64
		deactivated      sql.NullInt64
		failures         int64
		errE, errH, errK error
	)
	if err := r.Scan(&w.ID, &w.AccountID, &w.URL, &events, &fh, &fk, &w.Secret, &w.IsActive,
		&failures, &created, &deactivated, &w.Disabled); err != nil {
		return w, err
	}
	w.Events, errE = decodeList(events)
	w.FilterHandles, errH = decodeList(fh)
	w.FilterKeywords, errK = decodeList(fk)
	if err := cmp.Or(errE, errH, errK); err != nil {
		return w, err
	}
	w.ConsecutiveFailures = int(failures)
	w.CreatedAt = fromMS(created)
	w.DeactivatedAt = fromNullMS(deactivated)
	return w, nil
}

// placeholdersFrom returns "($first, ..., $(first+n-1))".
func placeholdersFrom(first, n int) string {
	var b strings.Builder
	b.WriteByte('(')
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteByte('$')
		b.WriteString(strconv.Itoa(first + i))
	}
	b.WriteByte(')')
	return b.String()
}
