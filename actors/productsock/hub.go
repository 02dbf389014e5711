// Package productsock keeps the open WebSockets of one product API (cw, ct,
// et): which account each belongs to and which items (handles, post ids) it
// was opened for. Spec 3 reads the target list at connect, so a socket's
// items are fixed for its life. Detectors publish pre-encoded frames; the
// hub hands the same bytes to every matching socket and never blocks.
package productsock

import "sync"

// Conn is the sending side of one socket. Send must not block; it returns
// false when the socket is gone or could not keep up (and is being closed).
type Conn interface {
	Send(frame []byte) bool
}

// Sub is one registered socket.
type Sub struct {
	account string
	conn    Conn
	items   map[string]struct{} // nil: every item of the account
}

// Hub is one product's sockets. Safe for concurrent use.
type Hub struct {
	max int // sockets per account; 0: no limit

	mu     sync.RWMutex
	byAcct map[string]map[*Sub]struct{}
}

// NewHub returns an empty hub allowing maxPerAccount sockets per account (0:
// no limit).
func NewHub(maxPerAccount int) *Hub {
	return &Hub{max: maxPerAccount, byAcct: map[string]map[*Sub]struct{}{}}
}

// Add registers c for account, for the given items (nil: every item). ok is
// false when the account already has the most sockets allowed.
func (h *Hub) Add(account string, c Conn, items []string) (s *Sub, ok bool) {
	s = &Sub{account: account, conn: c}
	if items != nil {
		s.items = make(map[string]struct{}, len(items))
		for _, it := range items {
			s.items[it] = struct{}{}
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	set := h.byAcct[account]
	if h.max > 0 && len(set) >= h.max {
		return nil, false
	}
	if set == nil {
		set = map[*Sub]struct{}{}
		h.byAcct[account] = set
	}
	set[s] = struct{}{}
	return s, true
}

// Remove unregisters s (nil is ignored).
func (h *Hub) Remove(s *Sub) {
	if s == nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if set := h.byAcct[s.account]; set != nil {
		delete(set, s)
		if len(set) == 0 {
			delete(h.byAcct, s.account)
		}
	}
}

// Publish sends frame to account's sockets opened for item ("" matches every
// socket of the account) and returns how many took it.
func (h *Hub) Publish(account, item string, frame []byte) int {
	h.mu.RLock()
	var targets []Conn
	for s := range h.byAcct[account] {
		if item != "" && s.items != nil {
			if _, ok := s.items[item]; !ok {
				continue
			}
		}
		targets = append(targets, s.conn)
	}
	h.mu.RUnlock()
	n := 0
	for _, c := range targets { // outside the lock: Send may close the socket, which calls Remove
		if c.Send(frame) {
			n++
		}
	}
	return n
}

// Count is the number of account's sockets.
func (h *Hub) Count(account string) int {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return len(h.byAcct[account])
}
