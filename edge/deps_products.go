package edge

import (
	"github.com/alertd/alertd/actors/product/ct"
	"github.com/alertd/alertd/actors/product/cw"
	"github.com/alertd/alertd/actors/product/et"
	"github.com/fasthttp/router"
)

// ProductDeps are the services the products routes use (wired in cmd/alertd):
// Community Watch, Convergence Tracker and Engagement Tracker. A product
// whose registry is nil has no routes.
type ProductDeps struct {
	CW        *cw.Registry
	CWTracker *cw.Tracker

	CT         *ct.Registry
	CTDetector *ct.Detector

	ET         *et.Registry
	ETDetector *et.Detector

	// Hooks checks webhook URLs and hands registered webhooks to the
	// delivery engines.
	Hooks WatchHooks
}

// productRoutes registers the products routes.
func (s *Server) productRoutes(r *router.Router) {
	d := s.deps.Products
	if d.CW != nil && d.CWTracker != nil {
		s.cwRoutes(r)
	}
	if d.CT != nil && d.CTDetector != nil {
		s.ctRoutes(r)
	}
	if d.ET != nil && d.ETDetector != nil {
		s.etRoutes(r)
	}
}
