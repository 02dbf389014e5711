// Package api holds alertd's OpenAPI 3.1 document (openapi.yaml), the one
// description of its HTTP surface: the REST routes of the three spec
// documents, /health, the admin and ingest APIs, the WebSocket upgrades,
// and the web pages with the console's admin routes.
// The binary embeds it and edge serves it as JSON at GET /v1/openapi.json;
// api/openapitest validates recorded exchanges against it.
//
// It lives at the top of the tree, not in protocol/ (Go wire types and
// codecs) or edge/ (the server that must match it), because it is the
// contract both sides are checked against, read by people and tools that
// never open the Go code.
package api

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"sync"

	"go.yaml.in/yaml/v3"
)

//go:embed openapi.yaml
var source []byte

// YAML is the document as written.
func YAML() []byte { return source }

// JSON is the document as JSON, converted once. Keys come out sorted: the
// order of a JSON object carries no meaning.
var JSON = sync.OnceValues(func() ([]byte, error) {
	var doc any
	if err := yaml.Unmarshal(source, &doc); err != nil {
		return nil, fmt.Errorf("openapi.yaml: %w", err)
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("openapi.yaml as JSON: %w", err)
	}
	return b, nil
})
