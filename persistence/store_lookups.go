package persistence

// LookupStore holds what the /v1/dt per-handle data and /social lookups (profile history, follow edges, community memberships, social diff, blacklist, webhook settings) keep.
type LookupStore interface {
}
