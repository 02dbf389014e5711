package session

import "sync"

// Live tracks the logged-in realtime sessions of each account, so that a
// change of the account's targets reaches its open sockets.
type Live struct {
	mu   sync.RWMutex
	byAc map[string]map[*Realtime]struct{}
}

// NewLive returns an empty registry.
func NewLive() *Live { return &Live{byAc: map[string]map[*Realtime]struct{}{}} }

func (l *Live) add(account string, s *Realtime) {
	l.mu.Lock()
	defer l.mu.Unlock()
	m := l.byAc[account]
	if m == nil {
		m = map[*Realtime]struct{}{}
		l.byAc[account] = m
	}
	m[s] = struct{}{}
}

func (l *Live) remove(account string, s *Realtime) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if m := l.byAc[account]; m != nil {
		delete(m, s)
		if len(m) == 0 {
			delete(l.byAc, account)
		}
	}
}

// Sessions returns the live sessions of account.
func (l *Live) Sessions(account string) []*Realtime {
	l.mu.RLock()
	defer l.mu.RUnlock()
	out := make([]*Realtime, 0, len(l.byAc[account]))
	for s := range l.byAc[account] {
		out = append(out, s)
	}
	return out
}

// TargetAdded subscribes the account's live sessions to handle.
func (l *Live) TargetAdded(account, handle string) {
	for _, s := range l.Sessions(account) {
		s.watch(handle)
	}
}

// TargetRemoved unsubscribes the account's live sessions from handle.
func (l *Live) TargetRemoved(account, handle string) {
	for _, s := range l.Sessions(account) {
		s.unwatch(handle)
	}
}
