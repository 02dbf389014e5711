package edge

import "github.com/fasthttp/router"

// ProductDeps are the services the products routes use (wired in cmd/alertd).
type ProductDeps struct {
}

// productRoutes registers the products routes.
func (s *Server) productRoutes(r *router.Router) {
}
