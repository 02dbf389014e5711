package session

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/alertd/alertd/actors/delivery"
	"github.com/alertd/alertd/actors/state/account"
	"github.com/alertd/alertd/protocol"
)

// TweetAlertsLimits are what principal p may hold on /v1/ws: handles per
// socket and sockets per account (a dt_ key: its plan's handles and the B2B
// socket count; a Tweet Alerts key: its plan's). ok is false when the plan
// has no WebSocket (free).
func TweetAlertsLimits(p *account.Principal) (handles, conns int, ok bool) {
	if p.Product == protocol.ProductB2B {
		return p.Sub.MaxHandles, protocol.DTWSConns, true
	}
	plan, found := protocol.FindTweetAlertsPlan(p.Sub.Plan)
	if !found || plan.WSConns == 0 {
		return 0, 0, false
	}
	return plan.Accounts, plan.WSConns, true
}

// TweetAlerts is one session of /v1/ws (spec 1): the client subscribes to
// handles of its tracked list (a dt_ key: its B2B targets) and gets an
// `alert` for each post made less than XGMaxPostAge earlier and detected
// after it subscribed. No replay. A handle that leaves the list is
// unsubscribed.
type TweetAlerts struct {
	d    *Deps
	conn Conn
	// owner is the topic of the list the socket follows: the account and
	// the product of its key (or of its dashboard session).
	owner delivery.Topic
	key   string // "" for a dashboard session
	// keyHash is the key a dashboard session was opened with (nil: a key
	// socket, or a Telegram session, which follows the subscription).
	keyHash *account.KeyHash
	// linked tells whether the Telegram link a dashboard session was opened
	// through still stands (nil: not such a session); it must not block.
	linked  func() bool
	tracked func(handle string) bool
	slot    *Slot
	end     ending   // callbacks only
	watch   keyWatch // callbacks only

	mu     sync.Mutex
	max    int
	subs   []alertSub // sorted by handle
	closed bool
}

// alertSub is one subscribed handle and since when (epoch ms).
type alertSub struct {
	handle string
	since  int64
}

// NewTweetAlerts makes the session of a socket about to be upgraded:
// authenticated as p with key ("" for a dashboard session), allowed
// maxHandles, tracked telling which handles are on its list, holding a
// reserved slot of its TweetAlertsQuota.
func NewTweetAlerts(d *Deps, p *account.Principal, key string, maxHandles int, tracked func(string) bool, slot *Slot) *TweetAlerts {
	return &TweetAlerts{d: d, owner: delivery.AccountTopic(p.Product, p.AccountID), key: key, max: maxHandles,
		tracked: tracked, slot: slot}
}

// BoundToKey makes a dashboard session's socket end with the key it was
// opened with (revoked, regenerated or deactivated), like the cookie's REST
// calls do. Call before the upgrade.
func (s *TweetAlerts) BoundToKey(h account.KeyHash) *TweetAlerts {
	s.keyHash = &h
	return s
}

// BoundToLink makes a Telegram dashboard session's socket end, at its next
// re-check, once linked says the link it was opened through was removed.
// linked runs on the transport's loop: it must answer from memory. Call
// before the upgrade.
func (s *TweetAlerts) BoundToLink(linked func() bool) *TweetAlerts {
	s.linked = linked
	return s
}

// Prepare implements Socket.
func (s *TweetAlerts) Prepare(c Conn) { s.conn = c }

// Kind implements Socket.
func (s *TweetAlerts) Kind() SocketKind { return KindTweetAlerts }

// Open subscribes to the changes of the socket's list and starts the
// re-checks.
func (s *TweetAlerts) Open() {
	s.slot.Confirm()
	s.end.opening(s.d, KindTweetAlerts)
	s.d.Hub.Subscribe(s.owner, s)
	s.watch.every(s.conn, s.d.Timings.HeartbeatInterval, s.recheck)
	s.recheck()
}

// Message answers one client frame.
func (s *TweetAlerts) Message(_ bool, payload []byte) {
	req, err := protocol.DecodeTweetAlertsRequest(payload)
	if err != nil {
		s.conn.Send(protocol.TweetAlertsErrorFrame(err.Error()))
		return
	}
	for _, bad := range req.Invalid {
		s.conn.Send(protocol.TweetAlertsErrorFrame(fmt.Sprintf("%q is not a handle; skipped", bad)))
	}
	switch req.Type {
	case protocol.TweetAlertsPing:
		s.conn.Send(protocol.TweetAlertsPong)
	case protocol.TweetAlertsSubscribe:
		s.subscribe(req.Handles)
	case protocol.TweetAlertsUnsubscribe:
		s.unsubscribe(req.Handles)
	}
}

func (s *TweetAlerts) find(h string) (int, bool) {
	return slices.BinarySearchFunc(s.subs, h, func(x alertSub, h string) int { return strings.Compare(x.handle, h) })
}

func (s *TweetAlerts) subscribe(handles []string) {
	var errs [][]byte
	var ok []string
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	since := s.d.Now().UnixMilli()
	full := false
	for _, h := range handles {
		i, on := s.find(h)
		if on {
			ok = append(ok, h)
			continue
		}
		if !s.tracked(h) {
			errs = append(errs, protocol.TweetAlertsErrorFrame(fmt.Sprintf("%s is not an active handle of your tracked list (not on it, or past your plan after a downgrade); skipped", h)))
			continue
		}
		if len(s.subs) >= s.max {
			if !full {
				errs = append(errs, protocol.TweetAlertsErrorFrame(fmt.Sprintf("subscription would exceed the handle limit of %d; the rest is skipped", s.max)))
				full = true
			}
			continue
		}
		s.subs = slices.Insert(s.subs, i, alertSub{handle: h, since: since})
		s.d.Hub.Subscribe(delivery.HandleTopic(h), s)
		ok = append(ok, h)
	}
	active, max := len(s.subs), s.max
	s.mu.Unlock()
	for _, f := range errs {
		s.conn.Send(f)
	}
	if len(ok) > 0 {
		s.conn.Send(protocol.TweetAlertsAckFrame(protocol.TweetAlertsSubscribe, ok, active, max))
	}
}

func (s *TweetAlerts) unsubscribe(handles []string) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	for _, h := range handles {
		s.dropLocked(h)
	}
	active, max := len(s.subs), s.max
	s.mu.Unlock()
	s.conn.Send(protocol.TweetAlertsAckFrame(protocol.TweetAlertsUnsubscribe, handles, active, max))
}

// dropLocked unsubscribes h if it is subscribed.
func (s *TweetAlerts) dropLocked(h string) {
	if i, on := s.find(h); on {
		s.subs = slices.Delete(s.subs, i, i+1)
		s.d.Hub.Unsubscribe(delivery.HandleTopic(h), s)
	}
}

// recheck closes the socket once its key or subscription no longer stands
// or its plan has no WebSocket any more, and narrows it to a lower handle
// limit (the handles subscribed last go first).
func (s *TweetAlerts) recheck() bool {
	p, ok := s.watch.check(s.d, s.conn, &s.end, s.key, s.keyHash, s.owner.Key, s.owner.Product, func() { s.recheck() })
	if !ok {
		return false
	}
	if s.linked != nil && !s.linked() {
		s.end.because(ReasonKeyUnknown)
		s.conn.Close(ClosePolicy, protocol.CodeUnauthorized)
		return false
	}
	handles, _, ok := TweetAlertsLimits(&p)
	if !ok {
		s.end.because(ReasonPlanChanged)
		s.conn.Close(ClosePolicy, "the plan has no WebSocket")
		return false
	}
	// Handles no longer active (past the plan after a downgrade, suspended)
	// stop too: looked up before taking the session's lock, which is never
	// held while another registry's is taken.
	s.mu.Lock()
	subs := make([]string, len(s.subs))
	for i, x := range s.subs {
		subs[i] = x.handle
	}
	s.mu.Unlock()
	var inactive []string
	for _, h := range subs {
		if !s.tracked(h) {
			inactive = append(inactive, h)
		}
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return false
	}
	s.max = handles
	var dropped []string
	for _, h := range inactive {
		if slices.ContainsFunc(s.subs, func(x alertSub) bool { return x.handle == h }) {
			dropped = append(dropped, h)
			s.dropLocked(h)
		}
	}
	if over := len(s.subs) - handles; over > 0 {
		newest := slices.Clone(s.subs)
		slices.SortStableFunc(newest, func(a, b alertSub) int { return cmp.Compare(b.since, a.since) })
		for _, x := range newest[:over] {
			dropped = append(dropped, x.handle)
			s.dropLocked(x.handle)
		}
	}
	s.mu.Unlock()
	if len(dropped) > 0 {
		s.conn.Send(protocol.TweetAlertsErrorFrame(fmt.Sprintf("your plan allows %d handles now, and only active handles of your tracked list; unsubscribed %s", handles, strings.Join(dropped, ", "))))
	}
	return true
}

// Deliver implements delivery.Subscriber: posts of subscribed handles, and
// handles leaving the list.
func (s *TweetAlerts) Deliver(e *delivery.Event) {
	switch e.Kind {
	case delivery.KindHandle:
	case delivery.KindTargetRemoved:
		s.mu.Lock()
		s.dropLocked(e.Item)
		s.mu.Unlock()
		return
	default:
		return
	}
	f := e.AlertFrame(s.d.Now, s.d.Timings.XGMaxPostAge)
	if f == nil {
		return
	}
	s.mu.Lock()
	i, on := s.find(e.Header.Handle)
	send := on && !s.closed && e.DetectedAt >= s.subs[i].since
	s.mu.Unlock()
	if send {
		s.conn.SendEvent(f, e.IngestedAt)
	}
}

// Active is the number of subscribed handles.
func (s *TweetAlerts) Active() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.subs)
}

// Closed implements Socket.
func (s *TweetAlerts) Closed(transport CloseReason) {
	if s.release() {
		s.end.record(s.d, KindTweetAlerts, transport, s.owner.Key)
	}
}

// Aborted implements Socket.
func (s *TweetAlerts) Aborted() { s.release() }

// release unsubscribes from everything and frees the slot, once.
func (s *TweetAlerts) release() bool {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return false
	}
	s.closed = true
	for _, x := range s.subs {
		s.d.Hub.Unsubscribe(delivery.HandleTopic(x.handle), s)
	}
	s.subs = nil
	s.mu.Unlock()
	s.watch.stop()
	s.d.Hub.Unsubscribe(s.owner, s)
	s.slot.Release()
	return true
}
