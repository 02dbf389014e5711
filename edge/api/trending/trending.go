package trending

import (
	"github.com/alertd/alertd/actors/product/trending"
	"github.com/alertd/alertd/actors/state/account"
	"github.com/alertd/alertd/edge/httpkit"
	"github.com/alertd/alertd/protocol"
	json "github.com/goccy/go-json"
	"github.com/valyala/fasthttp"
)

type category struct {
	Slug       string `json:"slug"`
	Subscribed bool   `json:"subscribed"`
}

type categoriesView struct {
	Categories []category `json:"categories"`
	Count      int        `json:"count"`
}

type subscriptionsView struct {
	Categories []string `json:"categories"`
	// Ignored are the slugs of a PUT that are not categories.
	Ignored []string `json:"ignored,omitempty"`
}

func (a *api) subscribed(p *account.Principal) ([]string, error) {
	cctx, cancel := httpkit.StoreContext()
	defer cancel()
	cats, err := a.d.Store.TrendingCategories(cctx, p.AccountID)
	if err != nil {
		return nil, err
	}
	return trending.Normalize(cats), nil
}

// listCategories is GET /v1/trending/categories: the 24 slugs, each with
// whether the account subscribed to it (chat alerts).
func (a *api) listCategories(_ *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	subs, err := a.subscribed(p)
	if err != nil {
		return 0, nil, err
	}
	on := map[string]bool{}
	for _, c := range subs {
		on[c] = true
	}
	v := categoriesView{Categories: make([]category, 0, len(protocol.TrendingSlugs)), Count: len(protocol.TrendingSlugs)}
	for _, slug := range protocol.TrendingSlugs {
		v.Categories = append(v.Categories, category{Slug: slug, Subscribed: on[slug]})
	}
	return 200, v, nil
}

// subscriptions is GET /v1/trending/subscriptions.
func (a *api) subscriptions(_ *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	subs, err := a.subscribed(p)
	if err != nil {
		return 0, nil, err
	}
	return 200, subscriptionsView{Categories: subs}, nil
}

// putSubscriptions is PUT /v1/trending/subscriptions: `categories`
// replaces the subscribed slugs; unknown slugs are ignored (and listed back).
func (a *api) putSubscriptions(ctx *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	m, perr := httpkit.Fields(ctx)
	if perr != nil {
		return 0, nil, perr
	}
	raw, ok := m["categories"]
	if !ok {
		return 0, nil, httpkit.MissingField("categories")
	}
	var in []string
	if httpkit.IsNull(raw) || json.Unmarshal(raw, &in) != nil {
		return 0, nil, protocol.BadRequest("categories must be an array of category slugs")
	}
	cats := trending.Normalize(in)
	var ignored []string
	for _, c := range in {
		if !protocol.IsTrendingSlug(protocol.NormalizeCategory(c)) {
			ignored = append(ignored, c)
		}
	}
	cctx, cancel := httpkit.StoreContext()
	defer cancel()
	if err := a.d.Store.PutTrendingCategories(cctx, p.AccountID, cats, a.k.Now()); err != nil {
		return 0, nil, err
	}
	return 200, subscriptionsView{Categories: cats, Ignored: ignored}, nil
}

type statusView struct {
	httpkit.PlanStatus
	SubscribedCategories int `json:"subscribed_categories"`
	TotalCategories      int `json:"total_categories"`
}

// status is GET /v1/trending/status.
func (a *api) status(_ *fasthttp.RequestCtx, p *account.Principal) (int, any, error) {
	subs, err := a.subscribed(p)
	if err != nil {
		return 0, nil, err
	}
	return 200, statusView{PlanStatus: httpkit.StatusOf(p), SubscribedCategories: len(subs),
		TotalCategories: len(protocol.TrendingSlugs)}, nil
}
