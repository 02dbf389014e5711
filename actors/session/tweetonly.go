package session

import (
	"sync"
	"sync/atomic"

	"github.com/alertd/alertd/actors/delivery"
)

// TweetGreeting is the first frame of a tweet-only socket.
var TweetGreeting = []byte(`{"event_type":"connected"}`)

// TweetOnly is a session of /v1/dt/ws or /social/tweet/websocket: the key
// was checked before the upgrade; it streams live posts of the account's
// handles, with no handshake and no heartbeat, and follows changes of the
// account's targets like a realtime session.
type TweetOnly struct {
	d       *Deps
	conn    Conn
	account string
	closed  atomic.Bool

	mu      sync.Mutex
	handles handleSet // closed until Open and after Close
	greeted bool
}

// NewTweetOnly makes the session of an upgraded socket whose account already
// holds a connection slot (see ConnLimit).
func NewTweetOnly(d *Deps, c Conn, account string) *TweetOnly {
	return &TweetOnly{d: d, conn: c, account: account}
}

// Open subscribes to the account's handles and greets the client. The
// greeting goes out under mu after the subscriptions, and Deliver sends
// under mu: every post published after the client saw the greeting reaches
// it, and none overtakes the greeting.
func (s *TweetOnly) Open() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.d.Live != nil {
		s.d.Live.add(s.account, s)
	}
	s.handles.subscribeAll(s.d.Hub, s, s.d.Targets.ActiveHandles(s.account))
	s.conn.Send(TweetGreeting)
	s.greeted = true
}

// Close unsubscribes and frees the account's slot.
func (s *TweetOnly) Close() {
	if s.closed.Swap(true) {
		return
	}
	if s.d.Live != nil {
		s.d.Live.remove(s.account, s)
	}
	s.mu.Lock()
	s.handles.unsubscribeAll(s.d.Hub, s)
	s.mu.Unlock()
	s.d.Limits.Release(s.account)
}

// Deliver implements delivery.Subscriber: live new posts only.
func (s *TweetOnly) Deliver(e *delivery.Event) {
	f := e.TweetOnlyFrame()
	if f == nil || s.closed.Load() {
		return
	}
	s.mu.Lock()
	if s.greeted {
		s.conn.Send(f)
	}
	s.mu.Unlock()
}

// Renamed implements delivery.Renamer.
func (s *TweetOnly) Renamed(_, to string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.handles.renamed(s.d.Hub, s, to)
}

func (s *TweetOnly) watch(h string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.handles.watch(s.d.Hub, s, h)
}

func (s *TweetOnly) unwatch(h string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.handles.unwatch(s.d.Hub, s, h)
}
