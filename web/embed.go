// Package web holds the pages people open in a browser: the customer
// dashboard (dashboard/, served at GET /) and the operator console
// (console/, served at GET /admin/), with what both share (shared/). They
// are plain HTML, CSS and JavaScript modules, embedded into the binary, so
// `make run` needs no build step and nothing is fetched from another host.
// edge/api/pages serves them; the pages talk to the public API (/v1) and
// the admin API (/admin/v1) like any other client.
package web

import (
	"embed"
	"io/fs"
)

//go:embed dashboard console shared
var files embed.FS

// FS is the page assets: dashboard/, console/ and shared/.
func FS() fs.FS { return files }
