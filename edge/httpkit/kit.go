// Package httpkit is what the API packages of the edge (edge/api/<product>)
// share, so that none imports another or the server:
//
//   - the middleware, one per file: Authenticate (auth.go: key families),
//     RateLimit (ratelimit.go), Render and Fail (render.go: envelope, plain
//     and social error shapes), Admin (admin.go: the admin bearer), and
//     Keyed (keyed.go), which chains the first three around a Handler;
//   - the writers of each answer shape (respond.go) and the body readers
//     with their size limit (body.go);
//   - request helpers: path values, handles, pages, body members (request.go);
//   - the WebSocket upgrade that hands a socket to its session (socket.go)
//     and the product sockets of spec 3 (productsocket.go);
//   - what several spec-3 product APIs share: webhook routes and the status
//     object (productapi.go), the watch products' handle rules (watch.go).
//
// A Kit is built once by the server (edge.New) and only read after, by
// every handler goroutine at once; it holds no lock.
package httpkit

import (
	"log/slog"
	"net/netip"
	"time"

	"github.com/alertd/alertd/actors/session"
	"github.com/alertd/alertd/actors/state/account"
	"github.com/alertd/alertd/edge/ws"
	"github.com/alertd/alertd/protocol"
	"github.com/valyala/fasthttp"
)

// Config is what the Kit is made of.
type Config struct {
	// Accounts authenticates keys and reads subscriptions.
	Accounts *account.Registry
	// AdminToken guards the admin and ingest APIs; only its hash is kept.
	AdminToken string
	// Timings: the rate window, the socket timings, the lookup windows.
	Timings protocol.Timings
	// Now is the clock of rate windows, expiries and stored times.
	Now func() time.Time
	Log *slog.Logger
	// WS is the WebSocket transport; nil leaves every socket route out.
	WS *ws.Hub
	// Sessions are what the socket sessions use (actors/session).
	Sessions *session.Deps
	// TrustedProxies are the reverse proxies whose X-Forwarded-For and
	// X-Real-IP name the client (ClientIP).
	TrustedProxies []netip.Prefix
}

// Kit is the shared side of every API package's handlers.
type Kit struct {
	Config
	admin adminAuth
}

// New builds a Kit; Now and Log default to the wall clock and slog's default.
func New(c Config) *Kit {
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Log == nil {
		c.Log = slog.Default()
	}
	k := &Kit{admin: newAdminAuth(c.AdminToken)}
	c.AdminToken = ""
	k.Config = c
	return k
}

// HasSockets reports whether the server serves WebSockets.
func (k *Kit) HasSockets() bool { return k.WS != nil }

// Route is one method and path pattern (the router's syntax:
// /v1/accounts/{handle}) with its handler. Each API package returns its
// routes as one table, which the server mounts.
type Route struct {
	Method  string
	Path    string
	Handler fasthttp.RequestHandler
}

// GET, POST, PUT, PATCH and DELETE make the routes of a table.
func GET(path string, h fasthttp.RequestHandler) Route { return Route{fasthttp.MethodGet, path, h} }

func POST(path string, h fasthttp.RequestHandler) Route { return Route{fasthttp.MethodPost, path, h} }

func PUT(path string, h fasthttp.RequestHandler) Route { return Route{fasthttp.MethodPut, path, h} }

func PATCH(path string, h fasthttp.RequestHandler) Route { return Route{fasthttp.MethodPatch, path, h} }

func DELETE(path string, h fasthttp.RequestHandler) Route {
	return Route{fasthttp.MethodDelete, path, h}
}
