package session

import (
	"sync"
	"sync/atomic"

	"github.com/alertd/alertd/actors/fanout"
)

// TweetGreeting is the first frame of a tweet-only socket.
var TweetGreeting = []byte(`{"event_type":"connected"}`)

// TweetOnly is a session of /v1/dt/ws or /social/tweet/websocket: the key
// was checked before the upgrade; it streams live posts of the account's
// handles, with no handshake and no heartbeat.
type TweetOnly struct {
	d       *Deps
	conn    Conn
	account string
	closed  atomic.Bool

	mu      sync.Mutex
	handles []string
}

// NewTweetOnly makes the session of an upgraded socket whose account already
// holds a connection slot (see ConnLimit).
func NewTweetOnly(d *Deps, c Conn, account string) *TweetOnly {
	return &TweetOnly{d: d, conn: c, account: account}
}

// Open greets the client and subscribes to the account's handles.
func (s *TweetOnly) Open() {
	s.conn.Send(TweetGreeting)
	s.mu.Lock()
	s.handles = s.d.Targets.ActiveHandles(s.account)
	for _, h := range s.handles {
		s.d.Hub.Subscribe(h, s)
	}
	s.mu.Unlock()
}

// Close unsubscribes and frees the account's slot.
func (s *TweetOnly) Close() {
	if s.closed.Swap(true) {
		return
	}
	s.mu.Lock()
	for _, h := range s.handles {
		s.d.Hub.Unsubscribe(h, s)
	}
	s.handles = nil
	s.mu.Unlock()
	s.d.Limits.Release(s.account)
}

// Deliver implements fanout.Subscriber: live new posts only.
func (s *TweetOnly) Deliver(e *fanout.Event) {
	if f := e.TweetOnlyFrame(); f != nil && !s.closed.Load() {
		s.conn.Send(f)
	}
}

// Renamed implements fanout.Renamer.
func (s *TweetOnly) Renamed(_, to string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.handles != nil {
		s.handles = append(s.handles, to)
	}
}
