package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/alertd/alertd/persistence"
)

// UpsertUsers stores users by id, in one transaction, in the order given: a
// user whose handle changed keeps its id and takes the new handle, and a
// handle held by another id moves to the user being stored; the other id
// keeps its record with no handle (Handle "") until a later observation names
// it again. Handles are stored lowercase; an empty handle stores none.
func (s *Store) UpsertUsers(ctx context.Context, users []persistence.User) error {
	if len(users) == 0 {
		return nil
	}
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		release, err := tx.PrepareContext(ctx, `UPDATE users SET handle = NULL WHERE handle = $1 AND id <> $2`)
		if err != nil {
			return err
		}
		defer release.Close()
		upsert, err := tx.PrepareContext(ctx, `INSERT INTO users
			(id, handle, suspended, categories, snapshot, updated_at) VALUES ($1, $2, $3, $4, $5, $6)
			ON CONFLICT (id) DO UPDATE SET handle = excluded.handle, suspended = excluded.suspended,
				categories = excluded.categories, snapshot = excluded.snapshot,
				updated_at = excluded.updated_at`)
		if err != nil {
			return err
		}
		defer upsert.Close()
		for _, u := range users {
			cats, err := encodeList(u.Categories)
			if err != nil {
				return fmt.Errorf("user %s: categories: %w", u.ID, err)
			}
			var handle any
			if h := strings.ToLower(u.Handle); h != "" {
				handle = h
				if _, err := release.ExecContext(ctx, h, u.ID); err != nil {
					return fmt.Errorf("user %s: %w", u.ID, err)
				}
			}
			if _, err := upsert.ExecContext(ctx, u.ID, handle, u.Suspended, cats, blob(u.Snapshot), ms(u.UpdatedAt)); err != nil {
				return fmt.Errorf("user %s: %w", u.ID, err)
			}
		}
		return nil
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
