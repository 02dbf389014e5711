package sqlstore

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/alertd/alertd/persistence"
)

// SavePosts inserts posts or replaces the handle, CreatedAt and data of posts
// already stored, keeping the first DetectedAt; one transaction. A post given
// twice in posts counts as saved twice in order. Handles are stored lowercase.
func (s *Store) SavePosts(ctx context.Context, posts []persistence.Post) error {
	if len(posts) == 0 {
		return nil
	}
	// One row per id (a multi-row upsert may not touch a row twice), in id
	// order, so that concurrent batches lock rows in the same order.
	rows := make([]persistence.Post, 0, len(posts))
	at := make(map[string]int, len(posts))
	for _, p := range posts {
		p.Handle = strings.ToLower(p.Handle)
		if i, ok := at[p.ID]; ok {
			p.DetectedAt = rows[i].DetectedAt // the first one stays
			rows[i] = p
			continue
		}
		at[p.ID] = len(rows)
		rows = append(rows, p)
	}
	slices.SortFunc(rows, func(a, b persistence.Post) int { return cmp.Compare(a.ID, b.ID) })
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		return s.execRows(ctx, tx, `INSERT INTO posts (id, handle, created_at, detected_at, data)`,
			`ON CONFLICT (id) DO UPDATE SET handle = excluded.handle,
				created_at = excluded.created_at, data = excluded.data`,
			5, len(rows), func(dst []any, i int) []any {
				p := &rows[i]
				return append(dst, p.ID, p.Handle, ms(p.CreatedAt), ms(p.DetectedAt), blob(p.Data))
			})
	})
	if err != nil {
		return fmt.Errorf("save posts: %w", err)
	}
	return nil
}

const postColumns = `id, handle, created_at, detected_at, data`

func scanPost(row scanner) (persistence.Post, error) {
	var (
		p                 persistence.Post
		created, detected int64
	)
	if err := row.Scan(&p.ID, &p.Handle, &created, &detected, &p.Data); err != nil {
		return p, err
	}
	p.CreatedAt, p.DetectedAt, p.Data = fromMS(created), fromMS(detected), unblob(p.Data)
	return p, nil
}

// PostByID returns the post id.
func (s *Store) PostByID(ctx context.Context, id string) (persistence.Post, error) {
	p, err := scanPost(s.r.QueryRowContext(ctx, `SELECT `+postColumns+` FROM posts WHERE id = $1`, id))
	if err != nil {
		return persistence.Post{}, notFound(err, fmt.Sprintf("post %s", id))
	}
	return p, nil
}

// RecentPosts returns up to limit posts of handle, newest CreatedAt first
// (ties by id, descending). A limit of 0 or less means no limit.
func (s *Store) RecentPosts(ctx context.Context, handle string, limit int) ([]persistence.Post, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT `+postColumns+` FROM posts WHERE handle = $1
		ORDER BY created_at DESC, id DESC LIMIT $2`, strings.ToLower(handle), limitArg(limit))
	if err != nil {
		return nil, fmt.Errorf("recent posts: %w", err)
	}
	defer rows.Close()
	var out []persistence.Post
	for rows.Next() {
		p, err := scanPost(rows)
		if err != nil {
			return nil, fmt.Errorf("recent posts: %w", err)
		}
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("recent posts: %w", err)
	}
	return out, nil
}

// PutSnapshots stores each snapshot as the latest of its (Handle, Kind); one
// transaction; the last of a (Handle, Kind) in snaps wins. Handles are stored
// lowercase.
func (s *Store) PutSnapshots(ctx context.Context, snaps []persistence.Snapshot) error {
	if len(snaps) == 0 {
		return nil
	}
	type key struct{ handle, kind string }
	rows := make([]persistence.Snapshot, 0, len(snaps))
	at := make(map[key]int, len(snaps))
	for _, sn := range snaps {
		sn.Handle = strings.ToLower(sn.Handle)
		k := key{sn.Handle, sn.Kind}
		if i, ok := at[k]; ok {
			rows[i] = sn
			continue
		}
		at[k] = len(rows)
		rows = append(rows, sn)
	}
	slices.SortFunc(rows, func(a, b persistence.Snapshot) int {
		return cmp.Or(cmp.Compare(a.Handle, b.Handle), cmp.Compare(a.Kind, b.Kind))
	})
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		return s.execRows(ctx, tx, `INSERT INTO snapshots (handle, kind, data, observed_at)`,
			`ON CONFLICT (handle, kind) DO UPDATE SET data = excluded.data, observed_at = excluded.observed_at`,
			4, len(rows), func(dst []any, i int) []any {
				sn := &rows[i]
				return append(dst, sn.Handle, sn.Kind, blob(sn.Data), ms(sn.ObservedAt))
			})
	})
	if err != nil {
		return fmt.Errorf("put snapshots: %w", err)
	}
	return nil
}

// GetSnapshot returns the latest snapshot of (handle, kind).
func (s *Store) GetSnapshot(ctx context.Context, handle, kind string) (persistence.Snapshot, error) {
	var (
		sn       persistence.Snapshot
		observed int64
	)
	err := s.r.QueryRowContext(ctx, `SELECT handle, kind, data, observed_at FROM snapshots
		WHERE handle = $1 AND kind = $2`, strings.ToLower(handle), kind).
		Scan(&sn.Handle, &sn.Kind, &sn.Data, &observed)
	if err != nil {
		return persistence.Snapshot{}, notFound(err, fmt.Sprintf("snapshot %s/%s", handle, kind))
	}
	sn.Data, sn.ObservedAt = unblob(sn.Data), fromMS(observed)
	return sn, nil
}

// AppendObservations keeps recs, in one transaction, in the order given.
func (s *Store) AppendObservations(ctx context.Context, recs []persistence.ObservationRecord) error {
	if len(recs) == 0 {
		return nil
	}
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		// Rows of a multi-row INSERT take their ids in VALUES order.
		return s.execRows(ctx, tx, `INSERT INTO observations (kind, key, detected_at, data)`, ``,
			4, len(recs), func(dst []any, i int) []any {
				r := &recs[i]
				return append(dst, r.Kind, r.Key, ms(r.DetectedAt), blob(r.Data))
			})
	})
	if err != nil {
		return fmt.Errorf("append observations: %w", err)
	}
	return nil
}

// ListObservations returns up to limit records of kind with DetectedAt >=
// since, oldest first (ties in the order they were appended). A limit of 0 or
// less means no limit.
func (s *Store) ListObservations(ctx context.Context, kind string, since time.Time, limit int) ([]persistence.ObservationRecord, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT kind, key, detected_at, data FROM observations
		WHERE kind = $1 AND detected_at >= $2 ORDER BY detected_at, id LIMIT $3`,
		kind, msCeil(since), limitArg(limit))
	if err != nil {
		return nil, fmt.Errorf("list observations: %w", err)
	}
	defer rows.Close()
	var out []persistence.ObservationRecord
	for rows.Next() {
		var (
			r        persistence.ObservationRecord
			detected int64
		)
		if err := rows.Scan(&r.Kind, &r.Key, &detected, &r.Data); err != nil {
			return nil, fmt.Errorf("list observations: %w", err)
		}
		r.DetectedAt, r.Data = fromMS(detected), unblob(r.Data)
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list observations: %w", err)
	}
	return out, nil
}
