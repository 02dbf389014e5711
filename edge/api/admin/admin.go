// Package admin serves the admin API (CONTRACT.md section 2): issuing keys,
// changing subscriptions, deactivating keys, and the webhook delivery log
// of every product that sends webhooks with its redelivery (webhooks.go),
// behind the admin bearer token. Its answers use the envelope; keys appear
// only in the issue answer and never in logs.
package admin

import (
	"context"
	"errors"
	"time"

	"github.com/alertd/alertd/actors/state/account"
	"github.com/alertd/alertd/edge/httpkit"
	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
	json "github.com/goccy/go-json"
	"github.com/valyala/fasthttp"
)

// Accounts changes keys and subscriptions (*account.Registry).
type Accounts interface {
	Issue(ctx context.Context, accountID string, p protocol.Product, c account.Changes) (account.Issued, error)
	Change(ctx context.Context, accountID string, p protocol.Product, c account.Changes) (persistence.Subscription, error)
	Deactivate(ctx context.Context, key string) error
}

// Links links a Telegram user to an account (the table the bot and the
// dashboard's Telegram sign-in read).
type Links interface {
	LinkTelegram(ctx context.Context, telegramID int64, account string, product protocol.Product, at time.Time) error
}

// Deps are what the admin API uses.
type Deps struct {
	Accounts Accounts
	// Links takes telegram_user_id at issue time (nil: the field is refused).
	Links Links
	// Webhooks are the delivery logs of the products that send webhooks
	// (xg, cw, ct, et), by product; a product missing has none.
	Webhooks map[protocol.Product]Webhooks
}

type api struct {
	k *httpkit.Kit
	d Deps
}

// Routes are the admin API's routes; none without Accounts.
func Routes(k *httpkit.Kit, d Deps) []httpkit.Route {
	if d.Accounts == nil {
		return nil
	}
	a := &api{k: k, d: d}
	routes := []httpkit.Route{
		httpkit.POST("/admin/v1/keys", k.Admin(a.issueKey)),
		httpkit.PATCH("/admin/v1/accounts/{account_id}/products/{product}", k.Admin(a.patch)),
		httpkit.DELETE("/admin/v1/keys/{key}", k.Admin(a.deactivate)),
	}
	if len(d.Webhooks) > 0 {
		routes = append(routes,
			httpkit.GET("/admin/v1/webhooks/{id}/deliveries", k.Admin(a.deliveries)),
			httpkit.POST("/admin/v1/webhooks/{id}/deliveries/{delivery_id}/redeliver", k.Admin(a.redeliverOne)),
			httpkit.POST("/admin/v1/webhooks/{id}/redeliver", k.Admin(a.redeliverRange)))
	}
	return routes
}

// SubscriptionView is the admin API's JSON of a subscription (CONTRACT.md
// section 2): the size fields only for the products that have them. The
// operator console lists subscriptions in it too, so that it edits what it
// shows.
type SubscriptionView struct {
	AccountID          string     `json:"account_id"`
	Product            string     `json:"product"`
	Plan               string     `json:"plan"`
	Modules            []string   `json:"modules,omitempty"`
	MaxHandles         *int       `json:"max_handles,omitempty"`
	MaxTweets          *int       `json:"max_tweets,omitempty"`
	MaxWallets         *int       `json:"max_wallets,omitempty"`
	CASearchDailyLimit *int       `json:"ca_search_daily_limit"`
	LateDelivery       *bool      `json:"late_delivery,omitempty"`
	ExpiresAt          *time.Time `json:"expires_at"`
	CreatedAt          time.Time  `json:"created_at"`
	UpdatedAt          time.Time  `json:"updated_at"`
}

// ViewSubscription is s as the admin API shows it.
func ViewSubscription(s persistence.Subscription) SubscriptionView {
	v := SubscriptionView{AccountID: s.AccountID, Product: string(s.Product), Plan: s.Plan,
		CASearchDailyLimit: s.CASearchDailyLimit, ExpiresAt: s.ExpiresAt, CreatedAt: s.CreatedAt, UpdatedAt: s.UpdatedAt}
	switch s.Product {
	case protocol.ProductB2B:
		v.Modules = append([]string{}, s.Modules...)
		v.MaxHandles, v.LateDelivery = &s.MaxHandles, &s.LateDelivery
	case protocol.ProductCW, protocol.ProductCT:
		v.MaxHandles = &s.MaxHandles
	case protocol.ProductET:
		v.MaxTweets = &s.MaxTweets
	case protocol.ProductPumpFun:
		v.MaxWallets = &s.MaxWallets
	}
	return v
}

// changeFields are the subscription fields of the admin API.
var changeFields = map[string]bool{"plan": true, "modules": true, "max_handles": true, "max_tweets": true,
	"max_wallets": true, "ca_search_daily_limit": true, "late_delivery": true, "expires_at": true}

// parseChanges reads the subscription fields of an admin body.
func parseChanges(m map[string]json.RawMessage) (account.Changes, *protocol.APIError) {
	var c account.Changes
	bad := func(field, want string) *protocol.APIError {
		return protocol.BadRequest(field + " must be " + want)
	}
	for k, raw := range m {
		if !changeFields[k] {
			return c, protocol.BadRequest("unknown field " + k)
		}
		switch k {
		case "plan":
			var v string
			if json.Unmarshal(raw, &v) != nil {
				return c, bad(k, "a string")
			}
			c.Plan = &v
		case "modules":
			var v []string
			if json.Unmarshal(raw, &v) != nil || v == nil {
				return c, bad(k, "an array of strings")
			}
			c.Modules = &v
		case "max_handles", "max_tweets", "max_wallets":
			var v int
			if json.Unmarshal(raw, &v) != nil {
				return c, bad(k, "an integer")
			}
			switch k {
			case "max_handles":
				c.MaxHandles = &v
			case "max_tweets":
				c.MaxTweets = &v
			default:
				c.MaxWallets = &v
			}
		case "ca_search_daily_limit":
			var v *int
			if json.Unmarshal(raw, &v) != nil {
				return c, bad(k, "an integer or null")
			}
			c.CASearchDailyLimit = &v
		case "late_delivery":
			var v bool
			if json.Unmarshal(raw, &v) != nil {
				return c, bad(k, "a boolean")
			}
			c.LateDelivery = &v
		case "expires_at":
			var t *time.Time
			if !httpkit.IsNull(raw) {
				var str string
				if json.Unmarshal(raw, &str) != nil {
					return c, bad(k, "an RFC 3339 time or null")
				}
				parsed, err := time.Parse(time.RFC3339, str)
				if err != nil {
					return c, bad(k, "an RFC 3339 time or null")
				}
				t = &parsed
			}
			c.ExpiresAt = &t
		}
	}
	return c, nil
}

type issuedView struct {
	AccountID string     `json:"account_id"`
	Product   string     `json:"product"`
	Key       string     `json:"key"`
	Plan      string     `json:"plan"`
	ExpiresAt *time.Time `json:"expires_at"`
}

func (a *api) issueKey(ctx *fasthttp.RequestCtx) {
	m, perr := httpkit.Fields(ctx)
	if perr != nil {
		perr.Write(ctx)
		return
	}
	rawProduct, ok := m["product"]
	if !ok {
		httpkit.WritePlain(ctx, 422, httpkit.MissingField("product").Msg)
		return
	}
	var name string
	_ = json.Unmarshal(rawProduct, &name)
	product, ok := protocol.ParseProduct(name)
	if !ok {
		httpkit.WriteError(ctx, protocol.BadRequest("product must be one of xg, dt, cw, ct, et, trend, pf, eca, sa"))
		return
	}
	var accountID string
	if raw, ok := m["account_id"]; ok && !httpkit.IsNull(raw) {
		if json.Unmarshal(raw, &accountID) != nil || accountID == "" {
			httpkit.WriteError(ctx, protocol.BadRequest("account_id must be a non-empty string"))
			return
		}
	}
	delete(m, "product")
	delete(m, "account_id")
	var tgUser int64
	if raw, ok := m["telegram_user_id"]; ok && a.d.Links != nil {
		delete(m, "telegram_user_id")
		if !httpkit.IsNull(raw) && (json.Unmarshal(raw, &tgUser) != nil || tgUser <= 0) {
			httpkit.WriteError(ctx, protocol.BadRequest("telegram_user_id must be a positive integer or null"))
			return
		}
	}
	c, aerr := parseChanges(m)
	if aerr != nil {
		httpkit.WriteError(ctx, aerr)
		return
	}
	cctx, cancel := httpkit.StoreContext()
	defer cancel()
	issued, err := a.d.Accounts.Issue(cctx, accountID, product, c)
	if err != nil {
		httpkit.WriteError(ctx, a.changeErr(err, "account"))
		return
	}
	if tgUser > 0 {
		if err := a.d.Links.LinkTelegram(cctx, tgUser, issued.Sub.AccountID, product, time.Now().UTC().Truncate(time.Millisecond)); err != nil {
			httpkit.WriteError(ctx, a.changeErr(err, "account"))
			return
		}
	}
	a.k.Log.Info("key issued", "account_id", issued.Sub.AccountID, "product", product, "telegram_linked", tgUser > 0)
	httpkit.WriteOK(ctx, 201, issuedView{AccountID: issued.Sub.AccountID, Product: string(product), Key: issued.Key,
		Plan: issued.Sub.Plan, ExpiresAt: issued.Sub.ExpiresAt})
}

func (a *api) patch(ctx *fasthttp.RequestCtx) {
	accountID := httpkit.PathValue(ctx, "account_id")
	product, ok := protocol.ParseProduct(httpkit.PathValue(ctx, "product"))
	if !ok {
		httpkit.WriteError(ctx, protocol.NotFound("no such product"))
		return
	}
	m, perr := httpkit.Fields(ctx)
	if perr != nil {
		perr.Write(ctx)
		return
	}
	c, aerr := parseChanges(m)
	if aerr != nil {
		httpkit.WriteError(ctx, aerr)
		return
	}
	cctx, cancel := httpkit.StoreContext()
	defer cancel()
	sub, err := a.d.Accounts.Change(cctx, accountID, product, c)
	if err != nil {
		httpkit.WriteError(ctx, a.changeErr(err, "subscription"))
		return
	}
	a.k.Log.Info("subscription changed", "account_id", accountID, "product", product)
	httpkit.WriteOK(ctx, 200, ViewSubscription(sub))
}

func (a *api) deactivate(ctx *fasthttp.RequestCtx) {
	cctx, cancel := httpkit.StoreContext()
	defer cancel()
	if err := a.d.Accounts.Deactivate(cctx, httpkit.PathValue(ctx, "key")); err != nil {
		httpkit.WriteError(ctx, a.changeErr(err, "key"))
		return
	}
	a.k.Log.Info("key deactivated")
	httpkit.WriteOK(ctx, 200, map[string]bool{"deactivated": true})
}

func (a *api) changeErr(err error, what string) *protocol.APIError {
	switch {
	case errors.Is(err, account.ErrInvalid):
		return protocol.BadRequest(err.Error()[len(account.ErrInvalid.Error())+2:])
	case errors.Is(err, persistence.ErrNotFound):
		return protocol.NotFound(what + " not found")
	}
	a.k.Log.Error("admin change failed", "err", err)
	return protocol.Internal()
}
