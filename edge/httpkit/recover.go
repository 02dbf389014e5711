package httpkit

import (
	"runtime/debug"
	"strings"

	"github.com/alertd/alertd/protocol"
	"github.com/valyala/fasthttp"
)

// Recover is the outermost middleware: a panic in any handler answers 500
// `server_error` in the route family's shape (the envelope; the social
// error under /social/) and is logged with its stack, so that no request
// can take the process down. The log names the method and path only: the
// query and headers may carry keys.
func (k *Kit) Recover(next fasthttp.RequestHandler) fasthttp.RequestHandler {
	return func(ctx *fasthttp.RequestCtx) {
		defer func() {
			if r := recover(); r != nil {
				k.Log.Error("handler panic", "method", string(ctx.Method()), "path", string(ctx.Path()),
					"panic", r, "stack", string(debug.Stack()))
				if ctx.Hijacked() {
					return // a socket's upgrade had begun: nothing to answer on
				}
				ctx.Response.Reset()
				if strings.HasPrefix(string(ctx.Path()), "/social/") {
					WriteJSON(ctx, 500, SocialError{Status: "error", Msg: "internal error"})
					return
				}
				WriteError(ctx, protocol.Internal())
			}
		}()
		next(ctx)
	}
}
