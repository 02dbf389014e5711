package session

import (
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/alertd/alertd/actors/delivery"
	"github.com/alertd/alertd/actors/state/account"
	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
)

// Targets tells which handles an account monitors.
type Targets interface {
	ActiveHandles(account string) []string
}

// Deps are what realtime sessions share.
type Deps struct {
	Registry *account.Registry
	Hub      *delivery.Hub
	Recent   *delivery.Recent
	Targets  Targets
	Blocker  *Blocker
	Limits   *ConnLimit
	Live     *Live
	Timings  protocol.Timings
	Now      func() time.Time
	Log      *slog.Logger

	nextID atomic.Int64
}

// Replay bounds (spec 2 delivery rules 2 and 3).
const (
	maxPostReplay   = 500
	maxFollowReplay = 2000
)

const (
	stateAwaiting int32 = iota
	stateReady
	stateClosing // DISCONNECT sent: later frames are ignored
	stateClosed
)

// Realtime is one session of /v1/dt/realtime/ws. Its callbacks (Open,
// Message, Close, timers) run one at a time; Deliver runs on publishing
// actors, concurrently, and reads only what was fixed before subscription.
type Realtime struct {
	d     *Deps
	conn  Conn
	ip    string
	state atomic.Int32

	// Fixed at login, before the session subscribes.
	accountID  string
	key        string // to check the key again on heartbeats
	kinds      protocol.EventKindSet
	late       bool
	enterprise bool
	holdsSlot  bool
	subscribed bool // in Live and the hub (callbacks only)
	expiresAt  *time.Time

	filterMu sync.Mutex
	filter   protocol.Filter

	handlesMu sync.Mutex
	handles   handleSet

	loginTimer, beatTimer, expiryTimer Timer
}

// NewRealtime makes the session of a freshly upgraded socket.
func NewRealtime(d *Deps, c Conn) *Realtime {
	return &Realtime{d: d, conn: c, ip: c.RemoteIP().String()}
}

// Open greets the client with HELLO and starts the login window.
func (s *Realtime) Open() {
	t := s.d.Timings
	s.conn.Send(protocol.AppendHello(nil, t.HeartbeatInterval.Milliseconds()))
	s.loginTimer = s.conn.AfterFunc(t.LoginWindow, func() {
		if s.state.Load() == stateAwaiting {
			s.disconnect(protocol.CodeLoginTimeout, "no LOGIN within the login window", 0)
		}
	})
}

// OpenBlocked is the once-a-minute accept of a blocked IP: it only delivers
// the DISCONNECT.
func (s *Realtime) OpenBlocked(until time.Time) {
	s.disconnect(protocol.CodeIPBlocked, "too many failed logins from this address; blocked until "+until.UTC().Format(time.RFC3339), retryIn(until, s.d.Now()))
}

// Message handles one inbound message; text says whether it was a text frame.
func (s *Realtime) Message(text bool, payload []byte) {
	switch s.state.Load() {
	case stateAwaiting:
		if !text {
			s.disconnect(protocol.CodeLoginTimeout, "LOGIN must be a text frame", 0)
			return
		}
		s.login(payload)
	case stateReady:
		if text && isHeartbeat(payload) {
			s.conn.Send(protocol.AppendHeartbeatAck(nil))
			if s.beatTimer != nil {
				s.beatTimer.Reset(s.d.Timings.HeartbeatTimeout)
			}
			s.recheck()
		}
	}
}

// Close releases what the session holds; the socket is already gone.
func (s *Realtime) Close() {
	if s.state.Swap(stateClosed) == stateClosed {
		return
	}
	for _, t := range []Timer{s.loginTimer, s.beatTimer, s.expiryTimer} {
		if t != nil {
			t.Stop()
		}
	}
	if s.subscribed {
		s.d.Live.remove(s.accountID, s)
		s.handlesMu.Lock()
		s.handles.unsubscribeAll(s.d.Hub, s)
		s.handlesMu.Unlock()
	}
	if s.holdsSlot {
		s.holdsSlot = false
		s.d.Limits.Release(s.accountID)
	}
}

func (s *Realtime) login(payload []byte) {
	now := s.d.Now()
	// A socket opened before its address was blocked must not go on trying.
	if until, blocked := s.d.Blocker.IPBlocked(s.ip, now); blocked {
		s.disconnect(protocol.CodeIPBlocked, "too many failed logins from this address; blocked until "+until.UTC().Format(time.RFC3339), retryIn(until, now))
		return
	}
	login, err := protocol.DecodeLogin(payload, nil)
	if err != nil {
		var le *protocol.LoginError
		if errors.As(err, &le) && le.Code == protocol.CodeKeyMissing {
			s.failedLogin(protocol.CodeKeyMissing, "", "no API key in LOGIN")
			return
		}
		s.disconnect(protocol.CodeLoginInvalid, "LOGIN must be op 2 with a key string or an api_key object", 0)
		return
	}
	if until, blocked := s.d.Blocker.KeyBlocked(login.Key, now); blocked {
		s.disconnect(protocol.CodeKeyBlocked, "this key failed too many logins; blocked until "+until.UTC().Format(time.RFC3339), retryIn(until, now))
		return
	}
	p, reason := s.d.Registry.Authenticate(login.Key, protocol.ProductB2B)
	if reason != account.OK {
		s.failedLogin(reason.B2BCode(), login.Key, loginRefusal(reason, &p))
		return
	}
	if !s.d.Limits.Acquire(p.AccountID, protocol.DTWSConns) {
		s.disconnect(protocol.CodeTooManyConnections, fmt.Sprintf("this account already has %d open B2B sockets", protocol.DTWSConns), 60)
		return
	}
	s.holdsSlot = true
	s.accountID = p.AccountID
	s.key = login.Key
	s.kinds = protocol.KindsForModules(p.Sub.Modules)
	s.late = p.Sub.LateDelivery
	s.enterprise = p.Sub.Plan == "enterprise"
	s.filter = login.Filter
	s.loginTimer.Stop()
	s.ready(p.Sub, now)
}

// ready subscribes to the account's handles, sends READY and replays. The
// session joins Live before it reads the target list, and subscribes under
// handlesMu, so a target added or removed meanwhile is neither missed nor
// left subscribed. It subscribes before READY goes out, so every event
// published after the client saw READY reaches it; it turns ready and sends
// READY under filterMu, which deliver takes before sending, so no event
// overtakes READY.
func (s *Realtime) ready(sub *persistence.Subscription, now time.Time) {
	s.handlesMu.Lock()
	s.subscribed = true
	s.d.Live.add(s.accountID, s)
	handles := s.d.Targets.ActiveHandles(s.accountID)
	s.handles.subscribeAll(s.d.Hub, s, handles)
	s.handlesMu.Unlock()
	s.filterMu.Lock()
	s.state.Store(stateReady)
	s.conn.Send(protocol.AppendReady(nil, s.d.nextID.Add(1), modules(sub), len(handles), sub.MaxHandles))
	s.filterMu.Unlock()
	// No DISCONNECT on a missed heartbeat (spec 2 state table); the close
	// frame says why.
	s.beatTimer = s.conn.AfterFunc(s.d.Timings.HeartbeatTimeout, func() { s.conn.Close(CloseGoingAway, "heartbeat timeout") })
	s.armExpiry(sub.ExpiresAt, now)
	s.replay(handles, now)
}

// armExpiry (re)arms the subscription_expired timer for the subscription's
// end (none when it has no end date).
func (s *Realtime) armExpiry(at *time.Time, now time.Time) {
	s.expiresAt = at
	if s.expiryTimer != nil {
		s.expiryTimer.Stop()
		s.expiryTimer = nil
	}
	if at == nil {
		return
	}
	// At least a few ms, so a timer that fires a hair early re-arms instead
	// of spinning.
	s.expiryTimer = s.conn.AfterFunc(max(at.Sub(now), minExpiryWait), func() {
		s.expiryTimer = nil
		if s.state.Load() == stateReady {
			s.recheck()
		}
	})
}

const minExpiryWait = 5 * time.Millisecond

// recheck looks at the key and subscription again (on each heartbeat and
// when the known end date passes): a subscription changed by the operator
// while the socket is open moves or cancels the expiry, an expired one ends
// the session with subscription_expired, and a key that was revoked,
// regenerated or deactivated stops at once with its key_* code.
func (s *Realtime) recheck() {
	now := s.d.Now()
	p, reason := s.d.Registry.Authenticate(s.key, protocol.ProductB2B)
	switch reason {
	case account.OK:
		if s.expiryTimer == nil || !sameTime(p.Sub.ExpiresAt, s.expiresAt) {
			s.armExpiry(p.Sub.ExpiresAt, now)
		}
	case account.Expired:
		msg := "subscription expired"
		if p.Sub != nil && p.Sub.ExpiresAt != nil {
			msg += " on " + p.Sub.ExpiresAt.UTC().Format(time.RFC3339)
		}
		s.disconnect(protocol.CodeSubscriptionExpired, msg, 0)
	default:
		s.disconnect(reason.B2BCode(), loginRefusal(reason, &p), 0)
	}
}

func sameTime(a, b *time.Time) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Equal(*b)
}

// replay sends the follow and unfollow events of the replay window (needs
// follows), then, with late delivery, the newest posts of the window.
func (s *Realtime) replay(handles []string, now time.Time) {
	since := now.Add(-s.d.Timings.ReplayWindow).UnixMilli()
	if s.kinds.Has(protocol.EventKindFollowingNew) {
		evs := s.d.Recent.Follows(handles, since)
		sortByDetection(evs)
		if len(evs) > maxFollowReplay {
			evs = evs[len(evs)-maxFollowReplay:]
		}
		for _, e := range evs {
			s.deliver(e, e.FrameFor(false))
		}
	}
	if s.late {
		evs := s.d.Recent.Posts(handles, since)
		sortByDetection(evs)
		if len(evs) > maxPostReplay {
			evs = evs[len(evs)-maxPostReplay:]
		}
		for _, e := range evs {
			s.deliver(e, e.ReplayFrame(s.enterprise))
		}
	}
}

// Deliver implements delivery.Subscriber.
func (s *Realtime) Deliver(e *delivery.Event) {
	if s.state.Load() != stateReady {
		return
	}
	if e.Late && !s.late || e.UpdateForOCROnly && !s.enterprise {
		return
	}
	s.deliver(e, e.FrameFor(s.enterprise))
}

func (s *Realtime) deliver(e *delivery.Event, frame []byte) {
	if !s.kinds.Has(e.Meta.Kind) {
		return
	}
	s.filterMu.Lock()
	ok := s.filter.Allows(e.Meta)
	s.filterMu.Unlock()
	if ok {
		s.conn.Send(frame)
	}
}

// Renamed implements delivery.Renamer: the hub already subscribed the session
// to the new handle; remember it so Close unsubscribes it (or undo it when
// the session closed meanwhile).
func (s *Realtime) Renamed(_, to string) {
	s.handlesMu.Lock()
	defer s.handlesMu.Unlock()
	s.handles.renamed(s.d.Hub, s, to)
}

// watch subscribes the session to a handle added to the account's targets.
func (s *Realtime) watch(h string) {
	s.handlesMu.Lock()
	defer s.handlesMu.Unlock()
	s.handles.watch(s.d.Hub, s, h)
}

// unwatch unsubscribes the session from a removed target.
func (s *Realtime) unwatch(h string) {
	s.handlesMu.Lock()
	defer s.handlesMu.Unlock()
	s.handles.unwatch(s.d.Hub, s, h)
}

// failedLogin refuses a login that counts toward the IP block.
func (s *Realtime) failedLogin(code, key, msg string) {
	left := s.d.Blocker.Fail(s.ip, key, s.d.Now())
	if left > 0 {
		msg = fmt.Sprintf("%s; %d attempts left before this address is blocked", msg, left)
	} else {
		msg += "; this address is now blocked for " + s.d.Timings.IPBlock.String()
	}
	s.disconnect(code, msg, 0)
}

// disconnect sends DISCONNECT and closes the socket; frames that still
// arrive are ignored.
func (s *Realtime) disconnect(code, msg string, retryAfter int) {
	if st := s.state.Load(); st == stateClosing || st == stateClosed || !s.state.CompareAndSwap(st, stateClosing) {
		return
	}
	s.conn.Send(protocol.AppendDisconnectCode(nil, code, msg, retryAfter))
	s.conn.Close(ClosePolicy, code)
}

func loginRefusal(r account.Reason, p *account.Principal) string {
	switch r {
	case account.Expired:
		if p.Sub != nil && p.Sub.ExpiresAt != nil {
			return "subscription expired on " + p.Sub.ExpiresAt.UTC().Format(time.RFC3339)
		}
		return "subscription expired"
	case account.Deactivated:
		return "API key deactivated"
	case account.Malformed:
		return "API key malformed or not a dt_ key"
	}
	return "API key unknown, revoked or regenerated"
}

func retryIn(until, now time.Time) int {
	d := until.Sub(now)
	if d <= 0 {
		return 1
	}
	return int((d + time.Second - 1) / time.Second)
}

// modules lists a subscription's modules as READY shows them.
func modules(s *persistence.Subscription) []string {
	out := slices.Clone(s.Modules)
	if s.LateDelivery {
		out = append(out, protocol.ModuleLateDelivery)
	}
	if s.CASearchDailyLimit != nil {
		out = append(out, protocol.ModuleCASearch)
	}
	return out
}

func sortByDetection(evs []*delivery.Event) {
	slices.SortStableFunc(evs, func(a, b *delivery.Event) int {
		switch {
		case a.DetectedAt < b.DetectedAt:
			return -1
		case a.DetectedAt > b.DetectedAt:
			return 1
		}
		return 0
	})
}

// isHeartbeat reports whether a text message is {"op":1,...}.
func isHeartbeat(b []byte) bool {
	op, ok := protocol.PeekOp(b)
	return ok && op == protocol.OpHeartbeat
}
