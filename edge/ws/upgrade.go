//go:build linux && !wsportable

package ws

import (
	"net"
	"syscall"
	"time"

	"github.com/valyala/fasthttp"
	"golang.org/x/sys/unix"
)

// Upgrade turns the request into a WebSocket served by the hub. Call it from
// a fasthttp handler after your own checks: to refuse, answer the request
// yourself (plain-text 401, 429 with headers and a JSON body, ...) and do not
// call Upgrade.
//
// Upgrade validates the opening handshake (GET, HTTP/1.1, Upgrade: websocket,
// Connection: upgrade, Sec-WebSocket-Version: 13, a 16-byte base64
// Sec-WebSocket-Key). On a bad handshake it answers 400 (426 for another
// version) and returns ErrBadHandshake; when the hub is not running, 503 and
// ErrHubClosed. Otherwise it hijacks the connection with no fasthttp
// response: once the handler returns, fasthttp hands the connection over,
// the hub calls OnPrepare (see Preparer), writes the 101 answer itself,
// takes over any bytes fasthttp had already buffered after the request,
// duplicates the socket's descriptor into its epoll loop and lets fasthttp
// close its own copy. OnOpen follows on the loop. If any of that fails, or
// fasthttp never hands the connection over (this needs ConnState installed
// on the server), the handler gets OnAbort instead.
//
// No subprotocol or extension is negotiated (no permessage-deflate): frames
// with reserved bits are refused. TLS must end in front of the process; a
// hijacked TLS connection has no usable descriptor and is closed.
func (h *Hub) Upgrade(ctx *fasthttp.RequestCtx, handler Handler, opt Options) error {
	if !h.running() {
		ctx.Response.Header.Set("Connection", "close")
		plain(ctx, fasthttp.StatusServiceUnavailable, "service unavailable")
		return ErrHubClosed
	}
	accept, status, msg := checkHandshake(ctx)
	if status != 0 {
		if status == fasthttp.StatusUpgradeRequired {
			ctx.Response.Header.Set("Sec-WebSocket-Version", "13")
		}
		plain(ctx, status, msg)
		return ErrBadHandshake
	}
	o := opt.resolve()
	remote := ctx.RemoteAddr()
	key := ctx.Conn()
	h.upgrades.add(key, handler)
	ctx.HijackSetNoResponse(true)
	ctx.Hijack(func(nc net.Conn) {
		if h.upgrades.take(key) != nil {
			h.adopt(nc, accept, handler, o, remote)
		}
	})
	return nil
}

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
