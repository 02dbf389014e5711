package sqlstore

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"time"

	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
)

// AppendWatchEvents keeps delivered events, in the order given.
func (s *Store) AppendWatchEvents(ctx context.Context, evs []persistence.WatchEvent) error {
	if len(evs) == 0 {
		return nil
	}
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		return s.execRows(ctx, tx, `INSERT INTO watch_events (product, account_id, kind, data, created_at)`, "", 5, len(evs),
			func(dst []any, i int) []any {
				e := &evs[i]
				return append(dst, string(e.Product), e.AccountID, e.Kind, blob(e.Data), ms(e.CreatedAt))
			})
	})
	if err != nil {
		return fmt.Errorf("append watch events: %w", err)
	}
	return nil
}

// WatchEvents returns the newest events of (p, account), newest first.
func (s *Store) WatchEvents(ctx context.Context, p protocol.Product, account string, limit int) ([]persistence.WatchEvent, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT id, kind, data, created_at FROM watch_events
		WHERE product = $1 AND account_id = $2 ORDER BY id DESC LIMIT $3`, string(p), account, limitArg(limit))
	if err != nil {
		return nil, fmt.Errorf("watch events: %w", err)
	}
	defer rows.Close()
	var out []persistence.WatchEvent
	for rows.Next() {
		e := persistence.WatchEvent{Product: p, AccountID: account}
		var created int64
		if err := rows.Scan(&e.ID, &e.Kind, &e.Data, &created); err != nil {
			return nil, fmt.Errorf("watch events: %w", err)
		}
		e.Data, e.CreatedAt = unblob(e.Data), fromMS(created)
		out = append(out, e)
	}
	return out, rows.Err()
}

// CountWatchEvents counts the events of (p, account) created at or after since.
func (s *Store) CountWatchEvents(ctx context.Context, p protocol.Product, account string, since time.Time) (int, error) {
	var n int
	err := s.r.QueryRowContext(ctx, `SELECT COUNT(*) FROM watch_events
		WHERE product = $1 AND account_id = $2 AND created_at >= $3`, string(p), account, msCeil(since)).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count watch events: %w", err)
	}
	return n, nil
}

// PruneWatchEvents deletes the events of p older than before, except the
// newest keep of each account.
func (s *Store) PruneWatchEvents(ctx context.Context, p protocol.Product, before time.Time, keep int) (int, error) {
	res, err := s.w.ExecContext(ctx, `DELETE FROM watch_events WHERE id IN (
		SELECT id FROM (
			SELECT id, created_at, ROW_NUMBER() OVER (PARTITION BY account_id ORDER BY id DESC) AS rn
			FROM watch_events WHERE product = $1
		) ranked WHERE rn > $2 AND created_at < $3)`, string(p), max(keep, 0), msCeil(before))
	if err != nil {
		return 0, fmt.Errorf("prune watch events: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, fmt.Errorf("prune watch events: %w", err)
	}
	return int(n), nil
}

// PutWatchStates stores each state as the latest of its (Product, Key); a key
// given twice keeps the last. Rows are written in key order.
func (s *Store) PutWatchStates(ctx context.Context, states []persistence.WatchState) error {
	if len(states) == 0 {
		return nil
	}
	rows := lastWatchState(states)
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		return s.execRows(ctx, tx, `INSERT INTO watch_states (product, subject, data, updated_at)`,
			`ON CONFLICT (product, subject) DO UPDATE SET data = excluded.data, updated_at = excluded.updated_at`,
			4, len(rows), func(dst []any, i int) []any {
				st := &rows[i]
				return append(dst, string(st.Product), st.Key, blob(st.Data), ms(st.UpdatedAt))
			})
	})
	if err != nil {
		return fmt.Errorf("put watch states: %w", err)
	}
	return nil
}

func lastWatchState(in []persistence.WatchState) []persistence.WatchState {
	type key struct {
		p protocol.Product
		k string
	}
	at := make(map[key]int, len(in))
	out := make([]persistence.WatchState, 0, len(in))
	for _, st := range in {
		k := key{st.Product, st.Key}
		if i, ok := at[k]; ok {
			out[i] = st
			continue
		}
		at[k] = len(out)
		out = append(out, st)
	}
	slices.SortFunc(out, func(a, b persistence.WatchState) int {
		return cmp.Or(cmp.Compare(a.Product, b.Product), cmp.Compare(a.Key, b.Key))
	})
	return out
}

// DeleteWatchStates removes the states of p under keys.
func (s *Store) DeleteWatchStates(ctx context.Context, p protocol.Product, keys []string) error {
	if len(keys) == 0 {
		return nil
	}
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		for _, k := range keys {
			if _, err := tx.ExecContext(ctx, `DELETE FROM watch_states WHERE product = $1 AND subject = $2`, string(p), k); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("delete watch states: %w", err)
	}
	return nil
}

// ListWatchStates returns every state of p, by key.
func (s *Store) ListWatchStates(ctx context.Context, p protocol.Product) ([]persistence.WatchState, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT subject, data, updated_at FROM watch_states
		WHERE product = $1 ORDER BY subject`, string(p))
	if err != nil {
		return nil, fmt.Errorf("list watch states: %w", err)
	}
	defer rows.Close()
	var out []persistence.WatchState
	for rows.Next() {
		st := persistence.WatchState{Product: p}
		var updated int64
		if err := rows.Scan(&st.Key, &st.Data, &updated); err != nil {
			return nil, fmt.Errorf("list watch states: %w", err)
		}
		st.Data, st.UpdatedAt = unblob(st.Data), fromMS(updated)
		out = append(out, st)
	}
	return out, rows.Err()
}
