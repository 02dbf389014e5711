//go:build !linux || wsportable

package ws

import (
	"net"
	"time"
)

// adopt runs one connection on the hijack goroutine: prepare, admit, the
// 101, OnOpen, then the reads until the socket ends, then OnClose.
func (h *Hub) adopt(nc net.Conn, accept string, handler Handler, o connOpts, remote net.Addr) {
	// Closing the hijacked conn is a no-op unless Server.KeepHijackedConns
	// is set, in which case this is the one close of fasthttp's wrapper
	// (and the per-IP count's release); otherwise fasthttp closes it when
	// this returns.
	defer nc.Close()
	c := newConn(h, nc, unwrapConn(nc), handler, o, remote)
	c.adopting = true
	if p, ok := handler.(Preparer); ok && !h.callPrepare(p, c) {
		h.abandon(c, ErrPreparePanicked)
		return
	}
	if !h.admit(c) {
		h.abandon(c, ErrHubClosed)
		return
	}
	defer h.wg.Done() // admit counted this goroutine
	if h.beforeTakeOver != nil {
		h.beforeTakeOver(nc)
	}
	if err := writeAccept(nc, accept, time.Duration(o.writeTimeout)); err != nil {
		h.log.Debug("ws: upgrade failed", "remote", remote, "err", err)
		h.forget(c)
		h.abandon(c, err)
		return
	}
	h.stats.accepted.Add(1)
	h.wg.Add(1)
	go c.writeLoop()

	h.loop.Lock()
	c.mu.Lock()
	c.adopting = false
	dead := c.dead
	c.mu.Unlock()
	c.lastRead.Store(time.Now().UnixNano())
	if !dead {
		c.startTimers()
	}
	h.callOpen(c)
	h.loop.Unlock()

	if dead {
		_ = c.raw.Close() // killed while prepared: open, then close at once
	} else {
		c.signal() // frames queued while prepared follow the 101
		c.readLoop()
	}
	// The reads ended: the connection is dead, or its close frame is on its
	// way and the writer closes after it.
	<-c.writerDone
	h.release(c)
}

// writeAccept writes the 101 answer and clears the deadlines fasthttp or a
// test left on the socket.
func writeAccept(nc net.Conn, accept string, wto time.Duration) error {
	resp := make([]byte, 0, 160)
	resp = append(resp, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: "...)
	resp = append(resp, accept...)
	resp = append(resp, "\r\n\r\n"...)
	if err := nc.SetWriteDeadline(time.Now().Add(wto)); err != nil {
		return err
	}
	if _, err := nc.Write(resp); err != nil {
		return err
	}
	return nc.SetReadDeadline(time.Time{})
}

// abandon drops a connection that never opened and tells its handler.
func (h *Hub) abandon(c *Conn, err error) {
	c.mu.Lock()
	c.st.CompareAndSwap(0, int32(ServerShutdown))
	c.dead = true
	if c.q != nil {
		putQueue(c.q)
		c.q = nil
	}
	c.mu.Unlock()
	h.callAbort(c.handler, err)
}

// release reports the close, once both goroutines are out of the socket.
func (h *Hub) release(c *Conn) {
	_ = c.raw.Close()
	h.loop.Lock()
	defer h.loop.Unlock()
	c.closeTimers()
	c.p.reset()
	c.rate = nil
	h.stats.closed.Add(1)
	h.forget(c)
	h.callClose(c, ClosedState(c.st.Load()))
}
