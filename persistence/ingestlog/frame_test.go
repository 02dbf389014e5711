package ingestlog

import (
	"bytes"
	"errors"
	"testing"
)

func TestFrameRoundTrip(t *testing.T) {
	if _, _, err := Decode(AppendFrame(nil, nil)); !errors.Is(err, ErrEnd) {
		t.Fatalf("an empty record (zeros): %v, want ErrEnd", err)
	}
	for _, p := range [][]byte{[]byte("x"), bytes.Repeat([]byte("ab"), 5000)} {
		f := AppendFrame(nil, p)
		got, n, err := Decode(append(f, 1, 2, 3))
		if err != nil || n != len(f) || !bytes.Equal(got, p) {
			t.Fatalf("decode(%d bytes) = %d bytes, n %d, %v", len(p), len(got), n, err)
		}
		if _, _, err := Decode(f[:len(f)-1]); !errors.Is(err, ErrShort) {
			t.Fatalf("cut frame: %v, want ErrShort", err)
		}
	}
	huge := AppendFrame(nil, []byte("x"))
	huge[3] = 0xff // a length far beyond MaxRecordBytes
	if _, _, err := Decode(huge); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("huge length: %v, want ErrCorrupt", err)
	}
}

// FuzzDecode: any bytes (a file a crash cut anywhere, or damaged) decode to
// an error or to a record within them whose CRC matches; never a panic.
func FuzzDecode(f *testing.F) {
	f.Add(AppendFrame(nil, []byte(`{"kind":"post"}`)))
	f.Add(AppendFrame(AppendFrame(nil, []byte("a")), []byte("b"))[:11])
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		p, n, err := Decode(b)
		if err != nil {
			return
		}
		if n > len(b) || n != headerBytes+len(p) {
			t.Fatalf("n %d of %d bytes, payload %d", n, len(b), len(p))
		}
		if !bytes.Equal(AppendFrame(nil, p), b[:n]) {
			t.Fatal("decoded record does not re-encode to its bytes")
		}
		if v := validPrefix(b); v < n || v > len(b) {
			t.Fatalf("valid prefix %d, first record %d, of %d", v, n, len(b))
		}
	})
}
