// Package launchpad is the connector to the token launchpad's on-chain
// program (CONTRACT.md section 8, --solana-rpc-ws-url and
// --launchpad-program). It subscribes to the program's logs over Solana's
// JSON-RPC WebSocket (logsSubscribe, mentions the program id), decodes the
// program's Anchor events from its "Program data:" lines (the 8-byte
// discriminator of "event:<Name>" then Borsh fields) and hands `launchpad`
// observations (CONTRACT.md section 3) to an upstream.Sink: CreateEvent
// becomes token_launched, CompleteEvent graduated. It knows nothing of
// sockets toward clients or of the store.
//
// Files: event.go and borsh.go decode events (pure; fuzzed), logs.go picks
// the program's own data lines out of a transaction's logs, connector.go
// runs the socket (reconnect with backoff, a fresh subscription each time,
// pings and a read deadline against stalls), backfill.go reads the gap
// after a reconnect over JSON-RPC HTTP, stats.go holds the counters.
//
// Concurrency: Run's goroutine owns the connection, the recent-signature
// set, the last signature and the sink; a connection adds a reader, a
// pinger and, after a reconnect, a backfill fetcher, all ended with it.
// launchpadfake is a local RPC speaking the same documented formats.
package launchpad
