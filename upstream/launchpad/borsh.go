package launchpad

import (
	"encoding/binary"
	"errors"
	"unicode/utf8"

	"github.com/mr-tron/base58"
)

// errShort means the bytes end inside a field: the event is malformed.
var errShort = errors.New("launchpad: event data ends inside a field")

// errBadString means a string field is not UTF-8.
var errBadString = errors.New("launchpad: event string is not UTF-8")

// maxString bounds a string field; the launchpad caps names, symbols and
// URIs far below this, so a longer length prefix is garbage.
const maxString = 1024

// borsh reads the Borsh encoding (borsh.io) of the few types the events
// use: little-endian integers, 32-byte public keys, and strings as a u32
// byte length followed by UTF-8 bytes. The first error sticks.
type borsh struct {
	b   []byte
	err error
}

func (r *borsh) take(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || len(r.b) < n {
		r.err = errShort
		return nil
	}
	out := r.b[:n]
	r.b = r.b[n:]
	return out
}

func (r *borsh) u32() uint32 {
	if b := r.take(4); b != nil {
		return binary.LittleEndian.Uint32(b)
	}
	return 0
}

func (r *borsh) i64() int64 {
	if b := r.take(8); b != nil {
		return int64(binary.LittleEndian.Uint64(b))
	}
	return 0
}

func (r *borsh) str() string {
	n := r.u32()
	if r.err == nil && n > maxString {
		r.err = errShort
	}
	b := r.take(int(n))
	if r.err != nil {
		return ""
	}
	if !utf8.Valid(b) {
		r.err = errBadString
		return ""
	}
	return string(b)
}

// pubkey reads a 32-byte key and gives its base58 form (the address).
func (r *borsh) pubkey() string {
	if b := r.take(32); b != nil {
		return base58.Encode(b)
	}
	return ""
}
