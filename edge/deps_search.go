package edge

import (
	"time"

	"github.com/alertd/alertd/actors/product/casearch"
	"github.com/fasthttp/router"
)

// SearchDeps are the services the search routes use (wired in cmd/alertd).
type SearchDeps struct {
	// Service answers searches; nil leaves /v1/search unrouted.
	Service *casearch.Service
	// Quota counts calls per account.
	Quota *casearch.Quota
	// Window is the default search window (Timings.SearchWindow).
	Window time.Duration
}

// searchRoutes registers the search routes.
func (s *Server) searchRoutes(r *router.Router) {
	if s.deps.Search.Service == nil || s.deps.Search.Quota == nil {
		return
	}
	r.POST("/v1/search", s.caSearch)
}
