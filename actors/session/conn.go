// Package session holds the client sessions of every WebSocket: the B2B
// realtime opcode socket (HELLO, LOGIN, READY, EVENT, heartbeats,
// DISCONNECT), the tweet-only sockets, the Tweet Alerts socket (/v1/ws) and
// the product sockets of spec 3, plus what spans sessions: the one
// per-account connection limit (ConnLimit), failed-login blocks (Blocker),
// the key re-check every kind shares (keycheck.go) and the one close path
// with its counters (close.go).
//
// Sessions are state machines owned by the transport's loop: Open, Message,
// Closed and their timers run there, one at a time. They hear events as
// subscribers of the delivery hub: Deliver runs on the publishing actor's
// goroutine and only reads what the session fixed before subscribing, an
// atomic, or what the session's own small lock guards; it never blocks
// (Conn.Send queues). The session knows nothing of the transport: the edge
// adapts its sockets to Conn and drives each session through Socket.
//
// The B2B sockets of one account (realtime and tweet-only) share one
// subscription to the account's handles: a delivery.Group that follows the
// account's target changes once for all of them (b2bgroup.go), so an idle
// socket costs a pointer in its group, not a copy of the account's handles.
// Per-session filters (modules, LOGIN filter, late delivery, variant) are
// applied in each session's Deliver as before.
//
// Shared memory and locks: ConnLimit (mu: the held counts), Blocker (mu:
// failures per address and key), Stats (atomics only), Deps.groups (mu: the
// accounts' groups; joins and leaves). Per session: Realtime.filterMu guards
// its login filter and the order of READY and events; TweetOnly.mu its
// greeting; TweetAlerts.mu its subscriptions and handle limit. Lock order: a
// session's lock, then Deps.groups.mu, then a group's, then the hub's (a
// session subscribes while holding its own lock; the hub never holds one of
// its locks while it calls Deliver).
// No lock is held across store I/O: the account registry answers from
// memory.
package session

import (
	"net/netip"
	"time"
)

// Conn is a WebSocket as a session sees it. Send never blocks: false means
// the socket is gone (or was just dropped as a slow reader).
type Conn interface {
	Send(msg []byte) bool
	// SendEvent is Send of an event frame: the transport counts it as a
	// delivery of the socket's kind and times it from at, the stamp
	// (internal/latency.Now) of its observation's ingest (0 when unknown).
	SendEvent(msg []byte, at int64) bool
	// Close sends a close frame with code after what is queued, then closes.
	Close(code int, reason string)
	// CloseNow drops the socket without a close handshake.
	CloseNow()
	AfterFunc(d time.Duration, f func()) Timer
	RemoteIP() netip.Addr
}

// Timer is a connection timer; its function runs where the session's other
// callbacks run, never concurrently with them.
type Timer interface {
	Stop() bool
	Reset(d time.Duration) bool
}

// Socket is a session as the transport drives it. A session is made before
// the upgrade (holding its connection slot, if it takes one there); then
// exactly one of two things happens:
//
//   - Prepare, on the upgrade's goroutine before the 101 answer goes out
//     (frames sent from then on are queued and follow the 101), then Open,
//     Message for each inbound message and Closed once, on the loop;
//   - Aborted, when the upgrade failed before the socket opened (the client
//     was gone before the 101, the transport was shutting down): the
//     session releases what it holds.
type Socket interface {
	// Kind is what the socket's deliveries and closes are counted under.
	Kind() SocketKind
	Prepare(c Conn)
	Open()
	Message(text bool, payload []byte)
	// Closed reports the close with the reason the transport saw; the
	// session adds its own and records it (close.go).
	Closed(transport CloseReason)
	Aborted()
}

// WebSocket close codes used by sessions.
const (
	CloseGoingAway = 1001
	ClosePolicy    = 1008
)
