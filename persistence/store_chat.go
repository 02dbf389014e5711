package persistence

import (
	"context"
	"time"
)

// Chat is a Telegram chat linked to an account: the private chat of a linked
// user, or a group a linked user linked. Blocked is set when the Bot API
// answered 403 (the bot was blocked or removed): nothing more is sent there.
type Chat struct {
	ChatID    int64
	AccountID string
	Kind      string // "private", "group", "supergroup", "channel"
	Forum     bool   // a supergroup with topics
	Blocked   bool
	LinkedAt  time.Time
}

// ChatTopic is a forum topic the bot created in a chat, by the name it is
// known by (a handle, or "contracts").
type ChatTopic struct {
	ChatID   int64
	Topic    string
	ThreadID int64
}

// ChatMessage is one message of the durable chat outbox: written before it
// is sent (or, for a command's answer, together with the update offset),
// finished once sent or finally refused, so a restart sends every message
// still queued. A finished message's id is kept for a bounded time, so the
// ingest log's replay of a post does not send its alerts twice.
type ChatMessage struct {
	// MsgID is unique: a message queued twice (the same post seen twice as
	// new or replayed, the same update handled again) is kept and sent once.
	MsgID  string
	ChatID int64
	// Body is the chat package's encoding of the message.
	Body      []byte
	CreatedAt time.Time
}

// ChatStore holds what the chat-messenger bot keeps.
type ChatStore interface {
	// PutChat inserts or replaces a chat.
	PutChat(ctx context.Context, c Chat) error
	// ListChats returns every chat, by ChatID.
	ListChats(ctx context.Context) ([]Chat, error)
	// PutChatTopic inserts or replaces a chat's topic.
	PutChatTopic(ctx context.Context, t ChatTopic) error
	// DeleteChatTopic removes a chat's topic (none is not an error).
	DeleteChatTopic(ctx context.Context, chatID int64, topic string) error
	// ListChatTopics returns every topic.
	ListChatTopics(ctx context.Context) ([]ChatTopic, error)

	// QueueChatMessages stores ms in the outbox and, when offset > 0, the
	// bot's next update offset, in one transaction: an update's answers and
	// the fact that it was handled are stored together. The offset never
	// goes back (a lower one leaves the stored one). A message whose
	// MsgID the outbox holds, waiting or finished (until pruned), is
	// skipped: stored[i] says whether ms[i] was stored, and only those are
	// to be sent.
	QueueChatMessages(ctx context.Context, ms []ChatMessage, offset int64) (stored []bool, err error)
	// FinishChatMessages takes the waiting messages with these ids out of
	// the outbox (sent, refused for good, or replaced) and remembers their
	// ids, finished at at, so that queueing one again is skipped.
	FinishChatMessages(ctx context.Context, ids []string, at time.Time) error
	// PruneChatMessages forgets the messages finished before before.
	PruneChatMessages(ctx context.Context, before time.Time) error
	// ListChatMessages returns the waiting messages, oldest first.
	ListChatMessages(ctx context.Context) ([]ChatMessage, error)
	// ListChatMessagesOf returns chat's waiting messages, oldest first: the
	// node of a cluster that takes a chat over reads its queue back.
	ListChatMessagesOf(ctx context.Context, chatID int64) ([]ChatMessage, error)
	// ChatsWaiting returns the chats that have messages waiting, by id.
	ChatsWaiting(ctx context.Context) ([]int64, error)
	// BotOffset is the stored next update offset (0 when none).
	BotOffset(ctx context.Context) (int64, error)
}
