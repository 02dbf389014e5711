package httpkit

import (
	"fmt"
	"strings"

	"github.com/alertd/alertd/protocol"
	"github.com/valyala/fasthttp"
)

// Render writes a handler's answer in family f's shape: the success
// envelope (or a bare object for the social family) with status and data,
// or, when err is set, the failure that Fail writes.
func (k *Kit) Render(ctx *fasthttp.RequestCtx, f *Family, status int, data any, err error) {
	if err != nil {
		k.Fail(ctx, f, err)
		return
	}
	if f.Social {
		WriteJSON(ctx, status, data)
		return
	}
	WriteOK(ctx, status, data)
}

// Fail renders err in the family's shape: a *ParseError as plain text, a
// *protocol.APIError as the family's error body, anything else as a logged
// 500 that says nothing of the cause.
func (k *Kit) Fail(ctx *fasthttp.RequestCtx, f *Family, err error) {
	switch e := err.(type) {
	case *ParseError:
		e.Write(ctx)
		return
	case *protocol.APIError:
		if f.Social {
			WriteJSON(ctx, e.Status, SocialError{Status: "error", Msg: e.Message})
			if e.RetryAfter > 0 {
				ctx.Response.Header.Set("Retry-After", fmt.Sprint(e.RetryAfter))
			}
			return
		}
		WriteError(ctx, e)
		return
	}
	k.Log.Error("handler failed", "path", safePath(ctx), "err", err)
	if f.Social {
		WriteJSON(ctx, 500, SocialError{Status: "error", Msg: "internal error"})
		return
	}
	WriteError(ctx, protocol.Internal())
}

// safePath is the request path with any key-bearing segment hidden, for logs.
func safePath(ctx *fasthttp.RequestCtx) string {
	p := string(ctx.Path())
	if strings.HasPrefix(p, "/admin/v1/keys/") {
		return "/admin/v1/keys/<redacted>"
	}
	return p
}
