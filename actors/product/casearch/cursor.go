package casearch

import (
	"encoding/base64"
	"encoding/binary"
)

// A cursor is the position of the last post of a page (its key), plus a
// fingerprint of the query, since and until it was made for, in URL-safe
// base64: version 1, At, Tie (big endian int64s), fingerprint (uint32).
// Anything else, a cursor of another query included, is unrecognised and
// the search starts again from the newest post.
const (
	cursorVersion = 1
	cursorBytes   = 1 + 8 + 8 + 4
)

// EncodeCursor returns the next_cursor continuing after k for r.
func (r *Request) EncodeCursor(k Key) string {
	var b [cursorBytes]byte
	b[0] = cursorVersion
	binary.BigEndian.PutUint64(b[1:], uint64(k.At))
	binary.BigEndian.PutUint64(b[9:], uint64(k.Tie))
	binary.BigEndian.PutUint32(b[17:], r.fp)
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// DecodeCursor reads a cursor made for fingerprint fp.
func DecodeCursor(s string, fp uint32) (Key, bool) {
	if len(s) != base64.RawURLEncoding.EncodedLen(cursorBytes) {
		return Key{}, false
	}
	var b [cursorBytes]byte
	n, err := base64.RawURLEncoding.Decode(b[:], []byte(s))
	if err != nil || n != cursorBytes || b[0] != cursorVersion {
		return Key{}, false
	}
	if binary.BigEndian.Uint32(b[17:]) != fp {
		return Key{}, false
	}
	return Key{At: int64(binary.BigEndian.Uint64(b[1:])), Tie: int64(binary.BigEndian.Uint64(b[9:]))}, true
}
