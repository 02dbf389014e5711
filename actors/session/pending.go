package session

import "sync/atomic"

// Pending caps the sockets that are upgraded but not yet authenticated: the
// realtime socket between its upgrade and READY (its key comes in LOGIN).
// Every other socket kind authenticates before its upgrade. Without a cap,
// idle unauthenticated sockets would cost memory for up to the login
// window each. Safe for concurrent use; a nil *Pending caps nothing.
type Pending struct {
	max int64
	n   atomic.Int64
}

// NewPending caps pending sockets at max (0 or less: no cap).
func NewPending(max int) *Pending { return &Pending{max: int64(max)} }

// Reserve takes a place, or reports that none is left.
func (p *Pending) Reserve() bool {
	if p == nil {
		return true
	}
	if n := p.n.Add(1); p.max > 0 && n > p.max {
		p.n.Add(-1)
		return false
	}
	return true
}

// Done gives a place back (once per successful Reserve).
func (p *Pending) Done() {
	if p != nil {
		p.n.Add(-1)
	}
}

// Len is the number of pending sockets.
func (p *Pending) Len() int64 {
	if p == nil {
		return 0
	}
	return p.n.Load()
}
