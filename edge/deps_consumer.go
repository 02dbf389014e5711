package edge

import "github.com/fasthttp/router"

// ConsumerDeps are the services the consumer routes use (wired in cmd/alertd).
type ConsumerDeps struct {
}

// consumerFeatureRoutes registers the consumer routes.
func (s *Server) consumerFeatureRoutes(r *router.Router) {
}
