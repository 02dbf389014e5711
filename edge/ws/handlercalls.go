package ws

import "github.com/gobwas/ws"

// The handler calls of both transports (epoll and portable): each runs one
// Handler method and turns a panic into a log line, and for the calls that
// happen on an open connection into a 1011 close.

func (h *Hub) callOpen(c *Conn) {
	defer h.recoverHandler(c)
	c.handler.OnOpen(c)
}

func (h *Hub) callMessage(c *Conn, op ws.OpCode, p []byte) {
	defer h.recoverHandler(c)
	c.handler.OnMessage(c, op, p)
}

func (h *Hub) callTimer(c *Conn, f func()) {
	defer h.recoverHandler(c)
	f()
}

// callPrepare runs OnPrepare; false when it panicked.
func (h *Hub) callPrepare(p Preparer, c *Conn) (ok bool) {
	defer func() {
		if r := recover(); r != nil {
			h.log.Error("ws: OnPrepare panicked", "panic", r)
			ok = false
		}
	}()
	p.OnPrepare(c)
	return true
}

func (h *Hub) callAbort(handler Handler, err error) {
	defer func() {
		if r := recover(); r != nil {
			h.log.Error("ws: OnAbort panicked", "panic", r)
		}
	}()
	handler.OnAbort(err)
}

func (h *Hub) callClose(c *Conn, s ClosedState) {
	defer func() {
		if r := recover(); r != nil {
			h.log.Error("ws: OnClose panicked", "conn", c.id, "panic", r)
		}
	}()
	c.handler.OnClose(c, s)
}

func (h *Hub) recoverHandler(c *Conn) {
	if r := recover(); r != nil {
		h.log.Error("ws: handler panicked", "conn", c.id, "panic", r)
		c.closeGraceful(InternalError, ws.StatusInternalServerError, "internal error", true)
	}
}
