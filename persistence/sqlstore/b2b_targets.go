package sqlstore

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"time"

	"github.com/alertd/alertd/persistence"
)

const targetCols = `id, account_id, handle, display_name, social_user_id, is_active, created_at, screen_name`

// PutTarget inserts or updates the target of (AccountID, Handle).
func (s *Store) PutTarget(ctx context.Context, t persistence.Target) (persistence.Target, error) {
	row := s.w.QueryRowContext(ctx, targetUpsertHead+" VALUES ($1, $2, $3, $4, $5, $6, $7) "+targetUpsertTail,
		targetArgs(nil, t)...)
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

// targetInsert adds a target that is not stored yet.
const targetInsert = `INSERT INTO targets (account_id, handle, display_name, social_user_id, is_active, created_at, screen_name)
	VALUES ($1, $2, $3, $4, $5, $6, $7)`

// targetUpsertHead and targetUpsertTail are PutTarget's statement without its VALUES, for batches.
const (
	targetUpsertHead = `INSERT INTO targets (account_id, handle, display_name, social_user_id, is_active, created_at, screen_name)`
	targetUpsertTail = `ON CONFLICT (account_id, handle) DO UPDATE SET display_name = excluded.display_name,
		social_user_id = excluded.social_user_id, is_active = excluded.is_active, screen_name = excluded.screen_name
		RETURNING ` + targetCols
)

// WriteTargets upserts put and deletes del in one transaction, rows in key
// order (the package's lock-order rule); it returns put as stored, in the
// order given.
func (s *Store) WriteTargets(ctx context.Context, put []persistence.Target, del []persistence.TargetKey) ([]persistence.Target, error) {
	if len(put) == 0 && len(del) == 0 {
		return nil, nil
	}
	order := make([]int, len(put))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		return cmp.Or(cmp.Compare(put[a].AccountID, put[b].AccountID), cmp.Compare(put[a].Handle, put[b].Handle))
	})
	dels := slices.Clone(del)
	slices.SortFunc(dels, func(a, b persistence.TargetKey) int {
		return cmp.Or(cmp.Compare(a.AccountID, b.AccountID), cmp.Compare(a.Handle, b.Handle))
	})
	out := make([]persistence.Target, len(put))
	var err error
	if s.d.BatchRows <= 1 {
		err = s.writeTargetsByRow(ctx, put, order, dels, out)
	} else {
		err = s.inTx(ctx, func(tx *sql.Tx) error {
			if err := s.upsertTargetChunks(ctx, tx, put, order, out); err != nil {
				return err
			}
			return s.execChunks(ctx, tx, len(dels), 2, func(size int) string {
				return `DELETE FROM targets WHERE (account_id, handle) IN (VALUES ` + tuples(size, 2) + `)`
			}, func(dst []any, i int) []any { return append(dst, dels[i].AccountID, dels[i].Handle) })
		})
	}
	if err != nil {
		return nil, fmt.Errorf("write targets: %w", err)
	}
	return out, nil
}

// targetArgN is the number of upsert arguments of one target (targetArgs).
const targetArgN = 7

// targetArgs appends the upsert arguments of t to dst.
func targetArgs(dst []any, t persistence.Target) []any {
	var sid sql.NullString
	if t.SocialUserID != nil {
		sid = sql.NullString{String: *t.SocialUserID, Valid: true}
	}
	return append(dst, t.AccountID, t.Handle, t.DisplayName, sid, t.IsActive, ms(t.CreatedAt), t.ScreenName)
}

// writeTargetsByRow is WriteTargets for an embedded engine: one statement
// per row, prepared once per store (the group commit's transactions are
// small and many; parsing the SQL each time cost more than the rows). A row
// with ID 0 is most likely new: a plain INSERT, whose id comes back without
// a RETURNING row, costs about a third less; if the key exists after all, the
// row is upserted instead.
func (s *Store) writeTargetsByRow(ctx context.Context, put []persistence.Target, order []int, dels []persistence.TargetKey, out []persistence.Target) error {
	var ins, up, rm *sql.Stmt
	var err error
	if len(put) > 0 {
		if ins, err = s.prepared(ctx, targetInsert); err != nil {
			return err
		}
		if up, err = s.prepared(ctx, targetUpsertHead+" VALUES "+tuples(1, targetArgN)+" "+targetUpsertTail); err != nil {
			return err
		}
	}
	if len(dels) > 0 {
		if rm, err = s.prepared(ctx, `DELETE FROM targets WHERE account_id = $1 AND handle = $2`); err != nil {
			return err
		}
	}
	return s.inTx(ctx, func(tx *sql.Tx) error {
		// The rows run without ctx's deadline: the driver (modernc) starts a
		// goroutine per statement to interrupt it when a context ends (~8%
		// of a 16-row round's CPU). The transaction holds the write lock, so
		// a row never waits on another writer; ctx still bounds the begin,
		// the commit, and the transaction as a whole (database/sql rolls it
		// back when ctx ends, and later rows fail).
		rowCtx := context.WithoutCancel(ctx)
		if len(put) > 0 {
			ins, up := tx.StmtContext(ctx, ins), tx.StmtContext(ctx, up)
			buf := make([]any, 0, targetArgN)
			for _, i := range order {
				t := put[i]
				args := targetArgs(buf[:0], t)
				if t.ID == 0 {
					if res, err := ins.ExecContext(rowCtx, args...); err == nil {
						if id, err := res.LastInsertId(); err == nil {
							t.ID, t.CreatedAt = id, fromMS(ms(t.CreatedAt))
							out[i] = t
							continue
						}
					}
					// The key exists (or the insert failed otherwise): the
					// failed statement is undone, the transaction goes on.
				}
				if out[i], err = scanTarget(up.QueryRowContext(rowCtx, args...)); err != nil {
					return err
				}
			}
		}
		if rm != nil {
			st := tx.StmtContext(ctx, rm)
			for _, k := range dels {
				if _, err := st.ExecContext(rowCtx, k.AccountID, k.Handle); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// upsertTargetChunks writes put[order[i]] for every i in multi-row
// statements (a server: fewer round trips) and fills out, indexed like put,
// matching the returned rows back by key.
func (s *Store) upsertTargetChunks(ctx context.Context, tx *sql.Tx, put []persistence.Target, order []int, out []persistence.Target) error {
	if len(put) == 0 {
		return nil
	}
	at := make(map[persistence.TargetKey]int, len(put))
	for i, t := range put {
		at[persistence.TargetKey{AccountID: t.AccountID, Handle: t.Handle}] = i
	}
	buf := make([]any, 0, min(len(put), s.d.BatchRows)*targetArgN)
	for start := 0; start < len(order); {
		size := s.d.BatchRows
		for size > len(order)-start {
			size /= 2
		}
		buf = buf[:0]
		for _, i := range order[start : start+size] {
			buf = targetArgs(buf, put[i])
		}
		rows, err := tx.QueryContext(ctx, targetUpsertHead+" VALUES "+tuples(size, targetArgN)+" "+targetUpsertTail, buf...)
		if err != nil {
			return err
		}
		for rows.Next() {
			t, err := scanTarget(rows)
			if err != nil {
				rows.Close()
				return err
			}
			out[at[persistence.TargetKey{AccountID: t.AccountID, Handle: t.Handle}]] = t
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		start += size
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

// ListTargetsOf returns the targets of the accounts named, by account,
// then creation order.
func (s *Store) ListTargetsOf(ctx context.Context, accounts []string) ([]persistence.Target, error) {
	var out []persistence.Target
	err := s.eachOfAccounts(ctx, `SELECT `+targetCols+` FROM targets WHERE account_id IN %s ORDER BY account_id, id`,
		nil, accounts, func(r *sql.Rows) error {
			t, err := scanTarget(r)
			out = append(out, t)
			return err
		})
	if err != nil {
		return nil, fmt.Errorf("list targets of accounts: %w", err)
	}
	return out, nil
}

func scanTarget(r scanner) (persistence.Target, error) {
	var t persistence.Target
	var sid sql.NullString
	var created int64
	if err := r.Scan(&t.ID, &t.AccountID, &t.Handle, &t.DisplayName, &sid, &t.IsActive, &created, &t.ScreenName); err != nil {
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

// targetInsertWithID is targetInsert with the row's own id; a key or an id
// already stored makes it a no-op (RowsAffected 0).
func (s *Store) targetInsertWithID() string {
	overriding := ""
	if s.d.Name == Postgres.Name { // an identity column takes a given value only when told
		overriding = " OVERRIDING SYSTEM VALUE"
	}
	return `INSERT INTO targets (id, account_id, handle, display_name, social_user_id, is_active, created_at, screen_name)` +
		overriding + ` VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT DO NOTHING`
}

// WriteTargetRows makes the store hold exactly the rows given, ids included:
// it deletes del, then writes each put row at its key with its ID (a row at
// that key with another id, or another key with that id, is replaced), in
// one transaction. The target registry's journal mode assigns the ids.
func (s *Store) WriteTargetRows(ctx context.Context, put []persistence.Target, del []persistence.TargetKey) error {
	if len(put) == 0 && len(del) == 0 {
		return nil
	}
	put = slices.Clone(put)
	slices.SortFunc(put, func(a, b persistence.Target) int {
		return cmp.Or(cmp.Compare(a.AccountID, b.AccountID), cmp.Compare(a.Handle, b.Handle))
	})
	dels := slices.Clone(del)
	slices.SortFunc(dels, func(a, b persistence.TargetKey) int {
		return cmp.Or(cmp.Compare(a.AccountID, b.AccountID), cmp.Compare(a.Handle, b.Handle))
	})
	var ins, clear, rm *sql.Stmt
	var err error
	if len(put) > 0 {
		if ins, err = s.prepared(ctx, s.targetInsertWithID()); err != nil {
			return fmt.Errorf("write target rows: %w", err)
		}
		if clear, err = s.prepared(ctx, `DELETE FROM targets WHERE (account_id = $1 AND handle = $2) OR id = $3`); err != nil {
			return fmt.Errorf("write target rows: %w", err)
		}
	}
	if len(dels) > 0 {
		if rm, err = s.prepared(ctx, `DELETE FROM targets WHERE account_id = $1 AND handle = $2`); err != nil {
			return fmt.Errorf("write target rows: %w", err)
		}
	}
	err = s.inTx(ctx, func(tx *sql.Tx) error {
		// Rows run without ctx's deadline, as in writeTargetsByRow.
		rowCtx := context.WithoutCancel(ctx)
		if rm != nil {
			st := tx.StmtContext(ctx, rm)
			for _, k := range dels {
				if _, err := st.ExecContext(rowCtx, k.AccountID, k.Handle); err != nil {
					return err
				}
			}
		}
		if len(put) == 0 {
			return nil
		}
		ins, clear := tx.StmtContext(ctx, ins), tx.StmtContext(ctx, clear)
		args := make([]any, 0, targetArgN+1)
		for _, t := range put {
			args = targetArgs(append(args[:0], t.ID), t)
			res, err := ins.ExecContext(rowCtx, args...)
			if err != nil {
				return err
			}
			if n, err := res.RowsAffected(); err != nil {
				return err
			} else if n == 1 {
				continue
			}
			// The key (or the id) is stored already: replace the row.
			if _, err := clear.ExecContext(rowCtx, t.AccountID, t.Handle, t.ID); err != nil {
				return err
			}
			if _, err := ins.ExecContext(rowCtx, args...); err != nil {
				return err
			}
		}
		if s.d.Name == Postgres.Name { // generated ids continue above the given ones
			_, err := tx.ExecContext(ctx, `SELECT setval(pg_get_serial_sequence('targets', 'id'), (SELECT max(id) FROM targets))`)
			return err
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("write target rows: %w", err)
	}
	return nil
}
