// Package e2e is alertd's black-box suite (DESIGN.md, tests tier 4): each
// test starts the engine in process (engine.Start on 127.0.0.1:0, with the
// Config and Timings the test chooses) and speaks to it over real HTTP and
// WebSockets, on both stores: embedded in a temporary directory, and
// PostgreSQL through persistence/pgtest. Fakes stand in for outside
// services (webhook receivers). Files are named by product.
//
// Ingest is asynchronous; tests wait for it with the engine's Sync barrier
// (server.sync), and prove that a socket got nothing with Sync followed by
// a marker round trip (testkit.WS.Barrier), never by sleeping.
//
// The package has only tests: nothing imports it. `go test -short` skips it.
package e2e
