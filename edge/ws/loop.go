//go:build linux && !wsportable

package ws

import (
	"runtime"
	"time"

	"github.com/gobwas/ws"
	"golang.org/x/sys/unix"
)

// loop is the hub's one reader: it waits in epoll_wait (level-triggered)
// for readable sockets, the wake eventfd, or the earliest timer; reads each
// ready socket once into the shared read buffer; feeds the bytes to that
// connection's incremental parser; then runs posted commands and due timers.
//
// Level-triggered because one read per ready socket per iteration is fair
// (a flooding peer cannot starve the others, and whatever it left unread is
// reported again next time) without a ready list of our own, and because the
// write side asks for EPOLLOUT only while a write is blocked, so the extra
// epoll_ctl calls happen only on that slow path.
func (h *Hub) loop() {
	defer close(h.loopEnd)
	events := make([]unix.EpollEvent, 256)
	for !h.exit {
		ms := h.timers.nextWait(time.Now().UnixNano())
		n, err := unix.EpollWait(h.epfd, events, ms)
		h.timers.awake()
		h.now = time.Now().UnixNano()
		if err != nil && err != unix.EINTR {
			h.log.Error("ws: epoll_wait", "err", err)
			time.Sleep(10 * time.Millisecond)
		}
		for i := range max(n, 0) {
			ev := events[i]
			fd := int(ev.Fd)
			if fd == h.efd {
				var b [8]byte
				unix.Read(h.efd, b[:])
				h.wakeFlag.Store(false)
				continue
			}
			if fd >= len(h.fds) || h.fds[fd] == nil {
				continue
			}
			c := h.fds[fd]
			if ev.Events&unix.EPOLLOUT != 0 {
				h.writable(c)
			}
			if ev.Events&(unix.EPOLLIN|unix.EPOLLRDHUP|unix.EPOLLHUP|unix.EPOLLERR) != 0 {
				h.readable(c)
			}
		}
		h.runInbox()
		h.runTimers()
		if h.shuttingDown && !h.drainedDone && h.open.Load() == 0 {
			h.drainedDone = true
			close(h.drained)
		}
	}
	// Writers are stopped: whatever is left is closed here.
	for _, c := range h.fds {
		if c != nil {
			c.mu.Lock()
			for c.writing {
				// A sender's direct write (the writers have stopped): a
				// non-blocking call, about to return.
				c.mu.Unlock()
				runtime.Gosched()
				c.mu.Lock()
			}
			c.st.CompareAndSwap(0, int32(ServerShutdown))
			c.killLocked()
			c.mu.Unlock()
			h.release(c)
		}
	}
	h.closeFDs()
}

func (h *Hub) runInbox() {
	h.inMu.Lock()
	in := h.inbox
	h.inbox = h.spare[:0]
	h.inMu.Unlock()
	for _, m := range in {
		switch m.kind {
		case cmdAdd:
			h.add(m.c)
		case cmdRelease:
			h.release(m.c)
		case cmdShutdown:
			h.shuttingDown = true
			for _, c := range h.fds {
				if c != nil {
					c.closeGraceful(ServerShutdown, ws.StatusGoingAway, "server shutdown", false)
				}
			}
		case cmdForce:
			for _, c := range h.fds {
				if c != nil {
					c.kill(ServerShutdown)
				}
			}
		case cmdStop:
			h.exit = true
		}
	}
	clear(in)
	h.spare = in[:0]
}

// add registers a new connection and calls OnOpen; frames queued while it
// was prepared go out now, and a connection killed meanwhile is released
// after OnOpen (OnOpen … OnClose). If it cannot be watched, the handler
// gets OnAbort instead.
func (h *Hub) add(c *Conn) {
	for c.fd >= len(h.fds) {
		h.fds = append(h.fds, make([]*Conn, max(len(h.fds), 1024))...)
	}
	err := unix.EpollCtl(h.epfd, unix.EPOLL_CTL_ADD, c.fd, &unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLRDHUP, Fd: int32(c.fd)})
	if err != nil {
		h.log.Error("ws: epoll add", "err", err)
		unix.Close(c.fd)
		h.open.Add(-1)
		h.abandon(c, err)
		return
	}
	h.fds[c.fd] = c
	c.lastRead = h.now
	if c.opt.idleTimeout > 0 {
		h.timers.set(&c.tIdle, h.now+c.opt.idleTimeout)
	}
	if c.opt.pingInterval > 0 {
		h.timers.set(&c.tPing, h.now+c.opt.pingInterval)
	}
	c.mu.Lock()
	c.adopting = false
	dead := c.dead
	sched := !dead && c.q != nil && c.scheduleLocked()
	c.mu.Unlock()
	if sched {
		h.runq.push(c)
	}
	h.callOpen(c)
	if dead {
		h.release(c)
		return
	}
	if h.shuttingDown {
		c.closeGraceful(ServerShutdown, ws.StatusGoingAway, "server shutdown", false)
	}
	if pre := c.pre; len(pre) > 0 {
		c.pre = nil
		h.feed(c, pre)
	}
}

// release closes the socket and reports OnClose; once, on the loop, when no
// writer is inside a system call on the descriptor (so the number cannot be
// reused under it).
func (h *Hub) release(c *Conn) {
	c.mu.Lock()
	if c.released {
		c.mu.Unlock()
		return
	}
	if c.writing {
		c.releasePosted = false // the writer posts again when it leaves
		c.mu.Unlock()
		return
	}
	c.released = true
	c.dead = true
	if c.q != nil {
		putQueue(c.q)
		c.q = nil
	}
	c.pending = nil
	c.mu.Unlock()

	h.timers.closeConn(c)
	if c.fd < len(h.fds) && h.fds[c.fd] == c {
		unix.EpollCtl(h.epfd, unix.EPOLL_CTL_DEL, c.fd, nil)
		h.fds[c.fd] = nil
	}
	unix.Close(c.fd)
	c.p.reset()
	c.rate = nil
	h.open.Add(-1)
	h.stats.closed.Add(1)
	h.callClose(c, ClosedState(c.st.Load()))
}

// readable reads once from c into the shared buffer.
func (h *Hub) readable(c *Conn) {
	n, err := unix.Read(c.fd, h.rbuf)
	if n > 0 {
		h.stats.readCalls.Add(1)
		c.lastRead = h.now
		h.feed(c, h.rbuf[:n])
		return
	}
	switch err {
	case unix.EAGAIN, unix.EINTR:
		return
	case nil: // EOF
		h.eof(c)
	case unix.ECONNRESET:
		c.kill(ClientClosed)
	default:
		c.kill(TransportError)
	}
}

func (h *Hub) feed(c *Conn, b []byte) {
	if c.p.stop {
		return
	}
	if err := c.p.feed(b, c, c.opt.readLimit, c.opt.maxFrame); err != nil {
		c.fail(err)
	}
}

// eof: the peer shut its side.
func (h *Hub) eof(c *Conn) {
	c.mu.Lock()
	c.readEOF = true
	var post bool
	switch {
	case c.dead:
	case c.st.Load() == 0 || c.closeSent || !c.closeQueued:
		c.st.CompareAndSwap(0, int32(ClientClosed))
		post = c.killLocked()
	default:
		// Our close frame is still queued: stop reading, let it go out.
		unix.EpollCtl(h.epfd, unix.EPOLL_CTL_MOD, c.fd, &unix.EpollEvent{Events: c.interestLocked(), Fd: int32(c.fd)})
	}
	c.mu.Unlock()
	if post {
		h.post(cmd{kind: cmdRelease, c: c})
	}
}

// writable: a blocked write may continue.
func (h *Hub) writable(c *Conn) {
	c.mu.Lock()
	var sched bool
	if c.blocked && !c.dead {
		c.blocked = false
		unix.EpollCtl(h.epfd, unix.EPOLL_CTL_MOD, c.fd, &unix.EpollEvent{Events: c.interestLocked(), Fd: int32(c.fd)})
		h.timers.stop(&c.tWrite)
		sched = c.scheduleLocked()
	}
	c.mu.Unlock()
	if sched {
		h.runq.push(c)
	}
}

func (h *Hub) runTimers() {
	now := time.Now().UnixNano()
	h.due = h.timers.due(now, h.due[:0])
	for i, t := range h.due {
		h.due[i] = nil
		h.fire(t, now)
	}
}

func (h *Hub) fire(t *timer, now int64) {
	c := t.c
	if c.released {
		return
	}
	switch t.kind {
	case tkUser:
		h.callTimer(c, t.f)
	case tkIdle:
		if next := c.lastRead + c.opt.idleTimeout; next > now {
			h.timers.set(t, next)
			return
		}
		c.closeGraceful(ReadTimeout, ws.StatusGoingAway, "idle timeout", true)
	case tkPing:
		if c.st.Load() != 0 {
			return
		}
		c.pingSent = now
		c.enqueue(outFrame{op: ws.OpPing})
		if !h.timers.armed(&c.tPong) {
			c.pingWait = now
			h.timers.set(&c.tPong, now+c.opt.pongTimeout)
		}
		h.timers.set(t, now+c.opt.pingInterval)
	case tkPong:
		// Any pong after the watched ping answers it. A ping that came due
		// in the same pass as this timer re-armed it for itself: not late.
		if c.lastPong < c.pingWait && now < c.pingWait+c.opt.pongTimeout {
			return
		}
		if c.lastPong < c.pingWait {
			c.closeGraceful(PongTimeout, ws.StatusGoingAway, "pong timeout", true)
			return
		}
		if c.lastPong < c.pingSent { // a later ping is still unanswered
			c.pingWait = c.pingSent
			h.timers.set(t, c.pingSent+c.opt.pongTimeout)
		}
	case tkWrite:
		c.mu.Lock()
		blocked := c.blocked
		c.mu.Unlock()
		if blocked {
			c.kill(WriteTimeout)
		}
	case tkLinger:
		c.kill(ClientClosed)
	}
}
