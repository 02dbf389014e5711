package httpkit_test

import (
	"testing"

	"github.com/alertd/alertd/edge/httpkit"
	"github.com/alertd/alertd/protocol"
	"github.com/valyala/fasthttp"
)

func TestWriters(t *testing.T) {
	var ctx fasthttp.RequestCtx
	httpkit.WriteOK(&ctx, 200, map[string]any{"n": 1})
	if string(ctx.Response.Body()) != `{"ok":true,"data":{"n":1}}` || string(ctx.Response.Header.ContentType()) != "application/json" {
		t.Errorf("WriteOK: %s %s", ctx.Response.Body(), ctx.Response.Header.ContentType())
	}
	ctx = fasthttp.RequestCtx{}
	httpkit.WriteOK(&ctx, 200, func() {}) // not encodable
	if ctx.Response.StatusCode() != 500 {
		t.Errorf("WriteOK of a func: %d %s", ctx.Response.StatusCode(), ctx.Response.Body())
	}
	ctx = fasthttp.RequestCtx{}
	httpkit.WriteError(&ctx, protocol.Unavailable("later"))
	if ctx.Response.StatusCode() != 503 || string(ctx.Response.Header.Peek("Retry-After")) == "" {
		t.Errorf("WriteError: %d Retry-After %q", ctx.Response.StatusCode(), ctx.Response.Header.Peek("Retry-After"))
	}
	ctx = fasthttp.RequestCtx{}
	httpkit.WriteJSON(&ctx, 404, httpkit.SocialError{Status: "error", Msg: "no"})
	if string(ctx.Response.Body()) != `{"status":"error","msg":"no"}` || ctx.Response.StatusCode() != 404 {
		t.Errorf("WriteJSON: %d %s", ctx.Response.StatusCode(), ctx.Response.Body())
	}
	ctx = fasthttp.RequestCtx{}
	ctx.Response.Header.Set("X-Left", "1")
	httpkit.WritePlain(&ctx, 401, "unauthorized: no")
	if string(ctx.Response.Body()) != "unauthorized: no\n" || string(ctx.Response.Header.ContentType()) != "text/plain; charset=utf-8" ||
		len(ctx.Response.Header.Peek("X-Left")) != 0 {
		t.Errorf("WritePlain: %s %s, earlier headers kept: %q", ctx.Response.Body(), ctx.Response.Header.ContentType(), ctx.Response.Header.Peek("X-Left"))
	}
}
