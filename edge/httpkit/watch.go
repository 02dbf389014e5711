package httpkit

// What the APIs of Community Watch, Convergence Tracker and Engagement
// Tracker share: the live webhook endpoints, handle limits and times.

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/alertd/alertd/actors/product/watchlist"
	"github.com/alertd/alertd/actors/state/account"
	"github.com/alertd/alertd/actors/state/directory"
	"github.com/alertd/alertd/protocol"
	json "github.com/goccy/go-json"
	"github.com/valyala/fasthttp"
)

// WatchTime formats a time as the watch products do (ISO 8601, UTC, ms).
func WatchTime(t time.Time) string { return watchlist.ISOTime(t.UnixMilli()) }

// HandleLimit is a cw or ct plan's ceiling (CONTRACT.md: default 20).
func HandleLimit(p *account.Principal) int {
	if p.Sub.MaxHandles > 0 {
		return p.Sub.MaxHandles
	}
	return protocol.HandlePlanSizes[0]
}

// HandleLimitError is 403 handle_limit_reached (spec 3: cw and ct).
func HandleLimitError(segment string, have, max int) *protocol.APIError {
	return protocol.NewError(403, protocol.CodeHandleLimitReached, fmt.Sprintf("handle limit reached (%d/%d)", have, max)).
		WithHint("remove a handle with DELETE /v1/" + segment + "/targets/{handle}, or upgrade your plan")
}

// RemovedHandle is the answer of DELETE /v1/{cw,ct}/targets/{handle}.
type RemovedHandle struct {
	Removed string `json:"removed"`
	Count   int    `json:"count"`
	Limit   int    `json:"max_handles"`
}

// UserID is the platform id of handle, if the directory knows it.
func UserID(dir *directory.Directory, handle string) *string {
	if dir == nil {
		return nil
	}
	if e, ok := dir.ByHandle(handle); ok {
		id := e.User.ID
		return &id
	}
	return nil
}

// WatchHooks is the webhook delivery of cw, ct and et as REST sees it.
type WatchHooks interface {
	// CheckURL validates a webhook URL at registration (http or https, a
	// host, no private, loopback, link-local or multicast address unless
	// allowed) and returns it in normal form.
	CheckURL(ctx context.Context, raw string) (string, error)
	// Register makes the deliveries of product p to account go to w from now on.
	Register(p protocol.Product, account string, w watchlist.Webhook)
}

// WatchWebhooks is a watch registry's webhook side.
type WatchWebhooks interface {
	Webhook(acct string) (watchlist.Webhook, bool)
	SetWebhook(ctx context.Context, acct, url, secret string) (watchlist.Webhook, error)
}

// WatchWebhookRoutes are GET and PUT /v1/<p>/webhook of a watch product:
// the webhook is kept in reg and delivered by hooks.
func (k *Kit) WatchWebhookRoutes(p protocol.Product, reg WatchWebhooks, hooks WatchHooks) []Route {
	f := ProductFamily(p)
	return []Route{
		GET("/v1/"+string(p)+"/webhook", k.Keyed(f, getWatchWebhook(reg))),
		PUT("/v1/"+string(p)+"/webhook", k.Keyed(f, putWatchWebhook(p, reg, hooks))),
	}
}

// watchWebhookView is GET /v1/{cw,ct,et}/webhook: the URL, never the secret.
type watchWebhookView struct {
	URL        *string `json:"url"`
	Configured bool    `json:"configured"`
	UpdatedAt  *string `json:"updated_at"`
}

// watchWebhookSetView is PUT's answer: the secret, shown this once.
type watchWebhookSetView struct {
	URL       string `json:"url"`
	Secret    string `json:"secret"`
	UpdatedAt string `json:"updated_at"`
}

func getWatchWebhook(reg WatchWebhooks) Handler {
	return func(_ *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
		w, ok := reg.Webhook(p.AccountID)
		if !ok {
			return 200, watchWebhookView{}, nil
		}
		at := WatchTime(w.UpdatedAt)
		return 200, watchWebhookView{URL: &w.URL, Configured: true, UpdatedAt: &at}, nil
	}
}

// maxWatchWebhookURL bounds a webhook URL.
const maxWatchWebhookURL = 2048

// putWatchWebhook sets the account's webhook (`url` required) with a fresh
// secret: deliveries start at once, signed or carrying the new secret.
func putWatchWebhook(prod protocol.Product, reg WatchWebhooks, hooks WatchHooks) Handler {
	return func(ctx *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
		m, perr := Fields(ctx)
		if perr != nil {
			return 0, nil, perr
		}
		raw, ok := m["url"]
		if !ok {
			return 0, nil, MissingField("url")
		}
		var u string
		if json.Unmarshal(raw, &u) != nil {
			return 0, nil, protocol.BadRequest("url must be a string")
		}
		if u = strings.TrimSpace(u); u == "" {
			return 0, nil, protocol.BadRequest("url is required")
		}
		if len(u) > maxWatchWebhookURL {
			return 0, nil, protocol.BadRequest("url is longer than 2048 characters")
		}
		cctx, cancel := StoreContext()
		defer cancel()
		norm, err := hooks.CheckURL(cctx, u)
		if err != nil {
			return 0, nil, protocol.BadRequest("webhook url refused: " + err.Error()).
				WithHint("use a public http or https URL")
		}
		w, err := reg.SetWebhook(cctx, p.AccountID, norm, NewSecret())
		if err != nil {
			return 0, nil, err
		}
		hooks.Register(prod, p.AccountID, w)
		return 200, watchWebhookSetView{URL: w.URL, Secret: w.Secret, UpdatedAt: WatchTime(w.UpdatedAt)}, nil
	}
}
