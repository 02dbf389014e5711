package sqlstore

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"slices"

	"github.com/alertd/alertd/persistence"
)

// The bodies of webhook deliveries that several deliveries share
// (webhook_bodies, migration 0012): a product sends one body to every
// endpoint that wants an event, so a post tracked by 100 webhooks is one
// body row and 100 small delivery rows pointing at it.

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
		rowCtx := perRow(ctx)
		for k := range n {
			at, body := row(k)
			res, err := st.ExecContext(rowCtx, at, body)
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
