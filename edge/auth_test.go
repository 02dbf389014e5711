package edge

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/alertd/alertd/actors/state/account"
	"github.com/alertd/alertd/actors/state/directory"
	"github.com/alertd/alertd/persistence/embedded"
	"github.com/alertd/alertd/protocol"
	json "github.com/goccy/go-json"
	"github.com/valyala/fasthttp"
)

type testServer struct {
	s   *Server
	reg *account.Registry
}

func newTestServer(t *testing.T) *testServer {
	t.Helper()
	st, err := embedded.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	reg := account.NewRegistry(st, time.Now)
	if err := reg.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	s := New(Deps{Store: st, Registry: reg, Dir: directory.New(), AdminToken: "adm", Timings: protocol.DefaultTimings(),
		Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	return &testServer{s: s, reg: reg}
}

func (ts *testServer) issue(t *testing.T, account string, p protocol.Product) string {
	t.Helper()
	iss, err := ts.reg.Issue(context.Background(), account, p, accountChanges(p))
	if err != nil {
		t.Fatal(err)
	}
	return iss.Key
}

func accountChanges(p protocol.Product) account.Changes {
	if p == protocol.ProductTweetAlerts {
		plan := "ultra"
		return account.Changes{Plan: &plan}
	}
	return account.Changes{}
}

// do runs one request through the server's handler and returns the response.
func (ts *testServer) do(method, uri string, headers map[string]string) *fasthttp.Response {
	var ctx fasthttp.RequestCtx
	ctx.Request.Header.SetMethod(method)
	ctx.Request.SetRequestURI(uri)
	for k, v := range headers {
		ctx.Request.Header.Set(k, v)
	}
	ts.s.srv.Handler(&ctx)
	var resp fasthttp.Response
	ctx.Response.CopyTo(&resp)
	return &resp
}

func envelopeCode(t *testing.T, r *fasthttp.Response) string {
	t.Helper()
	var env protocol.Envelope
	if err := json.Unmarshal(r.Body(), &env); err != nil {
		t.Fatalf("not JSON: %s", r.Body())
	}
	return env.Code
}

func TestB2BAuthCodes(t *testing.T) {
	ts := newTestServer(t)
	dt := ts.issue(t, "", protocol.ProductB2B)
	xg := ts.issue(t, "", protocol.ProductTweetAlerts)
	cases := []struct {
		name    string
		uri     string
		headers map[string]string
		status  int
		code    string
	}{
		{"no key", "/v1/dt/status", nil, 401, "key_missing"},
		{"empty bearer", "/v1/dt/status", map[string]string{"Authorization": "Bearer "}, 401, "key_missing"},
		{"query key", "/v1/dt/status?api_key=" + dt, nil, 401, "key_in_query"},
		{"query and header", "/v1/dt/status?api_key=x", map[string]string{"Authorization": "Bearer " + dt}, 401, "key_in_query"},
		{"xg key", "/v1/dt/status", map[string]string{"Authorization": "Bearer " + xg}, 401, "key_malformed"},
		{"junk", "/v1/dt/status", map[string]string{"Authorization": "Bearer hello"}, 401, "key_malformed"},
		{"basic scheme", "/v1/dt/status", map[string]string{"Authorization": "Basic Zm9v"}, 401, "key_malformed"},
		{"unknown", "/v1/dt/status", map[string]string{"Authorization": "Bearer " + account.NewKey(protocol.ProductB2B)}, 401, "key_unknown"},
		{"bearer ok", "/v1/dt/status", map[string]string{"Authorization": "Bearer " + dt}, 200, ""},
		{"lowercase scheme", "/v1/dt/status", map[string]string{"Authorization": "bearer " + dt}, 200, ""},
		{"stray spaces", "/v1/dt/status", map[string]string{"Authorization": "Bearer   " + dt + "  "}, 200, ""},
		{"x-api-key", "/v1/dt/status", map[string]string{"X-API-Key": " " + dt + "\t"}, 200, ""},
	}
	for _, c := range cases {
		r := ts.do("GET", c.uri, c.headers)
		if r.StatusCode() != c.status {
			t.Errorf("%s: status %d, want %d (%s)", c.name, r.StatusCode(), c.status, r.Body())
			continue
		}
		if c.code != "" {
			if got := envelopeCode(t, r); got != c.code {
				t.Errorf("%s: code %s, want %s", c.name, got, c.code)
			}
		}
	}
}

func TestTweetAlertsAuthUsesStatusCodes(t *testing.T) {
	ts := newTestServer(t)
	dt := ts.issue(t, "", protocol.ProductB2B)
	xg := ts.issue(t, "", protocol.ProductTweetAlerts)
	cw := ts.issue(t, "", protocol.ProductCW)
	for _, h := range []map[string]string{nil, {"Authorization": "Bearer " + cw}, {"Authorization": "Bearer xg_nope"}, {"X-API-Key": xg}} {
		r := ts.do("GET", "/v1/subscription", h)
		if r.StatusCode() != 401 || envelopeCode(t, r) != "unauthorized" {
			t.Errorf("%v: %d %s", h, r.StatusCode(), r.Body())
		}
	}
	if r := ts.do("GET", "/v1/subscription?api_key="+xg, nil); r.StatusCode() != 401 || envelopeCode(t, r) != "unauthorized" {
		t.Errorf("query key on consumer route: %d %s", r.StatusCode(), r.Body())
	}
	if r := ts.do("GET", "/v1/subscription", map[string]string{"Authorization": "Bearer  " + xg}); r.StatusCode() != 401 {
		t.Errorf("stray spaces accepted outside B2B REST: %d", r.StatusCode())
	}
	for _, k := range []string{xg, dt} {
		if r := ts.do("GET", "/v1/subscription", map[string]string{"Authorization": "Bearer " + k}); r.StatusCode() != 200 {
			t.Errorf("%s key refused: %d %s", k[:3], r.StatusCode(), r.Body())
		}
	}
}

func TestSocialErrorShape(t *testing.T) {
	ts := newTestServer(t)
	r := ts.do("GET", "/social/user/nobody", nil)
	if r.StatusCode() != 401 {
		t.Fatalf("status %d", r.StatusCode())
	}
	var m map[string]any
	if err := json.Unmarshal(r.Body(), &m); err != nil || m["status"] != "error" || m["msg"] == nil || m["code"] != nil || m["ok"] != nil {
		t.Fatalf("body %s", r.Body())
	}
	dt := ts.issue(t, "", protocol.ProductB2B)
	r = ts.do("GET", "/social/user/nobody", map[string]string{"Authorization": "Bearer " + dt})
	if r.StatusCode() != 404 || !strings.Contains(string(r.Body()), `"status":"error"`) {
		t.Fatalf("unknown user: %d %s", r.StatusCode(), r.Body())
	}
}

func TestRateLimitSharedByAccount(t *testing.T) {
	ts := newTestServer(t)
	plan := "free"
	iss, err := ts.reg.Issue(context.Background(), "", protocol.ProductTweetAlerts, account.Changes{Plan: &plan})
	if err != nil {
		t.Fatal(err)
	}
	dt := ts.issue(t, iss.Sub.AccountID, protocol.ProductB2B)
	// Pin the clock so every request falls into one window.
	fixed := time.Now()
	ts.s.now = func() time.Time { return fixed }
	var statuses []int
	for i, k := range []string{iss.Key, dt, iss.Key} {
		r := ts.do("GET", "/v1/plans", map[string]string{"Authorization": "Bearer " + k})
		statuses = append(statuses, r.StatusCode())
		if i == 2 {
			if r.StatusCode() != 429 || envelopeCode(t, r) != "rate_limited" || string(r.Header.Peek("Retry-After")) != "1" {
				t.Fatalf("third request: %d %s retry-after %q", r.StatusCode(), r.Body(), r.Header.Peek("Retry-After"))
			}
		}
	}
	if statuses[0] != 200 || statuses[1] != 200 {
		t.Fatalf("statuses %v", statuses)
	}
	fixed = fixed.Add(time.Second)
	if r := ts.do("GET", "/v1/plans", map[string]string{"Authorization": "Bearer " + iss.Key}); r.StatusCode() != 200 {
		t.Fatalf("next window: %d", r.StatusCode())
	}
}

func TestNotFoundShapes(t *testing.T) {
	ts := newTestServer(t)
	if r := ts.do("GET", "/v1/nothing", nil); r.StatusCode() != 404 || envelopeCode(t, r) != "not_found" {
		t.Fatalf("/v1 404: %d %s", r.StatusCode(), r.Body())
	}
	if r := ts.do("GET", "/nothing", nil); r.StatusCode() != 404 || !strings.HasPrefix(string(r.Header.ContentType()), "text/plain") {
		t.Fatalf("plain 404: %d %s", r.StatusCode(), r.Header.ContentType())
	}
}

func FuzzPresentedKey(f *testing.F) {
	f.Add("Bearer dt_abc", "", "")
	f.Add("bearer", " dt_x \n", "api_key=1")
	f.Add("", "\x00", "a=b&api_key")
	f.Fuzz(func(t *testing.T, auth, xkey, query string) {
		for _, fam := range []*Family{FamilyB2B, FamilyTweetAlerts, FamilySocial} {
			var ctx fasthttp.RequestCtx
			ctx.Request.SetRequestURI("/v1/dt/status?" + query)
			if auth != "" {
				ctx.Request.Header.Set("Authorization", auth)
			}
			if xkey != "" {
				ctx.Request.Header.Set("X-API-Key", xkey)
			}
			key, reason := fam.presentedKey(&ctx)
			if reason == account.OK && key == "" {
				t.Fatal("OK with an empty key")
			}
			if reason != account.OK && key != "" {
				t.Fatal("a key returned with a refusal")
			}
			if fam.B2BHeaders && key != strings.TrimSpace(key) {
				t.Fatalf("B2B key not trimmed: %q", key)
			}
		}
	})
}
