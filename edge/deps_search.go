package edge

import "github.com/fasthttp/router"

// SearchDeps are the services the search routes use (wired in cmd/alertd).
type SearchDeps struct {
}

// searchRoutes registers the search routes.
func (s *Server) searchRoutes(r *router.Router) {
}
