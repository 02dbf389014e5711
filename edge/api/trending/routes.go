// Package trending serves Trending Alerts' API under /v1/trending (spec/3-product-apis.md,
// "Trending Alerts `/v1/trending`"): the 24 categories, the account's subscriptions (for
// chat alerts), its status, the stored webhook URL and the /v1/trending/ws
// socket. The posts come from the trending actor (actors/product/trending).
package trending

import (
	"context"
	"time"

	"github.com/alertd/alertd/edge/httpkit"
	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
)

// Deps are what Trending Alerts' routes use.
type Deps struct {
	// Store keeps the subscribed categories and the webhook URL.
	Store Store
}

// Store is what the routes use of the store.
type Store interface {
	persistence.StoredWebhookStore
	PutTrendingCategories(ctx context.Context, account string, categories []string, now time.Time) error
	TrendingCategories(ctx context.Context, account string) ([]string, error)
}

type api struct {
	k *httpkit.Kit
	d Deps
}

// Routes are Trending Alerts' routes; none without a Store.
func Routes(k *httpkit.Kit, d Deps) []httpkit.Route {
	if d.Store == nil {
		return nil
	}
	a := &api{k: k, d: d}
	f := httpkit.ProductFamily(protocol.ProductTrending)
	routes := []httpkit.Route{
		httpkit.GET("/v1/trending/categories", k.Keyed(f, a.listCategories)),
		httpkit.GET("/v1/trending/subscriptions", k.Keyed(f, a.subscriptions)),
		httpkit.PUT("/v1/trending/subscriptions", k.Keyed(f, a.putSubscriptions)),
		httpkit.GET("/v1/trending/status", k.Keyed(f, a.status)),
	}
	routes = append(routes, k.StoredWebhookRoutes("trending", protocol.ProductTrending, d.Store)...)
	if k.HasSockets() {
		// /v1/trending/ws: every trending post of the 24 categories,
		// whatever the account's subscriptions (those are for chat).
		routes = append(routes, httpkit.GET("/v1/trending/ws", k.ProductSocket(protocol.ProductTrending, httpkit.ProductScope(protocol.ProductTrending))))
	}
	return routes
}
