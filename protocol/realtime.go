package protocol

import (
	"strconv"
	"unicode/utf8"
)

// Frames of the B2B realtime WebSocket `/v1/dt/realtime/ws` (spec 2
// "Realtime WebSocket"). Every frame is a text frame holding one JSON object
// `{"op":<opcode>,"d":<payload>}`. The encoders append to dst and never fail.

// Opcodes.
const (
	OpEvent        = 0  // server → client: event object
	OpHeartbeat    = 1  // client → server
	OpLogin        = 2  // client → server: key string or object
	OpDisconnect   = 3  // server → client: reason, code, message, retry_after
	OpReady        = 4  // server → client: client_id, modules, handles, max_handles
	OpHello        = 10 // server → client: heartbeat_interval
	OpHeartbeatAck = 11 // server → client
)

// DISCONNECT reasons (spec 2 "DISCONNECT reasons"), exactly as sent.
const (
	ReasonInvalidKey          = "Invalid or expired API key"
	ReasonTooManyFailedLogins = "Too many failed logins"
	ReasonLoginInvalid        = "Invalid login payload"
	ReasonLoginTimeout        = "Login timeout"
	ReasonTooManyConnections  = "Too many connections (max 5)"
	ReasonSubscriptionExpired = "Subscription expired"
)

// DISCONNECT codes of the realtime WebSocket that the REST table does not
// have (the key_* codes and ip_blocked are in errors.go).
const (
	CodeLoginInvalid        = "login_invalid"
	CodeLoginTimeout        = "login_timeout"
	CodeTooManyConnections  = "too_many_connections"
	CodeSubscriptionExpired = "subscription_expired"
)

// DisconnectReason returns the reason sent with a DISCONNECT code, and
// whether the code is one of the table's.
func DisconnectReason(code string) (string, bool) {
	switch code {
	case CodeKeyMissing, CodeKeyMalformed, CodeKeyUnknown, CodeKeyExpired, CodeKeyDeactivated, CodeKeyBlocked:
		return ReasonInvalidKey, true
	case CodeIPBlocked:
		return ReasonTooManyFailedLogins, true
	case CodeLoginInvalid:
		return ReasonLoginInvalid, true
	case CodeLoginTimeout:
		return ReasonLoginTimeout, true
	case CodeTooManyConnections:
		return ReasonTooManyConnections, true
	case CodeSubscriptionExpired:
		return ReasonSubscriptionExpired, true
	}
	return "", false
}

// DisconnectRetryable reports whether a client may reconnect after a
// DISCONNECT with code: login_timeout at once, key_blocked, ip_blocked and
// too_many_connections after retry_after; the others need a fixed key or a
// renewal.
func DisconnectRetryable(code string) bool {
	switch code {
	case CodeLoginTimeout, CodeKeyBlocked, CodeIPBlocked, CodeTooManyConnections:
		return true
	}
	return false
}

// AppendHello appends `{"op":10,"d":{"heartbeat_interval":<ms>}}`.
func AppendHello(dst []byte, intervalMs int64) []byte {
	dst = append(dst, `{"op":10,"d":{"heartbeat_interval":`...)
	dst = strconv.AppendInt(dst, intervalMs, 10)
	return append(dst, "}}"...)
}

// AppendReady appends the READY frame: `client_id`, `modules` (as given; a nil
// slice is []), `handles` and `max_handles`.
func AppendReady(dst []byte, clientID int64, modules []string, handles, maxHandles int) []byte {
	dst = append(dst, `{"op":4,"d":{"client_id":`...)
	dst = strconv.AppendInt(dst, clientID, 10)
	dst = append(dst, `,"modules":[`...)
	for i, m := range modules {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendJSONStr(dst, m)
	}
	dst = append(dst, `],"handles":`...)
	dst = strconv.AppendInt(dst, int64(handles), 10)
	dst = append(dst, `,"max_handles":`...)
	dst = strconv.AppendInt(dst, int64(maxHandles), 10)
	return append(dst, "}}"...)
}

// AppendHeartbeatAck appends `{"op":11}` (HEARTBEAT_ACK has no payload).
func AppendHeartbeatAck(dst []byte) []byte { return append(dst, `{"op":11}`...) }

// AppendDisconnect appends a DISCONNECT frame; retry_after (seconds) is
// written only when positive.
func AppendDisconnect(dst []byte, reason, code, message string, retryAfter int) []byte {
	dst = append(dst, `{"op":3,"d":{"reason":`...)
	dst = appendJSONStr(dst, reason)
	dst = append(dst, `,"code":`...)
	dst = appendJSONStr(dst, code)
	dst = append(dst, `,"message":`...)
	dst = appendJSONStr(dst, message)
	if retryAfter > 0 {
		dst = append(dst, `,"retry_after":`...)
		dst = strconv.AppendInt(dst, int64(retryAfter), 10)
	}
	return append(dst, "}}"...)
}

// AppendDisconnectCode is AppendDisconnect with the reason looked up from the
// code (an unknown code gets ReasonLoginInvalid).
func AppendDisconnectCode(dst []byte, code, message string, retryAfter int) []byte {
	reason, ok := DisconnectReason(code)
	if !ok {
		reason = ReasonLoginInvalid
	}
	return AppendDisconnect(dst, reason, code, message, retryAfter)
}

// AppendEvent wraps an encoded `d` object (AppendEventD) as an EVENT frame:
// `{"op":0,"d":<d>}`.
func AppendEvent(dst []byte, d []byte) []byte {
	dst = append(dst, `{"op":0,"d":`...)
	dst = append(dst, d...)
	return append(dst, '}')
}

const hexDigits = "0123456789abcdef"

// AppendJSONString appends s as a JSON string. It escapes '"', '\\' and
// control characters, writes U+2028 and U+2029 as escapes (safe for
// JavaScript) and replaces invalid UTF-8 with U+FFFD; it does not allocate.
func AppendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

func appendJSONStr(dst []byte, s string) []byte { return AppendJSONString(dst, s) }
