package sqlstore

import (
	"bytes"
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
// state beside its attempts (webhook_attempts) until retention prunes both.
// A body several deliveries share is stored once (webhook_bodies) and stays
// while a delivery points at it: a finished delivery can be redelivered.

// deliveryCols are read FROM deliveriesFrom: a delivery's body is its
// shared one (webhook_bodies, migration 0012) or, without one, its own.
const deliveryCols = `d.seq, d.scope, d.endpoint_id, d.delivery_id, COALESCE(b.body, d.body), d.attempts, d.created_at, d.event, d.state, d.finished_at`

const deliveriesFrom = `webhook_deliveries d LEFT JOIN webhook_bodies b ON b.id = d.body_id`

// InsertDeliveries queues ds in one transaction, skipping ids already stored.
// Consecutive deliveries of the same body (one post to many webhooks) share
// one stored copy of it; a body of one delivery stays in its row.
func (s *Store) InsertDeliveries(ctx context.Context, ds []persistence.WebhookDelivery) error {
	if len(ds) == 0 {
		return nil
	}
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		bodyIDs, err := s.insertSharedBodies(ctx, tx, ds)
		if err != nil {
			return err
		}
		// Rows of a multi-row INSERT take their seq in VALUES order, which
		// is the order ListDeliveries gives back.
		return s.execRows(ctx, tx, `INSERT INTO webhook_deliveries (scope, endpoint_id, delivery_id, body, body_id, attempts, created_at, event, state)`,
			`ON CONFLICT (scope, delivery_id) DO NOTHING`, 9, len(ds), func(dst []any, i int) []any {
				d := &ds[i]
				var body, bodyID any = blob(d.Body), nil
				if bodyIDs != nil && bodyIDs[i] != 0 {
					body, bodyID = []byte{}, bodyIDs[i]
				}
				return append(dst, d.Scope, d.EndpointID, d.DeliveryID, body, bodyID, d.Attempts, ms(d.CreatedAt), d.Event,
					persistence.DeliveryQueued)
			})
	})
	if err != nil {
		return fmt.Errorf("insert deliveries: %w", err)
	}
	return nil
}

// insertSharedBodies stores once each body that consecutive deliveries of ds
// share and returns, by index in ds, the stored body's id (0: the delivery
// keeps its body inline); nil when no body is shared.
func (s *Store) insertSharedBodies(ctx context.Context, tx *sql.Tx, ds []persistence.WebhookDelivery) ([]int64, error) {
	var ids []int64
	var runs [][2]int // [first, end) of each run of one body
	for i := 0; i < len(ds); {
		j := i + 1
		for j < len(ds) && sameBody(ds[j].Body, ds[i].Body) {
			j++
		}
		if j-i > 1 && len(ds[i].Body) > 0 {
			runs = append(runs, [2]int{i, j})
		}
		i = j
	}
	if len(runs) == 0 {
		return nil, nil
	}
	stored, err := s.insertBodies(ctx, tx, len(runs), func(k int) (int64, []byte) {
		d := &ds[runs[k][0]]
		return ms(d.CreatedAt), d.Body
	})
	if err != nil {
		return nil, err
	}
	ids = make([]int64, len(ds))
	for k, r := range runs {
		for i := r[0]; i < r[1]; i++ {
			ids[i] = stored[k]
		}
	}
	return ids, nil
}

// insertBodies inserts n webhook_bodies rows and returns their ids in order.
// The embedded store runs one prepared statement per row and reads its rowid;
// PostgreSQL inserts up to BatchRows rows a statement and reads the ids
// back with RETURNING, sorted: an identity column numbers a statement's rows
// in VALUES order.
func (s *Store) insertBodies(ctx context.Context, tx *sql.Tx, n int, row func(k int) (createdAt int64, body []byte)) ([]int64, error) {
	ids := make([]int64, 0, n)
	if s.d.BatchRows <= 1 {
		st, err := tx.PrepareContext(ctx, `INSERT INTO webhook_bodies (created_at, body) VALUES ($1, $2)`)
		if err != nil {
			return nil, err
		}
		defer st.Close()
		for k := range n {
			at, body := row(k)
			res, err := st.ExecContext(ctx, at, body)
			if err != nil {
				return nil, err
			}
			id, err := res.LastInsertId()
			if err != nil {
				return nil, err
			}
			ids = append(ids, id)
		}
		return ids, nil
	}
	for start := 0; start < n; {
		size := s.d.BatchRows
		for size > n-start {
			size /= 2
		}
		args := make([]any, 0, 2*size)
		for k := start; k < start+size; k++ {
			at, body := row(k)
			args = append(args, at, body)
		}
		rows, err := tx.QueryContext(ctx, `INSERT INTO webhook_bodies (created_at, body) VALUES `+tuples(size, 2)+` RETURNING id`, args...)
		if err != nil {
			return nil, err
		}
		first := len(ids)
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return nil, err
			}
			ids = append(ids, id)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
		if len(ids)-first != size {
			return nil, fmt.Errorf("webhook bodies: %d ids back for %d rows", len(ids)-first, size)
		}
		slices.Sort(ids[first:])
		start += size
	}
	return ids, nil
}

// sameBody reports whether a and b are the same body: the same memory (a
// product hands one body to all its endpoints) or equal bytes.
func sameBody(a, b []byte) bool {
	if len(a) != len(b) {
		return false
	}
	return len(a) == 0 || &a[0] == &b[0] || bytes.Equal(a, b)
}

// RecordAttempts logs the attempts and applies each to its delivery, in one
// transaction.
func (s *Store) RecordAttempts(ctx context.Context, scope string, as []persistence.WebhookAttempt) error {
	if len(as) == 0 {
		return nil
	}
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		if err := s.execRows(ctx, tx, `INSERT INTO webhook_attempts (scope, delivery_id, at, status_code, latency_ms, error, result)`, ``,
			7, len(as), func(dst []any, i int) []any {
				a := &as[i]
				return append(dst, scope, a.DeliveryID, ms(a.At), a.StatusCode, a.Latency.Milliseconds(), a.Error, a.Result)
			}); err != nil {
			return err
		}
		// Two statements prepared once for the whole batch: preparing one
		// per attempt was a third of the cost of a busy engine's log.
		finish, err := tx.PrepareContext(ctx, `UPDATE webhook_deliveries SET attempts = $1, state = $2, finished_at = $3
			WHERE scope = $4 AND delivery_id = $5`)
		if err != nil {
			return err
		}
		defer finish.Close()
		count, err := tx.PrepareContext(ctx, `UPDATE webhook_deliveries SET attempts = $1 WHERE scope = $2 AND delivery_id = $3`)
		if err != nil {
			return err
		}
		defer count.Close()
		for i := range as {
			a := &as[i]
			switch a.Result {
			case persistence.AttemptOK, persistence.AttemptFailed:
				state := persistence.DeliveryDelivered
				if a.Result == persistence.AttemptFailed {
					state = persistence.DeliveryFailed
				}
				_, err = finish.ExecContext(ctx, a.Attempts, state, ms(a.At), scope, a.DeliveryID)
			default:
				_, err = count.ExecContext(ctx, a.Attempts, scope, a.DeliveryID)
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
	out, err := scanDeliveries(rows)
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
	out, err := scanDeliveries(rows)
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
	ds, err := scanDeliveries(rows)
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
	return out, arows.Err()
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
		if out, err = scanDeliveries(rows); err != nil {
			return err
		}
		for i := range out {
			d := &out[i]
			if _, err := tx.ExecContext(ctx, `UPDATE webhook_deliveries SET state = 'queued', attempts = 0, finished_at = NULL
				WHERE seq = $1`, d.Seq); err != nil {
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

// scanDeliveries reads deliveryCols rows and closes them.
func scanDeliveries(rows *sql.Rows) ([]persistence.WebhookDelivery, error) {
	defer rows.Close()
	var out []persistence.WebhookDelivery
	for rows.Next() {
		var d persistence.WebhookDelivery
		var attempts, created int64
		var finished sql.NullInt64
		if err := rows.Scan(&d.Seq, &d.Scope, &d.EndpointID, &d.DeliveryID, &d.Body, &attempts, &created, &d.Event, &d.State, &finished); err != nil {
			return nil, err
		}
		d.Body, d.Attempts, d.CreatedAt, d.FinishedAt = unblob(d.Body), int(attempts), fromMS(created), fromNullMS(finished)
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
