package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/alertd/alertd/persistence"
)

const targetCols = `id, account_id, handle, display_name, social_user_id, is_active, created_at`

// PutTarget inserts or updates the target of (AccountID, Handle).
func (s *Store) PutTarget(ctx context.Context, t persistence.Target) (persistence.Target, error) {
	var sid sql.NullString
	if t.SocialUserID != nil {
		sid = sql.NullString{String: *t.SocialUserID, Valid: true}
	}
	row := s.w.QueryRowContext(ctx, `INSERT INTO targets (account_id, handle, display_name, social_user_id, is_active, created_at)
		VALUES ($1, $2, $3, $4, $5, $6)
		ON CONFLICT (account_id, handle) DO UPDATE SET display_name = excluded.display_name,
			social_user_id = excluded.social_user_id, is_active = excluded.is_active
		RETURNING `+targetCols,
		t.AccountID, t.Handle, t.DisplayName, sid, t.IsActive, ms(t.CreatedAt))
	out, err := scanTarget(row)
	if err != nil {
		return persistence.Target{}, fmt.Errorf("put target: %w", err)
	}
	return out, nil
}

// DeleteTarget removes the target of (account, handle).
func (s *Store) DeleteTarget(ctx context.Context, account, handle string) error {
	res, err := s.w.ExecContext(ctx, `DELETE FROM targets WHERE account_id = $1 AND handle = $2`, account, handle)
	if err != nil {
		return fmt.Errorf("delete target: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("delete target: %w", err)
	} else if n == 0 {
		return fmt.Errorf("target %s/%s: %w", account, handle, persistence.ErrNotFound)
	}
	return nil
}

// ListAllTargets returns every target by account, then creation order.
func (s *Store) ListAllTargets(ctx context.Context) ([]persistence.Target, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT `+targetCols+` FROM targets ORDER BY account_id, id`)
	if err != nil {
		return nil, fmt.Errorf("list targets: %w", err)
	}
	defer rows.Close()
	var out []persistence.Target
	for rows.Next() {
		t, err := scanTarget(rows)
		if err != nil {
			return nil, fmt.Errorf("list targets: %w", err)
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

func scanTarget(r scanner) (persistence.Target, error) {
	var t persistence.Target
	var sid sql.NullString
	var created int64
	if err := r.Scan(&t.ID, &t.AccountID, &t.Handle, &t.DisplayName, &sid, &t.IsActive, &created); err != nil {
		return t, err
	}
	if sid.Valid {
		v := sid.String
		t.SocialUserID = &v
	}
	t.CreatedAt = fromMS(created)
	return t, nil
}

// AppendTrace stores trace records.
func (s *Store) AppendTrace(ctx context.Context, recs []persistence.TraceRecord) error {
	if len(recs) == 0 {
		return nil
	}
	return s.inTx(ctx, func(tx *sql.Tx) error {
		return s.execRows(ctx, tx, `INSERT INTO trace (event_id, event, handle, event_time, data)`, "", 5, len(recs),
			func(dst []any, i int) []any {
				r := recs[i]
				return append(dst, r.EventID, r.Event, r.Handle, ms(r.EventTime), r.Data)
			})
	})
}

// TraceWindow returns the records of handle within [from, to], oldest first.
func (s *Store) TraceWindow(ctx context.Context, handle string, from, to time.Time, limit int) ([]persistence.TraceRecord, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT event_id, event, handle, event_time, data FROM trace
		WHERE handle = $1 AND event_time >= $2 AND event_time <= $3 ORDER BY event_time, id LIMIT $4`,
		handle, ms(from), ms(to), limit)
	if err != nil {
		return nil, fmt.Errorf("trace window: %w", err)
	}
	defer rows.Close()
	var out []persistence.TraceRecord
	for rows.Next() {
		var r persistence.TraceRecord
		var at int64
		if err := rows.Scan(&r.EventID, &r.Event, &r.Handle, &at, &r.Data); err != nil {
			return nil, fmt.Errorf("trace window: %w", err)
		}
		r.EventTime = fromMS(at)
		out = append(out, r)
	}
	return out, rows.Err()
}
