// Package searchalerts serves Search Alerts' API under /v1/sa (spec/3-product-apis.md,
// "Search Alerts `/v1/sa`"): the account's saved queries, its status, the stored
// webhook URL and the /v1/sa/ws socket. Matches come from the searchalerts
// actor (actors/product/searchalerts), flushed on each query's schedule.
package searchalerts

import (
	"github.com/alertd/alertd/actors/product/searchalerts"
	"github.com/alertd/alertd/edge/httpkit"
	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
)

// Deps are what Search Alerts' routes use.
type Deps struct {
	// Service holds the saved queries.
	Service *searchalerts.Service
	// Store keeps the webhook URL.
	Store persistence.StoredWebhookStore
}

type api struct {
	k *httpkit.Kit
	d Deps
}

// Routes are Search Alerts' routes; none without its Service.
func Routes(k *httpkit.Kit, d Deps) []httpkit.Route {
	if d.Service == nil {
		return nil
	}
	a := &api{k: k, d: d}
	f := httpkit.ProductFamily(protocol.ProductSA)
	routes := []httpkit.Route{
		httpkit.GET("/v1/sa/queries", k.Keyed(f, a.queries)),
		httpkit.POST("/v1/sa/queries", k.Keyed(f, a.add)),
		httpkit.DELETE("/v1/sa/queries/{id}", k.Keyed(f, a.remove)),
		httpkit.GET("/v1/sa/status", k.Keyed(f, a.status)),
	}
	routes = append(routes, k.StoredWebhookRoutes("sa", protocol.ProductSA, d.Store)...)
	if k.HasSockets() {
		// /v1/sa/ws: the alerts of the account's queries, as each query's
		// schedule flushes them.
		routes = append(routes, httpkit.GET("/v1/sa/ws", k.ProductSocket(protocol.ProductSA, httpkit.AccountScope(protocol.ProductSA, nil))))
	}
	return routes
}
