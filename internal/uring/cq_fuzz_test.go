package uring

import (
	"encoding/binary"
	"testing"
)

// FuzzReap feeds the completion reader rings as a confused or hostile
// kernel could leave them: any mask, head, tail and entries. It must reject
// a mask that does not match the entries, never index outside the ring,
// return at most one ring's worth (and at most dst's room), each entry the
// one at its slot, and advance the head by exactly what it returned.
func FuzzReap(f *testing.F) {
	f.Add(uint32(3), uint32(0), uint32(2), uint8(8), make([]byte, 4*cqeSize))
	f.Add(uint32(7), uint32(0xfffffffe), uint32(3), uint8(16), make([]byte, 8*cqeSize))
	f.Add(uint32(1), uint32(5), uint32(2), uint8(1), make([]byte, 3*cqeSize))
	f.Fuzz(func(t *testing.T, mask, head, tail uint32, room uint8, raw []byte) {
		entries := make([]CQE, len(raw)/cqeSize)
		for i := range entries {
			b := raw[i*cqeSize:]
			entries[i] = CQE{UserData: binary.LittleEndian.Uint64(b), Res: int32(binary.LittleEndian.Uint32(b[8:])), Flags: binary.LittleEndian.Uint32(b[12:])}
		}
		h, tl := head, tail
		r, err := newCQRing(&h, &tl, mask, entries)
		if err != nil {
			if n := uint64(mask) + 1; n&(n-1) == 0 && uint64(len(entries)) == n {
				t.Fatalf("valid ring (mask %d, %d entries) refused", mask, len(entries))
			}
			return
		}
		dst := make([]CQE, 0, int(room))
		got := r.reap(dst)
		want := min(tail-head, uint32(len(entries)), uint32(room))
		if uint32(len(got)) != want {
			t.Fatalf("reaped %d, want %d (head %d tail %d entries %d room %d)", len(got), want, head, tail, len(entries), room)
		}
		for i, c := range got {
			if c != entries[(head+uint32(i))&mask] {
				t.Fatalf("entry %d is %+v, not the one at its slot", i, c)
			}
		}
		if h != head+want || tl != tail {
			t.Fatalf("head %d tail %d after reaping %d from %d/%d", h, tl, want, head, tail)
		}
	})
}
