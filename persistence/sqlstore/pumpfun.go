package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"slices"

	"github.com/alertd/alertd/persistence"
)

// AddPFTarget stores a new wallet target; persistence.ErrExists if taken.
func (s *Store) AddPFTarget(ctx context.Context, t persistence.PFTarget) error {
	types, err := encodeList(t.AlertTypes)
	if err != nil {
		return fmt.Errorf("add pf target: %w", err)
	}
	res, err := s.w.ExecContext(ctx, `INSERT INTO pf_targets (account_id, wallet, label, alert_types, created_at)
		VALUES ($1, $2, $3, $4, $5) ON CONFLICT (account_id, wallet) DO NOTHING`,
		t.AccountID, t.Wallet, t.Label, types, ms(t.CreatedAt))
	if err != nil {
		return fmt.Errorf("add pf target: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("add pf target: %w", err)
	} else if n == 0 {
		return fmt.Errorf("pf target %s/%s: %w", t.AccountID, t.Wallet, persistence.ErrExists)
	}
	return nil
}

// DeletePFTarget removes the target of (account, wallet).
func (s *Store) DeletePFTarget(ctx context.Context, account, wallet string) error {
	res, err := s.w.ExecContext(ctx, `DELETE FROM pf_targets WHERE account_id = $1 AND wallet = $2`, account, wallet)
	if err != nil {
		return fmt.Errorf("delete pf target: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("delete pf target: %w", err)
	} else if n == 0 {
		return fmt.Errorf("pf target %s/%s: %w", account, wallet, persistence.ErrNotFound)
	}
	return nil
}

// ListPFTargets returns every target by account, then creation order.
func (s *Store) ListPFTargets(ctx context.Context) ([]persistence.PFTarget, error) {
	var out []persistence.PFTarget
	rows, err := s.r.QueryContext(ctx, `SELECT `+pfTargetCols+` FROM pf_targets ORDER BY account_id, id`)
	if err != nil {
		return nil, fmt.Errorf("list pf targets: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		if out, err = scanPFTarget(rows, out); err != nil {
			return nil, fmt.Errorf("list pf targets: %w", err)
		}
	}
	return out, rows.Err()
}

// ListPFTargetsOf returns the targets of the accounts named, by account,
// then creation order.
func (s *Store) ListPFTargetsOf(ctx context.Context, accounts []string) ([]persistence.PFTarget, error) {
	var out []persistence.PFTarget
	err := s.eachOfAccounts(ctx, `SELECT `+pfTargetCols+` FROM pf_targets WHERE account_id IN %s ORDER BY account_id, id`,
		nil, accounts, func(r *sql.Rows) (err error) {
			out, err = scanPFTarget(r, out)
			return err
		})
	if err != nil {
		return nil, fmt.Errorf("list pf targets of accounts: %w", err)
	}
	return out, nil
}

const pfTargetCols = `account_id, wallet, label, alert_types, created_at`

// scanPFTarget appends the target of r's row to out.
func scanPFTarget(r scanner, out []persistence.PFTarget) ([]persistence.PFTarget, error) {
	var t persistence.PFTarget
	var types string
	var created int64
	if err := r.Scan(&t.AccountID, &t.Wallet, &t.Label, &types, &created); err != nil {
		return out, err
	}
	var err error
	if t.AlertTypes, err = decodeList(types); err != nil {
		return out, fmt.Errorf("alert types: %w", err)
	}
	t.CreatedAt = fromMS(created)
	return append(out, t), nil
}

// AppendPFEvents stores events, then trims each account concerned to its
// newest keep events.
func (s *Store) AppendPFEvents(ctx context.Context, evs []persistence.PFEvent, keep int) error {
	if len(evs) == 0 {
		return nil
	}
	var accounts []string
	for _, e := range evs {
		accounts = append(accounts, e.AccountID)
	}
	slices.Sort(accounts)
	accounts = slices.Compact(accounts)
	return s.inTx(ctx, func(tx *sql.Tx) error {
		err := s.execRows(ctx, tx, `INSERT INTO pf_events (account_id, wallet, mint, token_name, token_symbol,
			event_type, detected_at, delivery_latency_ms)`, "", 8, len(evs), func(dst []any, i int) []any {
			e := evs[i]
			return append(dst, e.AccountID, e.Wallet, e.Mint, e.TokenName, e.TokenSymbol, e.EventType,
				ms(e.DetectedAt), e.DeliveryLatencyMS)
		})
		if err != nil {
			return fmt.Errorf("append pf events: %w", err)
		}
		for _, a := range accounts {
			if _, err := tx.ExecContext(ctx, `DELETE FROM pf_events WHERE account_id = $1 AND id <
				(SELECT COALESCE(MIN(id), 0) FROM (SELECT id FROM pf_events WHERE account_id = $1
				ORDER BY id DESC LIMIT $2) newest)`, a, keep); err != nil {
				return fmt.Errorf("trim pf events: %w", err)
			}
		}
		return nil
	})
}

// ListPFEvents returns the newest events of account, newest first.
func (s *Store) ListPFEvents(ctx context.Context, account string, limit int) ([]persistence.PFEvent, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT account_id, wallet, mint, token_name, token_symbol, event_type,
		detected_at, delivery_latency_ms FROM pf_events WHERE account_id = $1 ORDER BY id DESC LIMIT $2`,
		account, limitArg(limit))
	if err != nil {
		return nil, fmt.Errorf("list pf events: %w", err)
	}
	defer rows.Close()
	var out []persistence.PFEvent
	for rows.Next() {
		var e persistence.PFEvent
		var at int64
		if err := rows.Scan(&e.AccountID, &e.Wallet, &e.Mint, &e.TokenName, &e.TokenSymbol, &e.EventType,
			&at, &e.DeliveryLatencyMS); err != nil {
			return nil, fmt.Errorf("list pf events: %w", err)
		}
		e.DetectedAt = fromMS(at)
		out = append(out, e)
	}
	return out, rows.Err()
}
