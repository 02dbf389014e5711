package edge

import (
	"sort"

	"github.com/alertd/alertd/api"
	"github.com/alertd/alertd/edge/httpkit"
	"github.com/alertd/alertd/protocol"
	"github.com/valyala/fasthttp"
)

// openAPI is GET /v1/openapi.json: the embedded OpenAPI document (no auth).
func (s *Server) openAPI(ctx *fasthttp.RequestCtx) {
	b, err := api.JSON()
	if err != nil {
		s.log.Error("openapi document unreadable", "err", err)
		httpkit.WriteError(ctx, protocol.Internal())
		return
	}
	ctx.Response.Header.Set("Cache-Control", "public, max-age=300")
	ctx.SetContentType(httpkit.ContentJSON)
	ctx.SetStatusCode(200)
	ctx.Response.SetBodyRaw(b)
}

// Route is one method and path pattern the router serves.
type Route struct {
	Method string
	Path   string // in the router's syntax: /v1/accounts/{handle}
}

// Routes lists what the router serves, sorted by path then method. The
// OpenAPI test compares it with the document's paths, so a route added to
// one and not the other fails a test.
func (s *Server) Routes() []Route {
	var out []Route
	for method, paths := range s.routeTable {
		for _, p := range paths {
			out = append(out, Route{Method: method, Path: p})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Path != out[j].Path {
			return out[i].Path < out[j].Path
		}
		return out[i].Method < out[j].Method
	})
	return out
}
