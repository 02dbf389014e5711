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
// by a timer. Safe for concurrent use.
type ConnLimit struct {
	mu   sync.Mutex
	held map[Quota]int // reserved and open slots
}

// NewConnLimit returns an empty limit.
func NewConnLimit() *ConnLimit { return &ConnLimit{held: map[Quota]int{}} }

// Slot is one reservation. Its methods are safe for concurrent use; Release
// frees it once however often it is called.
type Slot struct {
	l     *ConnLimit
	q     Quota
	state slotState // under l.mu
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
	defer l.mu.Unlock()
	if l.held[q] >= max {
		return nil, false
	}
	l.held[q]++
	return &Slot{l: l, q: q}, true
}

// Confirm marks the slot's socket open.
func (s *Slot) Confirm() {
	s.l.mu.Lock()
	if s.state == slotReserved {
		s.state = slotOpen
	}
	s.l.mu.Unlock()
}

// Release frees the slot (reserved or open).
func (s *Slot) Release() {
	if s == nil {
		return
	}
	l := s.l
	l.mu.Lock()
	defer l.mu.Unlock()
	if s.state == slotReleased {
		return
	}
	s.state = slotReleased
	if n := l.held[s.q]; n <= 1 {
		delete(l.held, s.q)
	} else {
		l.held[s.q] = n - 1
	}
}

// Held is the number of slots of q reserved or open.
func (l *ConnLimit) Held(q Quota) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.held[q]
}
