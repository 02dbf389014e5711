// Package et serves the Engagement Tracker's API under /v1/et (spec/3-product-apis.md,
// "Engagement Tracker `/v1/et`"): the tracked posts, their latest engagement counts,
// the account's status, the live webhook and the /v1/et/ws socket. Counts
// come from the et detector (actors/product/et).
package et

import (
	"github.com/alertd/alertd/actors/product/et"
	"github.com/alertd/alertd/edge/httpkit"
	"github.com/alertd/alertd/protocol"
)

// Deps are what the Engagement Tracker's routes use.
type Deps struct {
	// Registry holds each account's tracked posts and webhook.
	Registry *et.Registry
	// Detector knows each post's latest counts.
	Detector *et.Detector
	// Hooks checks webhook URLs and delivers to registered webhooks.
	Hooks httpkit.WatchHooks
}

type api struct {
	k *httpkit.Kit
	d Deps
}

// Routes are the Engagement Tracker's routes; none without its Registry
// and Detector.
func Routes(k *httpkit.Kit, d Deps) []httpkit.Route {
	if d.Registry == nil || d.Detector == nil {
		return nil
	}
	a := &api{k: k, d: d}
	f := httpkit.ProductFamily(protocol.ProductET)
	routes := []httpkit.Route{
		httpkit.GET("/v1/et/targets", k.Keyed(f, a.listTargets)),
		httpkit.POST("/v1/et/targets", k.Keyed(f, a.addTargets)),
		httpkit.DELETE("/v1/et/targets/{tweet_id}", k.Keyed(f, a.removeTarget)),
		httpkit.GET("/v1/et/engagement/{tweet_id}", k.Keyed(f, a.engagement)),
		httpkit.GET("/v1/et/status", k.Keyed(f, a.status)),
	}
	routes = append(routes, k.WatchWebhookRoutes(protocol.ProductET, d.Registry, d.Hooks)...)
	if k.HasSockets() {
		// /v1/et/ws: the engagement changes of the account's posts.
		routes = append(routes, httpkit.GET("/v1/et/ws", k.ProductSocket(protocol.ProductET, httpkit.AccountScope(protocol.ProductET, d.Registry.Names))))
	}
	return routes
}
