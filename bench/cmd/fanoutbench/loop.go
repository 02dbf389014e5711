//go:build linux

package main

import (
	"bytes"
	"sync"
	"sync/atomic"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"golang.org/x/sys/unix"
)

// seqMarker precedes the sequence number in every bench post's text.
var seqMarker = []byte("fbseq")

const (
	heartbeatEvery = 30 * time.Second
	maxLatencyUs   = 60_000_000 // histogram ceiling: 60 s
)

// cconn is one client socket owned by a loop.
type cconn struct {
	fd       int
	partial  []byte // a frame split over reads; nil otherwise
	nextBeat int64  // recorder ns of the next HEARTBEAT
	closed   bool
	extra    bool // an idle-phase session, closed before the fan-out runs
	node     int  // -cluster: the node (of its group) the session is logged in to
}

// runStats are one loop's figures for one run; merged by the main goroutine.
type runStats struct {
	hist      *hdrhistogram.Histogram
	perSecond []*hdrhistogram.Histogram // by second since the run's start
	delivered int64
	bytes     int64 // EVENT payload bytes of the deliveries
	// split (-cluster, more than one node): latencies of the sessions on
	// the node that ingested the post [0] and on the other nodes [1].
	split [2]*hdrhistogram.Histogram
}

// loop is one epoll instance reading its share of the client sockets. A few
// loops (one goroutine each) carry every socket of the bench.
type loop struct {
	epfd int
	rec  *recorder
	fds  []atomic.Pointer[cconn] // shared by all loops, indexed by descriptor
	buf  []byte
	hb   []byte
	rng  uint32
	// nap (ns) is a pause after each batch of events, so that frames
	// arriving meanwhile are read in one batch instead of each waking the
	// loop (on loopback the server pays for those wake-ups).
	nap atomic.Int64
	// nodes (-cluster; set before run) is the number of nodes sessions are
	// spread over: post seq is ingested on node seq % nodes (poster).
	nodes int

	mu         sync.Mutex // held while handling a batch of events; guards what follows
	conns      []*cconn
	runs       []*runStats
	runStartNs []int64 // recorder ns of each run's start (set by the main goroutine)
	acks       int64
	disconnect int64
	serverEnds int64 // sockets the server closed (close frame or EOF)
	firstError string
	stopped    bool
}

func newLoop(rec *recorder, fds []atomic.Pointer[cconn], seed uint32) (*loop, error) {
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, err
	}
	return &loop{epfd: epfd, rec: rec, fds: fds, buf: make([]byte, 256<<10), rng: seed | 1}, nil
}

// add registers a logged-in session; rest are bytes read past READY.
func (l *loop) add(s *session, extra bool) error {
	c := &cconn{fd: s.fd, extra: extra, node: s.node, nextBeat: l.rec.now() + int64(time.Duration(l.rand()%30_000)*time.Millisecond)}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.fds[c.fd].Store(c)
	l.conns = append(l.conns, c)
	if err := unix.EpollCtl(l.epfd, unix.EPOLL_CTL_ADD, c.fd, &unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLRDHUP, Fd: int32(c.fd)}); err != nil {
		l.closeLocked(c)
		return err
	}
	if len(s.rest) > 0 {
		l.consume(c, s.rest, l.rec.now())
	}
	return nil
}

func (l *loop) rand() uint32 { // xorshift32: masking keys and jitter
	x := l.rng
	x ^= x << 13
	x ^= x >> 17
	x ^= x << 5
	l.rng = x
	return x
}

// run reads until stop.
func (l *loop) run() {
	events := make([]unix.EpollEvent, 512)
	nextCheck := int64(0)
	for {
		n, err := unix.EpollWait(l.epfd, events, 100)
		l.mu.Lock()
		if l.stopped {
			l.mu.Unlock()
			return
		}
		if err != nil && err != unix.EINTR {
			l.fail("epoll_wait: " + err.Error())
		}
		for i := range max(n, 0) {
			if c := l.fds[events[i].Fd].Load(); c != nil && !c.closed {
				l.readable(c)
			}
		}
		if now := l.rec.now(); now >= nextCheck {
			l.heartbeats(now)
			nextCheck = now + int64(100*time.Millisecond)
		}
		l.mu.Unlock()
		if nap := l.nap.Load(); n > 0 && nap > 0 {
			time.Sleep(time.Duration(nap))
		}
	}
}

// stop ends run and closes every socket.
func (l *loop) stop() {
	l.mu.Lock()
	l.stopped = true
	for _, c := range l.conns {
		l.closeLocked(c)
	}
	l.mu.Unlock()
	unix.Close(l.epfd)
}

func (l *loop) readable(c *cconn) {
	n, err := unix.Read(c.fd, l.buf)
	now := l.rec.now()
	switch {
	case n > 0:
		l.consume(c, l.buf[:n], now)
	case err == unix.EAGAIN || err == unix.EINTR:
	default: // EOF or error: the server dropped us
		l.serverEnds++
		if err != nil {
			l.fail("read: " + err.Error())
		}
		l.closeLocked(c)
	}
}

// consume parses whole frames out of data (after any partial frame), keeping
// an incomplete tail for the next read.
func (l *loop) consume(c *cconn, data []byte, now int64) {
	if c.partial != nil {
		c.partial = append(c.partial, data...)
		data = c.partial
	}
	for len(data) > 0 {
		op, p, n, err := parseFrame(data)
		if err != nil {
			l.fail(err.Error())
			l.closeLocked(c)
			return
		}
		if n == 0 {
			break
		}
		l.frame(c, op, p, now)
		if c.closed {
			return
		}
		data = data[n:]
	}
	switch {
	case len(data) == 0:
		c.partial = nil
	case c.partial != nil:
		c.partial = append(c.partial[:0], data...) // overlapping copy to the front is fine
	default:
		c.partial = append(make([]byte, 0, 2*len(data)), data...)
	}
}

func (l *loop) frame(c *cconn, op byte, p []byte, now int64) {
	switch op {
	case opText:
		switch {
		case bytes.HasPrefix(p, []byte(`{"op":0`)):
			l.event(c, p, now)
		case bytes.HasPrefix(p, []byte(`{"op":11`)):
			l.acks++
		case bytes.HasPrefix(p, []byte(`{"op":3`)):
			l.disconnect++
			l.fail("DISCONNECT: " + string(p))
		}
	case opPing:
		l.write(c, appendMasked(l.hb[:0], opPong, p, l.rand()))
	case opClose:
		l.serverEnds++
		l.closeLocked(c)
	}
}

// event records one EVENT frame of a bench post.
func (l *loop) event(c *cconn, p []byte, now int64) {
	i := bytes.Index(p, seqMarker)
	if i < 0 {
		return // not a bench post (no other events are expected)
	}
	seq := 0
	for _, b := range p[i+len(seqMarker):] {
		if b < '0' || b > '9' {
			break
		}
		seq = seq*10 + int(b-'0')
	}
	run, lat, ok := l.rec.arrival(seq, now)
	if !ok {
		return
	}
	rs := l.runStats(run)
	us := max(lat/1000, 1)
	_ = rs.hist.RecordValue(min(us, maxLatencyUs))
	if run < len(l.runStartNs) {
		sec := int((now - l.runStartNs[run]) / int64(time.Second))
		if sec >= 0 && sec < 3600 {
			for len(rs.perSecond) <= sec {
				rs.perSecond = append(rs.perSecond, hdrhistogram.New(1, maxLatencyUs, 2))
			}
			_ = rs.perSecond[sec].RecordValue(min(us, maxLatencyUs))
		}
	}
	if l.nodes > 1 {
		k := 0
		if c.node != seq%l.nodes {
			k = 1
		}
		if rs.split[k] == nil {
			rs.split[k] = hdrhistogram.New(1, maxLatencyUs, 3)
		}
		_ = rs.split[k].RecordValue(min(us, maxLatencyUs))
	}
	rs.delivered++
	rs.bytes += int64(len(p))
}

func (l *loop) runStats(run int) *runStats {
	for len(l.runs) <= run {
		l.runs = append(l.runs, &runStats{hist: hdrhistogram.New(1, maxLatencyUs, 3)})
	}
	return l.runs[run]
}

// startRun tells the loop when run began (for the per-second series).
func (l *loop) startRun(run int, at int64) {
	l.mu.Lock()
	for len(l.runStartNs) <= run {
		l.runStartNs = append(l.runStartNs, 0)
	}
	l.runStartNs[run] = at
	l.mu.Unlock()
}

// heartbeats sends HEARTBEAT on every socket that is due.
func (l *loop) heartbeats(now int64) {
	for _, c := range l.conns {
		if !c.closed && now >= c.nextBeat {
			l.write(c, appendMasked(l.hb[:0], opText, []byte(`{"op":1}`), l.rand()))
			c.nextBeat = now + int64(heartbeatEvery)
		}
	}
}

// write sends a small frame; the socket's buffer is never full of our few
// bytes, so a short write is reported, not retried.
func (l *loop) write(c *cconn, frame []byte) {
	l.hb = frame
	n, err := unix.Write(c.fd, frame)
	if err != nil || n != len(frame) {
		l.fail("short client write")
	}
}

func (l *loop) closeLocked(c *cconn) {
	if c.closed {
		return
	}
	c.closed = true
	c.partial = nil
	l.fds[c.fd].Store(nil)
	unix.Close(c.fd)
}

// closeExtra closes the idle-phase sessions; it returns how many.
func (l *loop) closeExtra() int { return l.closeWhere(func(c *cconn) bool { return c.extra }) }

// closeAll closes every session (the floor comparison moves them between
// servers); it returns how many were open.
func (l *loop) closeAll() int { return l.closeWhere(func(*cconn) bool { return true }) }

func (l *loop) closeWhere(drop func(*cconn) bool) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	keep := l.conns[:0]
	for _, c := range l.conns {
		if c.closed {
			continue
		}
		if drop(c) {
			l.closeLocked(c)
			n++
			continue
		}
		keep = append(keep, c)
	}
	clear(l.conns[len(keep):])
	l.conns = keep
	return n
}

func (l *loop) fail(msg string) {
	if l.firstError == "" {
		l.firstError = msg
	}
}

// open counts the sockets still open.
func (l *loop) open() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, c := range l.conns {
		if !c.closed {
			n++
		}
	}
	return n
}
