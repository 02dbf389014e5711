package ingestlog

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Options tune the log.
type Options struct {
	// SegmentBytes rolls a segment once it is this large (default 16 MiB:
	// about 90,000 compressed observations). Segments are zero-filled to
	// this size when made.
	SegmentBytes int64
	// NoSync skips the fsync: Append returns once the bytes are written to
	// the file (they survive a process kill, not a power cut). For
	// benchmarks (--ingest-fsync=off).
	NoSync bool
}

// maxReusedBuffer bounds the group buffer the writer keeps for the next
// group: a group of ordinary requests (a compressed 500-line body is about
// 300 KiB) fits, a burst's larger buffer is let go.
const maxReusedBuffer = 8 << 20

// ErrClosed is Append's error after Close.
var ErrClosed = errors.New("ingestlog: closed")

const (
	segmentExt     = ".seg"
	spareExt       = ".spare"
	checkpointName = "checkpoint"
)

// Log is an open ingest log.
type Log struct {
	dir string
	opt Options

	mu      sync.Mutex
	pending []byte // framed records waiting for the writer
	free    []byte // the writer's last buffer, written: the next group's pending
	group   *group // the group the pending records belong to
	next    int64  // position after the last record appended (pending included)
	closed  bool
	wake    chan struct{}
	done    chan struct{}
	failed  error // sticky: once a write fails the log takes nothing more

	// The writer goroutine's own: the open segment and the bytes in the log.
	file    *os.File
	segSize int64
	written int64

	// The spare segment: prepare (a goroutine of the Log) zero-fills the
	// next segment ahead, so a roll only renames it.
	spare      chan spareFile
	wantSpare  chan struct{}
	spareAsked bool // the writer's: a spare was asked for this segment
	quit       chan struct{}
	prepDone   chan struct{}

	segMu      sync.Mutex // guards segs and checkpoint (memory only)
	segs       []int64    // first positions of the segments on disk, ascending
	checkpoint int64
}

type spareFile struct {
	f    *os.File
	path string
}

type group struct {
	done chan struct{}
	err  error
}

// Open opens (or creates) the log in dir, zeroes a torn tail of its last
// segment and starts its writer. Replay reads what is above the checkpoint;
// call it before the first Append.
func Open(dir string, opt Options) (*Log, error) {
	if opt.SegmentBytes <= 0 {
		opt.SegmentBytes = 16 << 20
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("ingest log: %w", err)
	}
	l := &Log{dir: dir, opt: opt, wake: make(chan struct{}, 1), done: make(chan struct{})}
	var err error
	if l.checkpoint, err = readCheckpoint(filepath.Join(dir, checkpointName)); err != nil {
		return nil, err
	}
	if l.segs, err = listSegments(dir); err != nil {
		return nil, err
	}
	if len(l.segs) == 0 {
		l.segs = []int64{l.checkpoint}
	}
	last := l.segs[len(l.segs)-1]
	f, err := os.OpenFile(l.segPath(last), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("ingest log: %w", err)
	}
	b, err := os.ReadFile(l.segPath(last))
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("ingest log: %w", err)
	}
	good := int64(validPrefix(b))
	// A torn tail (a crash in the middle of a write, never answered) is
	// zeroed, and the segment filled with zeros to its size: appends then
	// only overwrite zeros.
	if err := zeroFrom(f, good, b, opt.SegmentBytes); err != nil {
		f.Close()
		return nil, fmt.Errorf("ingest log: %w", err)
	}
	if _, err := f.Seek(good, 0); err != nil {
		f.Close()
		return nil, fmt.Errorf("ingest log: %w", err)
	}
	if err := removeSpares(dir); err != nil {
		f.Close()
		return nil, err
	}
	if err := syncDir(dir); err != nil {
		f.Close()
		return nil, err
	}
	l.file, l.segSize, l.written = f, good, last+good
	l.next = l.written
	l.checkpoint = min(l.checkpoint, l.written)
	l.spare, l.wantSpare = make(chan spareFile), make(chan struct{}, 1)
	l.quit, l.prepDone = make(chan struct{}), make(chan struct{})
	go l.prepare()
	go l.loop()
	return l, nil
}

// Append writes payload as one record and returns once it is durable (on
// disk and fsynced, with every record appended before it), with the position
// after it. Concurrent calls share an fsync.
func (l *Log) Append(payload []byte) (end int64, err error) {
	_, end, w := l.Enqueue(payload)
	return end, w.Wait()
}

// Waiter waits for the fsync of an enqueued record.
type Waiter struct {
	g   *group
	err error
}

// Wait returns once the record is durable, or with the write's error.
func (w Waiter) Wait() error {
	if w.err != nil {
		return w.err
	}
	<-w.g.done
	return w.g.err
}

// Enqueue adds payload as one record to the next group commit without
// waiting: start and end are its positions, and Wait returns once it is
// durable. Callers that must know which records are in flight (the ingest
// path's checkpoint) register start under their own lock around Enqueue.
func (l *Log) Enqueue(payload []byte) (start, end int64, w Waiter) {
	if len(payload) == 0 || len(payload) > MaxRecordBytes {
		return 0, 0, Waiter{err: fmt.Errorf("ingestlog: a record of %d bytes (1 to %d)", len(payload), MaxRecordBytes)}
	}
	l.mu.Lock()
	if l.closed || l.failed != nil {
		err := l.failed
		if l.closed {
			err = ErrClosed
		}
		l.mu.Unlock()
		return 0, 0, Waiter{err: err}
	}
	start = l.next
	if l.pending == nil {
		l.pending, l.free = l.free, nil
	}
	l.pending = AppendFrame(l.pending, payload)
	l.next += FrameBytes(len(payload))
	end = l.next
	if l.group == nil {
		l.group = &group{done: make(chan struct{})}
	}
	g := l.group
	l.mu.Unlock()
	select {
	case l.wake <- struct{}{}:
	default:
	}
	return start, end, Waiter{g: g}
}

// End is the position after the last record appended.
func (l *Log) End() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.next
}

// Checkpoint is the position recorded by the last SetCheckpoint.
func (l *Log) Checkpoint() int64 {
	l.segMu.Lock()
	defer l.segMu.Unlock()
	return l.checkpoint
}

// loop is the writer: it takes the pending group, writes it, fsyncs and
// releases every Append of the group at once.
func (l *Log) loop() {
	defer close(l.done)
	for {
		l.mu.Lock()
		buf, g, closed := l.pending, l.group, l.closed
		l.pending, l.group = nil, nil
		l.mu.Unlock()
		if g != nil {
			g.err = l.write(buf)
			l.mu.Lock()
			if g.err != nil {
				l.failed = g.err
			}
			if cap(buf) <= maxReusedBuffer {
				l.free = buf[:0] // written: its memory serves the next group
			}
			l.mu.Unlock()
			close(g.done)
			continue // look again before sleeping: more may have come
		}
		if closed {
			return
		}
		<-l.wake
	}
}

func (l *Log) write(buf []byte) error {
	if l.segSize > 0 && l.segSize+int64(len(buf)) > l.opt.SegmentBytes {
		if err := l.roll(); err != nil {
			return err
		}
	}
	if _, err := l.file.Write(buf); err != nil {
		return fmt.Errorf("ingest log write: %w", err)
	}
	if !l.opt.NoSync {
		if err := datasync(l.file); err != nil {
			return fmt.Errorf("ingest log fsync: %w", err)
		}
	}
	l.segSize += int64(len(buf))
	l.written += int64(len(buf))
	if !l.spareAsked && l.segSize > l.opt.SegmentBytes/2 {
		l.spareAsked = true
		select {
		case l.wantSpare <- struct{}{}:
		default:
		}
	}
	return nil
}

// roll closes the full segment and starts the next at the current end: the
// spare, renamed, or one made here if the spare is not ready.
func (l *Log) roll() error {
	path := l.segPath(l.written)
	var f *os.File
	select {
	case sp := <-l.spare:
		if err := os.Rename(sp.path, path); err != nil {
			sp.f.Close()
			return fmt.Errorf("ingest log roll: %w", err)
		}
		f = sp.f
	default:
		var err error
		if f, err = newSegment(path, l.opt.SegmentBytes); err != nil {
			return fmt.Errorf("ingest log roll: %w", err)
		}
	}
	if err := syncDir(l.dir); err != nil {
		f.Close()
		return err
	}
	old := l.file
	l.file, l.segSize, l.spareAsked = f, 0, false
	l.segMu.Lock()
	l.segs = append(l.segs, l.written)
	l.segMu.Unlock()
	return old.Close()
}

// prepare makes a zero-filled spare segment when the writer asks (its
// segment is half full) and hands it to the next roll; it ends at Close.
func (l *Log) prepare() {
	defer close(l.prepDone)
	for n := 0; ; n++ {
		select {
		case <-l.wantSpare:
		case <-l.quit:
			return
		}
		path := filepath.Join(l.dir, fmt.Sprintf("spare-%d%s", n, spareExt))
		f, err := newSegment(path, l.opt.SegmentBytes)
		if err != nil {
			return // rolls make their segment themselves
		}
		select {
		case l.spare <- spareFile{f: f, path: path}:
		case <-l.quit:
			f.Close()
			os.Remove(path)
			return
		}
	}
}

// newSegment creates path filled with size zero bytes, synced.
func newSegment(path string, size int64) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, err
	}
	if err := zeroFrom(f, 0, nil, size); err != nil {
		f.Close()
		os.Remove(path)
		return nil, err
	}
	return f, nil
}

// zeroFrom makes f zeros from off on: over the non-zero bytes of cur (its
// content) after off, a torn tail, and from its end up to size. It syncs
// if it wrote.
func zeroFrom(f *os.File, off int64, cur []byte, size int64) error {
	wrote := false
	zero := func(from, to int64) error {
		zeros := make([]byte, min(to-from, 1<<20))
		for pos := from; pos < to; {
			n := min(int64(len(zeros)), to-pos)
			if _, err := f.WriteAt(zeros[:n], pos); err != nil {
				return err
			}
			pos += n
		}
		wrote = true
		return nil
	}
	last := int64(len(cur)) - 1
	for last >= off && cur[last] == 0 {
		last--
	}
	if last >= off {
		if err := zero(off, last+1); err != nil {
			return err
		}
	}
	if n := max(int64(len(cur)), off); n < size {
		if err := zero(n, size); err != nil {
			return err
		}
	}
	if wrote {
		return f.Sync()
	}
	return nil
}

func removeSpares(dir string) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("ingest log: %w", err)
	}
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), spareExt) {
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
				return fmt.Errorf("ingest log: %w", err)
			}
		}
	}
	return nil
}

// SetCheckpoint records pos (a position Append returned, or End) as applied
// and deletes the segments wholly below it. It is not concurrent with itself.
func (l *Log) SetCheckpoint(pos int64) error {
	if pos > l.End() {
		return fmt.Errorf("ingestlog: checkpoint %d beyond the end %d", pos, l.End())
	}
	if pos <= l.Checkpoint() {
		return nil
	}
	if err := writeCheckpoint(l.dir, pos); err != nil {
		return err
	}
	l.segMu.Lock()
	l.checkpoint = pos
	var drop []int64
	for len(l.segs) > 1 && l.segs[1] <= pos { // never the last: the writer's
		drop = append(drop, l.segs[0])
		l.segs = l.segs[1:]
	}
	l.segMu.Unlock()
	for _, s := range drop {
		if err := os.Remove(l.segPath(s)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("ingest log: drop segment: %w", err)
		}
	}
	return nil
}

// Segments is the number of segment files on disk.
func (l *Log) Segments() int {
	l.segMu.Lock()
	defer l.segMu.Unlock()
	return len(l.segs)
}

// Replay calls fn with every record above the checkpoint, in order, with
// the position after it; it stops at fn's first error. Call it before the
// first Append.
func (l *Log) Replay(fn func(end int64, payload []byte) error) error {
	l.segMu.Lock()
	segs, from := slices.Clone(l.segs), l.checkpoint
	l.segMu.Unlock()
	l.mu.Lock()
	upto := l.next
	l.mu.Unlock()
	for i, start := range segs {
		if i+1 < len(segs) && segs[i+1] <= from {
			continue
		}
		b, err := os.ReadFile(l.segPath(start))
		if err != nil {
			return fmt.Errorf("ingest log replay: %w", err)
		}
		off := max(from-start, 0)
		for off < int64(len(b)) && start+off < upto {
			payload, n, err := Decode(b[off:])
			if err != nil {
				// The segment's records end here; only zeros may follow
				// (Open zeroed the last segment's torn tail).
				if !allZero(b[off:]) {
					return fmt.Errorf("ingest log replay: segment %s at %d: %w", filepath.Base(l.segPath(start)), off, err)
				}
				break
			}
			off += int64(n)
			if err := fn(start+off, payload); err != nil {
				return err
			}
		}
	}
	return nil
}

// Close waits for the appends under way, then closes the files. Append
// fails with ErrClosed afterwards.
func (l *Log) Close() error {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return nil
	}
	l.closed = true
	l.mu.Unlock()
	select {
	case l.wake <- struct{}{}:
	default:
	}
	<-l.done
	close(l.quit)
	<-l.prepDone
	return l.file.Close()
}

func (l *Log) segPath(start int64) string {
	return filepath.Join(l.dir, fmt.Sprintf("%020d%s", start, segmentExt))
}

func listSegments(dir string) ([]int64, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("ingest log: %w", err)
	}
	var segs []int64
	for _, e := range ents {
		name, ok := strings.CutSuffix(e.Name(), segmentExt)
		if !ok || e.IsDir() {
			continue
		}
		n, err := strconv.ParseInt(name, 10, 64)
		if err != nil {
			continue
		}
		segs = append(segs, n)
	}
	slices.Sort(segs)
	return segs, nil
}

// The checkpoint file: the position and its CRC-32C, 12 bytes.
func readCheckpoint(path string) (int64, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("ingest log checkpoint: %w", err)
	}
	if len(b) != 12 || crc32.Checksum(b[:8], castagnoli) != binary.LittleEndian.Uint32(b[8:]) {
		return 0, fmt.Errorf("ingest log checkpoint %s is corrupt", path)
	}
	return int64(binary.LittleEndian.Uint64(b[:8])), nil
}

func writeCheckpoint(dir string, pos int64) error {
	var b [12]byte
	binary.LittleEndian.PutUint64(b[:8], uint64(pos))
	binary.LittleEndian.PutUint32(b[8:], crc32.Checksum(b[:8], castagnoli))
	tmp := filepath.Join(dir, checkpointName+".tmp")
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("ingest log checkpoint: %w", err)
	}
	_, err = f.Write(b[:])
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, filepath.Join(dir, checkpointName))
	}
	if err != nil {
		return fmt.Errorf("ingest log checkpoint: %w", err)
	}
	return syncDir(dir)
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("ingest log: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) { // Windows cannot sync a directory
		return fmt.Errorf("ingest log: sync dir: %w", err)
	}
	return nil
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}
