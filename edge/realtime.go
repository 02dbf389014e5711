package edge

import (
	"net"
	"strconv"
	"time"

	"github.com/alertd/alertd/actors/session"
	"github.com/alertd/alertd/actors/state/account"
	"github.com/alertd/alertd/edge/ws"
	"github.com/alertd/alertd/protocol"
	"github.com/fasthttp/router"
	gws "github.com/gobwas/ws"
	json "github.com/goccy/go-json"
	"github.com/valyala/fasthttp"
)

// b2bSocketRoutes are the B2B WebSockets of spec 2.
func (s *Server) b2bSocketRoutes(r *router.Router) {
	r.GET("/v1/dt/realtime/ws", s.realtimeSocket)
	r.GET("/v1/dt/ws", s.tweetSocket)
	r.GET("/social/tweet/websocket", s.tweetSocket)
}

func (s *Server) realtimeOptions() ws.Options {
	t := s.deps.Timings
	return ws.Options{ReadLimit: 64 << 10, QueueLen: 4096, WriteTimeout: t.WriteBlock, IdleTimeout: t.InboundSilence}
}

// realtimeSocket upgrades /v1/dt/realtime/ws; the session authenticates with
// LOGIN. A blocked IP gets 429 before the upgrade, except about once a
// minute, when it is let through to receive its DISCONNECT.
func (s *Server) realtimeSocket(ctx *fasthttp.RequestCtx) {
	sd := s.deps.Sessions
	ip := remoteIP(ctx)
	now := s.now()
	if until, blocked := sd.Blocker.IPBlocked(ip, now); blocked {
		if !sd.Blocker.AcceptBlocked(ip, now) {
			writeIPBlocked(ctx, until, now)
			return
		}
		_ = s.ws.Upgrade(ctx, ws.HandlerFuncs{
			Open: func(c *ws.Conn) { session.NewRealtime(sd, wsConn{c}).OpenBlocked(until) },
		}, s.realtimeOptions())
		return
	}
	_ = s.ws.Upgrade(ctx, realtimeHandler{sd}, s.realtimeOptions())
}

type realtimeHandler struct{ d *session.Deps }

func (h realtimeHandler) OnOpen(c *ws.Conn) {
	rt := session.NewRealtime(h.d, wsConn{c})
	c.SetValue(rt)
	rt.Open()
}

func (h realtimeHandler) OnMessage(c *ws.Conn, op gws.OpCode, payload []byte) {
	if rt, ok := c.Value().(*session.Realtime); ok {
		rt.Message(op == gws.OpText, payload)
	}
}

func (h realtimeHandler) OnClose(c *ws.Conn, _ ws.ClosedState) {
	if rt, ok := c.Value().(*session.Realtime); ok {
		rt.Close()
	}
}

// tweetSocket upgrades the tweet-only sockets: the key comes as ?api_key=
// and is checked before the upgrade (plain-text 401); failures count toward
// the IP block like failed LOGINs.
func (s *Server) tweetSocket(ctx *fasthttp.RequestCtx) {
	sd := s.deps.Sessions
	ip := remoteIP(ctx)
	now := s.now()
	if until, blocked := sd.Blocker.IPBlocked(ip, now); blocked {
		writeIPBlocked(ctx, until, now)
		return
	}
	key := string(ctx.QueryArgs().Peek("api_key"))
	if until, blocked := sd.Blocker.KeyBlocked(key, now); blocked && key != "" {
		retry := retrySeconds(until.Sub(now))
		writePlain(ctx, 429, "this key failed too many logins; blocked until "+until.UTC().Format(time.RFC3339))
		ctx.Response.Header.Set("Retry-After", strconv.Itoa(retry))
		return
	}
	p, reason := s.deps.Registry.Authenticate(key, protocol.ProductB2B)
	if reason != account.OK {
		sd.Blocker.Fail(ip, key, now)
		writePlain(ctx, 401, "unauthorized: "+reasonText(reason, &p))
		return
	}
	// The slot is taken when the socket opens, not here: an upgrade that
	// fails after this handler returns (the client gone before the 101, the
	// hub shutting down) never reaches OnOpen or OnClose and would keep it.
	if sd.Limits.Open(p.AccountID) >= protocol.DTWSConns {
		writePlain(ctx, 429, "too many connections (max 5)")
		return
	}
	acct := p.AccountID
	_ = s.ws.Upgrade(ctx, ws.HandlerFuncs{
		Open: func(c *ws.Conn) {
			if !sd.Limits.Acquire(acct, protocol.DTWSConns) { // lost a race with another socket
				c.Close(session.ClosePolicy, "too many connections (max 5)")
				return
			}
			t := session.NewTweetOnly(sd, wsConn{c}, acct)
			c.SetValue(t)
			t.Open()
		},
		Close: func(c *ws.Conn, _ ws.ClosedState) {
			if t, ok := c.Value().(*session.TweetOnly); ok {
				t.Close()
			}
		},
	}, ws.Options{ReadLimit: 4 << 10, QueueLen: 2048, WriteTimeout: s.deps.Timings.WriteBlock})
}

// writeIPBlocked answers an upgrade from a blocked IP: 429, a JSON body and
// Retry-After (spec 2 "IP block").
func writeIPBlocked(ctx *fasthttp.RequestCtx, until, now time.Time) {
	retry := retrySeconds(until.Sub(now))
	body, _ := json.Marshal(map[string]any{
		"ok": false, "error": "too many failed logins from this address", "code": protocol.CodeIPBlocked,
		"retry_after": retry, "blocked_until": until.UTC().Format(time.RFC3339),
	})
	ctx.SetStatusCode(429)
	ctx.SetContentType(contentJSON)
	ctx.Response.Header.Set("Retry-After", strconv.Itoa(retry))
	ctx.SetBody(body)
}

// remoteIP is the peer address without its port.
func remoteIP(ctx *fasthttp.RequestCtx) string {
	if a, ok := ctx.RemoteAddr().(*net.TCPAddr); ok {
		return a.IP.String()
	}
	host, _, err := net.SplitHostPort(ctx.RemoteAddr().String())
	if err != nil {
		return ctx.RemoteAddr().String()
	}
	return host
}
