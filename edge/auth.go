package edge

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	"github.com/alertd/alertd/actors/state/account"
	"github.com/alertd/alertd/protocol"
	"github.com/valyala/fasthttp"
)

// Family is one group of routes that shares its authentication rules and
// error shape (spec 1 "Authentication" and "Errors", spec 2 "Endpoints").
type Family struct {
	Name    string
	Accepts []protocol.Product
	// B2BCodes: failures carry the key_* codes (/v1/dt/*); otherwise the
	// status-derived `unauthorized`.
	B2BCodes bool
	// Social: failures are {status: error, msg} and successes bare objects.
	Social bool
	// B2BHeaders: X-API-Key is accepted and stray spaces around the key are
	// trimmed (B2B REST and CA Search).
	B2BHeaders bool
	// RateLimit is the account's requests per window; 0 means not limited.
	RateLimit func(p *account.Principal) int
}

// Families of the public REST API.
var (
	FamilyTweetAlerts = &Family{Name: "xg", Accepts: []protocol.Product{protocol.ProductTweetAlerts, protocol.ProductB2B},
		RateLimit: tweetAlertsRate}
	FamilyB2B    = &Family{Name: "dt", Accepts: []protocol.Product{protocol.ProductB2B}, B2BCodes: true, B2BHeaders: true}
	FamilySocial = &Family{Name: "social", Accepts: []protocol.Product{protocol.ProductB2B}, Social: true, B2BHeaders: true}
	FamilySearch = &Family{Name: "search", Accepts: []protocol.Product{protocol.ProductB2B}, B2BHeaders: true}
)

// ProductFamily returns the family of one of the seven product APIs.
func ProductFamily(p protocol.Product) *Family {
	return &Family{Name: string(p), Accepts: []protocol.Product{p}, RateLimit: productRate}
}

// productRestPerSecond is ours: spec 3 does not show product API rates.
const productRestPerSecond = 20

func productRate(*account.Principal) int { return productRestPerSecond }

func tweetAlertsRate(p *account.Principal) int {
	if p.Product == protocol.ProductB2B {
		return protocol.DTRESTPerSecond
	}
	if plan, ok := protocol.FindTweetAlertsPlan(p.Sub.Plan); ok {
		return plan.RESTPerSecond
	}
	return protocol.TweetAlertsPlans[0].RESTPerSecond
}

var (
	bearerPrefix = []byte("bearer ")
	apiKeyArg    = []byte("api_key")
)

// presentedKey extracts the key of a REST request and says why there is none.
func (f *Family) presentedKey(ctx *fasthttp.RequestCtx) (string, account.Reason) {
	if ctx.QueryArgs().Has(string(apiKeyArg)) {
		return "", account.InQuery
	}
	if h := ctx.Request.Header.Peek(fasthttp.HeaderAuthorization); len(h) > 0 {
		if len(h) < len(bearerPrefix) || !bytes.EqualFold(h[:len(bearerPrefix)], bearerPrefix) {
			if bytes.EqualFold(bytes.TrimSpace(h), bearerPrefix[:6]) {
				return "", account.Missing // "Bearer" with nothing after it
			}
			return "", account.Malformed
		}
		return f.clean(h[len(bearerPrefix):])
	}
	if f.B2BHeaders {
		if h := ctx.Request.Header.Peek("X-API-Key"); len(h) > 0 {
			return f.clean(h)
		}
	}
	return "", account.Missing
}

func (f *Family) clean(k []byte) (string, account.Reason) {
	if f.B2BHeaders {
		k = bytes.TrimSpace(k)
	}
	if len(k) == 0 {
		return "", account.Missing
	}
	return string(k), account.OK
}

// authError renders a refusal in the family's shape.
func (f *Family) authError(ctx *fasthttp.RequestCtx, r account.Reason, p *account.Principal) {
	msg := reasonText(r, p)
	switch {
	case f.Social:
		writeJSON(ctx, 401, socialError{Status: "error", Msg: msg})
	case f.B2BCodes:
		writeError(ctx, protocol.NewError(401, r.B2BCode(), msg))
	default:
		writeError(ctx, protocol.NewError(401, protocol.CodeUnauthorized, msg))
	}
}

type socialError struct {
	Status string `json:"status"`
	Msg    string `json:"msg"`
}

func reasonText(r account.Reason, p *account.Principal) string {
	switch r {
	case account.Missing:
		return "API key missing: send Authorization: Bearer <API_KEY>"
	case account.InQuery:
		return "API key must not be sent in the query string: send Authorization: Bearer <API_KEY>"
	case account.Malformed:
		return "API key malformed or of another product"
	case account.Expired:
		if p != nil && p.Sub != nil && p.Sub.ExpiresAt != nil {
			return fmt.Sprintf("subscription expired on %s; renew to keep using this key", p.Sub.ExpiresAt.UTC().Format(time.RFC3339))
		}
		return "subscription expired"
	case account.Deactivated:
		return "API key deactivated"
	}
	return "API key unknown, revoked or regenerated"
}

// Handler is an authenticated endpoint. It returns the success status and
// data, or an error: *protocol.APIError or *parseError; anything else is a 500.
type Handler func(ctx *fasthttp.RequestCtx, p *account.Principal) (int, any, error)

// wrap authenticates, rate-limits and renders one endpoint of family f.
func (s *Server) wrap(f *Family, h Handler) fasthttp.RequestHandler {
	return func(ctx *fasthttp.RequestCtx) {
		key, reason := f.presentedKey(ctx)
		var p account.Principal
		if reason == account.OK {
			p, reason = s.deps.Registry.Authenticate(key, f.Accepts...)
		}
		if reason != account.OK {
			f.authError(ctx, reason, &p)
			return
		}
		if f.RateLimit != nil {
			if ok, wait := p.Limiter.Allow(s.now(), s.deps.Timings.RateWindow, f.RateLimit(&p)); !ok {
				s.fail(ctx, f, protocol.RateLimited(retrySeconds(wait)))
				return
			}
		}
		status, data, err := h(ctx, &p)
		if err != nil {
			s.fail(ctx, f, err)
			return
		}
		if f.Social {
			writeJSON(ctx, status, data)
			return
		}
		writeOK(ctx, status, data)
	}
}

// fail renders err in the family's shape.
func (s *Server) fail(ctx *fasthttp.RequestCtx, f *Family, err error) {
	switch e := err.(type) {
	case *parseError:
		writePlain(ctx, e.status, e.msg)
		return
	case *protocol.APIError:
		if f.Social {
			writeJSON(ctx, e.Status, socialError{Status: "error", Msg: e.Message})
			if e.RetryAfter > 0 {
				ctx.Response.Header.Set("Retry-After", fmt.Sprint(e.RetryAfter))
			}
			return
		}
		writeError(ctx, e)
		return
	}
	s.log.Error("handler failed", "path", safePath(ctx), "err", err)
	if f.Social {
		writeJSON(ctx, 500, socialError{Status: "error", Msg: "internal error"})
		return
	}
	writeError(ctx, protocol.Internal())
}

// retrySeconds rounds a wait up to whole seconds, at least 1.
func retrySeconds(d time.Duration) int {
	s := int((d + time.Second - 1) / time.Second)
	if s < 1 {
		s = 1
	}
	return s
}

// safePath is the request path with any key-bearing segment hidden, for logs.
func safePath(ctx *fasthttp.RequestCtx) string {
	p := string(ctx.Path())
	if strings.HasPrefix(p, "/admin/v1/keys/") {
		return "/admin/v1/keys/<redacted>"
	}
	return p
}
