package edge

import "github.com/fasthttp/router"

// ProductDeps2 are the services the products2 routes use (wired in cmd/alertd).
type ProductDeps2 struct {
}

// product2Routes registers the products2 routes.
func (s *Server) product2Routes(r *router.Router) {
}
