package tweetalerts

import (
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/alertd/alertd/actors/session"
	"github.com/alertd/alertd/actors/state/account"
	"github.com/alertd/alertd/edge/httpkit"
	"github.com/alertd/alertd/edge/ws"
	"github.com/alertd/alertd/protocol"
	"github.com/valyala/fasthttp"
)

// socketOptions: spec 1's socket rules (ping every 30 s, pong within
// 10 s, the 11th inbound frame in a second closes) from the timings; the
// read limit fits one subscribe of the largest plan's whole list.
func (a *api) socketOptions() ws.Options {
	t := a.k.Timings
	return ws.Options{ReadLimit: protocol.MaxTweetAlertsFrameBytes, QueueLen: 1024, WriteTimeout: t.WriteBlock,
		PingInterval: t.XGPingInterval, PongTimeout: t.XGPongDeadline,
		MaxFramesPerWindow: 10, FrameWindow: t.XGFrameWindow}
}

// socketOrigin reports whether a cookie-authenticated upgrade comes from
// the server's own origin or an allowed one: the cookie rides along on any
// site's WebSocket to us, and browsers do not apply CORS to WebSockets, so
// Origin is the only guard against cross-site WebSocket hijacking. Browsers
// always send it; a request without one is refused.
func (a *api) socketOrigin(ctx *fasthttp.RequestCtx) bool {
	origin := string(ctx.Request.Header.Peek("Origin"))
	if origin == "" || origin == "null" {
		return false
	}
	for _, o := range a.d.AllowedOrigins {
		if strings.EqualFold(strings.TrimRight(o, "/"), origin) {
			return true
		}
	}
	u, err := url.Parse(origin)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" &&
		strings.EqualFold(u.Host, string(ctx.Host()))
}

// socket upgrades GET /v1/ws. The key comes as ?api_key= (or the
// session cookie); a bad key or the free plan gets a plain-text 401 and a
// connection over the plan's limit a plain-text 429, before the upgrade.
func (a *api) socket(ctx *fasthttp.RequestCtx) {
	var p account.Principal
	var keyHash *account.KeyHash // a dashboard session's key
	var link *linkRef            // or its Telegram link
	key := string(ctx.QueryArgs().Peek("api_key"))
	if key != "" {
		var reason account.Reason
		p, reason = a.k.Accounts.Authenticate(key, httpkit.FamilyTweetAlerts.Accepts...)
		if reason != account.OK {
			httpkit.WritePlain(ctx, 401, "unauthorized: "+httpkit.ReasonText(reason, &p))
			return
		}
	} else {
		sp, kh, lr, has, aerr := a.sessionCredential(ctx)
		switch {
		case !has:
			httpkit.WritePlain(ctx, 401, "unauthorized: API key missing: connect with ?api_key=<API_KEY>")
			return
		case aerr != nil:
			httpkit.WritePlain(ctx, 401, "unauthorized: "+aerr.Message)
			return
		}
		if !a.socketOrigin(ctx) {
			httpkit.WritePlain(ctx, 403, "forbidden: a WebSocket opened with the session cookie must come from this server's own pages")
			return
		}
		p, keyHash, link = sp, kh, lr
	}
	maxHandles, maxConns, ok := session.TweetAlertsLimits(&p)
	if !ok {
		httpkit.WritePlain(ctx, 401, "unauthorized: the WebSocket needs a paid Tweet Alerts plan")
		return
	}
	sd := a.k.Sessions
	slot, ok := sd.Limits.Reserve(session.TweetAlertsQuota(p.Product, p.AccountID), maxConns)
	if !ok {
		httpkit.WritePlain(ctx, 429, fmt.Sprintf("too many connections (max %d)", maxConns))
		return
	}
	acct := p.AccountID
	var tracked func(string) bool
	if p.Product == protocol.ProductB2B {
		tracked = func(h string) bool {
			t, ok := a.d.Targets.Get(acct, h)
			return ok && t.IsActive
		}
	} else {
		// Only active handles: within the plan as it is now (after a
		// downgrade the newest are inactive; an upgrade re-activates them)
		// and not suspended, as GET /v1/accounts shows is_active.
		reg, accts := a.d.Registry, a.k.Accounts
		tracked = func(h string) bool {
			return reg.IsActive(acct, h, currentTrackedLimit(accts, acct, a.k.Now())) && !a.suspended(h)
		}
	}
	s := session.NewTweetAlerts(sd, &p, key, maxHandles, tracked, slot)
	if keyHash != nil {
		s.BoundToKey(*keyHash) // the socket ends with the key, like the cookie's REST calls
	}
	if link != nil {
		ref := *link
		s.BoundToLink(func() bool { return !a.revoked.has(ref) }) // and with its Telegram link
	}
	a.k.Upgrade(ctx, s, a.socketOptions())
}

// currentTrackedLimit is acct's Tweet Alerts tracked-account limit now (0
// when its subscription is gone or expired): a socket outlives its plan.
func currentTrackedLimit(accts *account.Registry, acct string, now time.Time) int {
	sub, ok := accts.Subscription(acct, protocol.ProductTweetAlerts)
	if !ok || sub.Expired(now) {
		return 0
	}
	plan, _ := protocol.FindTweetAlertsPlan(sub.Plan)
	return plan.Accounts
}
