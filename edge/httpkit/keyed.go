package httpkit

import (
	"github.com/alertd/alertd/actors/state/account"
	"github.com/valyala/fasthttp"
)

// Handler is an endpoint that needs a key. It returns the success status
// and data, or an error: *protocol.APIError or *ParseError; anything else
// is a 500.
type Handler func(ctx *fasthttp.RequestCtx, p *account.Principal) (int, any, error)

// Keyed serves h to the keys of family f, through the middleware in order:
// Authenticate, RateLimit, then h, whose answer Render writes.
func (k *Kit) Keyed(f *Family, h Handler) fasthttp.RequestHandler {
	return func(ctx *fasthttp.RequestCtx) {
		p, ok := k.Authenticate(ctx, f)
		if !ok || !k.RateLimit(ctx, f, &p) {
			return
		}
		status, data, err := h(ctx, &p)
		k.Render(ctx, f, status, data, err)
	}
}
