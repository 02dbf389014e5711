package session

import "sync"

// watcher is a session that follows its account's target list.
type watcher interface {
	watch(handle string)
	unwatch(handle string)
}

// Live tracks the open sessions of each account (realtime and tweet-only),
// so that a change of the account's targets reaches its open sockets.
type Live struct {
	mu   sync.RWMutex
	byAc map[string]map[watcher]struct{}
}

// NewLive returns an empty registry.
func NewLive() *Live { return &Live{byAc: map[string]map[watcher]struct{}{}} }

func (l *Live) add(account string, s watcher) {
	l.mu.Lock()
	defer l.mu.Unlock()
	m := l.byAc[account]
	if m == nil {
		m = map[watcher]struct{}{}
		l.byAc[account] = m
	}
	m[s] = struct{}{}
}

func (l *Live) remove(account string, s watcher) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if m := l.byAc[account]; m != nil {
		delete(m, s)
		if len(m) == 0 {
			delete(l.byAc, account)
		}
	}
}

// Len is the number of accounts with open sessions (tests, metrics).
func (l *Live) Len() int {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return len(l.byAc)
}

func (l *Live) sessions(account string) []watcher {
	l.mu.RLock()
	defer l.mu.RUnlock()
	out := make([]watcher, 0, len(l.byAc[account]))
	for s := range l.byAc[account] {
		out = append(out, s)
	}
	return out
}

// TargetAdded subscribes the account's open sessions to handle.
func (l *Live) TargetAdded(account, handle string) {
	for _, s := range l.sessions(account) {
		s.watch(handle)
	}
}

// TargetRemoved unsubscribes the account's open sessions from handle.
func (l *Live) TargetRemoved(account, handle string) {
	for _, s := range l.sessions(account) {
		s.unwatch(handle)
	}
}
