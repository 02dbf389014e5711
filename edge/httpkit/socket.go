package httpkit

import (
	"net/netip"
	"time"

	"github.com/alertd/alertd/actors/session"
	"github.com/alertd/alertd/edge/ws"
	gws "github.com/gobwas/ws"
	"github.com/valyala/fasthttp"
)

// Upgrade hands the request to the transport with sess as the socket's
// session: the one way every socket handler ends once it has said yes. A
// refused upgrade (bad handshake, transport stopped: already answered)
// releases what the session holds.
func (k *Kit) Upgrade(ctx *fasthttp.RequestCtx, sess session.Socket, opt ws.Options) {
	opt.Class = uint8(sess.Kind()) // deliveries counted per socket kind
	if k.WS.Upgrade(ctx, sessionHandler{sess}, opt) != nil {
		sess.Aborted()
	}
}

// sessionHandler drives a session from the transport's events.
type sessionHandler struct{ s session.Socket }

func (h sessionHandler) OnPrepare(c *ws.Conn) { h.s.Prepare(wsConn{c}) }

func (h sessionHandler) OnOpen(*ws.Conn) { h.s.Open() }

func (h sessionHandler) OnMessage(_ *ws.Conn, op gws.OpCode, payload []byte) {
	h.s.Message(op == gws.OpText, payload)
}

func (h sessionHandler) OnClose(_ *ws.Conn, st ws.ClosedState) { h.s.Closed(closeReason(st)) }

func (h sessionHandler) OnAbort(error) { h.s.Aborted() }

// closeReason is the session's name for the transport's close state.
func closeReason(st ws.ClosedState) session.CloseReason {
	switch st {
	case ws.ClientClosed:
		return session.ReasonClientClosed
	case ws.ProtocolError:
		return session.ReasonProtocolError
	case ws.InvalidUTF8:
		return session.ReasonInvalidUTF8
	case ws.MessageTooBig:
		return session.ReasonMessageTooBig
	case ws.SlowConsumer:
		return session.ReasonSlowConsumer
	case ws.WriteTimeout:
		return session.ReasonWriteTimeout
	case ws.ReadTimeout:
		return session.ReasonReadTimeout
	case ws.ServerShutdown:
		return session.ReasonShutdown
	case ws.RateLimited:
		return session.ReasonRateLimited
	case ws.PongTimeout:
		return session.ReasonPongTimeout
	case ws.TransportError:
		return session.ReasonTransportError
	case ws.InternalError:
		return session.ReasonInternalError
	}
	return session.ReasonClosedByServer // PolicyClosed: the session says why
}

// wsConn adapts a transport socket to what sessions see.
type wsConn struct{ c *ws.Conn }

func (w wsConn) Send(msg []byte) bool { return w.c.Send(msg) }

func (w wsConn) SendEvent(msg []byte, at int64) bool { return w.c.SendEvent(msg, at) }

func (w wsConn) Close(code int, reason string) { w.c.Close(gws.StatusCode(code), reason) }

func (w wsConn) CloseNow() { w.c.CloseNow() }

func (w wsConn) AfterFunc(d time.Duration, f func()) session.Timer { return w.c.AfterFunc(d, f) }

func (w wsConn) RemoteIP() netip.Addr { return w.c.RemoteIP() }
