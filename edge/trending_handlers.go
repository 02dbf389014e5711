package edge

import (
	"context"
	"time"

	"github.com/alertd/alertd/actors/product/trending"
	"github.com/alertd/alertd/actors/state/account"
	"github.com/alertd/alertd/protocol"
	"github.com/fasthttp/router"
	json "github.com/goccy/go-json"
	"github.com/valyala/fasthttp"
)

// trendingRoutes are the Trending Alerts routes under /v1/trending (spec 3).
func (s *Server) trendingRoutes(r *router.Router) {
	f := ProductFamily(protocol.ProductTrending)
	r.GET("/v1/trending/categories", s.wrap(f, s.trendingCategories))
	r.GET("/v1/trending/subscriptions", s.wrap(f, s.trendingSubscriptions))
	r.PUT("/v1/trending/subscriptions", s.wrap(f, s.putTrendingSubscriptions))
	r.GET("/v1/trending/status", s.wrap(f, s.trendingStatus))
	s.storedWebhookRoutes(r, "trending", protocol.ProductTrending)
	if s.ws != nil {
		// /v1/trending/ws: every trending post of the 24 categories,
		// whatever the account's subscriptions (those are for chat).
		r.GET("/v1/trending/ws", s.productSocket(protocol.ProductTrending, productScope(protocol.ProductTrending)))
	}
}

type trendingCategory struct {
	Slug       string `json:"slug"`
	Subscribed bool   `json:"subscribed"`
}

type trendingCategoriesView struct {
	Categories []trendingCategory `json:"categories"`
	Count      int                `json:"count"`
}

type trendingSubscriptionsView struct {
	Categories []string `json:"categories"`
	// Ignored are the slugs of a PUT that are not categories.
	Ignored []string `json:"ignored,omitempty"`
}

func (s *Server) subscribedCategories(p *account.Principal) ([]string, error) {
	cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cats, err := s.deps.Store.TrendingCategories(cctx, p.AccountID)
	if err != nil {
		return nil, err
	}
	return trending.Normalize(cats), nil
}

// trendingCategories is GET /v1/trending/categories: the 24 slugs, each with
// whether the account subscribed to it (chat alerts).
func (s *Server) trendingCategories(_ *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	subs, err := s.subscribedCategories(p)
	if err != nil {
		return 0, nil, err
	}
	on := map[string]bool{}
	for _, c := range subs {
		on[c] = true
	}
	v := trendingCategoriesView{Categories: make([]trendingCategory, 0, len(protocol.TrendingSlugs)), Count: len(protocol.TrendingSlugs)}
	for _, slug := range protocol.TrendingSlugs {
		v.Categories = append(v.Categories, trendingCategory{Slug: slug, Subscribed: on[slug]})
	}
	return 200, v, nil
}

// trendingSubscriptions is GET /v1/trending/subscriptions.
func (s *Server) trendingSubscriptions(_ *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	subs, err := s.subscribedCategories(p)
	if err != nil {
		return 0, nil, err
	}
	return 200, trendingSubscriptionsView{Categories: subs}, nil
}

// putTrendingSubscriptions is PUT /v1/trending/subscriptions: `categories`
// replaces the subscribed slugs; unknown slugs are ignored (and listed back).
func (s *Server) putTrendingSubscriptions(ctx *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	m, perr := fields(ctx)
	if perr != nil {
		return 0, nil, perr
	}
	raw, ok := m["categories"]
	if !ok {
		return 0, nil, errMissingField("categories")
	}
	var in []string
	if isNull(raw) || json.Unmarshal(raw, &in) != nil {
		return 0, nil, protocol.BadRequest("categories must be an array of category slugs")
	}
	cats := trending.Normalize(in)
	var ignored []string
	for _, c := range in {
		if !protocol.IsTrendingSlug(protocol.NormalizeCategory(c)) {
			ignored = append(ignored, c)
		}
	}
	cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.deps.Store.PutTrendingCategories(cctx, p.AccountID, cats, s.now()); err != nil {
		return 0, nil, err
	}
	return 200, trendingSubscriptionsView{Categories: cats, Ignored: ignored}, nil
}

type trendingStatusView struct {
	subscriptionStatus
	SubscribedCategories int `json:"subscribed_categories"`
	TotalCategories      int `json:"total_categories"`
}

// trendingStatus is GET /v1/trending/status.
func (s *Server) trendingStatus(_ *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	subs, err := s.subscribedCategories(p)
	if err != nil {
		return 0, nil, err
	}
	return 200, trendingStatusView{subscriptionStatus: statusOf(p), SubscribedCategories: len(subs),
		TotalCategories: len(protocol.TrendingSlugs)}, nil
}
