package session

import (
	"sync"
	"sync/atomic"

	"github.com/alertd/alertd/actors/delivery"
	"github.com/alertd/alertd/protocol"
)

// TweetOnly is a session of /v1/dt/ws or /social/tweet/websocket: the key
// was checked before the upgrade; it streams live posts of the account's
// handles, with no handshake and no heartbeat, and follows changes of the
// account's targets like a realtime session.
type TweetOnly struct {
	d       *Deps
	conn    Conn
	account string
	key     string
	slot    *Slot
	closed  atomic.Bool
	end     ending   // callbacks only
	watch   keyWatch // callbacks only

	// group is the account's shared subscription, joined at Open (nil
	// before; callbacks only).
	group *b2bGroup

	mu      sync.Mutex
	greeted bool
}

// NewTweetOnly makes the session of a socket about to be upgraded, opened
// with key by account, holding a reserved slot of the account's B2B quota.
func NewTweetOnly(d *Deps, key, account string, slot *Slot) *TweetOnly {
	return &TweetOnly{d: d, key: key, account: account, slot: slot}
}

// Prepare implements Socket.
func (s *TweetOnly) Prepare(c Conn) { s.conn = c }

// Kind implements Socket.
func (s *TweetOnly) Kind() SocketKind { return KindTweetOnly }

// Open joins the account's group (its shared subscription to the account's
// handles, which follows target changes: joinB2B) and greets the client.
// The greeting goes out under mu after the join, and Deliver sends under
// mu: every post published after the client saw the greeting reaches it,
// and none overtakes the greeting.
func (s *TweetOnly) Open() {
	s.slot.Confirm()
	s.end.opening(s.d, KindTweetOnly)
	s.mu.Lock()
	s.group, _ = s.d.joinB2B(s.account, s)
	s.conn.Send(protocol.TweetOnlyGreeting)
	s.greeted = true
	s.mu.Unlock()
	s.watch.every(s.conn, s.d.Timings.HeartbeatInterval, s.recheck)
	s.recheck() // arms the timer at the subscription's end
}

// recheck closes the socket once its key or subscription no longer stands.
func (s *TweetOnly) recheck() bool {
	if s.closed.Load() {
		return false
	}
	_, ok := s.watch.check(s.d, s.conn, &s.end, s.key, nil, "", protocol.ProductB2B, func() { s.recheck() })
	return ok
}

// Message implements Socket: the client has nothing to say.
func (s *TweetOnly) Message(bool, []byte) {}

// Closed implements Socket.
func (s *TweetOnly) Closed(transport CloseReason) {
	if s.release() {
		s.end.record(s.d, KindTweetOnly, transport, s.account)
	}
}

// Aborted implements Socket.
func (s *TweetOnly) Aborted() { s.release() }

// release unsubscribes and frees the account's slot, once.
func (s *TweetOnly) release() bool {
	if s.closed.Swap(true) {
		return false
	}
	s.watch.stop()
	if s.group != nil {
		s.d.leaveB2B(s.group, s)
	}
	s.slot.Release()
	return true
}

// Deliver implements delivery.Subscriber: live new posts of the account's
// handles, through its group.
func (s *TweetOnly) Deliver(e *delivery.Event) {
	if e.Kind != delivery.KindHandle {
		return
	}
	f := e.TweetOnlyFrame()
	if f == nil || s.closed.Load() {
		return
	}
	s.mu.Lock()
	if s.greeted {
		s.conn.SendEvent(f, e.IngestedAt)
	}
	s.mu.Unlock()
}
