package httpkit

// What the spec-3 product APIs of Trending, PumpFun, ECA and Search Alerts
// share: the stored webhook URL and the status object.

import (
	"errors"
	"net/url"
	"time"

	"github.com/alertd/alertd/actors/state/account"
	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
	json "github.com/goccy/go-json"
	"github.com/valyala/fasthttp"
)

// ISOMillis is ISO 8601 in UTC with milliseconds.
const ISOMillis = "2006-01-02T15:04:05.000Z07:00"

// StoredWebhookRoutes are GET and PUT /v1/<segment>/webhook of product p,
// whose webhook URL is only stored (spec 3: nothing is sent).
func (k *Kit) StoredWebhookRoutes(segment string, p protocol.Product, store persistence.StoredWebhookStore) []Route {
	f := ProductFamily(p)
	return []Route{
		GET("/v1/"+segment+"/webhook", k.Keyed(f, func(_ *fasthttp.RequestCtx, pr *account.Principal) (int, any, error) {
			return getStoredWebhook(store, pr, p)
		})),
		PUT("/v1/"+segment+"/webhook", k.Keyed(f, func(ctx *fasthttp.RequestCtx, pr *account.Principal) (int, any, error) {
			return k.putStoredWebhook(ctx, store, pr, p)
		})),
	}
}

type storedWebhookView struct {
	URL       *string    `json:"url"`
	UpdatedAt *time.Time `json:"updated_at"`
}

func getStoredWebhook(store persistence.StoredWebhookStore, pr *account.Principal, p protocol.Product) (int, any, error) {
	cctx, cancel := StoreContext()
	defer cancel()
	w, err := store.GetStoredWebhook(cctx, pr.AccountID, p)
	if errors.Is(err, persistence.ErrNotFound) {
		return 200, storedWebhookView{}, nil
	}
	if err != nil {
		return 0, nil, err
	}
	return 200, storedWebhookView{URL: w.URL, UpdatedAt: &w.UpdatedAt}, nil
}

// maxWebhookURL bounds a stored webhook URL.
const maxWebhookURL = 2048

// putStoredWebhook sets the URL (`url`: an absolute http or https URL) or
// clears it (`url`: null).
func (k *Kit) putStoredWebhook(ctx *fasthttp.RequestCtx, store persistence.StoredWebhookStore, pr *account.Principal, p protocol.Product) (int, any, error) {
	m, perr := Fields(ctx)
	if perr != nil {
		return 0, nil, perr
	}
	raw, ok := m["url"]
	if !ok {
		return 0, nil, MissingField("url")
	}
	var u *string
	if !IsNull(raw) {
		var v string
		if json.Unmarshal(raw, &v) != nil {
			return 0, nil, protocol.BadRequest("url must be a string (or null to clear it)")
		}
		if err := checkWebhookURL(v); err != nil {
			return 0, nil, err
		}
		u = &v
	}
	now := k.Now().UTC().Truncate(time.Millisecond)
	cctx, cancel := StoreContext()
	defer cancel()
	if err := store.PutStoredWebhook(cctx, persistence.StoredWebhook{AccountID: pr.AccountID, Product: p, URL: u, UpdatedAt: now}); err != nil {
		return 0, nil, err
	}
	return 200, storedWebhookView{URL: u, UpdatedAt: &now}, nil
}

func checkWebhookURL(v string) *protocol.APIError {
	if len(v) > maxWebhookURL {
		return protocol.BadRequest("url is longer than 2048 characters")
	}
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Hostname() == "" {
		return protocol.BadRequest("url must be an absolute http or https URL")
	}
	return nil
}

// PlanStatus is what the status endpoints say of the plan: a key that
// reaches them belongs to a live subscription.
type PlanStatus struct {
	SubscriptionStatus string     `json:"subscription_status"`
	Plan               string     `json:"plan"`
	ExpiresAt          *time.Time `json:"expires_at"`
}

// StatusOf is the subscription status of the caller.
func StatusOf(pr *account.Principal) PlanStatus {
	return PlanStatus{SubscriptionStatus: "active", Plan: pr.Sub.Plan, ExpiresAt: pr.Sub.ExpiresAt}
}
