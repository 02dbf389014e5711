package edge

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"strings"
	"sync/atomic"
	"time"

	"github.com/alertd/alertd/actors/session"
	"github.com/alertd/alertd/actors/state/account"
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
	"github.com/alertd/alertd/edge/ws"
	"github.com/alertd/alertd/protocol"
	"github.com/valyala/fasthttp"
)

// Limits bound what the listener holds, so that no client can make it
// grow without bound: connections in all and per client address, the
// keep-alive idle time, the request header's size, and the realtime
// sockets upgraded but not yet logged in. Zero fields take the defaults.
type Limits struct {
	MaxConns       int           // open HTTP connections (WebSockets leave the count at the upgrade)
	MaxConnsPerIP  int           // of them from one peer address
	IdleTimeout    time.Duration // keep-alive connections idle longer are closed
	ReadTimeout    time.Duration // a request (its first byte included on a new connection) must arrive within this
	MaxHeaderBytes int           // a request header larger is refused (431)
	MaxPending     int           // realtime sockets awaiting LOGIN (session.Pending)
}

// DefaultLimits are the flags' defaults.
func DefaultLimits() Limits {
	return Limits{MaxConns: 10000, MaxConnsPerIP: 256, IdleTimeout: 2 * time.Minute, ReadTimeout: 30 * time.Second, MaxHeaderBytes: 8192, MaxPending: 1000}
}

func (l Limits) orDefaults() Limits {
	d := DefaultLimits()
	if l.MaxConns <= 0 {
		l.MaxConns = d.MaxConns
	}
	if l.MaxConnsPerIP <= 0 {
		l.MaxConnsPerIP = d.MaxConnsPerIP
	}
	if l.IdleTimeout <= 0 {
		l.IdleTimeout = d.IdleTimeout
	}
	if l.ReadTimeout <= 0 {
		l.ReadTimeout = d.ReadTimeout
	}
	if l.MaxHeaderBytes <= 0 {
		l.MaxHeaderBytes = d.MaxHeaderBytes
	}
	if l.MaxPending <= 0 {
		l.MaxPending = d.MaxPending
	}
	return l
}

// Pinger is the store as /health sees it.
type Pinger interface {
	Ping(ctx context.Context) error
}

// Deps are what the edge talks to: what every handler shares (they make
// the httpkit.Kit), then one Deps per API package. An API whose Deps lack
// its services leaves its routes out (each package's Routes says which).
type Deps struct {
	// Limits bound the listener (the pending-socket cap is Sessions.Pending).
	Limits Limits
	// TrustedProxies name the client in X-Forwarded-For / X-Real-IP
	// (httpkit.Kit.ClientIP).
	TrustedProxies []netip.Prefix
	// Store answers /health's ping; StoreBytes, when set, its size (-1
	// unknown).
	Store      Pinger
	StoreBytes func(ctx context.Context) int64
	// Cluster, on a node of a cluster, adds `cluster` to /health; nil for
	// one node.
	Cluster Cluster
	// Accounts authenticates keys.
	Accounts *account.Registry
	// AdminToken guards the admin and ingest APIs.
	AdminToken string
	Timings    protocol.Timings
	Now        func() time.Time
	Log        *slog.Logger
	// Metrics serves GET /metrics behind the admin bearer (nil: not on this
	// listener; --internal-addr serves it instead).
	Metrics fasthttp.RequestHandler
	// WS is the WebSocket transport (nil: no socket routes); Sessions are
	// what the sockets' sessions use.
	WS       *ws.Hub
	Sessions *session.Deps

	Admin        admin.Deps
	Ingest       ingest.Deps
	TweetAlerts  tweetalerts.Deps
	B2B          b2b.Deps
	CASearch     casearch.Deps
	CW           cw.Deps
	CT           ct.Deps
	ET           et.Deps
	Trending     trending.Deps
	PumpFun      pumpfun.Deps
	ECA          eca.Deps
	SearchAlerts searchalerts.Deps
	// Pages are the dashboard and console pages; Console the console's
	// admin API (nil: not served).
	Pages   pages.Deps
	Console *console.API
}

// Server is the public listener.
type Server struct {
	deps    Deps
	log     *slog.Logger
	kit     *httpkit.Kit
	srv     *fasthttp.Server
	ln      net.Listener
	serving atomic.Bool
	shut    atomic.Bool // Shutdown has begun: Serve returns at once
	ws      *ws.Hub
	// routeTable is what routes() registered, method -> paths (Routes).
	routeTable map[string][]string
	// searchTooLarge answers a CA Search call whose body is over the limit
	// (casearch.TooLarge); false when it leaves the answer to the caller.
	searchTooLarge func(ctx *fasthttp.RequestCtx) bool
	perIP          int // Limits.MaxConnsPerIP, applied by Listen
}

// New builds a server; Listen and Serve start it.
func New(d Deps) *Server {
	k := httpkit.New(httpkit.Config{Accounts: d.Accounts, AdminToken: d.AdminToken, Timings: d.Timings, Now: d.Now,
		Log: d.Log, WS: d.WS, Sessions: d.Sessions, TrustedProxies: d.TrustedProxies})
	d.AdminToken = "" // the kit keeps its hash
	lim := d.Limits.orDefaults()
	s := &Server{deps: d, log: k.Log, kit: k, ws: d.WS, perIP: lim.MaxConnsPerIP}
	s.srv = &fasthttp.Server{
		Handler:                       s.routes(),
		Name:                          "alertd",
		NoDefaultServerHeader:         true,
		MaxRequestBodySize:            protocol.MaxBodyBytes,
		ReadTimeout:                   lim.ReadTimeout,
		WriteTimeout:                  30 * time.Second,
		IdleTimeout:                   lim.IdleTimeout,
		Concurrency:                   lim.MaxConns,
		ReadBufferSize:                lim.MaxHeaderBytes, // the header must fit: larger ones get 431
		DisablePreParseMultipartForm:  true,
		ErrorHandler:                  s.transportError,
		DisableHeaderNamesNormalizing: false,
		Logger:                        fasthttpLogger{s.log},
	}
	// The route's body limit, from the header alone: a Content-Length over
	// it is refused (413) before the body is read or allocated.
	s.srv.HeaderReceived = func(h *fasthttp.RequestHeader) fasthttp.RequestConfig {
		return fasthttp.RequestConfig{MaxRequestBodySize: k.BodyLimit(h)}
	}
	if s.ws != nil {
		s.srv.ConnState = s.ws.ConnState // upgrades fasthttp drops before the hijack end in OnAbort
	}
	return s
}

// transportError answers requests fasthttp could not read. A body over
// the route's limit is refused here, unread; CA Search counts that call
// against its allowance first (spec 2: every call counts once).
func (s *Server) transportError(ctx *fasthttp.RequestCtx, err error) {
	if _, nothingRead := err.(*net.OpError); nothingRead {
		// fasthttp hands over a read's own error only when not one byte of
		// the request came (a new connection left unused until ReadTimeout).
		// Such a connection is closed without an answer, as net/http does: a
		// client's pooled connection would read a 400 it never asked for.
		_ = ctx.Conn().Close()
		return
	}
	if l, ok := ctx.Conn().(interface{ Linger() }); ok {
		l.Linger() // fasthttp closes after this answer; the unread rest must not reset it
	}
	if errors.Is(err, fasthttp.ErrBodyTooLarge) {
		if s.searchTooLarge != nil && string(ctx.Path()) == "/v1/search" && s.searchTooLarge(ctx) {
			return
		}
		httpkit.WritePlain(ctx, 413, fmt.Sprintf("request body too large: limit is %d bytes", s.kit.BodyLimit(&ctx.Request.Header)))
		return
	}
	var small *fasthttp.ErrSmallBuffer
	if errors.As(err, &small) {
		httpkit.WritePlain(ctx, 431, "request header too large")
		return
	}
	var nerr net.Error
	if errors.As(err, &nerr) && nerr.Timeout() {
		httpkit.WritePlain(ctx, 408, "request timeout")
		return
	}
	httpkit.WritePlain(ctx, 400, "bad request")
}

// Listen binds addr.
func (s *Server) Listen(addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	s.ln = newIPLimit(ln, s.perIP, s.kit.TrustedProxy)
	return nil
}

// Addr is the bound address.
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// Serve accepts until Shutdown.
func (s *Server) Serve() error {
	if s.shut.Load() {
		return nil
	}
	s.serving.Store(true)
	defer s.serving.Store(false)
	err := s.srv.Serve(s.ln)
	if s.shut.Load() && errors.Is(err, net.ErrClosed) {
		return nil // Shutdown closed the listener before fasthttp knew it
	}
	return err
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
	s.shut.Store(true)
	err := s.srv.ShutdownWithContext(ctx)
	// fasthttp closes only the listeners its Serve has seen: a Shutdown that
	// comes before Serve got going must close ours, or Serve would block.
	if s.ln != nil {
		if cerr := s.ln.Close(); cerr != nil && !errors.Is(cerr, net.ErrClosed) && err == nil {
			err = cerr
		}
	}
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
	f.l.Debug("fasthttp", "msg", strings.TrimSpace(fmt.Sprintf(format, args...)))
}
