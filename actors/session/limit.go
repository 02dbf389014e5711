package session

import "sync"

// ConnLimit counts open sockets per account across every B2B WebSocket URL
// (spec 2: 5 per account). Safe for concurrent use.
type ConnLimit struct {
	mu   sync.Mutex
	open map[string]int
}

// NewConnLimit returns an empty counter.
func NewConnLimit() *ConnLimit { return &ConnLimit{open: map[string]int{}} }

// Acquire takes a slot of account if fewer than max are open.
func (l *ConnLimit) Acquire(account string, max int) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.open[account] >= max {
		return false
	}
	l.open[account]++
	return true
}

// Release frees a slot taken by Acquire.
func (l *ConnLimit) Release(account string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if n := l.open[account]; n <= 1 {
		delete(l.open, account)
	} else {
		l.open[account] = n - 1
	}
}

// Open is the number of slots account holds.
func (l *ConnLimit) Open(account string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.open[account]
}
