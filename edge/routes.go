package edge

import (
	"strings"

	"github.com/alertd/alertd/edge/api/admin"
	"github.com/alertd/alertd/edge/api/b2b"
	"github.com/alertd/alertd/edge/api/casearch"
	"github.com/alertd/alertd/edge/api/console"
	"github.com/alertd/alertd/edge/api/ct"
	"github.com/alertd/alertd/edge/api/cw"
	"github.com/alertd/alertd/edge/api/eca"
	"github.com/alertd/alertd/edge/api/et"
	"github.com/alertd/alertd/edge/api/ingest"
	"github.com/alertd/alertd/edge/api/pages"
	"github.com/alertd/alertd/edge/api/pumpfun"
	"github.com/alertd/alertd/edge/api/searchalerts"
	"github.com/alertd/alertd/edge/api/trending"
	"github.com/alertd/alertd/edge/api/tweetalerts"
	"github.com/alertd/alertd/edge/httpkit"
	"github.com/alertd/alertd/protocol"
	"github.com/fasthttp/router"
	"github.com/valyala/fasthttp"
)

// routes mounts every API's route table: each package's Routes lists its
// routes (and leaves out those whose services are not wired), under
// Recover: no request can crash the process.
func (s *Server) routes() fasthttp.RequestHandler {
	r := router.New()
	r.HandleMethodNotAllowed = false
	r.RedirectTrailingSlash = false
	r.RedirectFixedPath = false
	r.NotFound = notFound

	k, d := s.kit, &s.deps
	own := []httpkit.Route{httpkit.GET("/health", s.health), httpkit.GET("/v1/openapi.json", s.openAPI)}
	if d.Metrics != nil {
		own = append(own, httpkit.GET("/metrics", k.Admin(d.Metrics)))
	}
	mount(r,
		own,
		admin.Routes(k, d.Admin),
		ingest.Routes(k, d.Ingest),
		tweetalerts.Routes(k, d.TweetAlerts),
		b2b.Routes(k, d.B2B),
		casearch.Routes(k, d.CASearch),
		cw.Routes(k, d.CW),
		ct.Routes(k, d.CT),
		et.Routes(k, d.ET),
		trending.Routes(k, d.Trending),
		pumpfun.Routes(k, d.PumpFun),
		eca.Routes(k, d.ECA),
		searchalerts.Routes(k, d.SearchAlerts),
		console.Routes(k, d.Console),
		pages.Routes(d.Pages),
	)
	s.searchTooLarge = casearch.TooLarge(k, d.CASearch)
	s.routeTable = r.List()
	return k.Recover(r.Handler)
}

// mount registers the routes of each table.
func mount(r *router.Router, tables ...[]httpkit.Route) {
	for _, t := range tables {
		for _, rt := range t {
			r.Handle(rt.Method, rt.Path, rt.Handler)
		}
	}
}

// notFound answers an unknown path in the shape its family would: the
// envelope under /v1/, the social error under /social/, plain text elsewhere.
func notFound(ctx *fasthttp.RequestCtx) {
	if strings.HasPrefix(string(ctx.Path()), "/v1/") {
		httpkit.WriteError(ctx, protocol.NotFound("no such endpoint"))
		return
	}
	if strings.HasPrefix(string(ctx.Path()), "/social/") {
		httpkit.WriteJSON(ctx, 404, httpkit.SocialError{Status: "error", Msg: "no such endpoint"})
		return
	}
	httpkit.WritePlain(ctx, 404, "not found")
}
