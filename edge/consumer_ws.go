package edge

import (
	"fmt"

	"github.com/alertd/alertd/actors/session"
	"github.com/alertd/alertd/actors/state/account"
	"github.com/alertd/alertd/edge/ws"
	"github.com/alertd/alertd/protocol"
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
	var p account.Principal
	key := string(ctx.QueryArgs().Peek("api_key"))
	if key != "" {
		var reason account.Reason
		p, reason = s.deps.Registry.Authenticate(key, FamilyTweetAlerts.Accepts...)
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
	maxHandles, maxConns, ok := session.TweetAlertsLimits(&p)
	if !ok {
		writePlain(ctx, 401, "unauthorized: the WebSocket needs a paid Tweet Alerts plan")
		return
	}
	sd := s.deps.Sessions
	slot, ok := sd.Limits.Reserve(session.TweetAlertsQuota(p.Product, p.AccountID), maxConns)
	if !ok {
		writePlain(ctx, 429, fmt.Sprintf("too many connections (max %d)", maxConns))
		return
	}
	acct := p.AccountID
	var tracked func(string) bool
	if p.Product == protocol.ProductB2B {
		tracked = func(h string) bool {
			t, ok := s.deps.Targets.Get(acct, h)
			return ok && t.IsActive
		}
	} else {
		reg := s.deps.Consumer.Registry
		tracked = func(h string) bool { return reg.IsTracked(acct, h) }
	}
	s.upgrade(ctx, session.NewTweetAlerts(sd, &p, key, maxHandles, tracked, slot), s.tweetAlertsOptions())
}
