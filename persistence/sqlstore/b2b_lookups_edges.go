package sqlstore

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
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

// followEdgeSelect reads edges with their effective last sighting: a
// current edge was seen by the last complete list too (touching every row on
// each list would cost a write per edge).
const followEdgeSelect = `SELECT e.handle, e.relation, e.target_id, e.target_screen_name, e.is_current, e.first_seen_at,
		CASE WHEN e.is_current AND l.last_at IS NOT NULL AND l.last_at > e.last_seen_at THEN l.last_at ELSE e.last_seen_at END
	FROM follow_edges e LEFT JOIN follow_lists l ON l.handle = e.handle AND l.relation = e.relation`

// FollowEdges returns the stored edges of (handle, relation) by target id,
// all or those in only, and the time of the last complete list.
func (s *Store) FollowEdges(ctx context.Context, handle, relation string, only []string) (persistence.FollowEdgeSet, error) {
	var set persistence.FollowEdgeSet
	read := func(where string, args ...any) error {
		rows, err := s.r.QueryContext(ctx, followEdgeSelect+` WHERE e.handle = $1 AND e.relation = $2`+where+` ORDER BY e.target_id`, args...)
		if err != nil {
			return err
		}
		es, err := scanFollowEdges(rows)
		set.Edges = append(set.Edges, es...)
		return err
	}
	if only == nil {
		if err := read(``, handle, relation); err != nil {
			return set, fmt.Errorf("follow edges: %w", err)
		}
	} else {
		ids := slices.Clone(only)
		slices.Sort(ids)
		ids = slices.Compact(ids)
		const chunk = 500
		for start := 0; start < len(ids); start += chunk {
			part := ids[start:min(start+chunk, len(ids))]
			args := []any{handle, relation}
			in := make([]string, len(part))
			for i, id := range part {
				args = append(args, id)
				in[i] = fmt.Sprintf("$%d", i+3)
			}
			if err := read(` AND e.target_id IN (`+strings.Join(in, ", ")+`)`, args...); err != nil {
				return set, fmt.Errorf("follow edges: %w", err)
			}
		}
	}
	var last int64
	err := s.r.QueryRowContext(ctx, `SELECT last_at FROM follow_lists WHERE handle = $1 AND relation = $2`, handle, relation).Scan(&last)
	switch {
	case err == nil:
		set.Baseline, set.ListAt = true, fromMS(last)
	case !errors.Is(err, sql.ErrNoRows):
		return set, fmt.Errorf("follow edges: %w", err)
	}
	return set, nil
}

// ApplyFollowEdges writes updates in one transaction: the last upsert of
// each edge (with the first FirstSeenAt of the batch, which a stored edge
// keeps anyway), every change row in order, the latest list time of each
// list.
func (s *Store) ApplyFollowEdges(ctx context.Context, updates []persistence.FollowEdgeUpdate) error {
	type edgeKey struct{ handle, relation, target string }
	type listKey struct{ handle, relation string }
	at := map[edgeKey]int{}
	var ups []persistence.FollowEdge
	var changes []persistence.SocialChange
	lists := map[listKey]time.Time{}
	for _, u := range updates {
		for _, e := range u.Upserts {
			e.Handle, e.Relation = u.Handle, u.Relation
			k := edgeKey{u.Handle, u.Relation, e.TargetID}
			if i, ok := at[k]; ok {
				e.FirstSeenAt = ups[i].FirstSeenAt
				ups[i] = e
				continue
			}
			at[k] = len(ups)
			ups = append(ups, e)
		}
		for _, c := range u.Changes {
			c.Handle, c.Relation = u.Handle, u.Relation
			changes = append(changes, c)
		}
		if k := (listKey{u.Handle, u.Relation}); u.Complete && u.At.After(lists[k]) {
			lists[k] = u.At
		}
	}
	// Rows in key order, so that concurrent writers lock alike.
	slices.SortFunc(ups, func(a, b persistence.FollowEdge) int {
		return cmp.Or(cmp.Compare(a.Handle, b.Handle), cmp.Compare(a.Relation, b.Relation), cmp.Compare(a.TargetID, b.TargetID))
	})
	listRows := make([]listKey, 0, len(lists))
	for k := range lists {
		listRows = append(listRows, k)
	}
	slices.SortFunc(listRows, func(a, b listKey) int {
		return cmp.Or(cmp.Compare(a.handle, b.handle), cmp.Compare(a.relation, b.relation))
	})
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		if err := s.execRows(ctx, tx, `INSERT INTO follow_edges (`+followEdgeCols+`)`,
			`ON CONFLICT (handle, relation, target_id) DO UPDATE SET target_screen_name = excluded.target_screen_name,
				is_current = excluded.is_current, last_seen_at = excluded.last_seen_at`,
			7, len(ups), func(dst []any, i int) []any {
				e := &ups[i]
				return append(dst, e.Handle, e.Relation, e.TargetID, e.TargetScreenName, e.IsCurrent, ms(e.FirstSeenAt), ms(e.LastSeenAt))
			}); err != nil {
			return err
		}
		if err := s.insertChanges(ctx, tx, changes); err != nil {
			return err
		}
		return s.execRows(ctx, tx, `INSERT INTO follow_lists (handle, relation, first_at, last_at)`,
			`ON CONFLICT (handle, relation) DO UPDATE SET last_at = excluded.last_at WHERE excluded.last_at > follow_lists.last_at`,
			4, len(listRows), func(dst []any, i int) []any {
				k := listRows[i]
				t := ms(lists[k])
				return append(dst, k.handle, k.relation, t, t)
			})
	})
	if err != nil {
		return fmt.Errorf("apply follow edges: %w", err)
	}
	return nil
}

// AddFollowers records followers in one transaction, in order: for each,
// the accounts that were not current followers get an added change (in
// list order, once each), then every listed account is upserted as a
// current follower, touched at its time.
func (s *Store) AddFollowers(ctx context.Context, batch []persistence.FollowersSeen) error {
	if len(batch) == 0 {
		return nil
	}
	rel := persistence.RelationFollower
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		for _, f := range batch {
			seen := make(map[string]bool, len(f.Accounts))
			var accts []persistence.FollowTarget
			for _, a := range f.Accounts {
				if a.ID != "" && !seen[a.ID] {
					seen[a.ID] = true
					accts = append(accts, a)
				}
			}
			if len(accts) == 0 {
				continue
			}
			current, err := s.currentTargets(ctx, tx, f.Handle, rel, accts)
			if err != nil {
				return err
			}
			var changes []persistence.SocialChange
			for _, a := range accts {
				if !current[a.ID] {
					changes = append(changes, persistence.SocialChange{Handle: f.Handle, Relation: rel, TargetID: a.ID,
						TargetScreenName: a.ScreenName, Change: persistence.ChangeAdded, ChangedAt: f.At})
				}
			}
			rows := slices.Clone(accts)
			slices.SortFunc(rows, func(a, b persistence.FollowTarget) int { return cmp.Compare(a.ID, b.ID) })
			if err := s.execRows(ctx, tx, `INSERT INTO follow_edges (`+followEdgeCols+`)`,
				`ON CONFLICT (handle, relation, target_id) DO UPDATE SET target_screen_name = excluded.target_screen_name,
					is_current = excluded.is_current, last_seen_at = CASE WHEN excluded.last_seen_at > follow_edges.last_seen_at
					THEN excluded.last_seen_at ELSE follow_edges.last_seen_at END`,
				7, len(rows), func(dst []any, i int) []any {
					a := &rows[i]
					return append(dst, f.Handle, rel, a.ID, a.ScreenName, true, ms(f.At), ms(f.At))
				}); err != nil {
				return err
			}
			if err := s.insertChanges(ctx, tx, changes); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("add followers: %w", err)
	}
	return nil
}

// insertChanges appends change rows, in order.
func (s *Store) insertChanges(ctx context.Context, tx *sql.Tx, changes []persistence.SocialChange) error {
	return s.execRows(ctx, tx, `INSERT INTO social_changes (handle, relation, target_id, target_screen_name, change, changed_at)`, ``,
		6, len(changes), func(dst []any, i int) []any {
			c := &changes[i]
			return append(dst, c.Handle, c.Relation, c.TargetID, c.TargetScreenName, c.Change, ms(c.ChangedAt))
		})
}

// currentTargets reads which of accts are current edges of (handle, relation).
// The IN list is padded to a power of two (the last id repeated, which
// matches nothing more), so that the query has one of a few texts, each
// prepared once (txStmt), instead of one text per list length, parsed again
// for every list.
func (s *Store) currentTargets(ctx context.Context, tx *sql.Tx, handle, relation string, accts []persistence.FollowTarget) (map[string]bool, error) {
	out := make(map[string]bool, len(accts))
	const chunk = 512
	args := make([]any, 0, 3+chunk)
	for start := 0; start < len(accts); start += chunk {
		part := accts[start:min(start+chunk, len(accts))]
		size := 1
		for size < len(part) {
			size *= 2
		}
		args = append(args[:0], handle, relation, true)
		for i := range size {
			args = append(args, part[min(i, len(part)-1)].ID)
		}
		st, err := s.txStmt(ctx, tx, currentTargetsQuery(size))
		if err != nil {
			return nil, err
		}
		rows, err := st.QueryContext(ctx, args...)
		if err != nil {
			st.Close()
			return nil, err
		}
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				st.Close()
				return nil, err
			}
			out[id] = true
		}
		rows.Close()
		st.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

var currentTargetsQueries sync.Map // IN list size -> query text

func currentTargetsQuery(size int) string {
	if q, ok := currentTargetsQueries.Load(size); ok {
		return q.(string)
	}
	in := make([]string, size)
	for i := range in {
		in[i] = fmt.Sprintf("$%d", i+4)
	}
	q := `SELECT target_id FROM follow_edges WHERE handle = $1 AND relation = $2
			AND is_current = $3 AND target_id IN (` + strings.Join(in, ", ") + `)`
	currentTargetsQueries.Store(size, q)
	return q
}

// ListFollowEdges returns a page of edges, current first, newest first.
func (s *Store) ListFollowEdges(ctx context.Context, handle, relation string, limit, offset int) ([]persistence.FollowEdge, error) {
	rows, err := s.r.QueryContext(ctx, followEdgeSelect+` WHERE e.handle = $1 AND e.relation = $2
		ORDER BY e.is_current DESC, e.first_seen_at DESC, e.target_id LIMIT $3 OFFSET $4`,
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
