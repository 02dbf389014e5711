package httpkit

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/valyala/fasthttp"
)

// TestRecover: a panicking handler answers 500 server_error in its
// family's shape and logs the panic with its stack, without the query.
func TestRecover(t *testing.T) {
	var logs bytes.Buffer
	k := New(Config{Log: slog.New(slog.NewJSONHandler(&logs, nil))})
	h := k.Recover(func(*fasthttp.RequestCtx) { panic("boom") })
	for _, c := range []struct{ path, want string }{
		{"/v1/settings?api_key=xg_secret", `"code":"server_error"`},
		{"/social/user/x", `"status":"error"`},
	} {
		var ctx fasthttp.RequestCtx
		ctx.Request.SetRequestURI(c.path)
		h(&ctx)
		if ctx.Response.StatusCode() != 500 || !strings.Contains(string(ctx.Response.Body()), c.want) {
			t.Errorf("%s: %d %s", c.path, ctx.Response.StatusCode(), ctx.Response.Body())
		}
		var v map[string]any
		if json.Unmarshal(ctx.Response.Body(), &v) != nil {
			t.Errorf("%s: body is not JSON: %s", c.path, ctx.Response.Body())
		}
	}
	if l := logs.String(); !strings.Contains(l, `"msg":"handler panic"`) || !strings.Contains(l, "boom") ||
		!strings.Contains(l, "recover_test.go") || strings.Contains(l, "xg_secret") {
		t.Errorf("log %s", l)
	}
	// A handler that returns normally is left alone.
	var ctx fasthttp.RequestCtx
	k.Recover(func(ctx *fasthttp.RequestCtx) { ctx.SetStatusCode(204) })(&ctx)
	if ctx.Response.StatusCode() != 204 {
		t.Errorf("status %d", ctx.Response.StatusCode())
	}
}
