// Package testkit holds the helpers that alertd's tests share: the
// end-to-end suite (e2e/), the few subprocess tests of cmd/alertd, and unit
// tests that need a socket, a deadline or a leak check.
//
//   - Wait: WaitFor polls a condition until a deadline. It is for what
//     happens outside the engine's Sync barrier (a webhook receiver's hits,
//     the transport counting a socket out), never for ingest, and never a
//     bare sleep.
//   - Stores: ForEachStore runs a test on the embedded store and on
//     PostgreSQL (a fresh database from persistence/pgtest, which finds or
//     starts the server); -short skips it.
//   - Net: FreePort, FreshIP (a loopback source address of its own),
//     RandomHex.
//   - WS: a WebSocket client on gorilla/websocket, independent of the
//     server's own transport, with a marker round trip (Barrier) that shows
//     no frame was queued before it.
//   - Ingest: NDJSON bodies of observations.
//   - Leaks: VerifyTestMain, goleak after the package's tests, with the
//     goroutines that live for the whole process by design (ProcessWide).
//   - LogBuffer: a concurrency-safe sink for an engine's or a child's log.
//
// Why a package under internal/ and not e2e/harness: unit tests of actors/
// and edge/ use it too, so it must not import the engine (a unit test of a
// package the engine imports would form an import cycle); it imports
// nothing of alertd but pgtest. The harness that starts an engine in
// process lives in e2e/ itself. Production code never imports it
// (TestNotImportedByProduction).
package testkit
