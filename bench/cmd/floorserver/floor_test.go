//go:build linux

package main

import (
	"bytes"
	"encoding/binary"
	"testing"
)

func mask(op byte, p []byte, key [4]byte) []byte {
	b := []byte{0x80 | op}
	if len(p) < 126 {
		b = append(b, 0x80|byte(len(p)))
	} else {
		b = append(b, 0x80|126)
		b = binary.BigEndian.AppendUint16(b, uint16(len(p)))
	}
	b = append(b, key[:]...)
	for i, c := range p {
		b = append(b, c^key[i&3])
	}
	return b
}

func TestClientFrame(t *testing.T) {
	for _, n := range []int{0, 8, 125, 126, 1000} {
		p := bytes.Repeat([]byte{'x'}, n)
		f := mask(opText, p, [4]byte{1, 2, 3, 4})
		for cut := range len(f) {
			if _, _, m, err := clientFrame(append([]byte(nil), f[:cut]...)); m != 0 || err != nil {
				t.Fatalf("%d bytes cut at %d: n %d err %v, want more", n, cut, m, err)
			}
		}
		op, got, m, err := clientFrame(append(append([]byte(nil), f...), 0x81))
		if err != nil || op != opText || m != len(f) || !bytes.Equal(got, p) {
			t.Fatalf("%d bytes: op %d n %d err %v", n, op, m, err)
		}
	}
	if _, _, _, err := clientFrame([]byte{0x81, 0x01, 'x'}); err == nil {
		t.Fatal("unmasked frame accepted")
	}
}

func TestEventFrame(t *testing.T) {
	obs := []byte(`{"kind":"post","text":"fbseq7","author":{"handle":"fb_h00042"}}`)
	if h := handleIndex(obs); h != 42 {
		t.Fatalf("handle %d, want 42", h)
	}
	if h := handleIndex([]byte(`{"handle":"someone"}`)); h != -1 {
		t.Fatalf("handle %d, want -1", h)
	}
	f := eventFrame(nil, obs, 930)
	if f[0] != 0x81 || f[1] != 126 {
		t.Fatalf("header % x", f[:4])
	}
	p := f[4:]
	if n := int(binary.BigEndian.Uint16(f[2:])); n != len(p) || n != 930 {
		t.Fatalf("payload %d bytes, header says %d, want 930", len(p), n)
	}
	if !bytes.HasPrefix(p, []byte(`{"op":0,"t":"post","d":{"kind"`)) || !bytes.HasSuffix(p, []byte(`"}`)) {
		t.Fatalf("payload %.60q", p)
	}
	if f := eventFrame(nil, obs, 0); len(f) != 2+len(`{"op":0,"t":"post","d":`)+len(obs)+len(`,"pad":""}`) {
		t.Fatalf("unpadded frame %d bytes", len(f))
	}
}

func FuzzClientFrame(f *testing.F) {
	f.Add(mask(opText, []byte(`{"op":1}`), [4]byte{9, 8, 7, 6}))
	f.Add([]byte{0x88, 0x80, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		op, p, n, err := clientFrame(b)
		if err != nil || n == 0 {
			return
		}
		if n > len(b) || len(p) > n || op > 0xf {
			t.Fatalf("n %d of %d bytes, payload %d, op %d", n, len(b), len(p), op)
		}
	})
}
