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
	"github.com/alertd/alertd/protocol"
)

// TrackHandles adds handles to their lists; tracked ones keep AddedAt.
func (s *Store) TrackHandles(ctx context.Context, hs []persistence.TrackedHandle) error {
	if len(hs) == 0 {
		return nil
	}
	rows := slices.Clone(hs)
	for i := range rows {
		rows[i].Handle = strings.ToLower(rows[i].Handle)
	}
	// Key order, so that concurrent batches lock rows in the same order; a
	// key given twice keeps its first AddedAt.
	slices.SortStableFunc(rows, func(a, b persistence.TrackedHandle) int {
		return cmp.Or(strings.Compare(a.AccountID, b.AccountID), strings.Compare(a.Handle, b.Handle))
	})
	rows = slices.CompactFunc(rows, func(a, b persistence.TrackedHandle) bool {
		return a.AccountID == b.AccountID && a.Handle == b.Handle
	})
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		return s.execRows(ctx, tx, `INSERT INTO xg_tracked (account_id, handle, added_at)`,
			`ON CONFLICT (account_id, handle) DO NOTHING`, 3, len(rows), func(dst []any, i int) []any {
				return append(dst, rows[i].AccountID, rows[i].Handle, ms(rows[i].AddedAt))
			})
	})
	if err != nil {
		return fmt.Errorf("track handles: %w", err)
	}
	return nil
}

// UntrackHandle removes handle from account's list and clears its mute and
// filters, keeping its keywords.
func (s *Store) UntrackHandle(ctx context.Context, account, handle string) error {
	handle = strings.ToLower(handle)
	return s.inTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM xg_tracked WHERE account_id = $1 AND handle = $2`, account, handle)
		if err != nil {
			return fmt.Errorf("untrack handle: %w", err)
		}
		if n, err := res.RowsAffected(); err != nil {
			return fmt.Errorf("untrack handle: %w", err)
		} else if n == 0 {
			return fmt.Errorf("tracked handle %s/%s: %w", account, handle, persistence.ErrNotFound)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE xg_handle_prefs SET muted = FALSE, exclude_replies = FALSE,
			exclude_reposts = FALSE, exclude_quotes = FALSE WHERE account_id = $1 AND handle = $2`, account, handle); err != nil {
			return fmt.Errorf("untrack handle: prefs: %w", err)
		}
		return nil
	})
}

// ListTrackedHandles returns every tracked handle by account, AddedAt, handle.
func (s *Store) ListTrackedHandles(ctx context.Context) ([]persistence.TrackedHandle, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT account_id, handle, added_at FROM xg_tracked
		ORDER BY account_id, added_at, handle`)
	if err != nil {
		return nil, fmt.Errorf("list tracked: %w", err)
	}
	defer rows.Close()
	var out []persistence.TrackedHandle
	for rows.Next() {
		var t persistence.TrackedHandle
		var added int64
		if err := rows.Scan(&t.AccountID, &t.Handle, &added); err != nil {
			return nil, fmt.Errorf("list tracked: %w", err)
		}
		t.AddedAt = fromMS(added)
		out = append(out, t)
	}
	return out, rows.Err()
}

// PutHandlePrefs inserts or replaces the prefs of (AccountID, Handle).
func (s *Store) PutHandlePrefs(ctx context.Context, p persistence.HandlePrefs) error {
	kw, err := encodeList(p.Keywords)
	if err != nil {
		return fmt.Errorf("put handle prefs: %w", err)
	}
	_, err = s.w.ExecContext(ctx, `INSERT INTO xg_handle_prefs (account_id, handle, keywords, muted,
			exclude_replies, exclude_reposts, exclude_quotes) VALUES ($1, $2, $3, $4, $5, $6, $7)
		ON CONFLICT (account_id, handle) DO UPDATE SET keywords = excluded.keywords, muted = excluded.muted,
			exclude_replies = excluded.exclude_replies, exclude_reposts = excluded.exclude_reposts,
			exclude_quotes = excluded.exclude_quotes`,
		p.AccountID, strings.ToLower(p.Handle), kw, p.Muted, p.ExcludeReplies, p.ExcludeReposts, p.ExcludeQuotes)
	if err != nil {
		return fmt.Errorf("put handle prefs: %w", err)
	}
	return nil
}

// ListHandlePrefs returns every prefs row by account and handle.
func (s *Store) ListHandlePrefs(ctx context.Context) ([]persistence.HandlePrefs, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT account_id, handle, keywords, muted, exclude_replies,
		exclude_reposts, exclude_quotes FROM xg_handle_prefs ORDER BY account_id, handle`)
	if err != nil {
		return nil, fmt.Errorf("list handle prefs: %w", err)
	}
	defer rows.Close()
	var out []persistence.HandlePrefs
	for rows.Next() {
		var p persistence.HandlePrefs
		var kw string
		if err := rows.Scan(&p.AccountID, &p.Handle, &kw, &p.Muted, &p.ExcludeReplies, &p.ExcludeReposts, &p.ExcludeQuotes); err != nil {
			return nil, fmt.Errorf("list handle prefs: %w", err)
		}
		if p.Keywords, err = decodeList(kw); err != nil {
			return nil, fmt.Errorf("list handle prefs: keywords: %w", err)
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// PutTweetAlertsSettings inserts or replaces an account's settings.
func (s *Store) PutTweetAlertsSettings(ctx context.Context, c persistence.TweetAlertsSettings) error {
	_, err := s.w.ExecContext(ctx, `INSERT INTO xg_settings (account_id, exclude_replies, contracts_only,
			notifications_paused, exclude_reposts, auto_topics, contract_topic) VALUES ($1, $2, $3, $4, $5, $6, $7)
		ON CONFLICT (account_id) DO UPDATE SET exclude_replies = excluded.exclude_replies,
			contracts_only = excluded.contracts_only, notifications_paused = excluded.notifications_paused,
			exclude_reposts = excluded.exclude_reposts, auto_topics = excluded.auto_topics,
			contract_topic = excluded.contract_topic`,
		c.AccountID, c.ExcludeReplies, c.ContractsOnly, c.NotificationsPaused, c.ExcludeReposts, c.AutoTopics, c.ContractTopic)
	if err != nil {
		return fmt.Errorf("put settings: %w", err)
	}
	return nil
}

// ListTweetAlertsSettings returns every stored settings row by account.
func (s *Store) ListTweetAlertsSettings(ctx context.Context) ([]persistence.TweetAlertsSettings, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT account_id, exclude_replies, contracts_only, notifications_paused,
		exclude_reposts, auto_topics, contract_topic FROM xg_settings ORDER BY account_id`)
	if err != nil {
		return nil, fmt.Errorf("list settings: %w", err)
	}
	defer rows.Close()
	var out []persistence.TweetAlertsSettings
	for rows.Next() {
		var c persistence.TweetAlertsSettings
		if err := rows.Scan(&c.AccountID, &c.ExcludeReplies, &c.ContractsOnly, &c.NotificationsPaused,
			&c.ExcludeReposts, &c.AutoTopics, &c.ContractTopic); err != nil {
			return nil, fmt.Errorf("list settings: %w", err)
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// FeedPosts returns up to limit posts of handles created before `before`,
// newest first.
func (s *Store) FeedPosts(ctx context.Context, handles []string, before time.Time, limit int) ([]persistence.Post, error) {
	if len(handles) == 0 || limit <= 0 {
		return nil, nil
	}
	args := make([]any, 0, len(handles)+2)
	for _, h := range handles {
		args = append(args, strings.ToLower(h))
	}
	n := len(args)
	args = append(args, ms(before), limit)
	q := `SELECT ` + postColumns + ` FROM posts WHERE handle IN ` + tuples(1, n) +
		fmt.Sprintf(` AND created_at < $%d ORDER BY created_at DESC, id DESC LIMIT $%d`, n+1, n+2)
	rows, err := s.r.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("feed posts: %w", err)
	}
	defer rows.Close()
	var out []persistence.Post
	for rows.Next() {
		p, err := scanPost(rows)
		if err != nil {
			return nil, fmt.Errorf("feed posts: %w", err)
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// ServerSecret returns the secret named name, storing candidate if none.
func (s *Store) ServerSecret(ctx context.Context, name string, candidate []byte) ([]byte, error) {
	if _, err := s.w.ExecContext(ctx, `INSERT INTO server_secrets (name, value) VALUES ($1, $2)
		ON CONFLICT (name) DO NOTHING`, name, blob(candidate)); err != nil {
		return nil, fmt.Errorf("server secret: %w", err)
	}
	var v []byte
	if err := s.w.QueryRowContext(ctx, `SELECT value FROM server_secrets WHERE name = $1`, name).Scan(&v); err != nil {
		return nil, fmt.Errorf("server secret: %w", err)
	}
	return unblob(v), nil
}

// LinkTelegram maps a Telegram user id to (account, product).
func (s *Store) LinkTelegram(ctx context.Context, telegramID int64, account string, product protocol.Product, at time.Time) error {
	_, err := s.w.ExecContext(ctx, `INSERT INTO xg_telegram_links (telegram_id, account_id, product, linked_at)
		VALUES ($1, $2, $3, $4) ON CONFLICT (telegram_id) DO UPDATE SET account_id = excluded.account_id,
			product = excluded.product, linked_at = excluded.linked_at`,
		telegramID, account, string(product), ms(at))
	if err != nil {
		return fmt.Errorf("link telegram: %w", err)
	}
	return nil
}

// TelegramLink returns the link of telegramID.
func (s *Store) TelegramLink(ctx context.Context, telegramID int64) (string, protocol.Product, error) {
	var account, product string
	err := s.r.QueryRowContext(ctx, `SELECT account_id, product FROM xg_telegram_links WHERE telegram_id = $1`,
		telegramID).Scan(&account, &product)
	if err != nil {
		return "", "", notFound(err, fmt.Sprintf("telegram link %d", telegramID))
	}
	return account, protocol.Product(product), nil
}

// TelegramLinkOf returns the link of telegramID with its time.
func (s *Store) TelegramLinkOf(ctx context.Context, telegramID int64) (persistence.TelegramLinkInfo, error) {
	l := persistence.TelegramLinkInfo{TelegramID: telegramID}
	var product string
	var at int64
	err := s.r.QueryRowContext(ctx, `SELECT account_id, product, linked_at FROM xg_telegram_links WHERE telegram_id = $1`,
		telegramID).Scan(&l.Account, &product, &at)
	if err != nil {
		return persistence.TelegramLinkInfo{}, notFound(err, fmt.Sprintf("telegram link %d", telegramID))
	}
	l.Product, l.LinkedAt = protocol.Product(product), time.UnixMilli(at).UTC()
	return l, nil
}

// TelegramLinks lists the Telegram users linked to (account, product).
func (s *Store) TelegramLinks(ctx context.Context, account string, product protocol.Product) ([]persistence.TelegramLinkInfo, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT telegram_id, linked_at FROM xg_telegram_links
		WHERE account_id = $1 AND product = $2 ORDER BY linked_at, telegram_id`, account, string(product))
	if err != nil {
		return nil, fmt.Errorf("telegram links: %w", err)
	}
	defer rows.Close()
	var out []persistence.TelegramLinkInfo
	for rows.Next() {
		l := persistence.TelegramLinkInfo{Account: account, Product: product}
		var at int64
		if err := rows.Scan(&l.TelegramID, &at); err != nil {
			return nil, fmt.Errorf("telegram links: %w", err)
		}
		l.LinkedAt = time.UnixMilli(at).UTC()
		out = append(out, l)
	}
	return out, rows.Err()
}

// UnlinkTelegram removes telegramID's link to (account, product).
func (s *Store) UnlinkTelegram(ctx context.Context, telegramID int64, account string, product protocol.Product) error {
	res, err := s.w.ExecContext(ctx, `DELETE FROM xg_telegram_links WHERE telegram_id = $1 AND account_id = $2 AND product = $3`,
		telegramID, account, string(product))
	if err != nil {
		return fmt.Errorf("unlink telegram: %w", err)
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		return fmt.Errorf("telegram link %d: %w", telegramID, persistence.ErrNotFound)
	}
	return nil
}
