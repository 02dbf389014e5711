// Package telegram is the chat-messenger bot's network side (CONTRACT.md
// section 4) over the Telegram Bot API, through github.com/mymmrac/telego:
// the Client (every call bounded by its context, no retries of the
// library's own: the outbox and the poller decide), the Poller (long
// polling getUpdates on one owned goroutine; each update's answers and the
// next offset are stored in one transaction before the next poll
// acknowledges it; on a cluster the engine runs it on one node at a time,
// engine/cluster.Singleton), update decoding (Incoming) and the commands (Bot),
// which act on the same registries as the REST API. What the bot sends goes
// through actors/chat's outbox. telegramfake is a fake Bot API server for
// tests.
package telegram
