// Package session holds the client sessions of the WebSocket APIs: the state
// machine of the B2B realtime opcode socket (HELLO, LOGIN, READY, EVENT,
// heartbeats, DISCONNECT), the tweet-only sockets, and the limits that span
// sessions (connections per account, failed-login blocks). It knows nothing
// of the transport: the edge adapts its sockets to Conn.
package session

import (
	"net/netip"
	"time"
)

// Conn is a WebSocket as a session sees it. Send never blocks: false means
// the socket is gone (or was just dropped as a slow reader).
type Conn interface {
	Send(msg []byte) bool
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

// WebSocket close codes used by sessions.
const (
	CloseNormal      = 1000
	CloseGoingAway   = 1001
	ClosePolicy      = 1008
	CloseTryAgain    = 1013
	closeReasonLimit = 120
)
