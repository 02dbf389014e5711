package httpkit

import (
	"bytes"
	"fmt"
	"slices"
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
	// rateFamily numbers the family's window in the account's Limiter: the
	// Tweet Alerts routes 0, each spec-3 product its own.
	rateFamily int
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
	return &Family{Name: string(p), Accepts: []protocol.Product{p}, RateLimit: productRate, rateFamily: productRateFamily(p)}
}

// productRateFamily is 1 + p's place in protocol.Products (0 is Tweet
// Alerts' window).
func productRateFamily(p protocol.Product) int {
	i := slices.Index(protocol.Products, p)
	if i < 0 || i+1 >= account.MaxRateFamilies {
		panic("httpkit: no rate family for product " + string(p))
	}
	return i + 1
}

// Check reads the key a request of family f presents and checks it: the
// principal, or the reason there is none. Authenticate answers the refusal
// too; CA Search, whose expired keys get 403, reads the reason itself.
func (k *Kit) Check(ctx *fasthttp.RequestCtx, f *Family) (account.Principal, account.Reason) {
	key, reason := f.PresentedKey(ctx)
	var p account.Principal
	if reason == account.OK {
		p, reason = k.Accounts.Authenticate(key, f.Accepts...)
	}
	return p, reason
}

// Authenticate is the key middleware: it checks the request's key and, when
// it is refused, answers in f's shape and returns false.
func (k *Kit) Authenticate(ctx *fasthttp.RequestCtx, f *Family) (account.Principal, bool) {
	p, reason := k.Check(ctx, f)
	if reason != account.OK {
		f.Refuse(ctx, reason, &p)
		return p, false
	}
	return p, true
}

var (
	bearerPrefix = []byte("bearer ")
	apiKeyArg    = []byte("api_key")
)

// PresentedKey extracts the key of a REST request and says why there is none.
func (f *Family) PresentedKey(ctx *fasthttp.RequestCtx) (string, account.Reason) {
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

// Refuse renders a refused key in the family's shape.
func (f *Family) Refuse(ctx *fasthttp.RequestCtx, r account.Reason, p *account.Principal) {
	msg := ReasonText(r, p)
	switch {
	case f.Social:
		WriteJSON(ctx, 401, SocialError{Status: "error", Msg: msg})
	case f.B2BCodes:
		WriteError(ctx, protocol.NewError(401, r.B2BCode(), msg))
	default:
		WriteError(ctx, protocol.NewError(401, protocol.CodeUnauthorized, msg))
	}
}

// ReasonText says why a key was refused, in the words every refusal uses
// (REST bodies and the plain-text refusals of WebSocket upgrades).
func ReasonText(r account.Reason, p *account.Principal) string {
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
