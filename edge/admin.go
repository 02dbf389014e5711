package edge

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/alertd/alertd/actors/state/account"
	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
	"github.com/fasthttp/router"
	json "github.com/goccy/go-json"
	"github.com/valyala/fasthttp"
)

// requireAdmin guards the admin and ingest APIs.
func (s *Server) requireAdmin(h fasthttp.RequestHandler) fasthttp.RequestHandler {
	return s.kit.Admin(h)
}

func (s *Server) adminRoutes(r *router.Router) {
	r.POST("/admin/v1/keys", s.requireAdmin(s.adminIssueKey))
	r.PATCH("/admin/v1/accounts/{account_id}/products/{product}", s.requireAdmin(s.adminPatch))
	r.DELETE("/admin/v1/keys/{key}", s.requireAdmin(s.adminDeactivate))
}

// subscriptionView is the admin API's JSON of a subscription.
type subscriptionView struct {
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

func viewSubscription(s persistence.Subscription) subscriptionView {
	v := subscriptionView{AccountID: s.AccountID, Product: string(s.Product), Plan: s.Plan,
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
			if !isNull(raw) {
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

func (s *Server) adminIssueKey(ctx *fasthttp.RequestCtx) {
	m, perr := fields(ctx)
	if perr != nil {
		perr.Write(ctx)
		return
	}
	rawProduct, ok := m["product"]
	if !ok {
		writePlain(ctx, 422, errMissingField("product").Msg)
		return
	}
	var name string
	_ = json.Unmarshal(rawProduct, &name)
	product, ok := protocol.ParseProduct(name)
	if !ok {
		writeError(ctx, protocol.BadRequest("product must be one of xg, dt, cw, ct, et, trend, pf, eca, sa"))
		return
	}
	var accountID string
	if raw, ok := m["account_id"]; ok && !isNull(raw) {
		if json.Unmarshal(raw, &accountID) != nil || accountID == "" {
			writeError(ctx, protocol.BadRequest("account_id must be a non-empty string"))
			return
		}
	}
	delete(m, "product")
	delete(m, "account_id")
	c, aerr := parseChanges(m)
	if aerr != nil {
		writeError(ctx, aerr)
		return
	}
	cctx, cancel := adminContext()
	defer cancel()
	issued, err := s.deps.Registry.Issue(cctx, accountID, product, c)
	if err != nil {
		writeError(ctx, s.adminErr(err, "account"))
		return
	}
	s.log.Info("key issued", "account_id", issued.Sub.AccountID, "product", product)
	writeOK(ctx, 201, issuedView{AccountID: issued.Sub.AccountID, Product: string(product), Key: issued.Key,
		Plan: issued.Sub.Plan, ExpiresAt: issued.Sub.ExpiresAt})
}

func (s *Server) adminPatch(ctx *fasthttp.RequestCtx) {
	accountID := pathValue(ctx, "account_id")
	product, ok := protocol.ParseProduct(pathValue(ctx, "product"))
	if !ok {
		writeError(ctx, protocol.NotFound("no such product"))
		return
	}
	m, perr := fields(ctx)
	if perr != nil {
		perr.Write(ctx)
		return
	}
	c, aerr := parseChanges(m)
	if aerr != nil {
		writeError(ctx, aerr)
		return
	}
	cctx, cancel := adminContext()
	defer cancel()
	sub, err := s.deps.Registry.Change(cctx, accountID, product, c)
	if err != nil {
		writeError(ctx, s.adminErr(err, "subscription"))
		return
	}
	s.log.Info("subscription changed", "account_id", accountID, "product", product)
	writeOK(ctx, 200, viewSubscription(sub))
}

func (s *Server) adminDeactivate(ctx *fasthttp.RequestCtx) {
	cctx, cancel := adminContext()
	defer cancel()
	if err := s.deps.Registry.Deactivate(cctx, pathValue(ctx, "key")); err != nil {
		writeError(ctx, s.adminErr(err, "key"))
		return
	}
	s.log.Info("key deactivated")
	writeOK(ctx, 200, map[string]bool{"deactivated": true})
}

func (s *Server) adminErr(err error, what string) *protocol.APIError {
	switch {
	case errors.Is(err, account.ErrInvalid):
		return protocol.BadRequest(err.Error()[len(account.ErrInvalid.Error())+2:])
	case errors.Is(err, persistence.ErrNotFound):
		return protocol.NotFound(what + " not found")
	}
	s.log.Error("admin change failed", "err", err)
	return protocol.Internal()
}

// pathValue copies a router path value (fasthttp reuses the request's bytes).
func pathValue(ctx *fasthttp.RequestCtx, name string) string {
	switch v := ctx.UserValue(name).(type) {
	case string:
		return strings.Clone(v)
	case []byte:
		return string(v)
	}
	return ""
}

// adminContext bounds a store change. It is not the fasthttp RequestCtx: that
// one's Done channel is not safe to watch from the database driver's goroutines.
func adminContext() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), 10*time.Second)
}
