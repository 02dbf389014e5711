package persistence

// ConsumerStore holds what the Tweet Alerts consumer API (tracked accounts, settings, webhooks and their durable delivery queue) keep.
type ConsumerStore interface {
}
