// Package ct serves the Convergence Tracker's API under /v1/ct (spec/3-product-apis.md,
// "Convergence Tracker `/v1/ct`"): the watched handles, the convergences that hold
// now and those reported, the account's settings and status, the live
// webhook and the /v1/ct/ws socket. Convergences come from the ct detector
// (actors/product/ct), which the cw tracker feeds.
package ct

import (
	"context"
	"time"

	"github.com/alertd/alertd/actors/product/ct"
	"github.com/alertd/alertd/actors/state/directory"
	"github.com/alertd/alertd/edge/httpkit"
	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
)

// Deps are what the Convergence Tracker's routes use.
type Deps struct {
	// Registry holds each account's watched handles, settings and webhook.
	Registry *ct.Registry
	// Detector knows the convergences that hold now.
	Detector *ct.Detector
	// Tracker is the cw tracker, which follows ct's handles too: a removed
	// handle is unwatched there as well.
	Tracker Unwatcher
	// Hooks checks webhook URLs and delivers to registered webhooks.
	Hooks httpkit.WatchHooks
	// Store reads the convergences reported.
	Store Store
	// Dir names a handle's platform user id.
	Dir *directory.Directory
}

// Unwatcher stops following a handle nobody watches any more.
type Unwatcher interface{ Unwatch(handle string) }

// Store is what the routes read of the store.
type Store interface {
	WatchEvents(ctx context.Context, p protocol.Product, account string, limit int) ([]persistence.WatchEvent, error)
	CountWatchEvents(ctx context.Context, p protocol.Product, account string, since time.Time) (int, error)
}

type api struct {
	k *httpkit.Kit
	d Deps
}

// Routes are the Convergence Tracker's routes; none without its Registry
// and Detector.
func Routes(k *httpkit.Kit, d Deps) []httpkit.Route {
	if d.Registry == nil || d.Detector == nil {
		return nil
	}
	a := &api{k: k, d: d}
	f := httpkit.ProductFamily(protocol.ProductCT)
	routes := []httpkit.Route{
		httpkit.GET("/v1/ct/targets", k.Keyed(f, a.listTargets)),
		httpkit.POST("/v1/ct/targets", k.Keyed(f, a.addTarget)),
		httpkit.DELETE("/v1/ct/targets/{handle}", k.Keyed(f, a.removeTarget)),
		httpkit.GET("/v1/ct/convergence", k.Keyed(f, a.convergence)),
		httpkit.GET("/v1/ct/convergence/history", k.Keyed(f, a.history)),
		httpkit.GET("/v1/ct/settings", k.Keyed(f, a.getSettings)),
		httpkit.PATCH("/v1/ct/settings", k.Keyed(f, a.patchSettings)),
		httpkit.GET("/v1/ct/status", k.Keyed(f, a.status)),
	}
	routes = append(routes, k.WatchWebhookRoutes(protocol.ProductCT, d.Registry, d.Hooks)...)
	if k.HasSockets() {
		// /v1/ct/ws: the account's convergences.
		routes = append(routes, httpkit.GET("/v1/ct/ws", k.ProductSocket(protocol.ProductCT, httpkit.AccountScope(protocol.ProductCT, nil))))
	}
	return routes
}
