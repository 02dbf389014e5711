package sqlstore

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"

	"github.com/alertd/alertd/persistence"
)

// UpsertUsers stores users by id, in one transaction, with the effect of
// storing them one by one in the order given: a user whose handle changed
// keeps its id and takes the new handle, and a handle held by another id moves
// to the user being stored; the other id keeps its record with no handle
// (Handle "") until a later observation names it again. Handles are stored
// lowercase; an empty handle stores none.
func (s *Store) UpsertUsers(ctx context.Context, users []persistence.User) error {
	if len(users) == 0 {
		return nil
	}
	// The end state of the batch: the last record of each id, holding its
	// handle unless another id claims that handle later in the batch.
	type row struct {
		u      persistence.User
		handle string // "" for none
		cats   string
	}
	rows := make([]row, 0, len(users))
	at := make(map[string]int, len(users))
	lastClaim := make(map[string]string, len(users)) // handle -> id
	for _, u := range users {
		cats, err := encodeList(u.Categories)
		if err != nil {
			return fmt.Errorf("upsert users: user %s: categories: %w", u.ID, err)
		}
		r := row{u: u, handle: strings.ToLower(u.Handle), cats: cats}
		if r.handle != "" {
			lastClaim[r.handle] = u.ID
		}
		if i, ok := at[u.ID]; ok {
			rows[i] = r
			continue
		}
		at[u.ID] = len(rows)
		rows = append(rows, r)
	}
	var handles []string
	for i := range rows {
		if h := rows[i].handle; h != "" {
			if lastClaim[h] != rows[i].u.ID {
				rows[i].handle = ""
			} else {
				handles = append(handles, h)
			}
		}
	}
	slices.SortFunc(rows, func(a, b row) int { return cmp.Compare(a.u.ID, b.u.ID) })
	slices.Sort(handles)
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		// Free the batch's handles first (their holders in the batch get them
		// back below), so that no statement sees a handle held twice.
		if err := s.execIn(ctx, tx, `UPDATE users SET handle = NULL WHERE handle IN `, len(handles),
			func(dst []any, i int) []any { return append(dst, handles[i]) }); err != nil {
			return err
		}
		return s.execRows(ctx, tx, `INSERT INTO users (id, handle, suspended, categories, snapshot, updated_at)`,
			`ON CONFLICT (id) DO UPDATE SET handle = excluded.handle, suspended = excluded.suspended,
				categories = excluded.categories, snapshot = excluded.snapshot,
				updated_at = excluded.updated_at`,
			6, len(rows), func(dst []any, i int) []any {
				r := &rows[i]
				var handle any
				if r.handle != "" {
					handle = r.handle
				}
				return append(dst, r.u.ID, handle, r.u.Suspended, r.cats, blob(r.u.Snapshot), ms(r.u.UpdatedAt))
			})
	})
	if err != nil {
		return fmt.Errorf("upsert users: %w", err)
	}
	return nil
}

const userColumns = `id, handle, suspended, categories, snapshot, updated_at`

func scanUser(row scanner) (persistence.User, error) {
	var (
		u       persistence.User
		handle  sql.NullString
		cats    string
		updated int64
	)
	if err := row.Scan(&u.ID, &handle, &u.Suspended, &cats, &u.Snapshot, &updated); err != nil {
		return u, err
	}
	u.Handle = handle.String
	var err error
	if u.Categories, err = decodeList(cats); err != nil {
		return u, fmt.Errorf("user %s: categories: %w", u.ID, err)
	}
	u.Snapshot = unblob(u.Snapshot)
	u.UpdatedAt = fromMS(updated)
	return u, nil
}

// UserByHandle returns the user that holds handle (case-insensitive).
func (s *Store) UserByHandle(ctx context.Context, handle string) (persistence.User, error) {
	u, err := scanUser(s.r.QueryRowContext(ctx, `SELECT `+userColumns+` FROM users WHERE handle = $1`,
		strings.ToLower(handle)))
	if err != nil {
		return persistence.User{}, notFound(err, fmt.Sprintf("user @%s", handle))
	}
	return u, nil
}

// UserByID returns the user id.
func (s *Store) UserByID(ctx context.Context, id string) (persistence.User, error) {
	u, err := scanUser(s.r.QueryRowContext(ctx, `SELECT `+userColumns+` FROM users WHERE id = $1`, id))
	if err != nil {
		return persistence.User{}, notFound(err, fmt.Sprintf("user %s", id))
	}
	return u, nil
}

// ListUsers returns every user, by id.
func (s *Store) ListUsers(ctx context.Context) ([]persistence.User, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT `+userColumns+` FROM users ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("list users: %w", err)
	}
	defer rows.Close()
	var out []persistence.User
	for rows.Next() {
		u, err := scanUser(rows)
		if err != nil {
			return nil, fmt.Errorf("list users: %w", err)
		}
		out = append(out, u)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list users: %w", err)
	}
	return out, nil
}
