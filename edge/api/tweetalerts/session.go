package tweetalerts

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/alertd/alertd/actors/product/tweetalerts"
	"github.com/alertd/alertd/actors/state/account"
	"github.com/alertd/alertd/edge/httpkit"
	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
	json "github.com/goccy/go-json"
	"github.com/valyala/fasthttp"
)

// telegramMaxAge: a widget sign-in older than a day is refused.
const telegramMaxAge = 24 * time.Hour

// MaxTelegramLinks bounds the Telegram users linked to one subscription
// (ours; the spec shows none): linking one more is refused with 403.
const MaxTelegramLinks = 10

// telegramLinkMaxAge: linking needs a fresh sign-in, so that a captured
// widget payload cannot be replayed later to link someone else's Telegram
// account to the replayer's alertd account.
const telegramLinkMaxAge = 10 * time.Minute

func unauthorized(msg string) *protocol.APIError {
	return protocol.NewError(401, protocol.CodeUnauthorized, msg)
}

// sessionPrincipal authenticates the xg_session cookie: a valid token whose
// key (for an API-key session) still stands, or, for a Telegram session,
// whose subscription still exists and has not expired. ok is false when the
// request carries no cookie.
func (a *api) sessionPrincipal(ctx *fasthttp.RequestCtx) (p account.Principal, ok bool, err *protocol.APIError) {
	p, _, _, ok, err = a.sessionCredential(ctx)
	return p, ok, err
}

// sessionCredential is sessionPrincipal that also gives what a socket must
// end with: the hash of the key an API-key session was opened with, or the
// Telegram link a Telegram session was opened through (nil otherwise).
func (a *api) sessionCredential(ctx *fasthttp.RequestCtx) (p account.Principal, keyHash *account.KeyHash, link *linkRef, ok bool, err *protocol.APIError) {
	tok := ctx.Request.Header.Cookie(tweetalerts.SessionCookie)
	if len(tok) == 0 || a.d.Sessions == nil {
		return p, nil, nil, false, nil
	}
	c, verr := a.d.Sessions.Verify(string(tok))
	if verr != nil {
		return p, nil, nil, true, unauthorized("session invalid or expired: sign in again")
	}
	if c.KeyID != "" || c.Via == "apikey" {
		p, kh, ok, err := a.keySessionPrincipal(c)
		return p, kh, nil, ok, err
	}
	if !a.linkStands(c) {
		return p, nil, nil, true, unauthorized("session no longer valid: the Telegram link was removed; sign in again")
	}
	sub, found := a.k.Accounts.Subscription(c.Account, c.Product)
	if !found {
		return p, nil, nil, true, unauthorized("session no longer valid: sign in again")
	}
	if sub.Expired(a.k.Now()) {
		return p, nil, nil, true, unauthorized(httpkit.ReasonText(account.Expired, &account.Principal{Sub: sub}))
	}
	return account.Principal{AccountID: c.Account, Product: c.Product, Sub: sub, Limiter: a.k.Accounts.Limiter(c.Account)},
		nil, &linkRef{telegramID: c.TelegramID, gen: c.LinkGen}, true, nil
}

// linkStands reports whether the Telegram link a session was opened through
// is still the user's link to the session's subscription: a removed link, or
// one made anew since (another linked_at), ends its sessions. A Telegram
// session token without a link (issued before links were checked) does not
// stand either. One store read per request of a Telegram session.
func (a *api) linkStands(c tweetalerts.Claims) bool {
	if c.TelegramID <= 0 {
		return false
	}
	cctx, cancel := httpkit.StoreContext()
	defer cancel()
	l, err := a.d.Store.TelegramLinkOf(cctx, c.TelegramID)
	return err == nil && l.Account == c.Account && l.Product == c.Product && l.LinkedAt.UnixMilli() == c.LinkGen
}

// keySessionPrincipal checks an API-key session against its key: a key
// revoked, regenerated or deactivated since the sign-in ends the session.
func (a *api) keySessionPrincipal(c tweetalerts.Claims) (account.Principal, *account.KeyHash, bool, *protocol.APIError) {
	var h account.KeyHash
	raw, err := base64.RawURLEncoding.DecodeString(c.KeyID)
	if err != nil || len(raw) != len(h) {
		return account.Principal{}, nil, true, unauthorized("session no longer valid: sign in again")
	}
	copy(h[:], raw)
	p, reason := a.k.Accounts.AuthenticateHash(h, c.Product)
	if reason != account.OK {
		return p, nil, true, unauthorized(httpkit.ReasonText(reason, &p) + ": sign in again")
	}
	if p.AccountID != c.Account {
		return account.Principal{}, nil, true, unauthorized("session no longer valid: sign in again")
	}
	return p, &h, true, nil
}

// keyID names a key in a session token: its SHA-256, base64url.
func keyID(key string) string {
	h := account.HashKey(key)
	return base64.RawURLEncoding.EncodeToString(h[:])
}

// sessionOrKey serves h to the session cookie (web dashboard) or, without
// a cookie, to an API key of family f as usual. A cookie request that
// changes something must come from the dashboard's own origin (the cookie
// alone would let another site's form act for the user), and it counts
// toward the account's rate limit like a key's.
func (a *api) sessionOrKey(f *httpkit.Family, h httpkit.Handler) fasthttp.RequestHandler {
	keyed := a.k.Keyed(f, h)
	return func(ctx *fasthttp.RequestCtx) {
		if len(ctx.Request.Header.Peek(fasthttp.HeaderAuthorization)) > 0 {
			keyed(ctx)
			return
		}
		p, ok, aerr := a.sessionPrincipal(ctx)
		if !ok {
			keyed(ctx) // no cookie either: the key path says what is missing
			return
		}
		if aerr != nil {
			httpkit.WriteError(ctx, aerr)
			return
		}
		if !ctx.IsGet() && !ctx.IsHead() && !sameOrigin(ctx) {
			httpkit.WriteError(ctx, protocol.NewError(403, protocol.CodeForbidden,
				"cross-site request refused: a change made with the session cookie must come from this server's own pages"))
			return
		}
		if !a.k.RateLimit(ctx, f, &p) {
			return
		}
		status, data, err := h(ctx, &p)
		a.k.Render(ctx, f, status, data, err)
	}
}

// sameOrigin reports whether a browser sent the request from a page of this
// server: Sec-Fetch-Site (every current browser) or else Origin against Host.
func sameOrigin(ctx *fasthttp.RequestCtx) bool {
	if site := ctx.Request.Header.Peek("Sec-Fetch-Site"); len(site) > 0 {
		return string(site) == "same-origin"
	}
	origin := ctx.Request.Header.Peek("Origin")
	if len(origin) == 0 {
		return false
	}
	u, err := url.Parse(string(origin))
	return err == nil && u.Host != "" && u.Host == string(ctx.Host())
}

// setSession issues a session for (account, product) and sets the cookie;
// keyID binds it to the key that signed in ("" for Telegram). The cookie is
// Secure when the request came over TLS (directly or through a proxy that
// says so), so that plain-HTTP setups such as `make run` can sign in.
func (a *api) setSession(ctx *fasthttp.RequestCtx, acct string, p protocol.Product, via, keyID string) time.Time {
	tok, exp := a.d.Sessions.Issue(acct, p, via, keyID)
	a.setCookie(ctx, tok, exp)
	return exp
}

// setCookie sets the session cookie to tok, expiring at exp.
func (a *api) setCookie(ctx *fasthttp.RequestCtx, tok string, exp time.Time) {
	ss := a.d.Sessions
	var c fasthttp.Cookie
	c.SetKey(tweetalerts.SessionCookie)
	c.SetValue(tok)
	c.SetPath("/")
	c.SetHTTPOnly(true)
	c.SetSecure(overTLS(ctx))
	c.SetSameSite(fasthttp.CookieSameSiteLaxMode)
	c.SetMaxAge(int(ss.TTL() / time.Second))
	c.SetExpire(exp)
	ctx.Response.Header.SetCookie(&c)
	ctx.Response.Header.Set("Cache-Control", "no-store")
}

// overTLS: the connection is TLS, or a TLS-terminating proxy says the
// client's was. A client that forges the header only makes its own cookie
// stricter.
func overTLS(ctx *fasthttp.RequestCtx) bool {
	return ctx.IsTLS() || bytes.EqualFold(ctx.Request.Header.Peek("X-Forwarded-Proto"), []byte("https"))
}

type sessionView struct {
	Product   protocol.Product `json:"product"`
	Tier      string           `json:"tier"`
	ExpiresAt time.Time        `json:"expires_at"` // of the session
	Linked    bool             `json:"telegram_linked,omitempty"`
	Via       string           `json:"via,omitempty"` // GET /v1/auth/session: "apikey" or "telegram"
}

// respond renders an unauthenticated handler's result like Keyed does.
func (a *api) respond(ctx *fasthttp.RequestCtx, h func(*fasthttp.RequestCtx) (int, any, error)) {
	status, data, err := h(ctx)
	a.k.Render(ctx, httpkit.FamilyTweetAlerts, status, data, err)
}

// authAPIKey is POST /v1/auth/apikey, body {api_key}: an xg_ (or dt_) key
// in, the session cookie out.
func (a *api) authAPIKey(ctx *fasthttp.RequestCtx) {
	a.respond(ctx, a.doAuthAPIKey)
}

func (a *api) doAuthAPIKey(ctx *fasthttp.RequestCtx) (int, any, error) {
	if a.d.Sessions == nil {
		return 0, nil, protocol.Unavailable("sessions are not available")
	}
	m, perr := httpkit.Fields(ctx)
	if perr != nil {
		return 0, nil, perr
	}
	key, err := httpkit.RequiredString(m, "api_key")
	if err != nil {
		return 0, nil, err
	}
	p, reason := a.k.Accounts.Authenticate(key, httpkit.FamilyTweetAlerts.Accepts...)
	if reason != account.OK {
		return 0, nil, unauthorized(httpkit.ReasonText(reason, &p))
	}
	exp := a.setSession(ctx, p.AccountID, p.Product, "apikey", keyID(key))
	return 200, sessionView{Product: p.Product, Tier: p.Sub.Plan, ExpiresAt: exp}, nil
}

// authTelegram is POST /v1/auth/telegram: the Telegram Login Widget's
// signed fields (id, first_name, last_name, username, photo_url, auth_date,
// hash) as a JSON object. A Telegram user signs in to the account it is
// linked to; it gets linked by signing in with Telegram while holding a
// session made with an API key. An unlinked user without such a session
// gets 401.
func (a *api) authTelegram(ctx *fasthttp.RequestCtx) {
	a.respond(ctx, a.doAuthTelegram)
}

func (a *api) doAuthTelegram(ctx *fasthttp.RequestCtx) (int, any, error) {
	if a.d.Sessions == nil {
		return 0, nil, protocol.Unavailable("sessions are not available")
	}
	var raw json.RawMessage
	if perr := httpkit.ReadJSON(ctx, &raw); perr != nil {
		return 0, nil, perr
	}
	fieldsIn, err := tweetalerts.DecodeTelegramFields(raw)
	if err != nil {
		return 0, nil, protocol.BadRequest(err.Error())
	}
	if a.d.TelegramBotToken == "" {
		return 0, nil, unauthorized("Telegram login is not configured on this server").
			WithHint("sign in with your API key: POST /v1/auth/apikey")
	}
	login, err := tweetalerts.VerifyTelegram(fieldsIn, a.d.TelegramBotToken, a.k.Now(), telegramMaxAge)
	if errors.Is(err, tweetalerts.ErrTelegramFields) {
		return 0, nil, protocol.BadRequest(err.Error())
	}
	if err != nil {
		return 0, nil, unauthorized(err.Error())
	}
	cctx, cancel := httpkit.StoreContext()
	defer cancel()
	link, err := a.d.Store.TelegramLinkOf(cctx, login.ID)
	acct, product, linkedAt := link.Account, link.Product, link.LinkedAt
	linked := false
	switch {
	case errors.Is(err, persistence.ErrNotFound):
		p, has, aerr := a.sessionPrincipal(ctx)
		if !has || aerr != nil {
			return 0, nil, unauthorized("this Telegram account is not linked to an alertd account").
				WithHint("sign in once with your API key (POST /v1/auth/apikey), then with Telegram, to link them")
		}
		if !sameOrigin(ctx) { // the cookie alone must not let another site link its Telegram user
			return 0, nil, protocol.NewError(403, protocol.CodeForbidden,
				"cross-site request refused: linking with the session cookie must come from this server's own pages")
		}
		if a.k.Now().Sub(login.AuthDate) > telegramLinkMaxAge {
			return 0, nil, unauthorized("linking needs a fresh Telegram sign-in; sign in with Telegram again")
		}
		if links, err := a.d.Store.TelegramLinks(cctx, p.AccountID, p.Product); err != nil {
			return 0, nil, err
		} else if len(links) >= MaxTelegramLinks {
			return 0, nil, protocol.Forbidden(fmt.Sprintf("%d Telegram accounts are linked already, the most a subscription may have", MaxTelegramLinks)).
				WithHint("remove one first: DELETE /v1/auth/telegram/links/{telegram_id}")
		}
		// Stored to the millisecond: the session names the link by this time.
		linkedAt = a.k.Now().UTC().Truncate(time.Millisecond)
		if err := a.d.Store.LinkTelegram(cctx, login.ID, p.AccountID, p.Product, linkedAt); err != nil {
			return 0, nil, err
		}
		acct, product, linked = p.AccountID, p.Product, true
	case err != nil:
		return 0, nil, err
	}
	sub, ok := a.k.Accounts.Subscription(acct, product)
	if !ok {
		return 0, nil, unauthorized("the linked account has no subscription")
	}
	if sub.Expired(a.k.Now()) {
		return 0, nil, unauthorized(httpkit.ReasonText(account.Expired, &account.Principal{Sub: sub}))
	}
	tok, exp := a.d.Sessions.IssueTelegram(acct, product, login.ID, linkedAt.UnixMilli())
	a.setCookie(ctx, tok, exp)
	return 200, sessionView{Product: product, Tier: sub.Plan, ExpiresAt: exp, Linked: linked}, nil
}

// authSession is GET /v1/auth/session: who the cookie signs in (the
// dashboard asks on load; the cookie is HttpOnly, so its script cannot
// read it). 401 when the session no longer stands.
func (a *api) authSession(ctx *fasthttp.RequestCtx) {
	a.respond(ctx, func(ctx *fasthttp.RequestCtx) (int, any, error) {
		p, ok, aerr := a.sessionPrincipal(ctx)
		switch {
		case !ok:
			return 0, nil, unauthorized("not signed in").WithHint("sign in: POST /v1/auth/apikey")
		case aerr != nil:
			return 0, nil, aerr
		}
		c, _ := a.d.Sessions.Verify(string(ctx.Request.Header.Cookie(tweetalerts.SessionCookie)))
		return 200, sessionView{Product: p.Product, Tier: p.Sub.Plan, ExpiresAt: time.Unix(c.Expires, 0).UTC(), Via: c.Via}, nil
	})
}

// authLogout is POST /v1/auth/logout: the cookie is cleared (sessions are
// signed tokens, so there is nothing to delete on the server). Like every
// change made from the dashboard it must come from the dashboard's origin.
func (a *api) authLogout(ctx *fasthttp.RequestCtx) {
	a.respond(ctx, func(ctx *fasthttp.RequestCtx) (int, any, error) {
		if !sameOrigin(ctx) {
			return 0, nil, protocol.NewError(403, protocol.CodeForbidden, "cross-site request refused")
		}
		var c fasthttp.Cookie
		c.SetKey(tweetalerts.SessionCookie)
		c.SetPath("/")
		c.SetHTTPOnly(true)
		c.SetSecure(overTLS(ctx))
		c.SetSameSite(fasthttp.CookieSameSiteLaxMode)
		c.SetMaxAge(-1) // Max-Age=0: delete now
		ctx.Response.Header.SetCookie(&c)
		ctx.Response.Header.Set("Cache-Control", "no-store")
		return 200, map[string]bool{"signed_out": true}, nil
	})
}
