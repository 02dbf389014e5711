package openapitest

import (
	"net/http"
	"strings"
	"testing"
)

func sharedT(t *testing.T) *Validator {
	t.Helper()
	v, err := Shared()
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestDocumentIsOpenAPI31 checks api/openapi.yaml against the OAS 3.1
// meta-schema.
func TestDocumentIsOpenAPI31(t *testing.T) {
	if err := sharedT(t).Document(); err != nil {
		t.Fatal(err)
	}
}

func get(path string) *http.Request { return call("GET", path) }

func call(method, path string) *http.Request {
	r, _ := http.NewRequest(method, "http://127.0.0.1:8080"+path, nil)
	return r
}

func jsonHeader() http.Header { return http.Header{"Content-Type": {"application/json"}} }

const target = `{"id":1,"screen_name":"solwhale","display_name":"Sol Whale","social_user_id":"744","is_active":true,"created_at":"2026-11-21T08:00:00.123Z"}`

// TestResponses: answers the document describes pass; each kind of drift
// is caught and named.
func TestResponses(t *testing.T) {
	v := sharedT(t)
	for _, c := range []struct {
		name    string
		req     *http.Request
		status  int
		header  http.Header
		body    string
		wantErr string // "" = valid
	}{
		{"target list", get("/v1/dt/targets"), 200, jsonHeader(),
			`{"ok":true,"data":{"targets":[` + target + `],"count":1,"max_handles":500}}`, ""},
		{"renamed field", get("/v1/dt/targets"), 200, jsonHeader(),
			`{"ok":true,"data":{"targets":[` + strings.Replace(target, "display_name", "displayName", 1) + `],"count":1,"max_handles":500}}`,
			"$.data.targets[0]"},
		{"extra field", get("/v1/dt/status"), 200, jsonHeader(),
			`{"ok":true,"data":{"targets":0,"max_handles":5,"is_active":true,"days_left":0,"modules":[],"extra":1}}`, "extra"},
		{"b2b key code", get("/v1/dt/status"), 401, jsonHeader(),
			`{"ok":false,"error":"API key unknown","code":"key_unknown"}`, ""},
		{"status code where a key code is due", get("/v1/dt/status"), 401, jsonHeader(),
			`{"ok":false,"error":"API key unknown","code":"unauthorized"}`, "$.code"},
		{"undocumented status", get("/v1/dt/status"), 418, jsonHeader(), `{}`, "418"},
		{"plain-text websocket refusal", get("/v1/cw/ws?api_key=x"), 401,
			http.Header{"Content-Type": {"text/plain; charset=utf-8"}}, "unauthorized: API key unknown\n", ""},
		{"social error shape", get("/social/user/nobody"), 404, jsonHeader(), `{"status":"error","msg":"no data"}`, ""},
		{"envelope on a social route", get("/social/user/nobody"), 404, jsonHeader(),
			`{"ok":false,"error":"no data","code":"not_found"}`, "social"},
		{"unknown route under /v1", get("/v1/nope"), 404, jsonHeader(),
			`{"ok":false,"error":"no such endpoint","code":"not_found"}`, ""},
		{"unknown route answered 200", get("/v1/nope"), 200, jsonHeader(), `{"ok":true,"data":{}}`, "not 404"},
		{"method the path does not serve", call("PUT", "/v1/dt/status"), 404, jsonHeader(),
			`{"ok":false,"error":"no such endpoint","code":"not_found"}`, ""},
		{"OPTIONS of a served path", call("OPTIONS", "/v1/accounts"), 200, http.Header{"Allow": {"GET, OPTIONS, POST"}}, "", ""},
		{"OPTIONS without Allow", call("OPTIONS", "/v1/accounts"), 200, http.Header{}, "", "Allow"},
		{"unknown route under /social", get("/social/nope"), 404, jsonHeader(), `{"status":"error","msg":"no such endpoint"}`, ""},
		{"unknown route elsewhere", get("/nope"), 404, http.Header{"Content-Type": {"text/plain; charset=utf-8"}}, "not found\n", ""},
		{"unknown route elsewhere as JSON", get("/nope"), 404, jsonHeader(), `{}`, "plain text"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := v.Response(c.req, c.status, c.header, []byte(c.body))
			switch {
			case c.wantErr == "" && err != nil:
				t.Fatalf("want valid, got %v", err)
			case c.wantErr != "" && err == nil:
				t.Fatalf("want an error naming %q, got none", c.wantErr)
			case c.wantErr != "" && !strings.Contains(err.Error(), c.wantErr):
				t.Fatalf("error does not name %q:\n%v", c.wantErr, err)
			}
		})
	}
}

// TestRequests: a request body the document describes passes, one that
// breaks it does not.
func TestRequests(t *testing.T) {
	v := sharedT(t)
	post := func(body string) (*http.Request, []byte) {
		r, _ := http.NewRequest("POST", "http://127.0.0.1:8080/v1/accounts", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		return r, []byte(body)
	}
	if err := v.Request(post(`{"handles":["solwhale","@degen"]}`)); err != nil {
		t.Errorf("valid request refused: %v", err)
	}
	if err := v.Request(post(`{"handles":"solwhale"}`)); err == nil || !strings.Contains(err.Error(), "handles") {
		t.Errorf("handles as a string: want an error naming handles, got %v", err)
	}
}
