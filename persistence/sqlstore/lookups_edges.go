package sqlstore

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/alertd/alertd/persistence"
)

const followEdgeCols = `handle, relation, target_id, target_screen_name, is_current, first_seen_at, last_seen_at`

func scanFollowEdge(r scanner) (persistence.FollowEdge, error) {
	var e persistence.FollowEdge
	var first, last int64
	err := r.Scan(&e.Handle, &e.Relation, &e.TargetID, &e.TargetScreenName, &e.IsCurrent, &first, &last)
	e.FirstSeenAt, e.LastSeenAt = fromMS(first), fromMS(last)
	return e, err
}

func scanFollowEdges(rows *sql.Rows) ([]persistence.FollowEdge, error) {
	defer rows.Close()
	var out []persistence.FollowEdge
	for rows.Next() {
		e, err := scanFollowEdge(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// FollowEdges returns every stored edge of (handle, relation) by target id,
// and whether a complete list was applied.
func (s *Store) FollowEdges(ctx context.Context, handle, relation string) (persistence.FollowEdgeSet, error) {
	var set persistence.FollowEdgeSet
	rows, err := s.r.QueryContext(ctx, `SELECT `+followEdgeCols+` FROM follow_edges
		WHERE handle = $1 AND relation = $2 ORDER BY target_id`, handle, relation)
	if err != nil {
		return set, fmt.Errorf("follow edges: %w", err)
	}
	if set.Edges, err = scanFollowEdges(rows); err != nil {
		return set, fmt.Errorf("follow edges: %w", err)
	}
	var one int
	err = s.r.QueryRowContext(ctx, `SELECT 1 FROM follow_lists WHERE handle = $1 AND relation = $2`, handle, relation).Scan(&one)
	switch {
	case err == nil:
		set.Baseline = true
	case !errors.Is(err, sql.ErrNoRows):
		return set, fmt.Errorf("follow edges: %w", err)
	}
	return set, nil
}

// ApplyFollowEdges writes one observation's changes in one transaction.
func (s *Store) ApplyFollowEdges(ctx context.Context, u persistence.FollowEdgeUpdate) error {
	// One row per target (a multi-row upsert may not touch a row twice, the
	// last wins), in target order so that concurrent writes lock alike.
	at := make(map[string]int, len(u.Upserts))
	ups := make([]persistence.FollowEdge, 0, len(u.Upserts))
	for _, e := range u.Upserts {
		if i, ok := at[e.TargetID]; ok {
			ups[i] = e
			continue
		}
		at[e.TargetID] = len(ups)
		ups = append(ups, e)
	}
	slices.SortFunc(ups, func(a, b persistence.FollowEdge) int { return cmp.Compare(a.TargetID, b.TargetID) })
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		if err := s.execRows(ctx, tx, `INSERT INTO follow_edges (`+followEdgeCols+`)`,
			`ON CONFLICT (handle, relation, target_id) DO UPDATE SET target_screen_name = excluded.target_screen_name,
				is_current = excluded.is_current, first_seen_at = excluded.first_seen_at, last_seen_at = excluded.last_seen_at`,
			7, len(ups), func(dst []any, i int) []any {
				e := &ups[i]
				return append(dst, u.Handle, u.Relation, e.TargetID, e.TargetScreenName, e.IsCurrent, ms(e.FirstSeenAt), ms(e.LastSeenAt))
			}); err != nil {
			return err
		}
		if err := s.execRows(ctx, tx, `INSERT INTO social_changes (handle, relation, target_id, target_screen_name, change, changed_at)`, ``,
			6, len(u.Changes), func(dst []any, i int) []any {
				c := &u.Changes[i]
				return append(dst, u.Handle, u.Relation, c.TargetID, c.TargetScreenName, c.Change, ms(c.ChangedAt))
			}); err != nil {
			return err
		}
		if !u.Complete {
			return nil
		}
		if _, err := tx.ExecContext(ctx, `UPDATE follow_edges SET last_seen_at = $3
			WHERE handle = $1 AND relation = $2 AND is_current = $4 AND last_seen_at < $3`,
			u.Handle, u.Relation, ms(u.At), true); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO follow_lists (handle, relation, first_at, last_at) VALUES ($1, $2, $3, $3)
			ON CONFLICT (handle, relation) DO UPDATE SET last_at = excluded.last_at`, u.Handle, u.Relation, ms(u.At))
		return err
	})
	if err != nil {
		return fmt.Errorf("apply follow edges: %w", err)
	}
	return nil
}

// ListFollowEdges returns a page of edges, current first, newest first.
func (s *Store) ListFollowEdges(ctx context.Context, handle, relation string, limit, offset int) ([]persistence.FollowEdge, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT `+followEdgeCols+` FROM follow_edges WHERE handle = $1 AND relation = $2
		ORDER BY is_current DESC, first_seen_at DESC, target_id LIMIT $3 OFFSET $4`,
		handle, relation, limitArg(limit), max(offset, 0))
	if err != nil {
		return nil, fmt.Errorf("list follow edges: %w", err)
	}
	out, err := scanFollowEdges(rows)
	if err != nil {
		return nil, fmt.Errorf("list follow edges: %w", err)
	}
	return out, nil
}

// CountFollowEdges counts the current edges of (handle, relation).
func (s *Store) CountFollowEdges(ctx context.Context, handle, relation string) (int, error) {
	var n int
	err := s.r.QueryRowContext(ctx, `SELECT COUNT(*) FROM follow_edges WHERE handle = $1 AND relation = $2 AND is_current = $3`,
		handle, relation, true).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count follow edges: %w", err)
	}
	return n, nil
}

// SocialDiff returns handle's changes of one kind since a time, newest first.
func (s *Store) SocialDiff(ctx context.Context, handle string, relations []string, change string, since time.Time, limit int) ([]persistence.SocialChange, error) {
	if len(relations) == 0 {
		return nil, nil
	}
	args := []any{handle, change, msCeil(since), limitArg(limit)}
	in := "("
	for i, r := range relations {
		if i > 0 {
			in += ", "
		}
		args = append(args, r)
		in += fmt.Sprintf("$%d", len(args))
	}
	in += ")"
	rows, err := s.r.QueryContext(ctx, `SELECT handle, relation, target_id, target_screen_name, change, changed_at
		FROM social_changes WHERE handle = $1 AND change = $2 AND changed_at >= $3 AND relation IN `+in+`
		ORDER BY changed_at DESC, id DESC LIMIT $4`, args...)
	if err != nil {
		return nil, fmt.Errorf("social diff: %w", err)
	}
	defer rows.Close()
	var out []persistence.SocialChange
	for rows.Next() {
		var c persistence.SocialChange
		var at int64
		if err := rows.Scan(&c.Handle, &c.Relation, &c.TargetID, &c.TargetScreenName, &c.Change, &at); err != nil {
			return nil, fmt.Errorf("social diff: %w", err)
		}
		c.ChangedAt = fromMS(at)
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("social diff: %w", err)
	}
	return out, nil
}
