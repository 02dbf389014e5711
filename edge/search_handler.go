package edge

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/alertd/alertd/actors/product/casearch"
	"github.com/alertd/alertd/actors/state/account"
	"github.com/alertd/alertd/protocol"
	"github.com/valyala/fasthttp"
)

// searchTimeout bounds one search's store reads (older windows).
const searchTimeout = 10 * time.Second

// caSearch is POST /v1/search (spec 2 "CA Search"). It does what wrap does
// for FamilySearch, except that an expired subscription is a 403, as the CA
// Search errors table says ("CA Search not enabled on the key, or
// expired"); other key problems are 401 `unauthorized`. Then, in order:
// 403 without the add-on; the body (plain-text 400/413/415/422, or 400
// bad_request), which does not count against the quota; the quota (429); the
// search (500 still counted). 200, 429 and 500 carry the quota headers.
func (s *Server) caSearch(ctx *fasthttp.RequestCtx) {
	f := FamilySearch
	key, reason := f.PresentedKey(ctx)
	var p account.Principal
	if reason == account.OK {
		p, reason = s.deps.Registry.Authenticate(key, f.Accepts...)
	}
	switch reason {
	case account.OK:
	case account.Expired:
		writeError(ctx, protocol.Forbidden(reasonText(reason, &p)))
		return
	default:
		f.Refuse(ctx, reason, &p)
		return
	}
	limit := p.Sub.CASearchDailyLimit
	if limit == nil {
		writeError(ctx, protocol.Forbidden("CA Search is not enabled on this key").
			WithHint("the CA Search add-on is sold with B2B plans"))
		return
	}
	members, perr := fields(ctx)
	if perr != nil {
		perr.Write(ctx)
		return
	}
	now := s.now()
	window := s.deps.Search.Window
	if window <= 0 {
		window = 24 * time.Hour
	}
	req, err := casearch.ParseRequest(members, now, window)
	if err != nil {
		var api *protocol.APIError
		switch {
		case errors.Is(err, casearch.ErrNoQuery):
			writePlain(ctx, 422, errMissingField("query").Msg)
		case errors.As(err, &api):
			writeError(ctx, api)
		default:
			writeError(ctx, protocol.BadRequest(err.Error()))
		}
		return
	}
	v := s.deps.Search.Quota.Take(p.AccountID, *limit, now)
	setQuotaHeaders(ctx, &v)
	if v.Err != nil {
		writeError(ctx, v.Err)
		return
	}
	sctx, cancel := context.WithTimeout(context.Background(), searchTimeout)
	defer cancel()
	res, err := s.deps.Search.Service.Search(sctx, &req)
	if err != nil {
		s.log.Error("ca search failed", "err", err)
		writeError(ctx, protocol.Internal())
		return
	}
	b := append(ctx.Response.Body()[:0], `{"ok":true,"data":`...)
	b = casearch.AppendData(b, &req, &res)
	ctx.Response.SetBodyRaw(append(b, '}'))
	ctx.SetStatusCode(200)
	ctx.SetContentType(contentJSON)
}

// setQuotaHeaders sets the X-RateLimit-* headers of spec 2 "Limits".
func setQuotaHeaders(ctx *fasthttp.RequestCtx, v *casearch.Verdict) {
	h := &ctx.Response.Header
	h.Set("X-RateLimit-Daily-Limit", strconv.Itoa(v.DailyLimit))
	h.Set("X-RateLimit-Daily-Remaining", strconv.Itoa(v.DailyRemaining))
	h.Set("X-RateLimit-Minute-Limit", strconv.Itoa(v.MinuteLimit))
	h.Set("X-RateLimit-Minute-Remaining", strconv.Itoa(v.MinuteRemaining))
}
