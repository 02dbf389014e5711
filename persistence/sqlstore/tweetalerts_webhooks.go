package sqlstore

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
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

// InsertDeliveries queues ds in one transaction, skipping ids already queued.
func (s *Store) InsertDeliveries(ctx context.Context, ds []persistence.WebhookDelivery) error {
	if len(ds) == 0 {
		return nil
	}
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		// Rows of a multi-row INSERT take their seq in VALUES order, which
		// is the order ListDeliveries gives back.
		return s.execRows(ctx, tx, `INSERT INTO webhook_deliveries (scope, endpoint_id, delivery_id, body, attempts, created_at)`,
			`ON CONFLICT (scope, delivery_id) DO NOTHING`, 6, len(ds), func(dst []any, i int) []any {
				d := &ds[i]
				return append(dst, d.Scope, d.EndpointID, d.DeliveryID, blob(d.Body), d.Attempts, ms(d.CreatedAt))
			})
	})
	if err != nil {
		return fmt.Errorf("insert deliveries: %w", err)
	}
	return nil
}

// DeleteDeliveries removes the deliveries of scope with these ids.
func (s *Store) DeleteDeliveries(ctx context.Context, scope string, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	sorted := slices.Clone(ids)
	slices.Sort(sorted)
	sorted = slices.Compact(sorted)
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		// Chunks of 256 ids, then halving sizes, so that few distinct
		// statement texts exist (pgx prepares each once per connection).
		for start := 0; start < len(sorted); {
			size := 256
			for size > len(sorted)-start {
				size /= 2
			}
			args := make([]any, 0, size+1)
			args = append(args, scope)
			for _, id := range sorted[start : start+size] {
				args = append(args, id)
			}
			if _, err := tx.ExecContext(ctx, `DELETE FROM webhook_deliveries WHERE scope = $1 AND delivery_id IN `+
				placeholdersFrom(2, size), args...); err != nil {
				return err
			}
			start += size
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("delete deliveries: %w", err)
	}
	return nil
}

// DeleteEndpointDeliveries removes every queued delivery of an endpoint.
func (s *Store) DeleteEndpointDeliveries(ctx context.Context, scope string, endpoint int64) error {
	if _, err := s.w.ExecContext(ctx, `DELETE FROM webhook_deliveries WHERE scope = $1 AND endpoint_id = $2`,
		scope, endpoint); err != nil {
		return fmt.Errorf("delete endpoint deliveries: %w", err)
	}
	return nil
}

// SetDeliveryAttempts records the attempts a delivery has had.
func (s *Store) SetDeliveryAttempts(ctx context.Context, scope, id string, attempts int) error {
	if _, err := s.w.ExecContext(ctx, `UPDATE webhook_deliveries SET attempts = $1 WHERE scope = $2 AND delivery_id = $3`,
		attempts, scope, id); err != nil {
		return fmt.Errorf("set delivery attempts: %w", err)
	}
	return nil
}

// ListDeliveries returns the queued deliveries of scope, oldest first.
func (s *Store) ListDeliveries(ctx context.Context, scope string) ([]persistence.WebhookDelivery, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT scope, endpoint_id, delivery_id, body, attempts, created_at
		FROM webhook_deliveries WHERE scope = $1 ORDER BY seq`, scope)
	if err != nil {
		return nil, fmt.Errorf("list deliveries: %w", err)
	}
	defer rows.Close()
	var out []persistence.WebhookDelivery
	for rows.Next() {
		var d persistence.WebhookDelivery
		var attempts, created int64
		if err := rows.Scan(&d.Scope, &d.EndpointID, &d.DeliveryID, &d.Body, &attempts, &created); err != nil {
			return nil, fmt.Errorf("list deliveries: %w", err)
		}
		d.Body, d.Attempts, d.CreatedAt = unblob(d.Body), int(attempts), fromMS(created)
		out = append(out, d)
	}
	return out, rows.Err()
}

// QueuedDeliveries counts the deliveries not yet finished, every scope's.
func (s *Store) QueuedDeliveries(ctx context.Context) (int64, error) {
	var n int64
	if err := s.r.QueryRowContext(ctx, `SELECT COUNT(*) FROM webhook_deliveries`).Scan(&n); err != nil {
		return 0, fmt.Errorf("count queued deliveries: %w", err)
	}
	return n, nil
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
