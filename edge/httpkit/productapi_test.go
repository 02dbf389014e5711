package httpkit_test

import (
	"strings"
	"testing"

	"github.com/alertd/alertd/actors/state/account"
	"github.com/alertd/alertd/edge/httpkit/httpkittest"
	"github.com/alertd/alertd/protocol"
)

// TestStoredWebhookRoutes: GET is null until a PUT sets the URL, a PUT of
// null clears it, and only absolute http(s) URLs are stored.
func TestStoredWebhookRoutes(t *testing.T) {
	e := httpkittest.New(t, nil)
	h := httpkittest.Router(e.Kit.StoredWebhookRoutes("pf", protocol.ProductPumpFun, e.Store))
	pf := httpkittest.Bearer(e.Issue(t, "", protocol.ProductPumpFun, account.Changes{}))
	do := func(method, body string) (int, string) {
		r := httpkittest.Do(h, httpkittest.Request{Method: method, URI: "/v1/pf/webhook", Headers: pf, Body: body})
		return r.StatusCode(), string(r.Body())
	}
	for _, c := range []struct {
		method, body string
		status       int
		has          string
	}{
		{"GET", "", 200, `{"url":null,"updated_at":null}`},
		{"PUT", `{}`, 422, `body has no "url" field`},
		{"PUT", `{"url":7}`, 400, "url must be a string (or null to clear it)"},
		{"PUT", `{"url":"ftp://x"}`, 400, "absolute http or https URL"},
		{"PUT", `{"url":"https://` + strings.Repeat("a", 2048) + `"}`, 400, "longer than 2048"},
		{"PUT", `{"url":"https://hooks.example/pf"}`, 200, `"url":"https://hooks.example/pf","updated_at":"2026-05-10T23:59:00Z"`},
		{"GET", "", 200, `"url":"https://hooks.example/pf"`},
		{"PUT", `{"url":null}`, 200, `"url":null`},
		{"GET", "", 200, `"url":null,"updated_at":"2026-05-10T23:59:00Z"`},
	} {
		if status, body := do(c.method, c.body); status != c.status || !strings.Contains(body, c.has) {
			t.Errorf("%s %s: %d %s", c.method, c.body, status, body)
		}
	}
	cw := httpkittest.Bearer(e.Issue(t, "", protocol.ProductCW, account.Changes{}))
	if r := httpkittest.Do(h, httpkittest.Request{Method: "GET", URI: "/v1/pf/webhook", Headers: cw}); r.StatusCode() != 401 {
		t.Errorf("a cw key on pf: %d", r.StatusCode())
	}
}
