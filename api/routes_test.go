package api_test

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/alertd/alertd/api"
)

// TestRoutesMatchDocument: every route the server serves is in the OpenAPI
// document, and the document names no route the server lacks. The server's
// routes come from the running engine (engine.Routes), so the check holds
// however edge arranges its handlers. A router catch-all ({name:*}) is
// documented as one parameter {name} marked x-catch-all (see documentedAs).
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
	catchAll := map[string]bool{} // documented paths whose last parameter is marked x-catch-all
	for path, item := range doc.Paths {
		for method, raw := range item {
			switch method {
			case "get", "put", "post", "delete", "options", "head", "patch", "trace":
				documented[strings.ToUpper(method)+" "+path] = true
			case "parameters":
				var params []struct {
					Name     string `json:"name"`
					In       string `json:"in"`
					CatchAll bool   `json:"x-catch-all"`
				}
				if err := json.Unmarshal(raw, &params); err != nil {
					t.Fatalf("%s parameters: %v", path, err)
				}
				for _, p := range params {
					if p.CatchAll {
						if p.In != "path" || !strings.HasSuffix(path, "/{"+p.Name+"}") {
							t.Errorf("%s: x-catch-all on %s, which is not the path's last parameter", path, p.Name)
						}
						catchAll[path] = true
					}
				}
			}
		}
	}
	h := startEngine(t)
	served := map[string]bool{}
	mappedCatchAll := map[string]bool{}
	for _, r := range h.e.Routes() {
		path, isCatchAll, ok := documentedAs(r.Path)
		if !ok {
			t.Errorf("the server serves %s %s, a pattern the document cannot describe", r.Method, r.Path)
			continue
		}
		served[r.Method+" "+path] = true
		if !documented[r.Method+" "+path] {
			t.Errorf("the server serves %s %s; the document does not describe it (as %s)", r.Method, r.Path, path)
			continue
		}
		if isCatchAll != catchAll[path] {
			t.Errorf("%s %s is served as %s but documented as %s with x-catch-all %v", r.Method, path, r.Path, path, catchAll[path])
		}
		mappedCatchAll[path] = mappedCatchAll[path] || isCatchAll
	}
	for op := range documented {
		if !served[op] {
			t.Errorf("the document describes %s; the server has no such route", op)
		}
	}
	for path := range catchAll {
		if !mappedCatchAll[path] {
			t.Errorf("the document marks %s as a catch-all; the server serves no catch-all there", path)
		}
	}
	if len(catchAll) == 0 {
		t.Errorf("no documented catch-all: /assets/{path} should be one")
	}
	if len(served) < 100 {
		t.Errorf("the engine lists %d routes; expected the whole API", len(served))
	}
}

// routerParam is a router path parameter: {name}, {name:*} (a catch-all,
// last segment only) or {name:regexp}.
var routerParam = regexp.MustCompile(`\{([a-z_A-Z]+)(?::([^}]*))?\}`)

// documentedAs is the document's path for a router pattern. OpenAPI path
// parameters are single segments, so a trailing catch-all {name:*} is
// documented as {name}, a parameter the document marks x-catch-all (whose
// description says that it takes slashes). Other constrained parameters
// have no OpenAPI form: ok is false.
func documentedAs(pattern string) (path string, catchAll, ok bool) {
	ok = true
	path = routerParam.ReplaceAllStringFunc(pattern, func(m string) string {
		sub := routerParam.FindStringSubmatch(m)
		switch {
		case sub[2] == "":
		case sub[2] == "*" && strings.HasSuffix(pattern, m):
			catchAll = true
		default:
			ok = false
		}
		return "{" + sub[1] + "}"
	})
	return path, catchAll, ok
}

func TestDocumentedAs(t *testing.T) {
	for _, c := range []struct {
		pattern, path string
		catchAll, ok  bool
	}{
		{"/assets/{path:*}", "/assets/{path}", true, true},
		{"/admin/v1/accounts/{account_id}/keys/{key_id}", "/admin/v1/accounts/{account_id}/keys/{key_id}", false, true},
		{"/", "/", false, true},
		{"/x/{rest:*}/y", "", false, false},
		{"/x/{id:[0-9]+}", "", false, false},
	} {
		path, catchAll, ok := documentedAs(c.pattern)
		if ok != c.ok || (ok && (path != c.path || catchAll != c.catchAll)) {
			t.Errorf("documentedAs(%q) = %q, %v, %v; want %q, %v, %v", c.pattern, path, catchAll, ok, c.path, c.catchAll, c.ok)
		}
	}
}
