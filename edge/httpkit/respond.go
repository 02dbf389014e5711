package httpkit

import (
	"strconv"

	"github.com/alertd/alertd/protocol"
	json "github.com/goccy/go-json"
	"github.com/valyala/fasthttp"
)

// ContentJSON is the content type of every JSON answer.
const ContentJSON = "application/json"

// WriteOK writes the success envelope.
func WriteOK(ctx *fasthttp.RequestCtx, status int, data any) {
	buf, err := protocol.AppendOK(ctx.Response.Body()[:0], data)
	if err != nil {
		WriteError(ctx, protocol.Internal())
		return
	}
	ctx.Response.SetBodyRaw(buf)
	ctx.SetStatusCode(status)
	ctx.SetContentType(ContentJSON)
}

// WriteError writes the failure envelope, with Retry-After when set.
func WriteError(ctx *fasthttp.RequestCtx, e *protocol.APIError) {
	ctx.Response.SetBodyRaw(protocol.AppendError(nil, e))
	ctx.SetStatusCode(e.Status)
	ctx.SetContentType(ContentJSON)
	if e.RetryAfter > 0 {
		ctx.Response.Header.Set("Retry-After", strconv.Itoa(e.RetryAfter))
	}
}

// SocialError is the failure body of the /social/* routes.
type SocialError struct {
	Status string `json:"status"`
	Msg    string `json:"msg"`
}

// WriteJSON writes a bare JSON object (the /social/* routes, /health).
func WriteJSON(ctx *fasthttp.RequestCtx, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status, b = 500, []byte(`{"status":"error","msg":"internal error"}`)
	}
	ctx.Response.SetBodyRaw(b)
	ctx.SetStatusCode(status)
	ctx.SetContentType(ContentJSON)
}

// WritePlain writes a plain-text failure (parse failures, WebSocket refusals).
func WritePlain(ctx *fasthttp.RequestCtx, status int, msg string) {
	ctx.Response.Reset()
	ctx.SetStatusCode(status)
	ctx.SetContentType("text/plain; charset=utf-8")
	ctx.SetBodyString(msg + "\n")
}
