package edge

import "github.com/fasthttp/router"

// LookupDeps are the services the lookups routes use (wired in cmd/alertd).
type LookupDeps struct {
}

// lookupRoutes registers the lookups routes.
func (s *Server) lookupRoutes(r *router.Router) {
}
