// Package edge is the network side of alertd: the fasthttp server and router,
// middleware (authentication, body limits, rate limits, envelopes), the REST
// handlers of each product, the admin and ingest APIs, and the WebSocket
// handlers, which authenticate, take a connection slot and hand the socket
// to its session (actors/session) through the transport (edge/ws). It holds
// no domain state of its own.
package edge

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"strings"
	"sync/atomic"
	"time"

	"github.com/alertd/alertd/actors/session"
	"github.com/alertd/alertd/actors/state/account"
	"github.com/alertd/alertd/actors/state/directory"
	"github.com/alertd/alertd/actors/state/targets"
	"github.com/alertd/alertd/edge/api/console"
	"github.com/alertd/alertd/edge/api/pages"
	"github.com/alertd/alertd/edge/ws"
	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
	"github.com/fasthttp/router"
	"github.com/valyala/fasthttp"
)

// Ingester takes validated observations; the handle router implements it.
type Ingester interface {
	Route(o *protocol.Observation)
	// Backlog is the number of observations routed but not yet handled.
	Backlog() int64
}

// MaxIngestBacklog is the backlog at which ingest pushes back with 503 and
// Retry-After: upstreams slow down instead of the engine queueing without bound.
const MaxIngestBacklog = 200_000

// Deps are what the edge talks to.
type Deps struct {
	Store      persistence.Store
	Registry   *account.Registry
	Dir        *directory.Directory
	Ingest     Ingester
	AdminToken string
	Timings    protocol.Timings
	Now        func() time.Time
	Log        *slog.Logger
	// Sessions and WS serve the WebSockets.
	Sessions *session.Deps
	WS       *ws.Hub
	// Targets are the B2B target lists.
	Targets *targets.Registry
	// Feature services, each defined in its own deps_*.go file.
	Lookups   LookupDeps
	Search    SearchDeps
	Consumer  ConsumerDeps
	Products  ProductDeps
	Products2 ProductDeps2
	// Console is the operator console's API (nil: not served).
	Console *console.API
}

// Server is the public listener.
type Server struct {
	deps     Deps
	log      *slog.Logger
	now      func() time.Time
	srv      *fasthttp.Server
	ln       net.Listener
	serving  atomic.Bool
	ws       *ws.Hub
	admin    adminAuth
	ingested ingestCounts
}

// New builds a server; Listen and Serve start it.
func New(d Deps) *Server {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Log == nil {
		d.Log = slog.Default()
	}
	s := &Server{deps: d, log: d.Log, now: d.Now, admin: newAdminAuth(d.AdminToken), ws: d.WS}
	s.srv = &fasthttp.Server{
		Handler:                       s.routes(),
		Name:                          "alertd",
		NoDefaultServerHeader:         true,
		MaxRequestBodySize:            protocol.MaxIngestBodyBytes,
		ReadTimeout:                   30 * time.Second,
		WriteTimeout:                  30 * time.Second,
		IdleTimeout:                   120 * time.Second,
		ReadBufferSize:                8192,
		DisablePreParseMultipartForm:  true,
		ErrorHandler:                  s.transportError,
		DisableHeaderNamesNormalizing: false,
		Logger:                        fasthttpLogger{s.log},
	}
	if s.ws != nil {
		s.srv.ConnState = s.ws.ConnState // upgrades fasthttp drops before the hijack end in OnAbort
	}
	return s
}

func (s *Server) routes() fasthttp.RequestHandler {
	r := router.New()
	r.HandleMethodNotAllowed = false
	r.RedirectTrailingSlash = false
	r.RedirectFixedPath = false
	r.NotFound = notFound

	r.GET("/health", s.health)
	s.adminRoutes(r)
	r.POST("/ingest/v1/observations", s.requireAdmin(s.ingest))

	s.consumerRoutes(r)
	s.b2bRoutes(r)
	if s.ws != nil {
		s.b2bSocketRoutes(r)
	}
	s.lookupRoutes(r)
	s.searchRoutes(r)
	s.consumerFeatureRoutes(r)
	s.productRoutes(r)
	s.product2Routes(r)
	s.socialRoutes(r)
	pages.Mount(r, pages.Deps{TelegramBotID: pages.BotID(s.deps.Consumer.TelegramBotToken)})
	if s.deps.Console != nil {
		s.deps.Console.Mount(r, s.requireAdmin)
	}
	return r.Handler
}

func notFound(ctx *fasthttp.RequestCtx) {
	if strings.HasPrefix(string(ctx.Path()), "/v1/") {
		writeError(ctx, protocol.NotFound("no such endpoint"))
		return
	}
	if strings.HasPrefix(string(ctx.Path()), "/social/") {
		writeJSON(ctx, 404, socialError{Status: "error", Msg: "no such endpoint"})
		return
	}
	writePlain(ctx, 404, "not found")
}

// transportError answers requests fasthttp could not read.
func (s *Server) transportError(ctx *fasthttp.RequestCtx, err error) {
	if errors.Is(err, fasthttp.ErrBodyTooLarge) {
		writePlain(ctx, 413, "request body too large")
		return
	}
	writePlain(ctx, 400, "bad request")
}

// Listen binds addr.
func (s *Server) Listen(addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	s.ln = ln
	return nil
}

// Addr is the bound address.
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// Serve accepts until Shutdown.
func (s *Server) Serve() error {
	s.serving.Store(true)
	defer s.serving.Store(false)
	return s.srv.Serve(s.ln)
}

// Listeners is the number of listeners accepting connections.
func (s *Server) Listeners() int {
	if s.serving.Load() {
		return 1
	}
	return 0
}

// Shutdown stops accepting, waits for open requests to end, then closes
// every WebSocket with 1001 after what is queued for it.
func (s *Server) Shutdown(ctx context.Context) error {
	err := s.srv.ShutdownWithContext(ctx)
	if s.ws != nil {
		if werr := s.ws.Shutdown(ctx); err == nil {
			err = werr
		}
	}
	return err
}

// WSConnections is the number of open WebSockets.
func (s *Server) WSConnections() int64 {
	if s.ws == nil {
		return 0
	}
	return s.ws.Conns()
}

type fasthttpLogger struct{ l *slog.Logger }

func (f fasthttpLogger) Printf(format string, args ...any) {
	f.l.Debug("fasthttp", "msg", strings.TrimSpace(sprintf(format, args...)))
}
