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
// removed once sent or finally refused, so a restart sends every message
// still queued.
type ChatMessage struct {
	// MsgID is unique: a message queued twice (the same post seen twice as
	// new, the same update handled again) is kept once.
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

	// QueueChatMessages stores ms in the outbox (one whose MsgID is queued
	// already is skipped) and, when offset > 0, the bot's next update
	// offset, in one transaction: an update's answers and the fact that it
	// was handled are stored together.
	QueueChatMessages(ctx context.Context, ms []ChatMessage, offset int64) error
	// DeleteChatMessages removes the outbox messages with these ids.
	DeleteChatMessages(ctx context.Context, ids []string) error
	// ListChatMessages returns the outbox, oldest first.
	ListChatMessages(ctx context.Context) ([]ChatMessage, error)
	// BotOffset is the stored next update offset (0 when none).
	BotOffset(ctx context.Context) (int64, error)
}
