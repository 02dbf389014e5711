package httpkit

import (
	"bytes"
	"crypto/sha256"
	"crypto/subtle"

	"github.com/alertd/alertd/protocol"
	"github.com/valyala/fasthttp"
)

// adminAuth checks the admin bearer token in constant time: it keeps the
// token's SHA-256 and compares hashes, so neither the length nor the bytes
// of the token leak through timing.
type adminAuth struct{ sum [sha256.Size]byte }

func newAdminAuth(token string) adminAuth { return adminAuth{sum: sha256.Sum256([]byte(token))} }

func (a adminAuth) ok(ctx *fasthttp.RequestCtx) bool { return a.okHeader(&ctx.Request.Header) }

func (a adminAuth) okHeader(rh *fasthttp.RequestHeader) bool {
	h := rh.Peek(fasthttp.HeaderAuthorization)
	if len(h) < len(bearerPrefix) || !bytes.EqualFold(h[:len(bearerPrefix)], bearerPrefix) {
		return false
	}
	got := sha256.Sum256(bytes.TrimSpace(h[len(bearerPrefix):]))
	return subtle.ConstantTimeCompare(got[:], a.sum[:]) == 1
}

// Admin is the admin-bearer middleware of the admin and ingest APIs: a
// request without the admin token gets 401 in the envelope.
func (k *Kit) Admin(h fasthttp.RequestHandler) fasthttp.RequestHandler {
	return func(ctx *fasthttp.RequestCtx) {
		if !k.admin.ok(ctx) {
			WriteError(ctx, protocol.NewError(401, protocol.CodeUnauthorized, "admin token missing or wrong: send Authorization: Bearer <admin token>"))
			return
		}
		h(ctx)
	}
}
