package engine

import "github.com/alertd/alertd/edge"

// Routes lists the method and path of every route the public listener
// serves (the OpenAPI document is checked against it).
func (e *Engine) Routes() []edge.Route { return e.server.Routes() }
