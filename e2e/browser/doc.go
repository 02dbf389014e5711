// Package browser is the browser tier of the end-to-end tests: the
// dashboard (GET /) and the operator console (GET /admin/) driven in a real
// headless Chromium (Debian's chromium) through chromedp, against the
// engine started in process on a loopback port (embedded store).
//
// Why a package of its own and not files of e2e/: it needs one browser for
// all its tests (started once, closed in TestMain before the leak check)
// and a Chromium on the machine, which the rest of e2e does not; as its own
// test binary it runs beside e2e's under `go test ./...`, and a machine
// without PostgreSQL still runs it (the pages do not depend on the store,
// which the store contract suite and e2e cover on both). -short skips it.
//
// Every test fails on a JavaScript exception, a Content-Security-Policy
// violation or a request to another host, and leaves a screenshot of the
// page when it fails. ALERTD_SCREENSHOTS=<dir> makes TestREADMEScreenshots
// write the README's two pictures from the demo's synthetic data.
//
// Tests only: no production code imports it.
package browser
