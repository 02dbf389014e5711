// Package eca serves ECA's API under /v1/eca (spec/3-product-apis.md, "ECA
// `/v1/eca`"): the account's
// watchlist entry, its matches of the last day, its status, the stored
// webhook URL and the /v1/eca/ws socket. Matches come from the eca actor
// (actors/product/eca).
package eca

import (
	"github.com/alertd/alertd/actors/product/eca"
	"github.com/alertd/alertd/edge/httpkit"
	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
)

// Deps are what ECA's routes use.
type Deps struct {
	// Service holds the watchlists and reads the matches.
	Service *eca.Service
	// Store keeps the webhook URL.
	Store persistence.StoredWebhookStore
}

type api struct {
	k *httpkit.Kit
	d Deps
}

// Routes are ECA's routes; none without its Service.
func Routes(k *httpkit.Kit, d Deps) []httpkit.Route {
	if d.Service == nil {
		return nil
	}
	a := &api{k: k, d: d}
	f := httpkit.ProductFamily(protocol.ProductECA)
	routes := []httpkit.Route{
		httpkit.GET("/v1/eca/watchlist", k.Keyed(f, a.watchlist)),
		httpkit.POST("/v1/eca/watchlist", k.Keyed(f, a.add)),
		httpkit.DELETE("/v1/eca/watchlist/{id}", k.Keyed(f, a.remove)),
		httpkit.GET("/v1/eca/matches", k.Keyed(f, a.matches)),
		httpkit.GET("/v1/eca/status", k.Keyed(f, a.status)),
	}
	routes = append(routes, k.StoredWebhookRoutes("eca", protocol.ProductECA, d.Store)...)
	if k.HasSockets() {
		// /v1/eca/ws: the matches of the account's entries.
		routes = append(routes, httpkit.GET("/v1/eca/ws", k.ProductSocket(protocol.ProductECA, httpkit.AccountScope(protocol.ProductECA, nil))))
	}
	return routes
}
