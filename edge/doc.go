// Package edge is the network side of alertd: the fasthttp listener, the
// router that mounts every API's routes in one list (routes.go), /health,
// and the shutdown that closes the WebSockets after the requests. It holds
// no domain state and serves no product itself:
//
//   - edge/httpkit is what every API package shares: the middleware (key
//     families, rate limits, answer shapes, the admin bearer), body and
//     path readers, the WebSocket upgrade and the spec-3 products' common
//     routes. API packages import it, never each other or this package.
//   - edge/api/<name> serves one API, each with its own narrow Deps and one
//     route table: admin and ingest (CONTRACT.md), tweetalerts (spec 1),
//     b2b and casearch (spec 2), cw, ct, et, trending, pumpfun, eca and
//     searchalerts (spec 3).
//   - edge/ws is the epoll WebSocket transport; the sockets' sessions live
//     in actors/session.
//
// A request crosses the router, the API's middleware chain
// (httpkit.Kit.Keyed: authenticate, rate limit, handler, render) and the
// service it calls; nothing of the fasthttp RequestCtx outlives the
// handler (path values are copied, store calls get their own context).
package edge
