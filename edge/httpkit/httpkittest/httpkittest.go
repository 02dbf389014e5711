// Package httpkittest starts what the tests of the API packages
// (edge/api/<product>) and of httpkit need: a Kit over an embedded store
// in a temporary directory, keys issued on it, and requests run through a
// table of routes without a listener. Production code never imports it.
package httpkittest

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/alertd/alertd/actors/state/account"
	"github.com/alertd/alertd/edge/httpkit"
	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/persistence/embedded"
	"github.com/alertd/alertd/protocol"
	"github.com/fasthttp/router"
	"github.com/jonboulle/clockwork"
	"github.com/valyala/fasthttp"
)

// Env is a Kit over a fresh embedded store. Its clock is fake: it stands
// still until the test advances it.
type Env struct {
	Store    persistence.Store
	Accounts *account.Registry
	Clock    *clockwork.FakeClock
	Kit      *httpkit.Kit
}

// Start is 2026-05-10 23:59 UTC, where every Env's clock starts.
var Start = time.Date(2026, 5, 10, 23, 59, 0, 0, time.UTC)

// New opens the store (closed when the test ends) and builds the Kit, with
// the admin token "adm" and the default timings; configure, when set, may
// change the Kit's config first.
func New(t testing.TB, configure func(*httpkit.Config)) *Env {
	t.Helper()
	st, err := embedded.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	clock := clockwork.NewFakeClockAt(Start)
	reg := account.NewRegistry(st, clock.Now)
	if err := reg.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	c := httpkit.Config{Accounts: reg, AdminToken: "adm", Timings: protocol.DefaultTimings(), Now: clock.Now,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	if configure != nil {
		configure(&c)
	}
	return &Env{Store: st, Accounts: reg, Clock: clock, Kit: httpkit.New(c)}
}

// Issue issues a key of product p on account ("" makes a new account) with
// the changes c; a Tweet Alerts key without a plan gets "ultra".
func (e *Env) Issue(t testing.TB, acct string, p protocol.Product, c account.Changes) string {
	t.Helper()
	return e.IssueSub(t, acct, p, c).Key
}

// IssueSub is Issue returning the issued key with its subscription.
func (e *Env) IssueSub(t testing.TB, acct string, p protocol.Product, c account.Changes) account.Issued {
	t.Helper()
	if p == protocol.ProductTweetAlerts && c.Plan == nil {
		plan := "ultra"
		c.Plan = &plan
	}
	iss, err := e.Accounts.Issue(context.Background(), acct, p, c)
	if err != nil {
		t.Fatal(err)
	}
	return iss
}

// Router serves a table of routes the way the server mounts them.
func Router(routes ...[]httpkit.Route) fasthttp.RequestHandler {
	r := router.New()
	for _, table := range routes {
		for _, rt := range table {
			r.Handle(rt.Method, rt.Path, rt.Handler)
		}
	}
	return r.Handler
}

// Request is one request to run through a handler.
type Request struct {
	Method, URI string
	Headers     map[string]string
	// Body is sent as application/json unless Headers set Content-Type.
	Body string
}

// Do runs req through h and returns the response.
func Do(h fasthttp.RequestHandler, req Request) *fasthttp.Response {
	var ctx fasthttp.RequestCtx
	ctx.Request.Header.SetMethod(req.Method)
	ctx.Request.SetRequestURI(req.URI)
	if req.Body != "" {
		ctx.Request.Header.SetContentType("application/json")
		ctx.Request.SetBodyString(req.Body)
	}
	for k, v := range req.Headers {
		ctx.Request.Header.Set(k, v)
	}
	h(&ctx)
	var resp fasthttp.Response
	ctx.Response.CopyTo(&resp)
	return &resp
}

// Bearer is the Authorization header of key.
func Bearer(key string) map[string]string { return map[string]string{"Authorization": "Bearer " + key} }
