package persistence

// SearchStore holds what CA Search (post index and per-account search quota) keep.
type SearchStore interface {
}
