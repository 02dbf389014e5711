//go:build linux && !wsportable

package ws

import (
	"net"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// adopt runs on fasthttp's hijack goroutine: prepare, admit, write the 101,
// hand the connection to the loop; on any failure, OnAbort.
func (h *Hub) adopt(nc net.Conn, accept string, handler Handler, o connOpts, remote net.Addr) {
	raw := unwrapConn(nc)
	// The hub works on a duplicate descriptor, so fasthttp's conn is closed
	// either way. Closing the hijacked conn is a no-op unless
	// Server.KeepHijackedConns is set, in which case it closes the wrapped
	// conn once (with MaxConnsPerIP, that also releases the per-IP count);
	// otherwise fasthttp closes it after this returns. Closing a wrapper
	// twice would be unsafe: fasthttp pools them.
	defer nc.Close()
	c := newConn(h, -1, handler, o, remote)
	c.adopting = true
	if p, ok := handler.(Preparer); ok && !h.callPrepare(p, c) {
		h.abandon(c, ErrPreparePanicked)
		return
	}
	if !h.admit() {
		h.abandon(c, ErrHubClosed)
		return
	}
	if h.beforeTakeOver != nil {
		h.beforeTakeOver(nc)
	}
	fd, pre, err := takeOver(nc, raw, accept, time.Duration(o.writeTimeout))
	if err != nil {
		h.open.Add(-1)
		h.log.Debug("ws: upgrade failed", "remote", remote, "err", err)
		h.abandon(c, err)
		return
	}
	c.fd, c.pre = fd, pre
	h.stats.accepted.Add(1)
	if !h.post(cmd{kind: cmdAdd, c: c}) {
		unix.Close(fd)
		h.open.Add(-1)
		h.abandon(c, ErrHubClosed)
	}
}

// abandon drops a connection that never opened and tells its handler.
func (h *Hub) abandon(c *Conn, err error) {
	c.mu.Lock()
	c.st.CompareAndSwap(0, int32(ServerShutdown))
	c.dead, c.released = true, true
	if c.q != nil {
		putQueue(c.q)
		c.q = nil
	}
	c.mu.Unlock()
	h.callAbort(c.handler, err)
}

// takeOver writes the 101 answer, collects the bytes fasthttp read past the
// request (they sit in its bufio.Reader behind the hijacked conn), and
// returns a duplicate, non-blocking descriptor of the socket.
func takeOver(nc, raw net.Conn, accept string, wto time.Duration) (fd int, pre []byte, err error) {
	sc, ok := raw.(syscall.Conn)
	if !ok {
		return -1, nil, ErrNoFD
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return -1, nil, err
	}
	resp := make([]byte, 0, 160)
	resp = append(resp, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: "...)
	resp = append(resp, accept...)
	resp = append(resp, "\r\n\r\n"...)
	if err = nc.SetWriteDeadline(time.Now().Add(wto)); err != nil {
		return -1, nil, err
	}
	if _, err = nc.Write(resp); err != nil {
		return -1, nil, err
	}

	// A read deadline in the past makes the socket read fail before any
	// system call, so this drains only what fasthttp has buffered and leaves
	// the kernel's bytes for the epoll loop.
	if err = nc.SetReadDeadline(time.Unix(1, 0)); err != nil {
		return -1, nil, err
	}
	var tmp [2048]byte
	for {
		n, rerr := nc.Read(tmp[:])
		pre = append(pre, tmp[:n]...)
		if rerr != nil || n == 0 {
			break
		}
	}

	var derr error
	if err = rc.Control(func(s uintptr) {
		fd, derr = unix.FcntlInt(s, unix.F_DUPFD_CLOEXEC, 0)
	}); err != nil {
		return -1, nil, err
	}
	if derr != nil {
		return -1, nil, derr
	}
	if err = unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return -1, nil, err
	}
	return fd, pre, nil
}
