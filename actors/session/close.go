package session

import (
	"context"
	"log/slog"
	"sync/atomic"
)

// SocketKind is the kind of a socket, as logs and counters name it.
type SocketKind uint8

const (
	KindRealtime    SocketKind = iota // /v1/dt/realtime/ws
	KindTweetOnly                     // /v1/dt/ws, /social/tweet/websocket
	KindTweetAlerts                   // /v1/ws
	KindProduct                       // /v1/<product>/ws of spec 3
	kindCount
)

var kindNames = [kindCount]string{"realtime", "tweet_only", "xg", "product"}

func (k SocketKind) String() string {
	if k < kindCount {
		return kindNames[k]
	}
	return "unknown"
}

// CloseReason is why a socket closed: the session's own reason when it
// closed the socket itself, otherwise what the transport saw.
type CloseReason uint8

const (
	ReasonNone CloseReason = iota // the session gave none: the transport's counts

	// What the transport saw (the edge maps its close state to these).
	ReasonClientClosed
	ReasonProtocolError
	ReasonInvalidUTF8
	ReasonMessageTooBig
	ReasonSlowConsumer
	ReasonWriteTimeout
	ReasonReadTimeout
	ReasonShutdown
	ReasonRateLimited
	ReasonPongTimeout
	ReasonTransportError
	ReasonInternalError
	ReasonClosedByServer // closed by the application without a reason of its own

	// The session's own reasons.
	ReasonLoginTimeout        // no LOGIN in time, or not a text frame
	ReasonLoginInvalid        // LOGIN not decodable
	ReasonKeyMissing          // no key
	ReasonKeyMalformed        // not a key of the socket's product
	ReasonKeyUnknown          // unknown, revoked or regenerated
	ReasonKeyDeactivated      // deactivated by the operator
	ReasonKeyBlocked          // too many failed logins with this key
	ReasonIPBlocked           // too many failed logins from this address
	ReasonSubscriptionExpired // the subscription ended (at login or while open)
	ReasonTooManyConnections  // over the account's socket limit
	ReasonHeartbeatTimeout    // no heartbeat within the timeout (realtime)
	ReasonPlanChanged         // the plan no longer allows the socket
	reasonCount
)

var reasonNames = [reasonCount]string{
	ReasonNone:                "none",
	ReasonClientClosed:        "client_closed",
	ReasonProtocolError:       "protocol_error",
	ReasonInvalidUTF8:         "invalid_utf8",
	ReasonMessageTooBig:       "message_too_big",
	ReasonSlowConsumer:        "slow_consumer",
	ReasonWriteTimeout:        "write_timeout",
	ReasonReadTimeout:         "read_timeout",
	ReasonShutdown:            "shutdown",
	ReasonRateLimited:         "rate_limited",
	ReasonPongTimeout:         "pong_timeout",
	ReasonTransportError:      "transport_error",
	ReasonInternalError:       "internal_error",
	ReasonClosedByServer:      "closed_by_server",
	ReasonLoginTimeout:        "login_timeout",
	ReasonLoginInvalid:        "login_invalid",
	ReasonKeyMissing:          "key_missing",
	ReasonKeyMalformed:        "key_malformed",
	ReasonKeyUnknown:          "key_unknown",
	ReasonKeyDeactivated:      "key_deactivated",
	ReasonKeyBlocked:          "key_blocked",
	ReasonIPBlocked:           "ip_blocked",
	ReasonSubscriptionExpired: "subscription_expired",
	ReasonTooManyConnections:  "too_many_connections",
	ReasonHeartbeatTimeout:    "heartbeat_timeout",
	ReasonPlanChanged:         "plan_changed",
}

// String is the reason as logs and counters name it (the realtime socket's
// DISCONNECT code where there is one).
func (r CloseReason) String() string {
	if r < reasonCount {
		return reasonNames[r]
	}
	return "unknown"
}

// reasonForCode maps a DISCONNECT code (or a key_* code) to its reason.
func reasonForCode(code string) CloseReason {
	for r := ReasonLoginTimeout; r < reasonCount; r++ {
		if reasonNames[r] == code {
			return r
		}
	}
	if code == "key_expired" {
		return ReasonSubscriptionExpired
	}
	return ReasonClosedByServer
}

// Stats counts open sockets by kind and closed ones by kind and reason.
// Counters are atomics touched once per open and once per close, never per
// delivery. The zero value is ready.
type Stats struct {
	open   [kindCount]atomic.Int64
	closes [kindCount][reasonCount]atomic.Uint64
}

// Open is the number of open sockets of kind k.
func (s *Stats) Open(k SocketKind) int64 { return s.open[k].Load() }

// Closes is the number of sockets of kind k closed for reason r.
func (s *Stats) Closes(k SocketKind, r CloseReason) uint64 { return s.closes[k][r].Load() }

// EachClose calls f for every kind and reason with closes, in order.
func (s *Stats) EachClose(f func(k SocketKind, r CloseReason, n uint64)) {
	for k := range kindCount {
		for r := range reasonCount {
			if n := s.closes[k][r].Load(); n > 0 {
				f(k, r, n)
			}
		}
	}
}

// ending is what every session keeps to close the one way: the reason it
// gave when it closed the socket itself, and whether it was counted open.
// Written and read on the transport's loop only.
type ending struct {
	own    CloseReason
	opened bool
}

// because records the session's own reason for the close it is starting
// (the first one wins).
func (e *ending) because(r CloseReason) {
	if e.own == ReasonNone {
		e.own = r
	}
}

// opening counts the socket open.
func (e *ending) opening(d *Deps, k SocketKind) {
	if !e.opened {
		e.opened = true
		d.stats().open[k].Add(1)
	}
}

// record is the one close path of every socket kind: the session's own
// reason if it gave one, otherwise the transport's, counted by kind and
// reason and logged at debug with what the transport saw.
func (e *ending) record(d *Deps, k SocketKind, transport CloseReason, account string) CloseReason {
	r := e.own
	if r == ReasonNone {
		r = transport
	}
	st := d.stats()
	if e.opened {
		e.opened = false
		st.open[k].Add(-1)
	}
	st.closes[k][r].Add(1)
	if d.Log != nil && d.Log.Enabled(context.Background(), slog.LevelDebug) {
		d.Log.Debug("socket closed", "socket", k.String(), "reason", r.String(), "transport", transport.String(), "account", account)
	}
	return r
}
