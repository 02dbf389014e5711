package tweetalerts

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/alertd/alertd/actors/product/tweetalerts"
	"github.com/alertd/alertd/actors/state/account"
	"github.com/alertd/alertd/edge/httpkit"
	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
	json "github.com/goccy/go-json"
	"github.com/valyala/fasthttp"
)

// Limits of a webhook's filters (ours: the spec shows none).
const (
	maxFilterHandles    = 1000
	maxFilterKeywords   = 100
	maxFilterKeywordLen = 100
	maxWebhookURLLen    = 2048
)

// webhookView is spec 1's "Webhook"; Secret only in the creation answer.
type webhookView struct {
	ID                  int64     `json:"id"`
	URL                 string    `json:"url"`
	Events              []string  `json:"events"`
	FilterHandles       []string  `json:"filter_handles"`
	FilterKeywords      []string  `json:"filter_keywords"`
	IsActive            bool      `json:"is_active"`
	ConsecutiveFailures int       `json:"consecutive_failures"`
	CreatedAt           time.Time `json:"created_at"`
	Secret              string    `json:"secret,omitempty"`
}

func viewWebhook(w persistence.Webhook) webhookView {
	return webhookView{ID: w.ID, URL: w.URL, Events: orEmpty(w.Events), FilterHandles: orEmpty(w.FilterHandles),
		FilterKeywords: orEmpty(w.FilterKeywords), IsActive: w.IsActive, ConsecutiveFailures: w.ConsecutiveFailures,
		CreatedAt: w.CreatedAt.UTC()}
}

func orEmpty(l []string) []string {
	if l == nil {
		return []string{}
	}
	return l
}

// webhookLimit is the caller's plan limit: a dt_ key has no Tweet Alerts
// webhooks (the B2B plans list max_webhooks 0).
func webhookLimit(p *account.Principal) int {
	if p.Product != protocol.ProductTweetAlerts {
		return 0
	}
	if plan, ok := protocol.FindTweetAlertsPlan(p.Sub.Plan); ok {
		return plan.Webhooks
	}
	return 0
}

type webhookListView struct {
	Webhooks []webhookView `json:"webhooks"`
	Count    int           `json:"count"`
	Limit    int           `json:"limit"`
}

// listWebhooks is GET /v1/webhooks: the webhooks that fire, without
// secrets. After a downgrade those past the plan's count (the newest) stay
// stored but fire no more and are not listed, so count never exceeds limit
// (spec 1 fixes the shape; its is_active stays true for a listed webhook);
// an upgrade brings them back.
func (a *api) listWebhooks(_ *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	list := a.d.Registry.ActiveWebhooks(p.AccountID, webhookLimit(p))
	v := webhookListView{Webhooks: make([]webhookView, 0, len(list)), Count: len(list), Limit: webhookLimit(p)}
	for _, w := range list {
		v.Webhooks = append(v.Webhooks, viewWebhook(w))
	}
	return 200, v, nil
}

// optionalStrings reads an optional array-of-strings member (absent or null: nil).
func optionalStrings(m map[string]json.RawMessage, name string) ([]json.RawMessage, bool, error) {
	raw, ok := m[name]
	if !ok || httpkit.IsNull(raw) {
		return nil, false, nil
	}
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) != nil || items == nil {
		return nil, false, protocol.BadRequest(name + " must be an array of strings")
	}
	return items, true, nil
}

// webhookRequest is a decoded POST /v1/webhooks body.
type webhookRequest struct {
	url                      string
	events, handles, keyword []string
}

func decodeWebhookRequest(m map[string]json.RawMessage) (webhookRequest, error) {
	var r webhookRequest
	raw, ok := m["url"]
	if !ok {
		return r, httpkit.MissingField("url")
	}
	if json.Unmarshal(raw, &r.url) != nil || httpkit.IsNull(raw) {
		return r, protocol.BadRequest("url must be a string")
	}
	if r.url = strings.TrimSpace(r.url); r.url == "" || len(r.url) > maxWebhookURLLen {
		return r, protocol.BadRequest(fmt.Sprintf("url must be an http or https URI of at most %d characters", maxWebhookURLLen))
	}
	r.events = []string{"tweet"}
	if items, ok, err := optionalStrings(m, "events"); err != nil {
		return r, err
	} else if ok && len(items) > 0 {
		r.events = nil
		for _, it := range items {
			var e string
			if json.Unmarshal(it, &e) != nil || e != "tweet" {
				return r, protocol.BadRequest(`events may only contain "tweet"`)
			}
			if len(r.events) == 0 {
				r.events = append(r.events, e)
			}
		}
	}
	if items, ok, err := optionalStrings(m, "filter_handles"); err != nil {
		return r, err
	} else if ok {
		if len(items) > maxFilterHandles {
			return r, protocol.BadRequest(fmt.Sprintf("at most %d filter_handles", maxFilterHandles))
		}
		if r.handles, err = normalizeHandles(items, "filter_handles"); err != nil {
			return r, err
		}
	}
	if items, ok, err := optionalStrings(m, "filter_keywords"); err != nil {
		return r, err
	} else if ok {
		if len(items) > maxFilterKeywords {
			return r, protocol.BadRequest(fmt.Sprintf("at most %d filter_keywords", maxFilterKeywords))
		}
		seen := map[string]bool{}
		for _, it := range items {
			var k string
			if json.Unmarshal(it, &k) != nil {
				return r, protocol.BadRequest("filter_keywords must be an array of strings")
			}
			k = strings.TrimSpace(k)
			if k == "" || utf8.RuneCountInString(k) > maxFilterKeywordLen {
				return r, protocol.BadRequest(fmt.Sprintf("each filter keyword must be 1 to %d characters", maxFilterKeywordLen))
			}
			if low := strings.ToLower(k); !seen[low] {
				seen[low] = true
				r.keyword = append(r.keyword, k)
			}
		}
	}
	return r, nil
}

// newWebhookSecret is 32 random bytes in hex: 64 characters.
func newWebhookSecret() string {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("crypto/rand failed: " + err.Error())
	}
	return hex.EncodeToString(b[:])
}

// createWebhook is POST /v1/webhooks.
func (a *api) createWebhook(ctx *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	m, perr := httpkit.Fields(ctx)
	if perr != nil {
		return 0, nil, perr
	}
	req, err := decodeWebhookRequest(m)
	if err != nil {
		return 0, nil, err
	}
	reg := a.d.Registry
	limit := webhookLimit(p)
	if limit == 0 {
		return 0, nil, protocol.Forbidden("webhooks need a paid Tweet Alerts plan").
			WithHint("upgrade to a paid Tweet Alerts plan; see GET /v1/plans")
	}
	if n := len(reg.Webhooks(p.AccountID)); n >= limit {
		return 0, nil, webhookLimitErr(n, limit)
	}
	cctx, cancel := httpkit.StoreContext()
	defer cancel()
	u, err := a.d.Guard.CheckURL(cctx, req.url)
	if err != nil {
		return 0, nil, protocol.BadRequest(err.Error()).WithHint("use a public http or https address; HTTPS is recommended")
	}
	w := persistence.Webhook{AccountID: p.AccountID, URL: u, Events: req.events, FilterHandles: req.handles,
		FilterKeywords: req.keyword, Secret: newWebhookSecret(), IsActive: true,
		CreatedAt: a.k.Now().UTC().Truncate(time.Millisecond)}
	saved, err := reg.AddWebhook(cctx, w, limit)
	if errors.Is(err, tweetalerts.ErrWebhookLimit) {
		return 0, nil, webhookLimitErr(len(reg.Webhooks(p.AccountID)), limit)
	}
	if err != nil {
		return 0, nil, err
	}
	v := viewWebhook(saved)
	v.Secret = saved.Secret // shown this once
	return 201, v, nil
}

func webhookLimitErr(n, limit int) *protocol.APIError {
	return protocol.Forbidden(fmt.Sprintf("your plan's webhook limit is reached (%d/%d)", n, limit)).
		WithHint("delete a webhook with DELETE /v1/webhooks/{id}, or upgrade your plan")
}

// webhookDeliveries is GET /v1/webhooks/{id}/deliveries: one of the
// caller's active webhooks' recent deliveries, newest first, with each
// attempt's status code, latency and result (the dashboard shows them).
func (a *api) webhookDeliveries(ctx *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	id, err := strconv.ParseInt(httpkit.PathValue(ctx, "id"), 10, 64)
	if err != nil || id <= 0 || !slices.ContainsFunc(a.d.Registry.Webhooks(p.AccountID), func(w persistence.Webhook) bool { return w.ID == id }) {
		return 0, nil, protocol.NotFound("no such webhook")
	}
	limit, before, err := httpkit.DeliveryPage(ctx)
	if err != nil {
		return 0, nil, err
	}
	if a.d.Deliveries == nil {
		return 200, httpkit.ViewDeliveryLog(nil, limit), nil
	}
	cctx, cancel := httpkit.StoreContext()
	defer cancel()
	log, err := a.d.Deliveries.DeliveryLog(cctx, id, before, limit)
	if err != nil {
		return 0, nil, err
	}
	return 200, httpkit.ViewDeliveryLog(log, limit), nil
}

type deletedView struct {
	Deleted bool  `json:"deleted"`
	ID      int64 `json:"id"`
}

// deleteWebhook is DELETE /v1/webhooks/{id}: deliveries stop at once.
func (a *api) deleteWebhook(ctx *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	id, err := strconv.ParseInt(httpkit.PathValue(ctx, "id"), 10, 64)
	if err != nil || id <= 0 {
		return 0, nil, protocol.NotFound("no such webhook")
	}
	cctx, cancel := httpkit.StoreContext()
	defer cancel()
	err = a.d.Registry.DeleteWebhook(cctx, p.AccountID, id)
	if errors.Is(err, tweetalerts.ErrNoWebhook) {
		return 0, nil, protocol.NotFound("no such webhook")
	}
	if err != nil {
		return 0, nil, err
	}
	return 200, deletedView{Deleted: true, ID: id}, nil
}
