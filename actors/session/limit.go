package session

import (
	"sync"

	"github.com/alertd/alertd/protocol"
)

// Quota names one count of sockets under one limit.
type Quota struct {
	Pool    SocketKind       // KindRealtime for both B2B URLs
	Product protocol.Product // the key's product (Tweet Alerts) or the product API
	Account string
}

// B2BQuota counts an account's B2B sockets: realtime and tweet-only
// together (spec 2: 5 per account across the B2B URLs).
func B2BQuota(account string) Quota {
	return Quota{Pool: KindRealtime, Product: protocol.ProductB2B, Account: account}
}

// TweetAlertsQuota counts an account's /v1/ws sockets opened with keys (or
// a dashboard session) of product p (the plan's ws_connections).
func TweetAlertsQuota(p protocol.Product, account string) Quota {
	return Quota{Pool: KindTweetAlerts, Product: p, Account: account}
}

// ProductQuota counts an account's sockets of one product API (CONTRACT
// section 2: 10 per account and product).
func ProductQuota(p protocol.Product, account string) Quota {
	return Quota{Pool: KindProduct, Product: p, Account: account}
}

// ConnLimit is the one per-account connection limit of every socket kind. A
// slot is reserved before the upgrade, so that a refusal can still be a
// plain-text 429; it is confirmed when the socket opens and released when it
// closes, or when the upgrade fails (the transport's abort callback): never
// by a timer. Safe for concurrent use; mu guards every count. In a
// cluster, Others and Shared make the limit count every node's sockets.
type ConnLimit struct {
	// Others, when set, is how many slots of q the other nodes of a
	// cluster hold; Reserve counts them. Called under mu: memory only.
	Others func(q Quota) int
	// Shared, when set, hears this node's count of q after each change,
	// under mu so that the counts go out in order (a cluster tells the
	// other nodes). It must not block.
	Shared func(q Quota, held int)

	mu     sync.Mutex
	quotas map[Quota]*quota // quotas holding a slot
}

// quota is the count of one Quota, shared by its slots.
type quota struct {
	l    *ConnLimit
	key  Quota
	held int // reserved and open slots
}

// NewConnLimit returns an empty limit.
func NewConnLimit() *ConnLimit { return &ConnLimit{quotas: map[Quota]*quota{}} }

// Slot is one reservation: 16 bytes per socket, the quota's key is shared.
// Its methods are safe for concurrent use; Release frees it once however
// often it is called.
type Slot struct {
	q     *quota
	state slotState // under q.l.mu
}

type slotState uint8

const (
	slotReserved slotState = iota
	slotOpen
	slotReleased
)

// Reserve takes a slot of q if fewer than max are held.
func (l *ConnLimit) Reserve(q Quota, max int) (*Slot, bool) {
	l.mu.Lock()
	c := l.quotas[q]
	if c == nil {
		if max <= 0 {
			l.mu.Unlock()
			return nil, false
		}
		c = &quota{l: l, key: q}
		l.quotas[q] = c
	}
	held := c.held
	if l.Others != nil {
		held += l.Others(q)
	}
	if held >= max {
		if c.held == 0 {
			delete(l.quotas, q)
		}
		l.mu.Unlock()
		return nil, false
	}
	c.held++
	if l.Shared != nil {
		l.Shared(q, c.held)
	}
	l.mu.Unlock()
	return &Slot{q: c}, true
}

// Each calls f with every quota this node holds slots of, under mu (f
// must not block): what a cluster tells a node that asks.
func (l *ConnLimit) Each(f func(q Quota, held int)) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for q, c := range l.quotas {
		f(q, c.held)
	}
}

// Confirm marks the slot's socket open.
func (s *Slot) Confirm() {
	l := s.q.l
	l.mu.Lock()
	if s.state == slotReserved {
		s.state = slotOpen
	}
	l.mu.Unlock()
}

// Release frees the slot (reserved or open).
func (s *Slot) Release() {
	if s == nil {
		return
	}
	l := s.q.l
	l.mu.Lock()
	if s.state == slotReleased {
		l.mu.Unlock()
		return
	}
	s.state = slotReleased
	if s.q.held--; s.q.held == 0 {
		delete(l.quotas, s.q.key)
	}
	if l.Shared != nil {
		l.Shared(s.q.key, s.q.held)
	}
	l.mu.Unlock()
}

// Held is the number of slots of q reserved or open.
func (l *ConnLimit) Held(q Quota) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	if c := l.quotas[q]; c != nil {
		return c.held
	}
	return 0
}
