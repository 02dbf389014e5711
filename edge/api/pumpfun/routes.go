// Package pumpfun serves PumpFun's API under /v1/pf (spec/3-product-apis.md,
// "PumpFun `/v1/pf`"): the
// watched wallets and callers, their recent events, the account's status,
// the stored webhook URL and the /v1/pf/ws socket. Events come from the
// pumpfun actor (actors/product/pumpfun).
package pumpfun

import (
	"github.com/alertd/alertd/actors/product/pumpfun"
	"github.com/alertd/alertd/edge/httpkit"
	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
)

// Deps are what PumpFun's routes use.
type Deps struct {
	// Service holds the wallet lists and reads the recent events.
	Service *pumpfun.Service
	// Store keeps the webhook URL.
	Store persistence.StoredWebhookStore
}

type api struct {
	k *httpkit.Kit
	d Deps
}

// Routes are PumpFun's routes; none without its Service.
func Routes(k *httpkit.Kit, d Deps) []httpkit.Route {
	if d.Service == nil {
		return nil
	}
	a := &api{k: k, d: d}
	f := httpkit.ProductFamily(protocol.ProductPumpFun)
	routes := []httpkit.Route{
		httpkit.GET("/v1/pf/targets", k.Keyed(f, a.targets)),
		httpkit.POST("/v1/pf/targets", k.Keyed(f, a.addTarget)),
		httpkit.DELETE("/v1/pf/targets/{wallet}", k.Keyed(f, a.removeTarget)),
		httpkit.GET("/v1/pf/events", k.Keyed(f, a.events)),
		httpkit.GET("/v1/pf/status", k.Keyed(f, a.status)),
	}
	routes = append(routes, k.StoredWebhookRoutes("pf", protocol.ProductPumpFun, d.Store)...)
	if k.HasSockets() {
		// /v1/pf/ws: wallet events of the wallets, and callouts of the
		// callers, on the account's list when the socket connects.
		routes = append(routes, httpkit.GET("/v1/pf/ws", k.ProductSocket(protocol.ProductPumpFun, httpkit.WalletScope(d.Service.Targets.Masks))))
	}
	return routes
}
