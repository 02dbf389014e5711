//go:build linux && !wsportable

package ws

import (
	"testing"
	"unsafe"
)

// What a Send and a writer's turn touch stays in a Conn's first 56 bytes,
// one cache line: a Conn is allocated 8 bytes past a line (the allocator's
// header of objects over 512 bytes) or on one. Only pending's pointer
// word, read as nil, is on the next line. (A fan-out's cost per delivery
// is mostly cold memory: two lines per connection, not four.)
func TestConnHotLine(t *testing.T) {
	var c Conn
	for name, end := range map[string]uintptr{
		"hub":       unsafe.Offsetof(c.hub) + unsafe.Sizeof(c.hub),
		"mu":        unsafe.Offsetof(c.mu) + unsafe.Sizeof(c.mu),
		"q":         unsafe.Offsetof(c.q) + unsafe.Sizeof(c.q),
		"fd":        unsafe.Offsetof(c.fd) + unsafe.Sizeof(c.fd),
		"flags":     unsafe.Offsetof(c.batched) + 1,
		"class":     unsafe.Offsetof(c.class) + 1,
		"lastWrite": unsafe.Offsetof(c.lastWrite) + unsafe.Sizeof(c.lastWrite),
	} {
		if end > 56 {
			t.Errorf("%s ends at byte %d of Conn, past its first 56", name, end)
		}
	}
	if off := unsafe.Offsetof(c.pending); off > 56 {
		t.Errorf("pending at byte %d of Conn, past the second cache line's start", off)
	}
	conns := make([]*Conn, 16)
	for i := range conns {
		conns[i] = new(Conn)
		if p := uintptr(unsafe.Pointer(conns[i])) % 64; p != 0 && p != 8 {
			t.Fatalf("a Conn (%d bytes) %d bytes past a cache line", unsafe.Sizeof(c), p)
		}
	}
}
