package api_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/alertd/alertd/api"
)

// TestRoutesMatchDocument: every route the server serves is in the OpenAPI
// document, and the document names no route the server lacks. The server's
// routes come from the running engine (engine.Routes), so the check holds
// however edge arranges its handlers.
func TestRoutesMatchDocument(t *testing.T) {
	b, err := api.JSON()
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	documented := map[string]bool{}
	for path, item := range doc.Paths {
		for method := range item {
			switch method {
			case "get", "put", "post", "delete", "options", "head", "patch", "trace":
				documented[strings.ToUpper(method)+" "+path] = true
			}
		}
	}
	h := startEngine(t)
	served := map[string]bool{}
	for _, r := range h.e.Routes() {
		served[r.Method+" "+r.Path] = true
		if !documented[r.Method+" "+r.Path] {
			t.Errorf("the server serves %s %s; the document does not describe it", r.Method, r.Path)
		}
	}
	for op := range documented {
		if !served[op] {
			t.Errorf("the document describes %s; the server has no such route", op)
		}
	}
	if len(served) < 100 {
		t.Errorf("the engine lists %d routes; expected the whole API", len(served))
	}
}
