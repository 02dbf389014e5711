// Package xapi is the connector to the platform's official API v2
// (CONTRACT.md section 8, --x-bearer-token and --x-api-url). It turns the
// API into ingest lines (CONTRACT.md section 3) and hands them to an
// upstream.Sink; it knows nothing of sockets or the store.
//
// What it owns, one file each:
//   - rules.go, rules_sync.go: the filtered stream's rules follow the
//     monitored handles (HandleSet), packed as `from:a OR from:b` into as few
//     rules as the plan's Limits allow, reconciled at start and after each
//     change.
//   - stream.go, tweet.go: the filtered stream, mapped post by post to spec
//     2's tweet payload from the line's includes; reconnects per the API's
//     documented schedules (backoff.go); a stream without keep-alives for
//     StallAfter is reconnected; the gap is logged and counted.
//   - lookups.go, users.go: `user` observations for new handles (/2/users/by)
//     and profile re-reads by id in batches of 100; `following` lists for the
//     handles whose plans need them, longest-waiting first.
//   - ratelimit.go, client.go: per-endpoint budgets from the x-rate-limit-*
//     headers; after a 429 no call is made before the announced reset.
//   - emit.go: the sink's only caller.
//   - stats.go: counters (lag, reconnects, rule changes, rate-limit waits,
//     skipped and malformed lines) read by Connector.Stats.
//
// Concurrency: Connector.Run owns six goroutines (emitter, stream, rules,
// users, following, change fan-out), all stopped by Run's context; a stream
// connection adds a watchdog that ends with it. Shared memory: the limiter's
// budgets (limiter.mu) and the resolved ids (lookups.mu); no lock is held
// across a call. Times come from a clockwork.Clock so tests use a fake one.
//
// xapifake is a local server speaking the same documented formats, for the
// tests, `alertd connector-demo x` and the bench.
package xapi
