// Package testkit holds the helpers that alertd's tests share: the
// end-to-end suite (e2e/), the few subprocess tests of cmd/alertd, and unit
// tests that need a socket, a deadline or a leak check.
//
//   - Wait: WaitFor polls a condition until a deadline (never a bare sleep).
//   - Net: FreePort, FreshIP (a loopback source address of its own),
//     RandomHex.
//   - WS: a WebSocket client on gorilla/websocket, independent of the
//     server's own transport, with a marker round trip (Barrier) that proves
//     no frame was queued before it.
//   - Ingest: NDJSON bodies of observations.
//   - Leaks: VerifyTestMain, goleak with the goroutines that live for the
//     whole process by design.
//   - LogBuffer: a concurrency-safe sink for an engine's log.
//
// It lives under internal/ so nothing outside the module can import it, and
// it imports nothing of alertd's own (engine, actors, edge), so the unit
// tests of those packages can use it without an import cycle; the harness
// that starts an engine in process is in e2e/. PostgreSQL databases for
// tests come from persistence/pgtest. Production code never imports this
// package (TestNotImportedByProduction in e2e checks the binary's imports).
package testkit
