package sqlstore

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"

	"github.com/alertd/alertd/persistence"
)

const profileCols = `user_id, followers, following, tweet_count, likes_count, listed_count, scraped_at`

// AppendProfileHistory appends the rows whose counts differ from the latest
// row of their user, in one transaction.
func (s *Store) AppendProfileHistory(ctx context.Context, rows []persistence.ProfileCounts) error {
	if len(rows) == 0 {
		return nil
	}
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		latest, err := latestProfileCounts(ctx, tx, rows)
		if err != nil {
			return err
		}
		keep := make([]persistence.ProfileCounts, 0, len(rows))
		for _, r := range rows {
			if prev, ok := latest[r.UserID]; ok && prev.SameCounts(r) {
				continue
			}
			latest[r.UserID] = r
			keep = append(keep, r)
		}
		return s.execRows(ctx, tx, `INSERT INTO profile_history (`+profileCols+`)`, ``, 7, len(keep),
			func(dst []any, i int) []any {
				r := &keep[i]
				return append(dst, r.UserID, r.Followers, r.Following, r.TweetCount, r.LikesCount, r.ListedCount, ms(r.ScrapedAt))
			})
	})
	if err != nil {
		return fmt.Errorf("append profile history: %w", err)
	}
	return nil
}

// latestProfileCounts returns the latest stored row of each user of rows.
func latestProfileCounts(ctx context.Context, tx *sql.Tx, rows []persistence.ProfileCounts) (map[string]persistence.ProfileCounts, error) {
	ids := make([]string, 0, len(rows))
	for _, r := range rows {
		ids = append(ids, r.UserID)
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	out := make(map[string]persistence.ProfileCounts, len(ids))
	const chunk = 500
	for start := 0; start < len(ids); start += chunk {
		part := ids[start:min(start+chunk, len(ids))]
		args := make([]any, len(part))
		for i, id := range part {
			args[i] = id
		}
		q := `SELECT ` + profileCols + ` FROM profile_history WHERE id IN
			(SELECT MAX(id) FROM profile_history WHERE user_id IN ` + tuples(1, len(part)) + ` GROUP BY user_id)`
		res, err := tx.QueryContext(ctx, q, args...)
		if err != nil {
			return nil, err
		}
		for res.Next() {
			p, err := scanProfileCounts(res)
			if err != nil {
				res.Close()
				return nil, err
			}
			out[p.UserID] = p
		}
		res.Close()
		if err := res.Err(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func scanProfileCounts(r scanner) (persistence.ProfileCounts, error) {
	var p persistence.ProfileCounts
	var at int64
	err := r.Scan(&p.UserID, &p.Followers, &p.Following, &p.TweetCount, &p.LikesCount, &p.ListedCount, &at)
	p.ScrapedAt = fromMS(at)
	return p, err
}

// ProfileHistory returns a page of userID's rows, newest first.
func (s *Store) ProfileHistory(ctx context.Context, userID string, limit, offset int) ([]persistence.ProfileCounts, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT `+profileCols+` FROM profile_history WHERE user_id = $1
		ORDER BY scraped_at DESC, id DESC LIMIT $2 OFFSET $3`, userID, limitArg(limit), max(offset, 0))
	if err != nil {
		return nil, fmt.Errorf("profile history: %w", err)
	}
	defer rows.Close()
	var out []persistence.ProfileCounts
	for rows.Next() {
		p, err := scanProfileCounts(rows)
		if err != nil {
			return nil, fmt.Errorf("profile history: %w", err)
		}
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("profile history: %w", err)
	}
	return out, nil
}

// PutLatestEngagement keeps the newest counts per tweet; one transaction.
func (s *Store) PutLatestEngagement(ctx context.Context, in []persistence.LatestEngagement) error {
	if len(in) == 0 {
		return nil
	}
	// One row per tweet (a multi-row upsert may not touch a row twice),
	// merged in time order, written in id order.
	at := make(map[string]int, len(in))
	rows := make([]persistence.LatestEngagement, 0, len(in))
	for _, e := range in {
		if i, ok := at[e.TweetID]; ok {
			rows[i] = mergeLatestEngagement(rows[i], e)
			continue
		}
		at[e.TweetID] = len(rows)
		rows = append(rows, e)
	}
	slices.SortFunc(rows, func(a, b persistence.LatestEngagement) int { return cmp.Compare(a.TweetID, b.TweetID) })
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		return s.execRows(ctx, tx, `INSERT INTO lookup_engagement (tweet_id, likes, retweets, replies, quotes, bookmarks, observed_at)`,
			`ON CONFLICT (tweet_id) DO UPDATE SET
				likes = COALESCE(excluded.likes, lookup_engagement.likes),
				retweets = COALESCE(excluded.retweets, lookup_engagement.retweets),
				replies = COALESCE(excluded.replies, lookup_engagement.replies),
				quotes = COALESCE(excluded.quotes, lookup_engagement.quotes),
				bookmarks = COALESCE(excluded.bookmarks, lookup_engagement.bookmarks),
				observed_at = excluded.observed_at
			WHERE excluded.observed_at >= lookup_engagement.observed_at`,
			7, len(rows), func(dst []any, i int) []any {
				e := &rows[i]
				return append(dst, e.TweetID, lkNullInt(e.Likes), lkNullInt(e.Retweets), lkNullInt(e.Replies),
					lkNullInt(e.Quotes), lkNullInt(e.Bookmarks), ms(e.ObservedAt))
			})
	})
	if err != nil {
		return fmt.Errorf("put latest engagement: %w", err)
	}
	return nil
}

// mergeLatestEngagement combines two rows of one tweet as storing a then b would:
// the newer row's counts win where it has them.
func mergeLatestEngagement(a, b persistence.LatestEngagement) persistence.LatestEngagement {
	if b.ObservedAt.Before(a.ObservedAt) {
		return a
	}
	pick := func(old, nu *int64) *int64 {
		if nu != nil {
			return nu
		}
		return old
	}
	b.Likes, b.Retweets, b.Replies = pick(a.Likes, b.Likes), pick(a.Retweets, b.Retweets), pick(a.Replies, b.Replies)
	b.Quotes, b.Bookmarks = pick(a.Quotes, b.Quotes), pick(a.Bookmarks, b.Bookmarks)
	return b
}

// LatestEngagement returns the counts kept for tweetID.
func (s *Store) LatestEngagement(ctx context.Context, tweetID string) (persistence.LatestEngagement, error) {
	var (
		e                                          persistence.LatestEngagement
		likes, retweets, replies, quotes, bookmark sql.NullInt64
		at                                         int64
	)
	err := s.r.QueryRowContext(ctx, `SELECT tweet_id, likes, retweets, replies, quotes, bookmarks, observed_at
		FROM lookup_engagement WHERE tweet_id = $1`, tweetID).
		Scan(&e.TweetID, &likes, &retweets, &replies, &quotes, &bookmark, &at)
	if err != nil {
		return e, notFound(err, "engagement of "+tweetID)
	}
	e.Likes, e.Retweets, e.Replies = lkIntPtr(likes), lkIntPtr(retweets), lkIntPtr(replies)
	e.Quotes, e.Bookmarks, e.ObservedAt = lkIntPtr(quotes), lkIntPtr(bookmark), fromMS(at)
	return e, nil
}

func lkNullInt(p *int64) any {
	if p == nil {
		return nil
	}
	return *p
}

func lkIntPtr(v sql.NullInt64) *int64 {
	if !v.Valid {
		return nil
	}
	n := v.Int64
	return &n
}
