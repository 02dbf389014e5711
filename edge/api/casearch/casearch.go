// Package casearch serves CA Search, POST /v1/search
// (spec/2-b2b-realtime-and-ca-search.md, "CA Search"):
// the B2B add-on that searches captured posts for contract addresses,
// tickers and words, with its own daily and per-minute quota.
package casearch

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/alertd/alertd/actors/product/casearch"
	"github.com/alertd/alertd/actors/state/account"
	"github.com/alertd/alertd/edge/httpkit"
	"github.com/alertd/alertd/protocol"
	"github.com/valyala/fasthttp"
)

// Deps are what CA Search's route uses.
type Deps struct {
	// Service answers searches.
	Service *casearch.Service
	// Quota counts calls per account.
	Quota *casearch.Quota
	// Window is the default search window (Timings.SearchWindow).
	Window time.Duration
}

type api struct {
	k *httpkit.Kit
	d Deps
}

// Routes are CA Search's routes; none without its Service and Quota.
func Routes(k *httpkit.Kit, d Deps) []httpkit.Route {
	if d.Service == nil || d.Quota == nil {
		return nil
	}
	a := &api{k: k, d: d}
	return []httpkit.Route{httpkit.POST("/v1/search", a.search)}
}

// searchTimeout bounds one search's store reads (older windows).
const searchTimeout = 10 * time.Second

// search is POST /v1/search (spec 2 "CA Search"). It does what Keyed does
// for FamilySearch, except that an expired subscription is a 403, as the CA
// Search errors table says ("CA Search not enabled on the key, or
// expired"); other key problems are 401 `unauthorized`. Then, in order:
// 403 without the add-on; the quota (429); the body (plain-text
// 400/413/415/422, or 400 bad_request); the search (500).
//
// "Every call counts once" (spec 2): a call is a request that reaches the
// add-on's allowance, that is one made with a live key that has CA Search.
// It counts before its body is read, so refused bodies (400, 413, 415, 422)
// and failed searches (500) count. Not counted: 401 and 403 (no allowance
// to count against) and the 429 refusals themselves (counting them would
// keep a client that retries locked out). The JSON answers of counted calls
// and the 429s carry the quota headers (plain-text refusals carry none).
func (a *api) search(ctx *fasthttp.RequestCtx) {
	now, ok := a.admit(ctx)
	if !ok {
		return
	}
	members, perr := httpkit.Fields(ctx)
	if perr != nil {
		perr.Write(ctx)
		return
	}
	window := a.d.Window
	if window <= 0 {
		window = 24 * time.Hour
	}
	req, err := casearch.ParseRequest(members, now, window)
	if err != nil {
		var api *protocol.APIError
		switch {
		case errors.Is(err, casearch.ErrNoQuery):
			httpkit.WritePlain(ctx, 422, httpkit.MissingField("query").Msg)
		case errors.As(err, &api):
			httpkit.WriteError(ctx, api)
		default:
			httpkit.WriteError(ctx, protocol.BadRequest(err.Error()))
		}
		return
	}
	sctx, cancel := context.WithTimeout(context.Background(), searchTimeout)
	defer cancel()
	res, err := a.d.Service.Search(sctx, &req)
	if err != nil {
		a.k.Log.Error("ca search failed", "err", err)
		httpkit.WriteError(ctx, protocol.Internal())
		return
	}
	b := append(ctx.Response.Body()[:0], `{"ok":true,"data":`...)
	b = casearch.AppendData(b, &req, &res)
	ctx.Response.SetBodyRaw(append(b, '}'))
	ctx.SetStatusCode(200)
	ctx.SetContentType(httpkit.ContentJSON)
}

// admit checks the key and the add-on and counts the call against the
// quota; when the call may not go on it has answered and ok is false.
func (a *api) admit(ctx *fasthttp.RequestCtx) (now time.Time, ok bool) {
	f := httpkit.FamilySearch
	p, reason := a.k.Check(ctx, f)
	switch reason {
	case account.OK:
	case account.Expired:
		httpkit.WriteError(ctx, protocol.Forbidden(httpkit.ReasonText(reason, &p)))
		return now, false
	default:
		f.Refuse(ctx, reason, &p)
		return now, false
	}
	limit := p.Sub.CASearchDailyLimit
	if limit == nil {
		httpkit.WriteError(ctx, protocol.Forbidden("CA Search is not enabled on this key").
			WithHint("the CA Search add-on is sold with B2B plans"))
		return now, false
	}
	now = a.k.Now()
	v := a.d.Quota.Take(p.AccountID, *limit, now)
	setQuotaHeaders(ctx, &v)
	if v.Err != nil {
		httpkit.WriteError(ctx, v.Err)
		return now, false
	}
	return now, true
}

// TooLarge answers a CA Search call whose declared body is over the limit,
// which the server refuses before reading it: the call is admitted (and
// counted) like any other, then answered 413. ok is false when CA Search
// is not served (the caller answers).
func TooLarge(k *httpkit.Kit, d Deps) func(ctx *fasthttp.RequestCtx) bool {
	if d.Service == nil || d.Quota == nil {
		return nil
	}
	a := &api{k: k, d: d}
	return func(ctx *fasthttp.RequestCtx) bool {
		if _, ok := a.admit(ctx); ok {
			httpkit.WritePlain(ctx, 413, fmt.Sprintf("request body too large: limit is %d bytes", protocol.MaxBodyBytes))
		}
		return true
	}
}

// setQuotaHeaders sets the X-RateLimit-* headers of spec 2 "Limits".
func setQuotaHeaders(ctx *fasthttp.RequestCtx, v *casearch.Verdict) {
	h := &ctx.Response.Header
	h.Set("X-RateLimit-Daily-Limit", strconv.Itoa(v.DailyLimit))
	h.Set("X-RateLimit-Daily-Remaining", strconv.Itoa(v.DailyRemaining))
	h.Set("X-RateLimit-Minute-Limit", strconv.Itoa(v.MinuteLimit))
	h.Set("X-RateLimit-Minute-Remaining", strconv.Itoa(v.MinuteRemaining))
}
