package api

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestJSONIsTheYAML: the served JSON is the same document as the source,
// with the fields tools look for first.
func TestJSONIsTheYAML(t *testing.T) {
	b, err := JSON()
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		OpenAPI string `json:"openapi"`
		Info    struct {
			Version string `json:"version"`
		} `json:"info"`
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&doc); err != nil {
		t.Fatal(err)
	}
	if doc.OpenAPI != "3.1.0" {
		t.Errorf("openapi = %q, want 3.1.0", doc.OpenAPI)
	}
	if doc.Info.Version != "1.1.1" {
		t.Errorf("info.version = %q, want 1.1.1 (spec 1, Versioning)", doc.Info.Version)
	}
	if _, ok := doc.Paths["/v1/openapi.json"]["get"]; !ok {
		t.Errorf("the document does not describe itself")
	}
	again, _ := JSON()
	if &again[0] != &b[0] {
		t.Errorf("JSON converts again on every call")
	}
}
