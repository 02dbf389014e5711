package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strconv"
	"time"

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

// QueueChatMessages stores the messages whose id the outbox does not hold
// (waiting or finished) and, with offset > 0, the offset; stored[i] says
// whether msgs[i] was new. RETURNING names exactly the rows inserted, so a
// concurrent Queue or Finish of the same id cannot make both callers
// believe they stored it.
func (s *Store) QueueChatMessages(ctx context.Context, msgs []persistence.ChatMessage, offset int64) (stored []bool, err error) {
	if len(msgs) == 0 && offset <= 0 {
		return nil, nil
	}
	inserted := map[string]bool{}
	err = s.inTx(ctx, func(tx *sql.Tx) error {
		clear(inserted)
		for start := 0; start < len(msgs); {
			n := s.chunk(len(msgs) - start)
			args := make([]any, 0, 4*n)
			for i := start; i < start+n; i++ {
				m := &msgs[i]
				args = append(args, m.MsgID, m.ChatID, blob(m.Body), ms(m.CreatedAt))
			}
			rows, err := tx.QueryContext(ctx, `INSERT INTO chat_outbox (msg_id, chat_id, body, created_at) VALUES `+
				tuples(n, 4)+` ON CONFLICT (msg_id) DO NOTHING RETURNING msg_id`, args...)
			if err != nil {
				return err
			}
			for rows.Next() {
				var id string
				if err := rows.Scan(&id); err != nil {
					rows.Close()
					return err
				}
				inserted[id] = true
			}
			if err := rows.Close(); err != nil {
				return err
			}
			start += n
		}
		if offset > 0 {
			// Never back: two pollers of a cluster may overlap for a moment
			// when the lead moves, and the later offset stands.
			_, err := tx.ExecContext(ctx, `INSERT INTO chat_bot_state (name, value) VALUES ($1, $2)
				ON CONFLICT (name) DO UPDATE SET value = CASE WHEN excluded.value > chat_bot_state.value
					THEN excluded.value ELSE chat_bot_state.value END`, botOffsetName, offset)
			return err
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("queue chat messages: %w", err)
	}
	stored = make([]bool, len(msgs))
	for i := range msgs {
		// A batch naming one id twice stores its first.
		stored[i] = inserted[msgs[i].MsgID]
		delete(inserted, msgs[i].MsgID)
	}
	return stored, nil
}

// FinishChatMessages takes the waiting messages with these ids out of the
// outbox and keeps their ids, finished at at, until PruneChatMessages.
func (s *Store) FinishChatMessages(ctx context.Context, ids []string, at time.Time) error {
	if len(ids) == 0 {
		return nil
	}
	sorted := slices.Clone(ids)
	slices.Sort(sorted)
	sorted = slices.Compact(sorted)
	when := max(ms(at), 1) // 0 means waiting
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		for start := 0; start < len(sorted); {
			n := s.chunk(len(sorted) - start)
			args := make([]any, 0, n+2)
			for _, id := range sorted[start : start+n] {
				args = append(args, id)
			}
			args = append(args, when, blob(nil))
			if _, err := tx.ExecContext(ctx, `UPDATE chat_outbox SET finished_at = $`+strconv.Itoa(n+1)+`, body = $`+strconv.Itoa(n+2)+
				` WHERE finished_at = 0 AND msg_id IN `+tuples(1, n), args...); err != nil {
				return err
			}
			start += n
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("finish chat messages: %w", err)
	}
	return nil
}

// PruneChatMessages forgets the messages finished before before.
func (s *Store) PruneChatMessages(ctx context.Context, before time.Time) error {
	if _, err := s.w.ExecContext(ctx, `DELETE FROM chat_outbox WHERE finished_at > 0 AND finished_at < $1`, ms(before)); err != nil {
		return fmt.Errorf("prune chat messages: %w", err)
	}
	return nil
}

// chunk is how many of the remaining rows the next statement takes: at
// most Dialect.BatchRows, halved until it fits, so one write uses few
// distinct statement texts (each is prepared once per connection).
func (s *Store) chunk(remaining int) int {
	n := max(s.d.BatchRows, 1)
	for n > remaining {
		n /= 2
	}
	return n
}

// ListChatMessages returns the waiting messages in the order they were queued.
func (s *Store) ListChatMessages(ctx context.Context) ([]persistence.ChatMessage, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT msg_id, chat_id, body, created_at FROM chat_outbox WHERE finished_at = 0 ORDER BY seq`)
	if err != nil {
		return nil, fmt.Errorf("list chat messages: %w", err)
	}
	return scanChatMessages(rows)
}

// ListChatMessagesOf returns one chat's waiting messages in the order they
// were queued. It walks the waiting rows (chat_outbox_waiting), which are
// few next to the finished ones kept for FinishedKeep.
func (s *Store) ListChatMessagesOf(ctx context.Context, chatID int64) ([]persistence.ChatMessage, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT msg_id, chat_id, body, created_at FROM chat_outbox
		WHERE finished_at = 0 AND chat_id = $1 ORDER BY seq`, chatID)
	if err != nil {
		return nil, fmt.Errorf("list chat messages of %d: %w", chatID, err)
	}
	return scanChatMessages(rows)
}

// ChatsWaiting returns the chats with messages waiting, by id (the node of
// a cluster that takes chats over finds them without reading the bodies).
func (s *Store) ChatsWaiting(ctx context.Context) ([]int64, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT DISTINCT chat_id FROM chat_outbox WHERE finished_at = 0 ORDER BY chat_id`)
	if err != nil {
		return nil, fmt.Errorf("chats waiting: %w", err)
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("chats waiting: %w", err)
		}
		out = append(out, id)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("chats waiting: %w", err)
	}
	return out, nil
}

func scanChatMessages(rows *sql.Rows) ([]persistence.ChatMessage, error) {
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
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list chat messages: %w", err)
	}
	return out, nil
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
