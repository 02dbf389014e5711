package b2b

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/alertd/alertd/actors/state/account"
	"github.com/alertd/alertd/actors/state/directory"
	"github.com/alertd/alertd/actors/state/targets"
	"github.com/alertd/alertd/edge/httpkit/httpkittest"
	"github.com/alertd/alertd/internal/testkit"
	"github.com/alertd/alertd/protocol"
	"github.com/valyala/fasthttp"
)

// TestMain fails the run if a test leaves a goroutine behind.
func TestMain(m *testing.M) { testkit.VerifyTestMain(m) }

func get(h fasthttp.RequestHandler, uri, key string) *fasthttp.Response {
	return httpkittest.Do(h, httpkittest.Request{Method: "GET", URI: uri, Headers: httpkittest.Bearer(key)})
}

// TestAlwaysServed: without targets or a store, /v1/dt/status and
// /social/user still answer, in their families' shapes.
func TestAlwaysServed(t *testing.T) {
	e := httpkittest.New(t, nil)
	h := httpkittest.Router(Routes(e.Kit, Deps{Dir: directory.New()}))
	days := 3
	exp := e.Clock.Now().Add(time.Duration(days)*24*time.Hour - time.Hour)
	pexp := &exp
	limit := 5
	plimit := &limit
	dt := e.Issue(t, "", protocol.ProductB2B, account.Changes{ExpiresAt: &pexp, CASearchDailyLimit: &plimit,
		Modules: &[]string{protocol.ModuleFollows}})
	r := get(h, "/v1/dt/status", dt)
	if r.StatusCode() != 200 || !strings.Contains(string(r.Body()), `"targets":0,`) || !strings.Contains(string(r.Body()), `"days_left":3,`) ||
		!strings.Contains(string(r.Body()), `"modules":["follows","ca_search"]`) {
		t.Errorf("status: %d %s", r.StatusCode(), r.Body())
	}
	r = get(h, "/social/user/nobody", dt)
	if r.StatusCode() != 404 || string(r.Body()) != `{"status":"error","msg":"no data for user nobody"}` {
		t.Errorf("unknown user: %d %s", r.StatusCode(), r.Body())
	}
	if r := get(h, "/v1/dt/targets", dt); r.StatusCode() != 404 {
		t.Errorf("targets served without a registry: %d", r.StatusCode())
	}
}

// TestTargets: the spec 2 state table of POST and DELETE /v1/dt/targets.
func TestTargets(t *testing.T) {
	e := httpkittest.New(t, nil)
	dir := directory.New()
	tg := targets.NewRegistry(e.Store, nil, e.Clock.Now)
	if err := tg.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tg.Close)
	h := httpkittest.Router(Routes(e.Kit, Deps{Targets: tg, Dir: dir}))
	two := 2
	dt := e.Issue(t, "", protocol.ProductB2B, account.Changes{MaxHandles: &two})
	do := func(method, uri, body string) (int, string) {
		r := httpkittest.Do(h, httpkittest.Request{Method: method, URI: uri, Headers: httpkittest.Bearer(dt), Body: body})
		return r.StatusCode(), string(r.Body())
	}
	for _, c := range []struct {
		method, uri, body string
		status            int
		has               string
	}{
		{"POST", "/v1/dt/targets", `{"handle":"@Whale"}`, 201, `"handle":"Whale","social_user_id":null` /* as typed; the key is whale */},
		{"POST", "/v1/dt/targets", `{"handle":"whale"}`, 409, "conflict"},
		{"POST", "/v1/dt/targets", `{"handle":"bad handle"}`, 400, "letters, digits or underscores"},
		{"POST", "/v1/dt/targets", `{}`, 422, `body has no "handle" field`},
		{"POST", "/v1/dt/targets", `{"handle":"degen"}`, 201, `"handle":"degen"`},
		{"POST", "/v1/dt/targets", `{"handle":"third"}`, 403, "handle_limit_reached"},
		{"GET", "/v1/dt/targets", "", 200, `"count":2,"max_handles":2`},
		{"DELETE", "/v1/dt/targets/whale", "", 200, `"removed":"whale"`},
		{"DELETE", "/v1/dt/targets/whale", "", 404, "not in your target list"},
	} {
		if status, body := do(c.method, c.uri, c.body); status != c.status || !strings.Contains(body, c.has) {
			t.Errorf("%s %s %s: %d %s", c.method, c.uri, c.body, status, body)
		}
	}
}
