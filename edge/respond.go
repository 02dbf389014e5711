package edge

import (
	"strconv"

	"github.com/alertd/alertd/protocol"
	json "github.com/goccy/go-json"
	"github.com/valyala/fasthttp"
)

const contentJSON = "application/json"

// writeOK writes the success envelope.
func writeOK(ctx *fasthttp.RequestCtx, status int, data any) {
	buf, err := protocol.AppendOK(ctx.Response.Body()[:0], data)
	if err != nil {
		writeError(ctx, protocol.Internal())
		return
	}
	ctx.Response.SetBodyRaw(buf)
	ctx.SetStatusCode(status)
	ctx.SetContentType(contentJSON)
}

// writeError writes the failure envelope, with Retry-After when set.
func writeError(ctx *fasthttp.RequestCtx, e *protocol.APIError) {
	ctx.Response.SetBodyRaw(protocol.AppendError(nil, e))
	ctx.SetStatusCode(e.Status)
	ctx.SetContentType(contentJSON)
	if e.RetryAfter > 0 {
		ctx.Response.Header.Set("Retry-After", strconv.Itoa(e.RetryAfter))
	}
}

// writeJSON writes a bare JSON object (the /social/* routes).
func writeJSON(ctx *fasthttp.RequestCtx, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status, b = 500, []byte(`{"status":"error","msg":"internal error"}`)
	}
	ctx.Response.SetBodyRaw(b)
	ctx.SetStatusCode(status)
	ctx.SetContentType(contentJSON)
}

// writePlain writes a plain-text failure (parse failures, WebSocket refusals).
func writePlain(ctx *fasthttp.RequestCtx, status int, msg string) {
	ctx.Response.Reset()
	ctx.SetStatusCode(status)
	ctx.SetContentType("text/plain; charset=utf-8")
	ctx.SetBodyString(msg + "\n")
}
