package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"slices"

	"github.com/alertd/alertd/persistence"
)

// botOffsetName is the chat_bot_state row of the next getUpdates offset.
const botOffsetName = "update_offset"

// PutChat inserts or replaces a chat.
func (s *Store) PutChat(ctx context.Context, c persistence.Chat) error {
	_, err := s.w.ExecContext(ctx, `INSERT INTO chats (chat_id, account_id, kind, forum, blocked, linked_at)
		VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (chat_id) DO UPDATE SET account_id = excluded.account_id,
			kind = excluded.kind, forum = excluded.forum, blocked = excluded.blocked, linked_at = excluded.linked_at`,
		c.ChatID, c.AccountID, c.Kind, c.Forum, c.Blocked, ms(c.LinkedAt))
	if err != nil {
		return fmt.Errorf("put chat: %w", err)
	}
	return nil
}

// ListChats returns every chat by id.
func (s *Store) ListChats(ctx context.Context) ([]persistence.Chat, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT chat_id, account_id, kind, forum, blocked, linked_at FROM chats ORDER BY chat_id`)
	if err != nil {
		return nil, fmt.Errorf("list chats: %w", err)
	}
	defer rows.Close()
	var out []persistence.Chat
	for rows.Next() {
		var c persistence.Chat
		var at int64
		if err := rows.Scan(&c.ChatID, &c.AccountID, &c.Kind, &c.Forum, &c.Blocked, &at); err != nil {
			return nil, fmt.Errorf("list chats: %w", err)
		}
		c.LinkedAt = fromMS(at)
		out = append(out, c)
	}
	return out, rows.Err()
}

// PutChatTopic inserts or replaces a topic.
func (s *Store) PutChatTopic(ctx context.Context, t persistence.ChatTopic) error {
	_, err := s.w.ExecContext(ctx, `INSERT INTO chat_topics (chat_id, topic, thread_id) VALUES ($1, $2, $3)
		ON CONFLICT (chat_id, topic) DO UPDATE SET thread_id = excluded.thread_id`, t.ChatID, t.Topic, t.ThreadID)
	if err != nil {
		return fmt.Errorf("put chat topic: %w", err)
	}
	return nil
}

// DeleteChatTopic removes a topic.
func (s *Store) DeleteChatTopic(ctx context.Context, chatID int64, topic string) error {
	if _, err := s.w.ExecContext(ctx, `DELETE FROM chat_topics WHERE chat_id = $1 AND topic = $2`, chatID, topic); err != nil {
		return fmt.Errorf("delete chat topic: %w", err)
	}
	return nil
}

// ListChatTopics returns every topic.
func (s *Store) ListChatTopics(ctx context.Context) ([]persistence.ChatTopic, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT chat_id, topic, thread_id FROM chat_topics ORDER BY chat_id, topic`)
	if err != nil {
		return nil, fmt.Errorf("list chat topics: %w", err)
	}
	defer rows.Close()
	var out []persistence.ChatTopic
	for rows.Next() {
		var t persistence.ChatTopic
		if err := rows.Scan(&t.ChatID, &t.Topic, &t.ThreadID); err != nil {
			return nil, fmt.Errorf("list chat topics: %w", err)
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// QueueChatMessages stores the messages and, with offset > 0, the offset.
func (s *Store) QueueChatMessages(ctx context.Context, msgs []persistence.ChatMessage, offset int64) error {
	if len(msgs) == 0 && offset <= 0 {
		return nil
	}
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		if len(msgs) > 0 {
			if err := s.execRows(ctx, tx, `INSERT INTO chat_outbox (msg_id, chat_id, body, created_at)`,
				`ON CONFLICT (msg_id) DO NOTHING`, 4, len(msgs), func(dst []any, i int) []any {
					m := &msgs[i]
					return append(dst, m.MsgID, m.ChatID, blob(m.Body), ms(m.CreatedAt))
				}); err != nil {
				return err
			}
		}
		if offset > 0 {
			_, err := tx.ExecContext(ctx, `INSERT INTO chat_bot_state (name, value) VALUES ($1, $2)
				ON CONFLICT (name) DO UPDATE SET value = excluded.value`, botOffsetName, offset)
			return err
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("queue chat messages: %w", err)
	}
	return nil
}

// DeleteChatMessages removes outbox messages by id.
func (s *Store) DeleteChatMessages(ctx context.Context, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	sorted := slices.Clone(ids)
	slices.Sort(sorted)
	sorted = slices.Compact(sorted)
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		return s.execIn(ctx, tx, `DELETE FROM chat_outbox WHERE msg_id IN `, len(sorted), func(dst []any, i int) []any {
			return append(dst, sorted[i])
		})
	})
	if err != nil {
		return fmt.Errorf("delete chat messages: %w", err)
	}
	return nil
}

// ListChatMessages returns the outbox in the order it was queued.
func (s *Store) ListChatMessages(ctx context.Context) ([]persistence.ChatMessage, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT msg_id, chat_id, body, created_at FROM chat_outbox ORDER BY seq`)
	if err != nil {
		return nil, fmt.Errorf("list chat messages: %w", err)
	}
	defer rows.Close()
	var out []persistence.ChatMessage
	for rows.Next() {
		var m persistence.ChatMessage
		var at int64
		if err := rows.Scan(&m.MsgID, &m.ChatID, &m.Body, &at); err != nil {
			return nil, fmt.Errorf("list chat messages: %w", err)
		}
		m.Body, m.CreatedAt = unblob(m.Body), fromMS(at)
		out = append(out, m)
	}
	return out, rows.Err()
}

// BotOffset returns the stored update offset, 0 when none.
func (s *Store) BotOffset(ctx context.Context) (int64, error) {
	var v int64
	err := s.r.QueryRowContext(ctx, `SELECT value FROM chat_bot_state WHERE name = $1`, botOffsetName).Scan(&v)
	if err == sql.ErrNoRows {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("bot offset: %w", err)
	}
	return v, nil
}
