//go:build !linux || wsportable

package ws

import (
	"encoding/binary"
	"errors"
	"io"
	"net"
	"net/netip"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/gobwas/ws"
)

// portableReadBuffer is each connection's read buffer.
const portableReadBuffer = 4 << 10

// Conn is one WebSocket connection. Its methods are safe for concurrent use.
//
// Goroutines: the reader (the upgrade's hijack goroutine) reads the socket
// and feeds the parser under the hub's loop lock; the writer drains the
// queue. mu guards the queue and the flags; the loop lock guards the
// parser and the liveness fields; tmu guards the timers. Lock order: loop,
// then mu or tmu.
type Conn struct {
	hub     *Hub
	handler Handler
	remote  net.Addr
	id      uint64
	opt     connOpts
	nc      net.Conn // the hijacked conn: reads see what fasthttp buffered first
	raw     net.Conn // the socket under it: closing it ends every read and write
	shard   *deliveries

	st atomic.Int32 // ClosedState; 0 while open

	mu          sync.Mutex
	q           *queue // frames waiting; nil when empty
	adopting    bool   // prepared, not yet open: nothing is written
	closeQueued bool   // our close frame is queued; Send refused
	closeSent   bool
	peerClosed  bool
	readEOF     bool
	dead        bool // no more I/O
	wake        chan struct{}
	writerDone  chan struct{}

	// under the hub's loop lock
	p        parser
	rate     *rateLog
	now      int64 // time of the read being parsed
	lastRead atomic.Int64
	pingSent int64
	pingWait int64
	lastPong int64

	tmu     sync.Mutex
	timers  map[*Timer]struct{} // armed
	tclosed bool
	tIdle   *Timer
	tPing   *Timer
	tPong   *Timer
}

func newConn(h *Hub, nc, raw net.Conn, handler Handler, o connOpts, remote net.Addr) *Conn {
	c := &Conn{hub: h, handler: handler, remote: remote, opt: o, nc: nc, raw: raw,
		wake: make(chan struct{}, 1), writerDone: make(chan struct{}), timers: map[*Timer]struct{}{}}
	c.id = h.nextID.Add(1)
	c.shard = h.shards[c.id%uint64(len(h.shards))]
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
	if c.q == nil {
		c.q = getQueue()
	} else if len(c.q.f) >= int(c.opt.queueLen) {
		c.mu.Unlock()
		c.hub.stats.slowConsumers.Add(1)
		c.kill(SlowConsumer)
		return false
	}
	c.q.f = append(c.q.f, f)
	c.mu.Unlock()
	c.signal()
	return true
}

// signal wakes the writer.
func (c *Conn) signal() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// Close sends a close frame with code and reason after the frames already
// queued, then closes the socket (PolicyClosed).
func (c *Conn) Close(code ws.StatusCode, reason string) {
	c.closeGraceful(PolicyClosed, code, reason, false)
}

// CloseNow drops the queue and closes the socket without a close frame.
func (c *Conn) CloseNow() { c.kill(PolicyClosed) }

// closeGraceful queues a close frame; the first close wins. drop discards
// the frames still queued.
func (c *Conn) closeGraceful(state ClosedState, code ws.StatusCode, reason string, drop bool) {
	payload := closePayload(code, reason)
	c.mu.Lock()
	if c.dead || c.closeQueued || c.st.Load() != 0 {
		c.mu.Unlock()
		return
	}
	c.st.Store(int32(state))
	c.queueCloseLocked(payload, drop)
	c.mu.Unlock()
	c.signal()
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

// kill ends all I/O now: the queue is dropped and the socket closed (once
// the connection is open; one killed while it is prepared opens and closes
// at once).
func (c *Conn) kill(state ClosedState) {
	c.mu.Lock()
	c.st.CompareAndSwap(0, int32(state))
	if c.dead {
		c.mu.Unlock()
		return
	}
	c.dead = true
	if c.q != nil {
		putQueue(c.q)
		c.q = nil
	}
	adopting := c.adopting
	c.mu.Unlock()
	if !adopting {
		_ = c.raw.Close()
	}
	c.signal()
}

// --- the writer ---

func (c *Conn) writeLoop() {
	h := c.hub
	defer h.wg.Done()
	defer close(c.writerDone)
	var buf []byte
	for range c.wake {
		c.mu.Lock()
		if c.dead {
			c.mu.Unlock()
			return
		}
		if c.adopting || c.q == nil || len(c.q.f) == 0 {
			c.mu.Unlock()
			continue
		}
		q := c.q
		c.q = nil
		c.mu.Unlock()

		buf = buf[:0]
		n, sawClose := 0, false
		for _, f := range q.f {
			buf = appendHeader(buf, f.op, len(f.p))
			buf = append(buf, f.p...)
			n++
			if f.op == ws.OpClose {
				sawClose = true // nothing goes after a close frame
				break
			}
		}
		_ = c.raw.SetWriteDeadline(time.Now().Add(time.Duration(c.opt.writeTimeout)))
		written, err := c.nc.Write(buf)
		h.stats.writeCalls.Add(1)
		h.stats.bytesWritten.Add(uint64(written))
		if err == nil {
			h.stats.framesWritten.Add(uint64(n))
			c.shard.account(c.opt.class, q.f[:n])
		}
		putQueue(q)
		if cap(buf) > 256<<10 {
			buf = nil // a big batch once is no reason to hold its buffer
		}
		if err != nil {
			c.kill(writeState(err))
			return
		}
		if sawClose {
			c.closeWritten()
			return
		}
	}
}

// closeWritten: our close frame is out. Once the peer's close or FIN is in
// too the socket closes; otherwise our side is shut (FIN) and the peer gets
// LingerTimeout to close, so that unread bytes do not turn our FIN into a
// reset that loses the close frame.
func (c *Conn) closeWritten() {
	c.mu.Lock()
	c.closeSent = true
	done := c.readEOF || c.peerClosed
	c.mu.Unlock()
	if done {
		c.kill(ClientClosed)
		return
	}
	if cw, ok := c.raw.(interface{ CloseWrite() error }); ok {
		_ = cw.CloseWrite()
	}
	c.after(c.hub.cfg.LingerTimeout, func() { c.kill(ClientClosed) })
}

// writeState is the close state of a failed write.
func writeState(err error) ClosedState {
	var ne net.Error
	switch {
	case errors.As(err, &ne) && ne.Timeout(), errors.Is(err, os.ErrDeadlineExceeded):
		return WriteTimeout
	case errors.Is(err, syscall.EPIPE), errors.Is(err, syscall.ECONNRESET), errors.Is(err, net.ErrClosed):
		return ClientClosed
	}
	return TransportError
}

// --- the reader ---

func (c *Conn) readLoop() {
	h := c.hub
	buf := make([]byte, portableReadBuffer)
	for {
		n, err := c.nc.Read(buf)
		if n > 0 {
			h.stats.readCalls.Add(1)
			h.loop.Lock()
			c.now = time.Now().UnixNano()
			c.lastRead.Store(c.now)
			if !c.p.stop {
				if perr := c.p.feed(buf[:n], c, c.opt.readLimit, c.opt.maxFrame); perr != nil {
					c.fail(perr)
				}
			}
			h.loop.Unlock()
		}
		switch {
		case err == nil:
			continue
		case errors.Is(err, io.EOF):
			c.eof()
		case errors.Is(err, syscall.ECONNRESET):
			c.kill(ClientClosed)
		default:
			c.kill(TransportError) // or already killed: the first state stays
		}
		return
	}
}

// eof: the peer shut its side.
func (c *Conn) eof() {
	c.mu.Lock()
	c.readEOF = true
	kill := !c.dead && (c.st.Load() == 0 || c.closeSent || !c.closeQueued)
	c.mu.Unlock()
	if kill {
		c.kill(ClientClosed)
	} // else our close frame is on its way; the writer closes after it
}

// frameSink, under the loop lock.

func (c *Conn) frameStart() bool {
	if c.opt.maxFrames > 0 && c.st.Load() == 0 {
		if c.rate == nil {
			c.rate = &rateLog{t: make([]int64, c.opt.maxFrames)}
		}
		if !c.rate.allow(c.now, c.opt.frameWindow) {
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
		c.lastPong = c.now
	case ws.OpClose:
		c.peerClose(p)
	}
	return true
}

// peerClose answers the peer's close frame with its code, or finishes a
// close handshake we started.
func (c *Conn) peerClose(p []byte) {
	code := ws.StatusNormalClosure
	if len(p) >= 2 {
		code = ws.StatusCode(binary.BigEndian.Uint16(p))
	}
	c.mu.Lock()
	c.peerClosed = true
	var kill, wake bool
	switch {
	case c.dead:
	case c.st.Load() == 0:
		c.st.Store(int32(ClientClosed))
		c.queueCloseLocked(closePayload(code, ""), true)
		wake = true
	case c.closeSent:
		kill = true
	}
	c.mu.Unlock()
	if wake {
		c.signal()
	}
	if kill {
		c.kill(ClientClosed)
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

// --- liveness, under the loop lock ---

// startTimers arms the idle and ping timers of a connection just opened.
func (c *Conn) startTimers() {
	if c.opt.idleTimeout > 0 {
		c.tIdle = c.after(time.Duration(c.opt.idleTimeout), c.idle)
	}
	if c.opt.pingInterval > 0 {
		c.tPing = c.after(time.Duration(c.opt.pingInterval), c.ping)
	}
}

func (c *Conn) idle() {
	now := time.Now().UnixNano()
	if next := c.lastRead.Load() + c.opt.idleTimeout; next > now {
		c.tIdle.Reset(time.Duration(next - now))
		return
	}
	c.closeGraceful(ReadTimeout, ws.StatusGoingAway, "idle timeout", true)
}

func (c *Conn) ping() {
	if c.st.Load() != 0 {
		return
	}
	now := time.Now().UnixNano()
	c.pingSent = now
	c.enqueue(outFrame{op: ws.OpPing})
	if c.tPong == nil || !c.tPong.armed() {
		c.pingWait = now
		c.tPong = c.after(time.Duration(c.opt.pongTimeout), c.pong)
	}
	c.tPing.Reset(time.Duration(c.opt.pingInterval))
}

func (c *Conn) pong() {
	// Any pong after the watched ping answers it.
	if c.lastPong < c.pingWait {
		c.closeGraceful(PongTimeout, ws.StatusGoingAway, "pong timeout", true)
		return
	}
	if c.lastPong < c.pingSent { // a later ping is still unanswered
		c.pingWait = c.pingSent
		c.tPong.Reset(time.Duration(c.pingSent + c.opt.pongTimeout - time.Now().UnixNano()))
	}
}
