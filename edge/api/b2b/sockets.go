package b2b

import (
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"time"

	"github.com/alertd/alertd/actors/session"
	"github.com/alertd/alertd/actors/state/account"
	"github.com/alertd/alertd/edge/httpkit"
	"github.com/alertd/alertd/edge/ws"
	"github.com/alertd/alertd/protocol"
	json "github.com/goccy/go-json"
	"github.com/valyala/fasthttp"
)

// realtimeOptions are the realtime socket's transport settings: frames up
// to 64 KiB, a deep queue for bursts of events, and the inbound-silence
// timeout that ends a socket whose client stopped sending.
func (a *api) realtimeOptions() ws.Options {
	t := a.k.Timings
	return ws.Options{ReadLimit: 64 << 10, QueueLen: 4096, WriteTimeout: t.WriteBlock, IdleTimeout: t.InboundSilence}
}

// realtimeSocket upgrades /v1/dt/realtime/ws; the session authenticates with
// LOGIN. A blocked IP gets 429 before the upgrade, except about once a
// minute, when it is let through to receive its DISCONNECT.
func (a *api) realtimeSocket(ctx *fasthttp.RequestCtx) {
	sd := a.k.Sessions
	client := a.k.ClientIP(ctx)
	ip := session.BlockAddr(client)
	now := a.k.Now()
	if until, blocked := sd.Blocker.IPBlocked(ip, now); blocked {
		if !sd.Blocker.AcceptBlocked(ip, now) {
			writeIPBlocked(ctx, until, now)
			return
		}
		a.k.Upgrade(ctx, session.NewBlockedRealtime(sd, until), a.realtimeOptions())
		return
	}
	if !sd.Pending.Reserve() {
		httpkit.WritePlain(ctx, 503, "too many connections awaiting LOGIN; retry shortly")
		return
	}
	s := session.NewRealtime(sd).HoldsPending()
	if client != peerIP(ctx) {
		s.Behind(client)
	}
	a.k.Upgrade(ctx, s, a.realtimeOptions())
}

// tweetSocket upgrades the tweet-only sockets: the key comes as ?api_key=
// and is checked before the upgrade (plain-text 401); failures count toward
// the IP block like failed LOGINs. The socket takes one of the account's
// five B2B slots before the upgrade (plain-text 429 when none is left).
func (a *api) tweetSocket(ctx *fasthttp.RequestCtx) {
	sd := a.k.Sessions
	ip := session.BlockAddr(a.k.ClientIP(ctx))
	now := a.k.Now()
	if until, blocked := sd.Blocker.IPBlocked(ip, now); blocked {
		writeIPBlocked(ctx, until, now)
		return
	}
	key := string(ctx.QueryArgs().Peek("api_key"))
	if until, blocked := sd.Blocker.KeyBlocked(key, now); blocked && key != "" {
		retry := httpkit.RetrySeconds(until.Sub(now))
		httpkit.WritePlain(ctx, 429, "this key failed too many logins; blocked until "+until.UTC().Format(time.RFC3339))
		ctx.Response.Header.Set("Retry-After", strconv.Itoa(retry))
		return
	}
	p, reason := a.k.Accounts.Authenticate(key, protocol.ProductB2B)
	if reason != account.OK {
		sd.Blocker.Fail(ip, key, now)
		httpkit.WritePlain(ctx, 401, "unauthorized: "+httpkit.ReasonText(reason, &p))
		return
	}
	slot, ok := sd.Limits.Reserve(session.B2BQuota(p.AccountID), protocol.DTWSConns)
	if !ok {
		httpkit.WritePlain(ctx, 429, fmt.Sprintf("too many connections (max %d)", protocol.DTWSConns))
		return
	}
	a.k.Upgrade(ctx, session.NewTweetOnly(sd, key, p.AccountID, slot),
		ws.Options{ReadLimit: 4 << 10, QueueLen: 2048, WriteTimeout: a.k.Timings.WriteBlock})
}

// writeIPBlocked answers an upgrade from a blocked IP: 429, a JSON body and
// Retry-After (spec 2 "IP block").
func writeIPBlocked(ctx *fasthttp.RequestCtx, until, now time.Time) {
	retry := httpkit.RetrySeconds(until.Sub(now))
	body, _ := json.Marshal(map[string]any{
		"ok": false, "error": "too many failed logins from this address", "code": protocol.CodeIPBlocked,
		"retry_after": retry, "blocked_until": until.UTC().Format(time.RFC3339),
	})
	ctx.SetStatusCode(429)
	ctx.SetContentType(httpkit.ContentJSON)
	ctx.Response.Header.Set("Retry-After", strconv.Itoa(retry))
	ctx.SetBody(body)
}

// peerIP is the TCP peer's address.
func peerIP(ctx *fasthttp.RequestCtx) netip.Addr {
	if a, ok := ctx.RemoteAddr().(*net.TCPAddr); ok {
		ip, _ := netip.AddrFromSlice(a.IP)
		return ip.Unmap()
	}
	return netip.Addr{}
}
