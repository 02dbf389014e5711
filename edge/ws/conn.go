//go:build linux && !wsportable

package ws

import (
	"encoding/binary"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"

	"github.com/gobwas/ws"
	"golang.org/x/sys/unix"
)

// Conn is one WebSocket connection. Its methods are safe for concurrent use.
// While idle it holds no buffer: the write queue, a partial write and a
// partial inbound message are borrowed from pools only while they exist.
type Conn struct {
	// The first 56 bytes are what a Send and a writer's turn touch: a
	// fan-out reaches a thousand connections whose memory is cold, and
	// each cache line it touches is a miss per delivery (issue 16). A Conn
	// (576-byte size class) starts 8 bytes past a cache line (the
	// allocator's header), so these share one line and pending's pointer
	// starts the next: two lines per delivery where there were three or
	// four. TestConnHotLine keeps them there.
	hub *Hub
	mu  sync.Mutex
	q   *queue // frames waiting; nil when empty; under mu
	fd  int
	// flags under mu
	adopting      bool // prepared, not yet in the loop: nothing is written
	scheduled     bool // in the writer run queue or being drained
	writing       bool // a writer is in a system call on fd
	blocked       bool // last write hit EAGAIN; waiting for EPOLLOUT
	closeQueued   bool // our close frame is queued; Send refused
	closeSent     bool // our close frame is written
	peerClosed    bool // the peer's close frame was read
	readEOF       bool // the peer shut its side
	dead          bool // no more I/O: release pending
	releasePosted bool
	released      bool
	batched       bool  // a writer's last turn found more than one frame queued (direct.go)
	class         uint8 // opt.class, beside what a write touches
	lastWrite     int64 // latency.Now of the last write, direct or a writer's (direct.go); 0: never; under mu
	// pending is the unwritten tail of a partial write (slow path; under
	// mu): a Send reads whether it is nil, its first word.
	pending []byte

	handler Handler
	remote  net.Addr
	id      uint64
	opt     connOpts

	st atomic.Int32 // ClosedState; 0 while open

	// loop goroutine only
	p        parser
	lastRead int64
	pingSent int64 // last ping
	pingWait int64 // the ping the pong timer watches
	lastPong int64
	rate     *rateLog
	pre      []byte

	// under hub.timers.mu
	tIdle, tPing, tPong, tWrite, tLinger timer
	utimers                              []*Timer
	tclosed                              bool
}

func newConn(h *Hub, fd int, handler Handler, o connOpts, remote net.Addr) *Conn {
	c := &Conn{hub: h, handler: handler, remote: remote, fd: fd, opt: o, class: o.class}
	c.id = h.nextID.Add(1)
	for _, t := range [...]struct {
		t *timer
		k timerKind
	}{{&c.tIdle, tkIdle}, {&c.tPing, tkPing}, {&c.tPong, tkPong}, {&c.tWrite, tkWrite}, {&c.tLinger, tkLinger}} {
		*t.t = timer{idx: -1, kind: t.k, c: c}
	}
	return c
}

// ID is unique within the hub.
func (c *Conn) ID() uint64 { return c.id }

// RemoteAddr is the peer's address as the listener saw it.
func (c *Conn) RemoteAddr() net.Addr { return c.remote }

// RemoteIP is the peer's IP (for IP blocking); invalid if unknown.
func (c *Conn) RemoteIP() netip.Addr {
	if a, ok := c.remote.(*net.TCPAddr); ok {
		ip, _ := netip.AddrFromSlice(a.IP)
		return ip.Unmap()
	}
	return netip.Addr{}
}

// Closed reports whether the connection is closing or closed, and why.
func (c *Conn) Closed() (ClosedState, bool) {
	s := ClosedState(c.st.Load())
	return s, s != stateOpen
}

// Queued is the number of frames waiting to be written.
func (c *Conn) Queued() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.q == nil {
		return 0
	}
	return len(c.q.f)
}

func (c *Conn) enqueue(f outFrame) bool {
	c.mu.Lock()
	if c.closeQueued || c.dead {
		c.mu.Unlock()
		return false
	}
	if c.tryDirectLocked(f) {
		c.mu.Unlock()
		c.writeDirect(f)
		return true
	}
	if c.q == nil {
		c.q = getQueue()
	} else if len(c.q.f) >= int(c.opt.queueLen) {
		c.mu.Unlock()
		c.hub.stats.slowConsumers.Add(1)
		c.kill(SlowConsumer)
		return false
	}
	c.q.f = append(c.q.f, f)
	sched := c.scheduleLocked()
	c.mu.Unlock()
	if sched {
		c.hub.runq.push(c)
	}
	return true
}

// scheduleLocked reports whether the caller must put c on the run queue.
func (c *Conn) scheduleLocked() bool {
	if c.scheduled || c.blocked || c.dead || c.adopting {
		return false
	}
	c.scheduled = true
	return true
}

// Close sends a close frame with code and reason after the frames already
// queued, then closes the socket (PolicyClosed). Later Sends return false.
func (c *Conn) Close(code ws.StatusCode, reason string) {
	c.closeGraceful(PolicyClosed, code, reason, false)
}

// CloseNow drops the queue and closes the socket without a close frame
// (PolicyClosed).
func (c *Conn) CloseNow() { c.kill(PolicyClosed) }

// closeGraceful queues a close frame; the first close wins. drop discards
// frames still queued (not a partly written one).
func (c *Conn) closeGraceful(state ClosedState, code ws.StatusCode, reason string, drop bool) {
	payload := closePayload(code, reason)
	c.mu.Lock()
	if c.dead || c.closeQueued || c.st.Load() != 0 {
		c.mu.Unlock()
		return
	}
	c.st.Store(int32(state))
	c.queueCloseLocked(payload, drop)
	sched := c.scheduleLocked()
	c.mu.Unlock()
	if sched {
		c.hub.runq.push(c)
	}
}

func (c *Conn) queueCloseLocked(payload []byte, drop bool) {
	if c.q == nil {
		c.q = getQueue()
	} else if drop {
		clear(c.q.f)
		c.q.f = c.q.f[:0]
	}
	c.q.f = append(c.q.f, outFrame{op: ws.OpClose, p: payload})
	c.closeQueued = true
}

// kill ends all I/O now: the queue is dropped and the socket closed by the
// loop as soon as no writer is inside a system call on it.
func (c *Conn) kill(state ClosedState) {
	c.mu.Lock()
	c.st.CompareAndSwap(0, int32(state))
	post := c.killLocked()
	c.mu.Unlock()
	if post {
		c.hub.post(cmd{kind: cmdRelease, c: c})
	}
}

func (c *Conn) killLocked() (post bool) {
	if c.dead {
		return false
	}
	c.dead = true
	if c.q != nil {
		putQueue(c.q)
		c.q = nil
	}
	c.pending = nil
	return c.releaseLocked()
}

// releaseLocked reports whether the caller must post the release; a writer
// inside a system call posts it when it leaves, and the loop releases a
// connection killed while adopting once it adds it.
func (c *Conn) releaseLocked() bool {
	if c.writing || c.releasePosted || c.released || c.adopting {
		return false
	}
	c.releasePosted = true
	return true
}

// interestLocked is the epoll event mask c needs now.
func (c *Conn) interestLocked() uint32 {
	var ev uint32
	if !c.readEOF {
		ev |= unix.EPOLLIN | unix.EPOLLRDHUP
	}
	if c.blocked {
		ev |= unix.EPOLLOUT
	}
	return ev
}

// --- inbound, on the loop goroutine (frameSink) ---

func (c *Conn) frameStart() bool {
	if c.opt.maxFrames > 0 && c.st.Load() == 0 {
		if c.rate == nil {
			c.rate = &rateLog{t: make([]int64, c.opt.maxFrames)}
		}
		if !c.rate.allow(c.hub.now, c.opt.frameWindow) {
			// Keep parsing: data is dropped from now on, and the peer's
			// close frame ends the handshake early.
			c.closeGraceful(RateLimited, ws.StatusPolicyViolation, "rate limit", true)
		}
	}
	return true
}

func (c *Conn) message(op ws.OpCode, p []byte) bool {
	if c.st.Load() != 0 {
		return true // closing: drop data, keep reading for the peer's close
	}
	c.hub.callMessage(c, op, p)
	return true
}

func (c *Conn) control(op ws.OpCode, p []byte) bool {
	switch op {
	case ws.OpPing:
		if c.st.Load() == 0 {
			c.enqueue(outFrame{op: ws.OpPong, p: append([]byte(nil), p...)})
		}
	case ws.OpPong:
		c.lastPong = c.hub.now
	case ws.OpClose:
		c.peerClose(p)
	}
	return true
}

// peerClose answers the peer's close frame with its code (1000 when it sent
// none), or finishes a close handshake we started.
func (c *Conn) peerClose(p []byte) {
	code := ws.StatusNormalClosure
	if len(p) >= 2 {
		code = ws.StatusCode(binary.BigEndian.Uint16(p))
	}
	c.mu.Lock()
	c.peerClosed = true
	var post, sched bool
	switch {
	case c.dead:
	case c.st.Load() == 0:
		c.st.Store(int32(ClientClosed))
		c.queueCloseLocked(closePayload(code, ""), true)
		sched = c.scheduleLocked()
	case c.closeSent:
		post = c.killLocked()
	}
	c.mu.Unlock()
	if sched {
		c.hub.runq.push(c)
	}
	if post {
		c.hub.post(cmd{kind: cmdRelease, c: c})
	}
}

// fail closes the connection for a protocol or limit violation.
func (c *Conn) fail(err error) {
	ce, ok := err.(*closeError)
	if !ok {
		c.kill(InternalError)
		return
	}
	c.closeGraceful(ce.state, ce.code, ce.reason, true)
}
