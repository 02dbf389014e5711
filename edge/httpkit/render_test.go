package httpkit_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/alertd/alertd/actors/state/account"
	"github.com/alertd/alertd/edge/httpkit"
	"github.com/alertd/alertd/edge/httpkit/httpkittest"
	"github.com/alertd/alertd/protocol"
	"github.com/valyala/fasthttp"
)

// answering serves GET /x of family f to any valid key with h's answer.
func answering(e *httpkittest.Env, f *httpkit.Family, h httpkit.Handler) fasthttp.RequestHandler {
	return httpkittest.Router([]httpkit.Route{httpkit.GET("/x", e.Kit.Keyed(f, h))})
}

func answer(status int, data any, err error) httpkit.Handler {
	return func(*fasthttp.RequestCtx, *account.Principal) (int, any, error) { return status, data, err }
}

// TestRenderShapes: each family's success and each kind of failure, byte
// for byte.
func TestRenderShapes(t *testing.T) {
	e := httpkittest.New(t, nil)
	dt := httpkittest.Bearer(e.Issue(t, "", protocol.ProductB2B, account.Changes{}))
	limited := protocol.RateLimited(7)
	for _, c := range []struct {
		name   string
		f      *httpkit.Family
		h      httpkit.Handler
		status int
		ctype  string
		body   string
		retry  string
	}{
		{"envelope", httpkit.FamilyB2B, answer(201, map[string]int{"a": 1}, nil), 201, "application/json", `{"ok":true,"data":{"a":1}}`, ""},
		{"bare social", httpkit.FamilySocial, answer(200, map[string]int{"a": 1}, nil), 200, "application/json", `{"a":1}`, ""},
		{"api error", httpkit.FamilyB2B, answer(0, nil, protocol.NotFound("gone")), 404, "application/json", `"code":"not_found"`, ""},
		{"social api error", httpkit.FamilySocial, answer(0, nil, protocol.NotFound("gone")), 404, "application/json", `{"status":"error","msg":"gone"}`, ""},
		{"social retry", httpkit.FamilySocial, answer(0, nil, limited), 429, "application/json", `{"status":"error","msg":`, "7"},
		{"envelope retry", httpkit.FamilyB2B, answer(0, nil, limited), 429, "application/json", `"code":"rate_limited"`, "7"},
		{"parse error", httpkit.FamilyB2B, answer(0, nil, httpkit.MissingField("url")), 422, "text/plain; charset=utf-8", "unprocessable entity: body has no \"url\" field\n", ""},
		{"parse error social", httpkit.FamilySocial, answer(0, nil, httpkit.MissingField("url")), 422, "text/plain; charset=utf-8", "unprocessable entity", ""},
		{"internal", httpkit.FamilyB2B, answer(0, nil, errors.New("db password=hunter2")), 500, "application/json", `"code":"server_error"`, "30"},
		{"internal social", httpkit.FamilySocial, answer(0, nil, errors.New("boom")), 500, "application/json", `{"status":"error","msg":"internal error"}`, ""},
	} {
		r := get(answering(e, c.f, c.h), "/x", dt)
		if r.StatusCode() != c.status || string(r.Header.ContentType()) != c.ctype || !strings.Contains(string(r.Body()), c.body) ||
			string(r.Header.Peek("Retry-After")) != c.retry {
			t.Errorf("%s: %d %q %s Retry-After %q", c.name, r.StatusCode(), r.Header.ContentType(), r.Body(), r.Header.Peek("Retry-After"))
		}
		if strings.Contains(string(r.Body()), "hunter2") {
			t.Errorf("%s: the cause of a 500 reached the client: %s", c.name, r.Body())
		}
	}
}
