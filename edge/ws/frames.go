package ws

import (
	"encoding/binary"

	"github.com/gobwas/ws"
)

// headerLen is the size of a server frame's header for a payload of n bytes.
func headerLen(n int) int {
	switch {
	case n < 126:
		return 2
	case n <= 0xffff:
		return 4
	default:
		return 10
	}
}

// appendHeader appends an unmasked, final server frame header.
func appendHeader(b []byte, op ws.OpCode, n int) []byte {
	b0 := 0x80 | byte(op)
	switch {
	case n < 126:
		return append(b, b0, byte(n))
	case n <= 0xffff:
		return append(b, b0, 126, byte(n>>8), byte(n))
	default:
		return append(b, b0, 127,
			byte(uint64(n)>>56), byte(uint64(n)>>48), byte(uint64(n)>>40), byte(uint64(n)>>32),
			byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
	}
}

// closePayload is a close frame's payload: the code and a reason cut to
// what a control frame holds.
func closePayload(code ws.StatusCode, reason string) []byte {
	if len(reason) > 123 {
		reason = reason[:123]
	}
	p := make([]byte, 2+len(reason))
	binary.BigEndian.PutUint16(p, uint16(code))
	copy(p[2:], reason)
	return p
}

// rateLog is a sliding window of the last N frame times.
type rateLog struct {
	t []int64
	n int // frames recorded, up to len(t)
	i int // oldest entry once full
}

// allow records a frame at now; false when it is the (N+1)th inside window.
func (r *rateLog) allow(now, window int64) bool {
	if r.n < len(r.t) {
		r.t[r.n] = now
		r.n++
		return true
	}
	if now-r.t[r.i] < window {
		return false
	}
	r.t[r.i] = now
	r.i++
	if r.i == len(r.t) {
		r.i = 0
	}
	return true
}
