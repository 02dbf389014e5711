package edge

import (
	"fmt"

	"github.com/alertd/alertd/actors/product/tweetalerts"
	"github.com/alertd/alertd/actors/state/account"
	"github.com/alertd/alertd/edge/ws"
	"github.com/alertd/alertd/protocol"
	gws "github.com/gobwas/ws"
	"github.com/valyala/fasthttp"
)

// tweetAlertsOptions: spec 1's socket rules (ping every 30 s, pong within
// 10 s, the 11th inbound frame in a second closes) from the timings.
func (s *Server) tweetAlertsOptions() ws.Options {
	t := s.deps.Timings
	return ws.Options{ReadLimit: 16 << 10, QueueLen: 1024, WriteTimeout: t.WriteBlock,
		PingInterval: t.XGPingInterval, PongTimeout: t.XGPongDeadline,
		MaxFramesPerWindow: 10, FrameWindow: t.XGFrameWindow}
}

// tweetAlertsSocket upgrades GET /v1/ws. The key comes as ?api_key= (or the
// session cookie); a bad key or the free plan gets a plain-text 401 and a
// connection over the plan's limit a plain-text 429, before the upgrade.
func (s *Server) tweetAlertsSocket(ctx *fasthttp.RequestCtx) {
	cd := s.deps.Consumer
	var p account.Principal
	if key := ctx.QueryArgs().Peek("api_key"); len(key) > 0 {
		var reason account.Reason
		p, reason = s.deps.Registry.Authenticate(string(key), FamilyTweetAlerts.Accepts...)
		if reason != account.OK {
			writePlain(ctx, 401, "unauthorized: "+reasonText(reason, &p))
			return
		}
	} else {
		sp, has, aerr := s.sessionPrincipal(ctx)
		switch {
		case !has:
			writePlain(ctx, 401, "unauthorized: API key missing: connect with ?api_key=<API_KEY>")
			return
		case aerr != nil:
			writePlain(ctx, 401, "unauthorized: "+aerr.Message)
			return
		}
		p = sp
	}
	acct := p.AccountID
	var maxHandles, maxConns int
	var tracked func(string) bool
	if p.Product == protocol.ProductB2B {
		maxHandles, maxConns = p.Sub.MaxHandles, protocol.DTWSConns
		tracked = func(h string) bool {
			t, ok := s.deps.Targets.Get(acct, h)
			return ok && t.IsActive
		}
	} else {
		plan, ok := protocol.FindTweetAlertsPlan(p.Sub.Plan)
		if !ok || plan.WSConns == 0 {
			writePlain(ctx, 401, "unauthorized: the WebSocket needs a paid Tweet Alerts plan")
			return
		}
		maxHandles, maxConns = plan.Accounts, plan.WSConns
		reg := cd.Registry
		tracked = func(h string) bool { return reg.IsTracked(acct, h) }
	}
	owner := socketOwner(p.Product, acct)
	slot, ok := cd.Conns.Reserve(owner, maxConns)
	if !ok {
		writePlain(ctx, 429, fmt.Sprintf("too many connections (max %d)", maxConns))
		return
	}
	h := &tweetAlertsHandler{s: s, owner: owner, slot: slot, max: maxHandles, tracked: tracked}
	if err := s.ws.Upgrade(ctx, h, s.tweetAlertsOptions()); err != nil {
		cd.Conns.Release(slot)
	}
}

// tweetAlertsHandler adapts one socket to a tweetalerts.Socket. Its methods
// run on the hub's loop goroutine, one at a time.
type tweetAlertsHandler struct {
	s       *Server
	owner   string
	slot    tweetalerts.Slot
	max     int
	tracked func(string) bool
	sock    *tweetalerts.Socket
}

func (h *tweetAlertsHandler) OnOpen(c *ws.Conn) {
	h.s.deps.Consumer.Conns.Confirm(h.slot)
	h.sock = h.s.deps.Consumer.Stream.Open(c, h.owner, h.max, h.tracked)
}

func (h *tweetAlertsHandler) OnMessage(_ *ws.Conn, _ gws.OpCode, payload []byte) {
	if h.sock != nil {
		h.sock.Handle(payload)
	}
}

func (h *tweetAlertsHandler) OnClose(*ws.Conn, ws.ClosedState) {
	if h.sock != nil {
		h.sock.Close()
	}
	h.s.deps.Consumer.Conns.Release(h.slot)
}
