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

// CA Search: post terms for searches older than the in-memory window, and
// the per-account daily search counts.
func init() {
	Register(Migration{
		Version: 4,
		Name:    "CA Search terms and daily usage",
		Stmts: []string{
			// One row per (post, term); tie orders posts created in the same
			// millisecond the way the in-memory index does.
			`CREATE TABLE search_terms (
				post_id    TEXT NOT NULL,
				term       TEXT NOT NULL,
				created_at BIGINT NOT NULL,
				tie        BIGINT NOT NULL,
				PRIMARY KEY (post_id, term)
			)`,
			`CREATE INDEX search_terms_term_time ON search_terms (term, created_at, tie)`,
			// Warming the index reads posts by creation time.
			`CREATE INDEX posts_created ON posts (created_at, id)`,
			`CREATE TABLE search_usage (
				account_id TEXT NOT NULL,
				day        BIGINT NOT NULL,
				used       BIGINT NOT NULL,
				PRIMARY KEY (account_id, day)
			)`,
		},
	})
}

// PutPostTerms replaces the terms of each post, in one transaction.
func (s *Store) PutPostTerms(ctx context.Context, posts []persistence.PostTerms) error {
	if len(posts) == 0 {
		return nil
	}
	type row struct {
		post string
		term string
		at   int64
		tie  int64
	}
	byID := make(map[string]int, len(posts))
	last := make([]persistence.PostTerms, 0, len(posts))
	for _, p := range posts {
		if i, ok := byID[p.PostID]; ok {
			last[i] = p
			continue
		}
		byID[p.PostID] = len(last)
		last = append(last, p)
	}
	slices.SortFunc(last, func(a, b persistence.PostTerms) int { return cmp.Compare(a.PostID, b.PostID) })
	var rows []row
	for _, p := range last {
		terms := slices.Clone(p.Terms)
		slices.Sort(terms)
		terms = slices.Compact(terms)
		for _, t := range terms {
			rows = append(rows, row{p.PostID, t, ms(p.CreatedAt), p.Tie})
		}
	}
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		if err := s.execIn(ctx, tx, `DELETE FROM search_terms WHERE post_id IN `, len(last),
			func(dst []any, i int) []any { return append(dst, last[i].PostID) }); err != nil {
			return err
		}
		return s.execRows(ctx, tx, `INSERT INTO search_terms (post_id, term, created_at, tie)`, ``,
			4, len(rows), func(dst []any, i int) []any {
				r := &rows[i]
				return append(dst, r.post, r.term, r.at, r.tie)
			})
	})
	if err != nil {
		return fmt.Errorf("put post terms: %w", err)
	}
	return nil
}

// SearchPosts walks the first term's rows newest first and keeps the posts
// that carry the other terms too.
func (s *Store) SearchPosts(ctx context.Context, q persistence.SearchQuery) ([]persistence.Post, error) {
	if len(q.Terms) == 0 || q.Limit <= 0 {
		return nil, nil
	}
	until := int64(math.MaxInt64)
	if !q.Until.IsZero() {
		until = msCeil(q.Until)
	}
	beforeAt, beforeTie := int64(math.MaxInt64), int64(math.MaxInt64)
	if q.Before != nil {
		beforeAt, beforeTie = ms(q.Before.At), q.Before.Tie
	}
	args := []any{q.Terms[0], msCeil(q.Since), until, beforeAt, beforeTie}
	var b strings.Builder
	b.WriteString(`SELECT p.id, p.handle, p.created_at, p.detected_at, p.data
		FROM search_terms t JOIN posts p ON p.id = t.post_id
		WHERE t.term = $1 AND t.created_at >= $2 AND t.created_at < $3
		AND (t.created_at < $4 OR (t.created_at = $4 AND t.tie < $5))`)
	for _, term := range q.Terms[1:] {
		args = append(args, term)
		fmt.Fprintf(&b, ` AND EXISTS (SELECT 1 FROM search_terms x WHERE x.post_id = t.post_id AND x.term = $%d)`, len(args))
	}
	args = append(args, q.Limit)
	fmt.Fprintf(&b, ` ORDER BY t.created_at DESC, t.tie DESC LIMIT $%d`, len(args))
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

// PutSearchUsage upserts the counts; the last of an (account, day) wins.
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
			rows[i] = u
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
			`ON CONFLICT (account_id, day) DO UPDATE SET used = excluded.used`,
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
