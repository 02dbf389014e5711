package sqlstore

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/alertd/alertd/persistence"
)

// PutPostTerms adds the terms of each post, in one transaction, in key
// order; terms already stored are left as they are.
func (s *Store) PutPostTerms(ctx context.Context, posts []persistence.PostTerms) error {
	type row struct {
		term string
		at   int64
		post string
	}
	var rows []row
	for _, p := range posts {
		for _, t := range p.Terms {
			rows = append(rows, row{t, ms(p.CreatedAt), p.PostID})
		}
	}
	if len(rows) == 0 {
		return nil
	}
	slices.SortFunc(rows, func(a, b row) int {
		return cmp.Or(cmp.Compare(a.term, b.term), cmp.Compare(a.at, b.at), cmp.Compare(a.post, b.post))
	})
	rows = slices.Compact(rows)
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		return s.execRows(ctx, tx, `INSERT INTO search_terms (term, created_at, post_id)`, `ON CONFLICT DO NOTHING`,
			3, len(rows), func(dst []any, i int) []any {
				r := &rows[i]
				return append(dst, r.term, r.at, r.post)
			})
	})
	if err != nil {
		return fmt.Errorf("put post terms: %w", err)
	}
	return nil
}

// SearchPosts walks the first term's rows (or the posts, without terms)
// newest first and keeps the posts that carry the other terms too.
func (s *Store) SearchPosts(ctx context.Context, q persistence.SearchQuery) ([]persistence.Post, error) {
	if q.Limit <= 0 {
		return nil, nil
	}
	through := int64(math.MaxInt64)
	if !q.Through.IsZero() {
		through = ms(q.Through)
	}
	if len(q.Terms) == 0 {
		return s.queryPosts(ctx, "search posts", `SELECT `+postColumns+` FROM posts
			WHERE created_at >= $1 AND created_at <= $2 ORDER BY created_at DESC LIMIT $3`,
			msCeil(q.Since), through, q.Limit)
	}
	args := []any{q.Terms[0], msCeil(q.Since), through}
	var b strings.Builder
	b.WriteString(`SELECT p.id, p.handle, p.created_at, p.detected_at, p.data
		FROM search_terms t JOIN posts p ON p.id = t.post_id
		WHERE t.term = $1 AND t.created_at >= $2 AND t.created_at <= $3`)
	for _, term := range q.Terms[1:] {
		args = append(args, term)
		fmt.Fprintf(&b, ` AND EXISTS (SELECT 1 FROM search_terms x WHERE x.term = $%d AND x.created_at = t.created_at AND x.post_id = t.post_id)`, len(args))
	}
	args = append(args, q.Limit)
	fmt.Fprintf(&b, ` ORDER BY t.created_at DESC LIMIT $%d`, len(args))
	return s.queryPosts(ctx, "search posts", b.String(), args...)
}

// PostsByIDs returns the stored posts among ids.
func (s *Store) PostsByIDs(ctx context.Context, ids []string) ([]persistence.Post, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	ids = slices.Compact(slices.Sorted(slices.Values(ids)))
	var out []persistence.Post
	const chunk = 256
	for start := 0; start < len(ids); start += chunk {
		part := ids[start:min(start+chunk, len(ids))]
		args := make([]any, len(part))
		for i, id := range part {
			args[i] = id
		}
		got, err := s.queryPosts(ctx, "posts by ids",
			`SELECT `+postColumns+` FROM posts WHERE id IN `+tuples(1, len(part)), args...)
		if err != nil {
			return nil, err
		}
		out = append(out, got...)
	}
	return out, nil
}

// PostsCreatedSince pages through posts by (created_at, id).
func (s *Store) PostsCreatedSince(ctx context.Context, since, afterAt time.Time, afterID string, limit int) ([]persistence.Post, error) {
	return s.queryPosts(ctx, "posts created since", `SELECT `+postColumns+` FROM posts
		WHERE created_at >= $1 AND (created_at > $2 OR (created_at = $2 AND id > $3))
		ORDER BY created_at, id LIMIT $4`, msCeil(since), ms(afterAt), afterID, limitArg(limit))
}

func (s *Store) queryPosts(ctx context.Context, what, query string, args ...any) ([]persistence.Post, error) {
	rows, err := s.r.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	defer rows.Close()
	var out []persistence.Post
	for rows.Next() {
		p, err := scanPost(rows)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return out, nil
}

// PutSearchUsage upserts the counts; the larger of two counts of an
// (account, day) wins (a day's count only grows; on a cluster each node
// writes the total it knows, and a late write of a smaller one must not
// undo a larger).
func (s *Store) PutSearchUsage(ctx context.Context, us []persistence.SearchUsage) error {
	if len(us) == 0 {
		return nil
	}
	type key struct {
		account string
		day     int64
	}
	at := make(map[key]int, len(us))
	rows := make([]persistence.SearchUsage, 0, len(us))
	for _, u := range us {
		k := key{u.AccountID, ms(u.Day)}
		if i, ok := at[k]; ok {
			rows[i].Used = max(rows[i].Used, u.Used)
			continue
		}
		at[k] = len(rows)
		rows = append(rows, u)
	}
	slices.SortFunc(rows, func(a, b persistence.SearchUsage) int {
		return cmp.Or(cmp.Compare(a.AccountID, b.AccountID), a.Day.Compare(b.Day))
	})
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		return s.execRows(ctx, tx, `INSERT INTO search_usage (account_id, day, used)`,
			`ON CONFLICT (account_id, day) DO UPDATE SET used = CASE WHEN excluded.used > search_usage.used THEN excluded.used ELSE search_usage.used END`,
			3, len(rows), func(dst []any, i int) []any {
				u := &rows[i]
				return append(dst, u.AccountID, ms(u.Day), int64(u.Used))
			})
	})
	if err != nil {
		return fmt.Errorf("put search usage: %w", err)
	}
	return nil
}

// SearchUsageOn returns the counts of day, by account.
func (s *Store) SearchUsageOn(ctx context.Context, day time.Time) ([]persistence.SearchUsage, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT account_id, day, used FROM search_usage
		WHERE day = $1 ORDER BY account_id`, ms(day))
	if err != nil {
		return nil, fmt.Errorf("search usage: %w", err)
	}
	defer rows.Close()
	var out []persistence.SearchUsage
	for rows.Next() {
		var (
			u    persistence.SearchUsage
			d, n int64
		)
		if err := rows.Scan(&u.AccountID, &d, &n); err != nil {
			return nil, fmt.Errorf("search usage: %w", err)
		}
		u.Day, u.Used = fromMS(d), int(n)
		out = append(out, u)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("search usage: %w", err)
	}
	return out, nil
}

// PruneSearchUsage deletes the counts of days before before.
func (s *Store) PruneSearchUsage(ctx context.Context, before time.Time) error {
	if _, err := s.w.ExecContext(ctx, `DELETE FROM search_usage WHERE day < $1`, msCeil(before)); err != nil {
		return fmt.Errorf("prune search usage: %w", err)
	}
	return nil
}
