package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
)

// AddWatchTarget stores t; persistence.ErrExists if it is already stored.
func (s *Store) AddWatchTarget(ctx context.Context, t persistence.WatchTarget) error {
	res, err := s.w.ExecContext(ctx, `INSERT INTO watch_targets (product, account_id, item, options, created_at)
		VALUES ($1, $2, $3, $4, $5) ON CONFLICT (product, account_id, item) DO NOTHING`,
		string(t.Product), t.AccountID, t.Item, blob(t.Options), ms(t.CreatedAt))
	if err != nil {
		return fmt.Errorf("add watch target: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("add watch target: %w", err)
	} else if n == 0 {
		return fmt.Errorf("watch target %s/%s/%s: %w", t.Product, t.AccountID, t.Item, persistence.ErrExists)
	}
	return nil
}

// SetWatchTargetOptions replaces the options of a stored target.
func (s *Store) SetWatchTargetOptions(ctx context.Context, p protocol.Product, account, item string, opts []byte) error {
	res, err := s.w.ExecContext(ctx, `UPDATE watch_targets SET options = $1 WHERE product = $2 AND account_id = $3 AND item = $4`,
		blob(opts), string(p), account, item)
	return watchAffected(res, err, "set watch target options", p, account, item)
}

// DeleteWatchTarget removes a target.
func (s *Store) DeleteWatchTarget(ctx context.Context, p protocol.Product, account, item string) error {
	res, err := s.w.ExecContext(ctx, `DELETE FROM watch_targets WHERE product = $1 AND account_id = $2 AND item = $3`,
		string(p), account, item)
	return watchAffected(res, err, "delete watch target", p, account, item)
}

// watchAffected turns "no row changed" into persistence.ErrNotFound.
func watchAffected(res sql.Result, err error, what string, p protocol.Product, account, item string) error {
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if n == 0 {
		return fmt.Errorf("watch target %s/%s/%s: %w", p, account, item, persistence.ErrNotFound)
	}
	return nil
}

// ListWatchTargets returns every target of p by account, then insertion order.
func (s *Store) ListWatchTargets(ctx context.Context, p protocol.Product) ([]persistence.WatchTarget, error) {
	return s.listWatchTargets(ctx, p, nil, false)
}

// ListWatchTargetsOf returns the targets of p of the accounts named, by
// account, then insertion order.
func (s *Store) ListWatchTargetsOf(ctx context.Context, p protocol.Product, accounts []string) ([]persistence.WatchTarget, error) {
	return s.listWatchTargets(ctx, p, accounts, true)
}

// listWatchTargets lists p's targets of accounts, or of every account
// unless named.
func (s *Store) listWatchTargets(ctx context.Context, p protocol.Product, accounts []string, named bool) ([]persistence.WatchTarget, error) {
	var out []persistence.WatchTarget
	scan := func(r *sql.Rows) error {
		t := persistence.WatchTarget{Product: p}
		var created int64
		if err := r.Scan(&t.AccountID, &t.Item, &t.Options, &created); err != nil {
			return err
		}
		t.Options, t.CreatedAt = unblob(t.Options), fromMS(created)
		out = append(out, t)
		return nil
	}
	const q = `SELECT account_id, item, options, created_at FROM watch_targets WHERE product = $1`
	var err error
	if named {
		err = s.eachOfAccounts(ctx, q+` AND account_id IN %s ORDER BY account_id, id`, []any{string(p)}, accounts, scan)
	} else {
		err = s.eachRow(ctx, q+` ORDER BY account_id, id`, []any{string(p)}, scan)
	}
	if err != nil {
		return nil, fmt.Errorf("list watch targets: %w", err)
	}
	return out, nil
}

// PutWatchSettings replaces the settings of (p, account).
func (s *Store) PutWatchSettings(ctx context.Context, p protocol.Product, account string, settings []byte, now time.Time) error {
	_, err := s.w.ExecContext(ctx, `INSERT INTO watch_configs (product, account_id, settings, webhook_url, webhook_secret, updated_at)
		VALUES ($1, $2, $3, '', '', $4)
		ON CONFLICT (product, account_id) DO UPDATE SET settings = excluded.settings, updated_at = excluded.updated_at`,
		string(p), account, blob(settings), ms(now))
	if err != nil {
		return fmt.Errorf("put watch settings: %w", err)
	}
	return nil
}

// PutWatchWebhook replaces the webhook of (p, account) and returns the id
// of the account's config row, which stays the same from then on.
func (s *Store) PutWatchWebhook(ctx context.Context, p protocol.Product, account, url, secret string, now time.Time) (int64, error) {
	var id int64
	err := s.w.QueryRowContext(ctx, `INSERT INTO watch_configs (product, account_id, settings, webhook_url, webhook_secret, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6)
		ON CONFLICT (product, account_id) DO UPDATE SET webhook_url = excluded.webhook_url,
			webhook_secret = excluded.webhook_secret, updated_at = excluded.updated_at
		RETURNING id`,
		string(p), account, blob(nil), url, secret, ms(now)).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("put watch webhook: %w", err)
	}
	return id, nil
}

// ListWatchConfigs returns the settings and webhooks of every account of p.
func (s *Store) ListWatchConfigs(ctx context.Context, p protocol.Product) ([]persistence.WatchConfig, error) {
	return s.listWatchConfigs(ctx, p, nil, false)
}

// ListWatchConfigsOf returns the settings and webhooks of p of the accounts
// named, by account.
func (s *Store) ListWatchConfigsOf(ctx context.Context, p protocol.Product, accounts []string) ([]persistence.WatchConfig, error) {
	return s.listWatchConfigs(ctx, p, accounts, true)
}

// listWatchConfigs lists p's configs of accounts, or of every account
// unless named.
func (s *Store) listWatchConfigs(ctx context.Context, p protocol.Product, accounts []string, named bool) ([]persistence.WatchConfig, error) {
	var out []persistence.WatchConfig
	scan := func(r *sql.Rows) error {
		c := persistence.WatchConfig{Product: p}
		var updated int64
		if err := r.Scan(&c.ID, &c.AccountID, &c.Settings, &c.WebhookURL, &c.WebhookSecret, &updated); err != nil {
			return err
		}
		c.Settings, c.UpdatedAt = unblob(c.Settings), fromMS(updated)
		out = append(out, c)
		return nil
	}
	const q = `SELECT id, account_id, settings, webhook_url, webhook_secret, updated_at FROM watch_configs WHERE product = $1`
	var err error
	if named {
		err = s.eachOfAccounts(ctx, q+` AND account_id IN %s ORDER BY account_id`, []any{string(p)}, accounts, scan)
	} else {
		err = s.eachRow(ctx, q+` ORDER BY account_id`, []any{string(p)}, scan)
	}
	if err != nil {
		return nil, fmt.Errorf("list watch configs: %w", err)
	}
	return out, nil
}
