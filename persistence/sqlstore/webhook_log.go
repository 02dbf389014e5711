package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/alertd/alertd/persistence"
)

// The webhook engines' durable queue and the delivery log it leaves: a
// delivery row is queued until its delivery is over, then keeps its final
// state beside its attempts until retention prunes both. The attempt that
// delivered it (2xx) is kept in its own row; the others in webhook_attempts.
// A body several deliveries share is stored once (webhook_bodies) and stays
// while a delivery points at it: a finished delivery can be redelivered.

// deliveryCols are read FROM deliveriesFrom: a delivery's body is its
// shared one (webhook_bodies, migration 0012) or, without one, its own.
const deliveryCols = `d.seq, d.scope, d.endpoint_id, d.delivery_id, COALESCE(b.body, d.body), d.attempts, d.created_at, d.event, d.state,
	d.finished_at, d.ok_status, d.ok_latency_ms`

const deliveriesFrom = `webhook_deliveries d LEFT JOIN webhook_bodies b ON b.id = d.body_id`

// InsertDeliveries queues ds in one transaction, skipping ids already stored.
// Consecutive deliveries of the same body (one post to many webhooks) share
// one stored copy of it; a body of one delivery stays in its row.
func (s *Store) InsertDeliveries(ctx context.Context, ds []persistence.WebhookDelivery) error {
	if len(ds) == 0 {
		return nil
	}
	if err := s.inTx(ctx, func(tx *sql.Tx) error { return s.insertDeliveryRows(ctx, tx, ds, nil) }); err != nil {
		return fmt.Errorf("insert deliveries: %w", err)
	}
	return nil
}

const insertDeliveryHead = `INSERT INTO webhook_deliveries (scope, endpoint_id, delivery_id, body, body_id, attempts, created_at, event, state)`

// insertDeliveryRows inserts ds (ids already stored are skipped) with their
// shared bodies. On the embedded store, stored (when set) hears the index in
// ds and the seq of each row inserted: a single-row insert says whether it
// took the row. PostgreSQL writes many rows a statement and never calls it.
func (s *Store) insertDeliveryRows(ctx context.Context, tx *sql.Tx, ds []persistence.WebhookDelivery, stored func(i int, seq int64)) error {
	bodyIDs, err := s.insertSharedBodies(ctx, tx, ds)
	if err != nil {
		return err
	}
	row := func(dst []any, i int) []any {
		d := &ds[i]
		var body, bodyID any = blob(d.Body), nil
		if bodyIDs != nil && bodyIDs[i] != 0 {
			body, bodyID = []byte{}, bodyIDs[i]
		}
		return append(dst, d.Scope, d.EndpointID, d.DeliveryID, body, bodyID, d.Attempts, ms(d.CreatedAt), d.Event,
			persistence.DeliveryQueued)
	}
	if s.d.BatchRows > 1 {
		// Rows of a multi-row INSERT take their seq in VALUES order, which
		// is the order ListDeliveries gives back.
		return s.execRows(ctx, tx, insertDeliveryHead, `ON CONFLICT (scope, delivery_id) DO NOTHING`, 9, len(ds), row)
	}
	st, err := tx.PrepareContext(ctx, insertDeliveryHead+` VALUES `+tuples(1, 9)+` ON CONFLICT (scope, delivery_id) DO NOTHING`)
	if err != nil {
		return err
	}
	defer st.Close()
	buf := make([]any, 0, 9)
	rowCtx := perRow(ctx)
	for i := range ds {
		res, err := st.ExecContext(rowCtx, row(buf[:0], i)...)
		if err != nil {
			return err
		}
		if stored == nil {
			continue
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 1 {
			seq, err := res.LastInsertId()
			if err != nil {
				return err
			}
			stored(i, seq)
		}
	}
	return nil
}

// RecordAttempts logs the attempts and applies each to its delivery, in one
// transaction. An attempt answered 2xx ends its delivery and is kept in the
// delivery's own row (ok_status, ok_latency_ms, at = finished_at), the last
// of its log: most deliveries succeed at once, and their log is then one
// row, not two. The others go to webhook_attempts.
func (s *Store) RecordAttempts(ctx context.Context, scope string, as []persistence.WebhookAttempt) error {
	if len(as) == 0 {
		return nil
	}
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		failed := make([]*persistence.WebhookAttempt, 0, len(as))
		for i := range as {
			if as[i].Result != persistence.AttemptOK {
				failed = append(failed, &as[i])
			}
		}
		if err := s.execRows(ctx, tx, `INSERT INTO webhook_attempts (scope, delivery_id, at, status_code, latency_ms, error, result)`, ``,
			7, len(failed), func(dst []any, i int) []any {
				a := failed[i]
				return append(dst, scope, a.DeliveryID, ms(a.At), a.StatusCode, a.Latency.Milliseconds(), a.Error, a.Result)
			}); err != nil {
			return err
		}
		// Each statement prepared once for the whole batch: preparing one
		// per attempt was a third of the cost of a busy engine's log. A
		// delivery whose Seq the engine knows is found by its rowid, not
		// through the index of its id.
		stmts := map[string]*sql.Stmt{}
		rowCtx := perRow(ctx)
		defer func() {
			for _, st := range stmts {
				st.Close()
			}
		}()
		exec := func(set string, a *persistence.WebhookAttempt, args ...any) error {
			q := `UPDATE webhook_deliveries SET ` + set
			if a.Seq > 0 { // the id too: a rowid freed by a delete may be taken again
				q += fmt.Sprintf(` WHERE seq = $%d AND delivery_id = $%d`, len(args)+1, len(args)+2)
				args = append(args, a.Seq, a.DeliveryID)
			} else {
				q += fmt.Sprintf(` WHERE scope = $%d AND delivery_id = $%d`, len(args)+1, len(args)+2)
				args = append(args, scope, a.DeliveryID)
			}
			st := stmts[q]
			if st == nil {
				var err error
				if st, err = tx.PrepareContext(ctx, q); err != nil {
					return err
				}
				stmts[q] = st
			}
			_, err := st.ExecContext(rowCtx, args...)
			return err
		}
		for i := range as {
			a := &as[i]
			var err error
			switch a.Result {
			case persistence.AttemptOK:
				err = exec(`attempts = $1, state = $2, finished_at = $3, ok_status = $4, ok_latency_ms = $5`, a,
					a.Attempts, persistence.DeliveryDelivered, ms(a.At), a.StatusCode, a.Latency.Milliseconds())
			case persistence.AttemptFailed:
				err = exec(`attempts = $1, state = $2, finished_at = $3`, a, a.Attempts, persistence.DeliveryFailed, ms(a.At))
			default:
				err = exec(`attempts = $1`, a, a.Attempts)
			}
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("record attempts: %w", err)
	}
	return nil
}

// DropDeliveries ends the queued deliveries of scope with these ids as dropped.
func (s *Store) DropDeliveries(ctx context.Context, scope string, ids []string, at time.Time) error {
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
			args := make([]any, 0, size+3)
			args = append(args, persistence.DeliveryDropped, ms(at), scope)
			for _, id := range sorted[start : start+size] {
				args = append(args, id)
			}
			if _, err := tx.ExecContext(ctx, `UPDATE webhook_deliveries SET state = $1, finished_at = $2
				WHERE scope = $3 AND state = 'queued' AND delivery_id IN `+placeholdersFrom(4, size), args...); err != nil {
				return err
			}
			start += size
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("drop deliveries: %w", err)
	}
	return nil
}

// DropEndpointDeliveries ends every queued delivery of an endpoint as dropped.
func (s *Store) DropEndpointDeliveries(ctx context.Context, scope string, endpoint int64, at time.Time) error {
	if _, err := s.w.ExecContext(ctx, `UPDATE webhook_deliveries SET state = $1, finished_at = $2
		WHERE scope = $3 AND endpoint_id = $4 AND state = 'queued'`, persistence.DeliveryDropped, ms(at), scope, endpoint); err != nil {
		return fmt.Errorf("drop endpoint deliveries: %w", err)
	}
	return nil
}

// ListDeliveries returns the queued deliveries of scope, oldest first.
func (s *Store) ListDeliveries(ctx context.Context, scope string) ([]persistence.WebhookDelivery, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT `+deliveryCols+` FROM `+deliveriesFrom+`
		WHERE d.scope = $1 AND d.state = 'queued' ORDER BY d.seq`, scope)
	if err != nil {
		return nil, fmt.Errorf("list deliveries: %w", err)
	}
	out, err := scanDeliveries(rows, nil)
	if err != nil {
		return nil, fmt.Errorf("list deliveries: %w", err)
	}
	return out, nil
}

// ListEndpointDeliveries returns the oldest queued deliveries of an
// endpoint, up to limit, oldest first.
func (s *Store) ListEndpointDeliveries(ctx context.Context, scope string, endpoint int64, limit int) ([]persistence.WebhookDelivery, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT `+deliveryCols+` FROM `+deliveriesFrom+`
		WHERE d.scope = $1 AND d.endpoint_id = $2 AND d.state = 'queued' ORDER BY d.seq LIMIT $3`, scope, endpoint, limit)
	if err != nil {
		return nil, fmt.Errorf("list endpoint deliveries: %w", err)
	}
	out, err := scanDeliveries(rows, nil)
	if err != nil {
		return nil, fmt.Errorf("list endpoint deliveries: %w", err)
	}
	return out, nil
}

// QueuedEndpoints returns the endpoints of scope with queued deliveries,
// through the index of queued rows (migration 0010).
func (s *Store) QueuedEndpoints(ctx context.Context, scope string) ([]int64, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT DISTINCT endpoint_id FROM webhook_deliveries
		WHERE scope = $1 AND state = 'queued' ORDER BY endpoint_id`, scope)
	if err != nil {
		return nil, fmt.Errorf("queued endpoints: %w", err)
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("queued endpoints: %w", err)
		}
		out = append(out, id)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("queued endpoints: %w", err)
	}
	return out, nil
}

// QueuedDeliveries counts the queued deliveries, every scope's.
func (s *Store) QueuedDeliveries(ctx context.Context) (int64, error) {
	var n int64
	if err := s.r.QueryRowContext(ctx, `SELECT COUNT(*) FROM webhook_deliveries WHERE state = 'queued'`).Scan(&n); err != nil {
		return 0, fmt.Errorf("count queued deliveries: %w", err)
	}
	return n, nil
}

// DeliveryLog returns an endpoint's deliveries, newest first, with their
// attempts.
func (s *Store) DeliveryLog(ctx context.Context, scope string, endpoint int64, before int64, limit int) ([]persistence.WebhookLogEntry, error) {
	if before <= 0 {
		before = 1<<63 - 1
	}
	rows, err := s.r.QueryContext(ctx, `SELECT `+deliveryCols+` FROM `+deliveriesFrom+`
		WHERE d.scope = $1 AND d.endpoint_id = $2 AND d.seq < $3 ORDER BY d.seq DESC LIMIT $4`, scope, endpoint, before, limit)
	if err != nil {
		return nil, fmt.Errorf("delivery log: %w", err)
	}
	inline := map[int]persistence.WebhookAttempt{}
	ds, err := scanDeliveries(rows, func(i int, a persistence.WebhookAttempt) { inline[i] = a })
	if err != nil || len(ds) == 0 {
		if err != nil {
			return nil, fmt.Errorf("delivery log: %w", err)
		}
		return []persistence.WebhookLogEntry{}, nil
	}
	out := make([]persistence.WebhookLogEntry, len(ds))
	at := map[string]int{}
	args := []any{scope}
	for i, d := range ds {
		out[i].WebhookDelivery = d
		out[i].Log = []persistence.WebhookAttempt{}
		at[d.DeliveryID] = i
		args = append(args, d.DeliveryID)
	}
	arows, err := s.r.QueryContext(ctx, `SELECT delivery_id, at, status_code, latency_ms, error, result FROM webhook_attempts
		WHERE scope = $1 AND delivery_id IN `+placeholdersFrom(2, len(ds))+` ORDER BY id`, args...)
	if err != nil {
		return nil, fmt.Errorf("delivery log attempts: %w", err)
	}
	defer arows.Close()
	for arows.Next() {
		var a persistence.WebhookAttempt
		var t, code, lat int64
		if err := arows.Scan(&a.DeliveryID, &t, &code, &lat, &a.Error, &a.Result); err != nil {
			return nil, fmt.Errorf("delivery log attempts: %w", err)
		}
		a.At, a.StatusCode, a.Latency = fromMS(t), int(code), time.Duration(lat)*time.Millisecond
		e := &out[at[a.DeliveryID]]
		a.Attempts = len(e.Log) + 1 // its place among the delivery's attempts
		e.Log = append(e.Log, a)
	}
	if err := arows.Err(); err != nil {
		return nil, fmt.Errorf("delivery log attempts: %w", err)
	}
	for i, a := range inline { // the attempt that delivered it: the last
		a.Attempts = len(out[i].Log) + 1
		out[i].Log = append(out[i].Log, a)
	}
	return out, nil
}

// RequeueDeliveries queues again the finished deliveries f selects.
func (s *Store) RequeueDeliveries(ctx context.Context, scope string, endpoint int64, f persistence.RedeliverFilter) ([]persistence.WebhookDelivery, error) {
	where := []string{`d.scope = $1`, `d.endpoint_id = $2`, `d.state <> 'queued'`}
	args := []any{scope, endpoint}
	arg := func(v any) string {
		args = append(args, v)
		return fmt.Sprintf("$%d", len(args))
	}
	switch {
	case len(f.IDs) > 0:
		ph := make([]string, len(f.IDs))
		for i, id := range f.IDs {
			ph[i] = arg(id)
		}
		where = append(where, `d.delivery_id IN (`+strings.Join(ph, ", ")+`)`)
	case f.Since.IsZero():
		return nil, errors.New("requeue deliveries: no ids and no start time")
	default:
		where = append(where, `d.created_at >= `+arg(msCeil(f.Since)))
		if !f.Until.IsZero() {
			where = append(where, `d.created_at < `+arg(msCeil(f.Until)))
		}
		states := f.States
		if len(states) == 0 {
			states = []string{persistence.DeliveryFailed, persistence.DeliveryDropped}
		}
		ph := make([]string, len(states))
		for i, st := range states {
			ph[i] = arg(st)
		}
		where = append(where, `d.state IN (`+strings.Join(ph, ", ")+`)`)
	}
	var out []persistence.WebhookDelivery
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT `+deliveryCols+` FROM `+deliveriesFrom+` WHERE `+
			strings.Join(where, " AND ")+` ORDER BY d.seq`, args...)
		if err != nil {
			return err
		}
		inline := map[int]persistence.WebhookAttempt{}
		if out, err = scanDeliveries(rows, func(i int, a persistence.WebhookAttempt) { inline[i] = a }); err != nil {
			return err
		}
		for i := range out {
			d := &out[i]
			// The attempt kept in the row moves to the log's table, where
			// the next attempts follow it.
			if a, ok := inline[i]; ok {
				if _, err := tx.ExecContext(ctx, `INSERT INTO webhook_attempts (scope, delivery_id, at, status_code, latency_ms, error, result)
					VALUES ($1, $2, $3, $4, $5, $6, $7)`, scope, d.DeliveryID, ms(a.At), a.StatusCode, a.Latency.Milliseconds(), "", a.Result); err != nil {
					return err
				}
			}
			if _, err := tx.ExecContext(ctx, `UPDATE webhook_deliveries SET state = 'queued', attempts = 0, finished_at = NULL,
				ok_status = NULL, ok_latency_ms = NULL WHERE seq = $1`, d.Seq); err != nil {
				return err
			}
			d.State, d.Attempts, d.FinishedAt = persistence.DeliveryQueued, 0, nil
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("requeue deliveries: %w", err)
	}
	return out, nil
}

// scanDeliveries reads deliveryCols rows and closes them. okAttempt, when
// set, hears the attempt kept in the row of the i-th delivery (one that was
// delivered: RecordAttempts).
func scanDeliveries(rows *sql.Rows, okAttempt func(i int, a persistence.WebhookAttempt)) ([]persistence.WebhookDelivery, error) {
	defer rows.Close()
	var out []persistence.WebhookDelivery
	for rows.Next() {
		var d persistence.WebhookDelivery
		var attempts, created int64
		var finished, okStatus, okLatency sql.NullInt64
		if err := rows.Scan(&d.Seq, &d.Scope, &d.EndpointID, &d.DeliveryID, &d.Body, &attempts, &created, &d.Event, &d.State,
			&finished, &okStatus, &okLatency); err != nil {
			return nil, err
		}
		d.Body, d.Attempts, d.CreatedAt, d.FinishedAt = unblob(d.Body), int(attempts), fromMS(created), fromNullMS(finished)
		if okStatus.Valid && finished.Valid && okAttempt != nil {
			okAttempt(len(out), persistence.WebhookAttempt{DeliveryID: d.DeliveryID, At: fromMS(finished.Int64),
				StatusCode: int(okStatus.Int64), Latency: time.Duration(okLatency.Int64) * time.Millisecond,
				Result: persistence.AttemptOK, Attempts: d.Attempts})
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

// InsertNewDeliveries is InsertDeliveries that also returns the deliveries
// it stored: those whose id the scope did not hold yet (queued, delivered
// or failed), each id once. The webhook engine routes only these, so a
// delivery published again (an ingest record replayed after a crash) is not
// sent twice.
func (s *Store) InsertNewDeliveries(ctx context.Context, ds []persistence.WebhookDelivery) ([]persistence.WebhookDelivery, error) {
	if len(ds) == 0 {
		return nil, nil
	}
	var fresh []persistence.WebhookDelivery
	if s.d.BatchRows <= 1 {
		// One statement per row anyway: each says whether it took its row,
		// and the rowid it took is the delivery's Seq.
		err := s.inTx(ctx, func(tx *sql.Tx) error {
			fresh = make([]persistence.WebhookDelivery, 0, len(ds))
			return s.insertDeliveryRows(ctx, tx, ds, func(i int, seq int64) {
				d := ds[i]
				d.Seq = seq
				fresh = append(fresh, d)
			})
		})
		if err != nil {
			return nil, fmt.Errorf("insert new deliveries: %w", err)
		}
		return fresh, nil
	}
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		have := map[string]bool{}
		byScope := map[string][]string{}
		for i := range ds {
			byScope[ds[i].Scope] = append(byScope[ds[i].Scope], ds[i].DeliveryID)
		}
		for scope, ids := range byScope {
			for len(ids) > 0 {
				chunk := ids[:min(len(ids), 500)]
				ids = ids[len(chunk):]
				args := make([]any, 0, len(chunk)+1)
				args = append(args, scope)
				for _, id := range chunk {
					args = append(args, id)
				}
				rows, err := tx.QueryContext(ctx, `SELECT delivery_id FROM webhook_deliveries WHERE scope = $1 AND delivery_id IN `+
					placeholdersFrom(2, len(chunk)), args...)
				if err != nil {
					return err
				}
				for rows.Next() {
					var id string
					if err := rows.Scan(&id); err != nil {
						rows.Close()
						return err
					}
					have[scope+"\x00"+id] = true
				}
				rows.Close()
				if err := rows.Err(); err != nil {
					return err
				}
			}
		}
		fresh = make([]persistence.WebhookDelivery, 0, len(ds))
		for _, d := range ds {
			k := d.Scope + "\x00" + d.DeliveryID
			if !have[k] {
				have[k] = true
				fresh = append(fresh, d)
			}
		}
		// The insert joins this transaction (as inside a Batch).
		return s.InsertDeliveries(context.WithValue(ctx, batchKey{}, tx), fresh)
	})
	if err != nil {
		return nil, fmt.Errorf("insert new deliveries: %w", err)
	}
	return fresh, nil
}

// perRow is the context of the single-row statements of a transaction that
// runs one per delivery: without ctx's cancellation, since the embedded
// driver starts a goroutine per statement to watch a context that can end
// (a tenth of a busy engine's store writes). The transaction still ends
// with ctx: database/sql rolls it back, and the next statement fails.
func perRow(ctx context.Context) context.Context { return context.WithoutCancel(ctx) }
