// Package cw serves Community Watch's API under /v1/cw (spec/3-product-apis.md,
// "Community Watch `/v1/cw`"): the watched handles with their community memberships, the
// account's settings and status, the live webhook and the /v1/cw/ws socket.
// The memberships come from the cw tracker (actors/product/cw).
package cw

import (
	"context"
	"time"

	"github.com/alertd/alertd/actors/product/cw"
	"github.com/alertd/alertd/actors/session"
	"github.com/alertd/alertd/actors/state/directory"
	"github.com/alertd/alertd/edge/httpkit"
	"github.com/alertd/alertd/protocol"
)

// Deps are what Community Watch's routes use.
type Deps struct {
	// Registry holds each account's watched handles, settings and webhook.
	Registry *cw.Registry
	// Tracker knows each handle's communities.
	Tracker *cw.Tracker
	// Hooks checks webhook URLs and delivers to registered webhooks.
	Hooks httpkit.WatchHooks
	// Store counts the events delivered (status).
	Store Store
	// Dir names a handle's platform user id.
	Dir *directory.Directory
}

// Store is what the routes read of the store.
type Store interface {
	CountWatchEvents(ctx context.Context, p protocol.Product, account string, since time.Time) (int, error)
}

type api struct {
	k *httpkit.Kit
	d Deps
}

// Routes are Community Watch's routes; none without its Registry and Tracker.
func Routes(k *httpkit.Kit, d Deps) []httpkit.Route {
	if d.Registry == nil || d.Tracker == nil {
		return nil
	}
	a := &api{k: k, d: d}
	f := httpkit.ProductFamily(protocol.ProductCW)
	routes := []httpkit.Route{
		httpkit.GET("/v1/cw/targets", k.Keyed(f, a.listTargets)),
		httpkit.POST("/v1/cw/targets", k.Keyed(f, a.addTarget)),
		httpkit.PATCH("/v1/cw/targets/{handle}", k.Keyed(f, a.patchTarget)),
		httpkit.DELETE("/v1/cw/targets/{handle}", k.Keyed(f, a.removeTarget)),
		httpkit.GET("/v1/cw/settings", k.Keyed(f, a.getSettings)),
		httpkit.PATCH("/v1/cw/settings", k.Keyed(f, a.patchSettings)),
		httpkit.GET("/v1/cw/status", k.Keyed(f, a.status)),
	}
	routes = append(routes, k.WatchWebhookRoutes(protocol.ProductCW, d.Registry, d.Hooks)...)
	if k.HasSockets() {
		// /v1/cw/ws: the events of the account's watched handles, after the
		// one-time syncs held for it.
		scope := httpkit.AccountScope(protocol.ProductCW, d.Registry.Names)
		routes = append(routes, httpkit.GET("/v1/cw/ws", k.ProductSocket(protocol.ProductCW, func(acct string) session.Scope {
			sc := scope(acct)
			sc.Replay = d.Tracker.TakeSyncs(acct, sc.Items)
			return sc
		})))
	}
	return routes
}
