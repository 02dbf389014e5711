package session

import (
	"errors"
	"fmt"
	"log/slog"
	"net/netip"
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

// Deps are what sessions share.
type Deps struct {
	Registry *account.Registry
	Hub      *delivery.Hub
	Recent   *delivery.Recent
	Targets  Targets
	Blocker  *Blocker
	Limits   *ConnLimit
	Stats    *Stats // nil: counted nowhere
	// Pending caps realtime sockets awaiting LOGIN (nil: no cap).
	Pending *Pending
	Timings protocol.Timings
	Now     func() time.Time
	Log     *slog.Logger

	nextID atomic.Int64
	groups b2bGroups
}

var discardStats Stats

func (d *Deps) stats() *Stats {
	if d.Stats == nil {
		return &discardStats
	}
	return d.Stats
}

// Replay bounds (spec 2 delivery rules 2 and 3).
const (
	maxPostReplay   = 500
	maxFollowReplay = 2000
)

const (
	stateAwaiting int32 = iota
	// stateReadying: ready is sending READY under filterMu (a publisher
	// that sees it waits for the lock, so no event overtakes READY).
	stateReadying
	stateReady
	stateClosing // DISCONNECT sent: later frames are ignored
	stateClosed
)

// Realtime is one session of /v1/dt/realtime/ws. Its callbacks (Open,
// Message, Closed, timers) run one at a time; Deliver runs on publishing
// actors, concurrently, and reads only what was fixed before subscription
// or is atomic.
type Realtime struct {
	d     *Deps
	conn  Conn
	state atomic.Int32

	// What the session delivers: the event kinds of its modules, late
	// delivery, the enterprise variant. Set at login; a plan change only
	// narrows them (atomics: publishers read them meanwhile; a load costs
	// what a plain read does).
	kinds      atomic.Uint32 // protocol.EventKindSet
	late       atomic.Bool
	enterprise atomic.Bool
	// filter is the LOGIN filter; nil when it removes nothing (most
	// sessions: a compiled filter is 88 bytes kept as long as the socket).
	// Set at login, before the session subscribes; never changed after;
	// filterMu guards its use. Here, beside what Deliver reads of every
	// session (a fan-out's sessions are cold memory: one line, not two).
	filter *protocol.Filter

	// group is the account's shared subscription the session joined at
	// login (nil before; callbacks only).
	group *b2bGroup
	end   ending // callbacks only

	// Fixed at login, before the session subscribes.
	accountID string
	key       string // to check the key again
	slot      *Slot
	// client is the BlockAddr of the client a trusted proxy named; "" when
	// the client is the TCP peer (the usual case: nothing kept).
	client string
	// pending: the session holds a place of Deps.Pending until READY or
	// its end, whichever comes first.
	pending atomic.Bool

	// filterMu guards filter (Allows resolves categories lazily) and
	// orders READY before events (ready).
	filterMu sync.Mutex

	watch     keyWatch // its tick is the login window until READY
	beatTimer Timer
}

// NewRealtime makes the session of a socket about to be upgraded; it
// authenticates with LOGIN and takes its connection slot then.
func NewRealtime(d *Deps) *Realtime { return &Realtime{d: d} }

// HoldsPending says the session holds a place of Deps.Pending (reserved by
// its caller before the upgrade); it gives it back at READY or its end.
func (s *Realtime) HoldsPending() *Realtime {
	s.pending.Store(true)
	return s
}

func (s *Realtime) donePending() {
	if s.pending.CompareAndSwap(true, false) {
		s.d.Pending.Done()
	}
}

// Behind sets the client's address when it is not the TCP peer (a trusted
// proxy named it): failed logins count against it. Call before the upgrade.
func (s *Realtime) Behind(client netip.Addr) *Realtime {
	s.client = BlockAddr(client)
	return s
}

// Prepare implements Socket.
func (s *Realtime) Prepare(c Conn) { s.conn = c }

// Kind implements Socket.
func (s *Realtime) Kind() SocketKind { return KindRealtime }

// ip is the client's address as the Blocker counts it (BlockAddr; the
// peer's is not kept: idle sessions are many, logins few).
func (s *Realtime) ip() string {
	if s.client != "" {
		return s.client
	}
	return BlockAddr(s.conn.RemoteIP())
}

// Open greets the client with HELLO and starts the login window.
func (s *Realtime) Open() {
	t := s.d.Timings
	s.end.opening(s.d, KindRealtime)
	s.conn.Send(protocol.AppendHello(nil, t.HeartbeatInterval.Milliseconds()))
	s.watch.tick = s.conn.AfterFunc(t.LoginWindow, s.onTick)
}

// onTick is the login window's end before READY, and the key re-check every
// heartbeat interval after it.
func (s *Realtime) onTick() {
	switch s.state.Load() {
	case stateAwaiting:
		s.disconnect(protocol.CodeLoginTimeout, "no LOGIN within the login window", 0)
	case stateReady:
		s.recheck()
		s.watch.tick.Reset(s.d.Timings.HeartbeatInterval)
	}
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

// Closed implements Socket: it releases what the session holds and records
// why the socket closed.
func (s *Realtime) Closed(transport CloseReason) {
	if s.release() {
		s.end.record(s.d, KindRealtime, transport, s.accountID)
	}
}

// Aborted implements Socket; a realtime session holds nothing before LOGIN.
func (s *Realtime) Aborted() { s.release() }

// release stops the timers, unsubscribes and frees the slot, once.
func (s *Realtime) release() bool {
	if s.state.Swap(stateClosed) == stateClosed {
		return false
	}
	s.donePending()
	s.watch.stop()
	if s.beatTimer != nil {
		s.beatTimer.Stop()
	}
	if s.group != nil {
		s.d.leaveB2B(s.group, s)
	}
	s.slot.Release()
	return true
}

func (s *Realtime) login(payload []byte) {
	now := s.d.Now()
	// A socket opened before its address was blocked must not go on trying.
	if until, blocked := s.d.Blocker.IPBlocked(s.ip(), now); blocked {
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
		s.failedLogin(reason.B2BCode(), login.Key, refusalMessage(reason, &p))
		return
	}
	slot, ok := s.d.Limits.Reserve(B2BQuota(p.AccountID), protocol.DTWSConns)
	if !ok {
		s.disconnect(protocol.CodeTooManyConnections, fmt.Sprintf("this account already has %d open B2B sockets", protocol.DTWSConns), 60)
		return
	}
	slot.Confirm()
	s.slot = slot
	s.accountID = p.AccountID
	s.key = login.Key
	s.kinds.Store(uint32(protocol.KindsForModules(p.Sub.Modules)))
	s.late.Store(p.Sub.LateDelivery)
	s.enterprise.Store(p.Sub.Plan == "enterprise")
	if f := login.Filter; !f.Passthrough() {
		s.filter = &f
	}
	s.ready(p.Sub, now)
}

// ready joins the account's group (its shared subscription to the account's
// handles, which follows target changes: joinB2B), sends READY and replays.
// It joins before READY goes out, so every event published after the client
// saw READY reaches it. No event overtakes READY: it is sent under
// filterMu between stateReadying (a publisher that sees it takes filterMu
// too, so waits) and stateReady (stored after the send: a publisher that
// sees it sends after READY without a lock).
func (s *Realtime) ready(sub *persistence.Subscription, now time.Time) {
	group, handles := s.d.joinB2B(s.accountID, s)
	s.group = group
	s.donePending()
	s.filterMu.Lock()
	s.state.Store(stateReadying)
	s.conn.Send(protocol.AppendReady(nil, s.d.nextID.Add(1), modules(sub), len(handles), sub.MaxHandles))
	s.state.Store(stateReady)
	s.filterMu.Unlock()
	// No DISCONNECT on a missed heartbeat (spec 2 state table); the close
	// frame says why.
	s.beatTimer = s.conn.AfterFunc(s.d.Timings.HeartbeatTimeout, func() {
		s.end.because(ReasonHeartbeatTimeout)
		s.conn.Close(CloseGoingAway, "heartbeat timeout")
	})
	s.watch.tick.Reset(s.d.Timings.HeartbeatInterval)
	s.watch.follow(s.conn, sub, now, s.recheck)
	s.replay(handles, now)
}

// recheck looks at the key and subscription again: a subscription changed
// by the operator while the socket is open moves or cancels the expiry, or
// narrows what the session delivers (modules, late delivery, the enterprise
// variant: READY announced the rest, so nothing is added); an expired one
// ends the session with subscription_expired, and a key that was revoked,
// regenerated or deactivated stops at once with its key_* code.
func (s *Realtime) recheck() {
	if s.state.Load() != stateReady {
		return
	}
	p, reason := s.d.check(s.key, nil, "", protocol.ProductB2B)
	if reason != account.OK {
		_, code := refusal(reason)
		s.disconnect(code, refusalMessage(reason, &p), 0)
		return
	}
	s.watch.follow(s.conn, p.Sub, s.d.Now(), s.recheck)
	s.kinds.And(uint32(protocol.KindsForModules(p.Sub.Modules)))
	if !p.Sub.LateDelivery {
		s.late.Store(false)
	}
	if p.Sub.Plan != "enterprise" {
		s.enterprise.Store(false)
	}
}

// replay sends the follow and unfollow events of the replay window (needs
// follows), then, with late delivery, the newest posts of the window.
func (s *Realtime) replay(handles []string, now time.Time) {
	since := now.Add(-s.d.Timings.ReplayWindow).UnixMilli()
	if protocol.EventKindSet(s.kinds.Load()).Has(protocol.EventKindFollowingNew) {
		evs := s.d.Recent.Follows(handles, since)
		sortByDetection(evs)
		if len(evs) > maxFollowReplay {
			evs = evs[len(evs)-maxFollowReplay:]
		}
		for _, e := range evs {
			s.deliver(e, e.FrameFor(false))
		}
	}
	if s.late.Load() {
		evs := s.d.Recent.Posts(handles, since)
		sortByDetection(evs)
		if len(evs) > maxPostReplay {
			evs = evs[len(evs)-maxPostReplay:]
		}
		for _, e := range evs {
			s.deliver(e, e.ReplayFrame(s.enterprise.Load()))
		}
	}
}

// Deliver implements delivery.Subscriber: the events of the account's
// handles, through its group.
func (s *Realtime) Deliver(e *delivery.Event) {
	if e.Kind != delivery.KindHandle {
		return
	}
	if st := s.state.Load(); st != stateReady && st != stateReadying {
		return
	}
	if (e.Late || e.UpdateForOCROnly) && (e.Late && !s.late.Load() || e.UpdateForOCROnly && !s.enterprise.Load()) {
		return // rare: late posts and OCR-only updates
	}
	s.deliver(e, e.FrameFor(s.enterprise.Load()))
}

func (s *Realtime) deliver(e *delivery.Event, frame []byte) {
	if !protocol.EventKindSet(s.kinds.Load()).Has(e.Meta.Kind) {
		return
	}
	// Most sessions have no filter (fixed at login, before READY): once
	// READY is queued they take no lock per delivery.
	if s.filter == nil && s.state.Load() == stateReady {
		s.conn.SendEvent(frame, e.IngestedAt)
		return
	}
	s.filterMu.Lock()
	ok := s.filter == nil || s.filter.Allows(e.Meta)
	s.filterMu.Unlock()
	if ok {
		s.conn.SendEvent(frame, e.IngestedAt)
	}
}

// failedLogin refuses a login that counts toward the IP block.
func (s *Realtime) failedLogin(code, key, msg string) {
	left := s.d.Blocker.Fail(s.ip(), key, s.d.Now())
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
	s.end.because(reasonForCode(code))
	s.conn.Send(protocol.AppendDisconnectCode(nil, code, msg, retryAfter))
	s.conn.Close(ClosePolicy, code)
}

// BlockedRealtime is the realtime socket of a blocked address let through
// about once a minute: it only delivers the DISCONNECT ip_blocked.
type BlockedRealtime struct {
	Realtime
	until time.Time
}

// NewBlockedRealtime makes the session of a blocked address's socket.
func NewBlockedRealtime(d *Deps, until time.Time) *BlockedRealtime {
	return &BlockedRealtime{Realtime: Realtime{d: d}, until: until}
}

// Open sends DISCONNECT ip_blocked and closes.
func (s *BlockedRealtime) Open() {
	s.end.opening(s.d, KindRealtime)
	s.disconnect(protocol.CodeIPBlocked, "too many failed logins from this address; blocked until "+s.until.UTC().Format(time.RFC3339), retryIn(s.until, s.d.Now()))
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
