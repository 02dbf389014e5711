package ingestlog

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

func replayAll(t *testing.T, l *Log) []string {
	t.Helper()
	var got []string
	if err := l.Replay(func(_ int64, p []byte) error { got = append(got, string(p)); return nil }); err != nil {
		t.Fatal(err)
	}
	return got
}

func TestAppendReopenReplay(t *testing.T) {
	dir := t.TempDir()
	l, err := Open(dir, Options{SegmentBytes: 64})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	var ends []int64
	for i := range 20 {
		p := fmt.Sprintf("record %02d", i)
		end, err := l.Append([]byte(p))
		if err != nil {
			t.Fatal(err)
		}
		want, ends = append(want, p), append(ends, end)
	}
	if l.Segments() < 2 {
		t.Fatalf("segments = %d, want a roll at 64 bytes", l.Segments())
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Append([]byte("x")); !errors.Is(err, ErrClosed) {
		t.Fatalf("append after close: %v", err)
	}
	l, err = Open(dir, Options{SegmentBytes: 64})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if got := replayAll(t, l); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("replay = %v, want %v", got, want)
	}
	// A checkpoint in the middle: replay starts after it, whole segments
	// below it are gone.
	segs := l.Segments()
	if err := l.SetCheckpoint(ends[11]); err != nil {
		t.Fatal(err)
	}
	if l.Segments() >= segs {
		t.Fatalf("segments %d -> %d: none dropped below the checkpoint", segs, l.Segments())
	}
	if got := replayAll(t, l); fmt.Sprint(got) != fmt.Sprint(want[12:]) {
		t.Fatalf("replay after checkpoint = %v, want %v", got, want[12:])
	}
	end, err := l.Append([]byte("after"))
	if err != nil {
		t.Fatal(err)
	}
	if err := l.SetCheckpoint(end); err != nil {
		t.Fatal(err)
	}
	l.Close()
	l, err = Open(dir, Options{SegmentBytes: 64})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if got := replayAll(t, l); len(got) != 0 {
		t.Fatalf("replay at the end's checkpoint = %v, want nothing", got)
	}
	if l.Checkpoint() != end || l.End() != end {
		t.Fatalf("checkpoint %d end %d, want both %d", l.Checkpoint(), l.End(), end)
	}
}

func TestTornTailTruncated(t *testing.T) {
	for _, tear := range []struct {
		name string
		tail func(frame []byte) []byte
	}{
		{"short header", func(f []byte) []byte { return f[:5] }},
		{"short payload", func(f []byte) []byte { return f[:len(f)-3] }},
		{"bad crc", func(f []byte) []byte { g := bytes.Clone(f); g[len(g)-1] ^= 0xff; return g }},
	} {
		t.Run(tear.name, func(t *testing.T) {
			dir := t.TempDir()
			l, err := Open(dir, Options{SegmentBytes: 4096})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := l.Append([]byte("kept")); err != nil {
				t.Fatal(err)
			}
			l.Close()
			seg := filepath.Join(dir, fmt.Sprintf("%020d.seg", 0))
			f, err := os.OpenFile(seg, os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteAt(tear.tail(AppendFrame(nil, []byte("torn record"))), FrameBytes(len("kept")))
			f.Close()
			l, err = Open(dir, Options{SegmentBytes: 4096})
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			if _, err := l.Append([]byte("next")); err != nil {
				t.Fatal(err)
			}
			if got := replayAll(t, l); fmt.Sprint(got) != "[kept next]" {
				t.Fatalf("replay = %v, want [kept next]", got)
			}
		})
	}
}

func TestConcurrentAppendsShareFsyncs(t *testing.T) {
	l, err := Open(t.TempDir(), Options{SegmentBytes: 4096})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	const writers, each = 8, 50
	var wg sync.WaitGroup
	ends := make(chan int64, writers*each)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				end, err := l.Append(fmt.Appendf(nil, "w%d-%d", w, i))
				if err != nil {
					t.Error(err)
					return
				}
				ends <- end
			}
		}()
	}
	wg.Wait()
	close(ends)
	seen := map[int64]bool{}
	for e := range ends {
		if seen[e] {
			t.Fatalf("two appends returned end %d", e)
		}
		seen[e] = true
	}
	got := replayAll(t, l)
	if len(got) != writers*each {
		t.Fatalf("replayed %d records, want %d", len(got), writers*each)
	}
	// Per writer, records keep their order.
	next := map[byte]int{}
	for _, r := range got {
		var w, i int
		fmt.Sscanf(r, "w%d-%d", &w, &i)
		if i != next[byte(w)] {
			t.Fatalf("writer %d: record %d after %d", w, i, next[byte(w)]-1)
		}
		next[byte(w)]++
	}
}

func TestCheckpointBeyondEndRefused(t *testing.T) {
	l, err := Open(t.TempDir(), Options{SegmentBytes: 4096})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if err := l.SetCheckpoint(1); err == nil {
		t.Fatal("a checkpoint beyond the end was taken")
	}
}

func TestCorruptCheckpointRefused(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, checkpointName), []byte("garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(dir, Options{SegmentBytes: 4096}); err == nil {
		t.Fatal("opened with a corrupt checkpoint")
	}
}

// Segments are zero-filled to their size, and the spare made ahead is
// used by the next roll; nothing but segments and the checkpoint remains.
func TestSegmentsPreallocatedAndSpareUsed(t *testing.T) {
	dir := t.TempDir()
	l, err := Open(dir, Options{SegmentBytes: 1024})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 100 {
		if _, err := l.Append(fmt.Appendf(nil, "record %03d with some bytes", i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		fi, _ := e.Info()
		if filepath.Ext(e.Name()) != segmentExt {
			t.Errorf("left behind: %s", e.Name())
		} else if fi.Size() < 1024 {
			t.Errorf("segment %s is %d bytes, want at least 1024 (preallocated)", e.Name(), fi.Size())
		}
	}
	l, err = Open(dir, Options{SegmentBytes: 1024})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if got := replayAll(t, l); len(got) != 100 || got[99] != "record 099 with some bytes" {
		t.Fatalf("replayed %d records across %d segments", len(got), l.Segments())
	}
}
