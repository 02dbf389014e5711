package edge

import (
	"net/netip"
	"time"

	"github.com/alertd/alertd/actors/session"
	"github.com/alertd/alertd/edge/ws"
	gws "github.com/gobwas/ws"
)

// wsConn adapts a transport socket to what sessions see.
type wsConn struct{ c *ws.Conn }

func (w wsConn) Send(msg []byte) bool { return w.c.Send(msg) }

func (w wsConn) Close(code int, reason string) { w.c.Close(gws.StatusCode(code), reason) }

func (w wsConn) CloseNow() { w.c.CloseNow() }

func (w wsConn) AfterFunc(d time.Duration, f func()) session.Timer { return w.c.AfterFunc(d, f) }

func (w wsConn) RemoteIP() netip.Addr { return w.c.RemoteIP() }
