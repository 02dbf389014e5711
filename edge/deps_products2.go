package edge

import (
	"context"
	"errors"
	"net/url"
	"time"

	"github.com/alertd/alertd/actors/product/eca"
	"github.com/alertd/alertd/actors/product/pumpfun"
	"github.com/alertd/alertd/actors/product/searchalerts"
	"github.com/alertd/alertd/actors/product/trending"
	"github.com/alertd/alertd/actors/state/account"
	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
	"github.com/fasthttp/router"
	json "github.com/goccy/go-json"
	"github.com/valyala/fasthttp"
)

// ProductDeps2 are the services the products2 routes use (wired in
// cmd/alertd): Trending, PumpFun, ECA and Search Alerts. A nil service
// leaves its routes out.
type ProductDeps2 struct {
	Trending *trending.Service
	PumpFun  *pumpfun.Service
	ECA      *eca.Service
	SA       *searchalerts.Service
}

// product2Routes registers the products2 routes (spec 3).
func (s *Server) product2Routes(r *router.Router) {
	d := s.deps.Products2
	if d.Trending != nil {
		s.trendingRoutes(r)
	}
	if d.PumpFun != nil {
		s.pfRoutes(r)
	}
	if d.ECA != nil {
		s.ecaRoutes(r)
	}
	if d.SA != nil {
		s.saRoutes(r)
	}
}

// storedWebhookRoutes registers GET and PUT /v1/<segment>/webhook of product p,
// whose webhook URL is only stored (spec 3: nothing is sent).
func (s *Server) storedWebhookRoutes(r *router.Router, segment string, p protocol.Product) {
	f := ProductFamily(p)
	r.GET("/v1/"+segment+"/webhook", s.wrap(f, func(_ *fasthttp.RequestCtx, pr *account.Principal) (int, any, error) {
		return s.getStoredWebhook(pr, p)
	}))
	r.PUT("/v1/"+segment+"/webhook", s.wrap(f, func(ctx *fasthttp.RequestCtx, pr *account.Principal) (int, any, error) {
		return s.putStoredWebhook(ctx, pr, p)
	}))
}

type storedWebhookView struct {
	URL       *string    `json:"url"`
	UpdatedAt *time.Time `json:"updated_at"`
}

func (s *Server) getStoredWebhook(pr *account.Principal, p protocol.Product) (int, any, error) {
	cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	w, err := s.deps.Store.GetStoredWebhook(cctx, pr.AccountID, p)
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
func (s *Server) putStoredWebhook(ctx *fasthttp.RequestCtx, pr *account.Principal, p protocol.Product) (int, any, error) {
	m, perr := fields(ctx)
	if perr != nil {
		return 0, nil, perr
	}
	raw, ok := m["url"]
	if !ok {
		return 0, nil, errMissingField("url")
	}
	var u *string
	if !isNull(raw) {
		var v string
		if json.Unmarshal(raw, &v) != nil {
			return 0, nil, protocol.BadRequest("url must be a string (or null to clear it)")
		}
		if err := checkWebhookURL(v); err != nil {
			return 0, nil, err
		}
		u = &v
	}
	now := s.now().UTC().Truncate(time.Millisecond)
	cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.deps.Store.PutStoredWebhook(cctx, persistence.StoredWebhook{AccountID: pr.AccountID, Product: p, URL: u, UpdatedAt: now}); err != nil {
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

// subscriptionStatus is what the status endpoints say of the plan: a key
// that reaches them belongs to a live subscription.
type subscriptionStatus struct {
	SubscriptionStatus string     `json:"subscription_status"`
	Plan               string     `json:"plan"`
	ExpiresAt          *time.Time `json:"expires_at"`
}

func statusOf(pr *account.Principal) subscriptionStatus {
	return subscriptionStatus{SubscriptionStatus: "active", Plan: pr.Sub.Plan, ExpiresAt: pr.Sub.ExpiresAt}
}
