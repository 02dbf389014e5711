package ws

import "github.com/gobwas/ws"

// Handler receives a connection's events. Every Upgrade that returned nil
// ends in exactly one of two ways: OnOpen, OnMessage for each message and
// OnClose once; or OnAbort alone, when the upgrade failed before the
// connection opened (the client gone before the 101, the hub shutting down,
// fasthttp dropping the hijack). OnOpen, OnMessage and OnClose are called on
// the hub's loop goroutine (as are Conn.AfterFunc callbacks), so they are
// never concurrent for the same connection, nor for different ones: they
// must not block. A session actor copies what it needs and returns.
type Handler interface {
	// OnOpen is called once, after the 101 answer, before any message.
	OnOpen(c *Conn)
	// OnMessage gets one whole data message (text or binary, reassembled,
	// text already checked as UTF-8). payload is only valid during the call:
	// it points into the loop's read buffer or a pooled buffer; copy it to
	// keep it.
	OnMessage(c *Conn, op ws.OpCode, payload []byte)
	// OnClose is called once, after the socket is closed, with the reason.
	OnClose(c *Conn, state ClosedState)
	// OnAbort is called instead of OnOpen … OnClose when the upgrade failed
	// after Upgrade returned nil; err says why. It runs on the goroutine
	// that found the failure, once; release what was taken for the
	// connection (a connection slot, subscriptions).
	OnAbort(err error)
}

// Preparer is implemented by handlers that must act before the 101 answer
// goes out: OnPrepare runs on the upgrade's goroutine just before it is
// written. c is not open yet: Send queues (frames follow the 101 once the
// connection is adopted); Close and CloseNow take effect then. A product
// socket subscribes here, so that it gets every event published after its
// client received the 101. Not called for an upgrade that fasthttp drops
// before it hands the connection over (then only OnAbort is).
type Preparer interface {
	OnPrepare(c *Conn)
}

// HandlerFuncs adapts plain functions to Handler and Preparer; nil fields
// are skipped.
type HandlerFuncs struct {
	Prepare func(c *Conn)
	Open    func(c *Conn)
	Message func(c *Conn, op ws.OpCode, payload []byte)
	Close   func(c *Conn, state ClosedState)
	Abort   func(err error)
}

func (h HandlerFuncs) OnPrepare(c *Conn) {
	if h.Prepare != nil {
		h.Prepare(c)
	}
}

func (h HandlerFuncs) OnOpen(c *Conn) {
	if h.Open != nil {
		h.Open(c)
	}
}

func (h HandlerFuncs) OnMessage(c *Conn, op ws.OpCode, p []byte) {
	if h.Message != nil {
		h.Message(c, op, p)
	}
}

func (h HandlerFuncs) OnClose(c *Conn, s ClosedState) {
	if h.Close != nil {
		h.Close(c, s)
	}
}

func (h HandlerFuncs) OnAbort(err error) {
	if h.Abort != nil {
		h.Abort(err)
	}
}
