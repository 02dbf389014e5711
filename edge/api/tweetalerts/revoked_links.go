package tweetalerts

import (
	"sync"
	"time"
)

// linkRef names one Telegram link: the user and the link's linked_at (epoch
// ms), as a session token does.
type linkRef struct{ telegramID, gen int64 }

// revokedLinks remembers the Telegram links removed within a session's
// lifetime, so that a /v1/ws socket opened through one ends at its next
// re-check, which runs on the WebSocket loop and must not read the store
// (REST requests and upgrades read it). Entries go once no session of their
// link can be alive: a handful per removal, bounded by the removals of one
// session lifetime. mu guards m.
type revokedLinks struct {
	mu sync.Mutex
	m  map[linkRef]time.Time // until when the entry matters
}

// add records ref as removed until `until`, dropping entries past now.
func (r *revokedLinks) add(ref linkRef, until, now time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.m == nil {
		r.m = map[linkRef]time.Time{}
	}
	for k, t := range r.m {
		if !t.After(now) {
			delete(r.m, k)
		}
	}
	r.m[ref] = until
}

// has reports whether ref was removed.
func (r *revokedLinks) has(ref linkRef) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, ok := r.m[ref]
	return ok
}
