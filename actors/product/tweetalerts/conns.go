package tweetalerts

import (
	"sync"
	"time"
)

// Conns counts WebSocket connections per owner against the plan's limit.
// A slot is reserved before the upgrade (so a refusal can still be a
// plain-text 429) and confirmed when the socket opens; a reservation that
// is never confirmed (the upgrade failed after the answer left the handler)
// lapses after Grace instead of holding the slot for good. Safe for
// concurrent use.
type Conns struct {
	Grace time.Duration
	now   func() time.Time

	mu     sync.Mutex
	owners map[string]*ownerConns
	seq    uint64
}

type ownerConns struct {
	open    map[uint64]struct{}
	pending map[uint64]time.Time // reserved at
}

// Slot is one reservation.
type Slot struct {
	owner string
	id    uint64
}

// NewConns returns an empty counter; reservations lapse after grace.
func NewConns(grace time.Duration, now func() time.Time) *Conns {
	if now == nil {
		now = time.Now
	}
	return &Conns{Grace: grace, now: now, owners: map[string]*ownerConns{}}
}

// Reserve takes a slot of owner if fewer than max are open or reserved.
func (c *Conns) Reserve(owner string, max int) (Slot, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	o := c.owners[owner]
	if o == nil {
		o = &ownerConns{open: map[uint64]struct{}{}, pending: map[uint64]time.Time{}}
		c.owners[owner] = o
	}
	now := c.now()
	for id, at := range o.pending {
		if now.Sub(at) > c.Grace {
			delete(o.pending, id)
		}
	}
	if len(o.open)+len(o.pending) >= max {
		c.dropIfEmptyLocked(owner, o)
		return Slot{}, false
	}
	c.seq++
	o.pending[c.seq] = now
	return Slot{owner: owner, id: c.seq}, true
}

// Confirm turns a reservation into an open connection.
func (c *Conns) Confirm(s Slot) {
	c.mu.Lock()
	defer c.mu.Unlock()
	o := c.owners[s.owner]
	if o == nil {
		o = &ownerConns{open: map[uint64]struct{}{}, pending: map[uint64]time.Time{}}
		c.owners[s.owner] = o
	}
	delete(o.pending, s.id)
	o.open[s.id] = struct{}{}
}

// Release frees a slot, reserved or open.
func (c *Conns) Release(s Slot) {
	c.mu.Lock()
	defer c.mu.Unlock()
	o := c.owners[s.owner]
	if o == nil {
		return
	}
	delete(o.pending, s.id)
	delete(o.open, s.id)
	c.dropIfEmptyLocked(s.owner, o)
}

func (c *Conns) dropIfEmptyLocked(owner string, o *ownerConns) {
	if len(o.open) == 0 && len(o.pending) == 0 {
		delete(c.owners, owner)
	}
}

// Open is the number of open and reserved slots of owner.
func (c *Conns) Open(owner string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if o := c.owners[owner]; o != nil {
		return len(o.open) + len(o.pending)
	}
	return 0
}
