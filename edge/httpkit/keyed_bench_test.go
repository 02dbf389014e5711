package httpkit_test

import (
	"testing"

	"github.com/alertd/alertd/actors/state/account"
	"github.com/alertd/alertd/edge/httpkit"
	"github.com/alertd/alertd/edge/httpkit/httpkittest"
	"github.com/alertd/alertd/protocol"
	"github.com/valyala/fasthttp"
)

// BenchmarkKeyed is one keyed REST request through the router and the
// middleware chain (key check, rate limit, render), the handler answering
// a small object: what every REST route pays before its own work.
func BenchmarkKeyed(b *testing.B) {
	e := httpkittest.New(b, nil)
	h := keyed(e, httpkit.FamilyB2B, "/v1/dt/status")
	dt := e.Issue(b, "", protocol.ProductB2B, account.Changes{})
	var ctx fasthttp.RequestCtx
	ctx.Request.Header.SetMethod("GET")
	ctx.Request.SetRequestURI("/v1/dt/status")
	ctx.Request.Header.Set("Authorization", "Bearer "+dt)
	b.ReportAllocs()
	for b.Loop() {
		ctx.Response.Reset()
		h(&ctx)
	}
	if ctx.Response.StatusCode() != 200 {
		b.Fatal(ctx.Response.StatusCode())
	}
}
