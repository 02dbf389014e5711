package casearch

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/alertd/alertd/actors/product/casearch"
	"github.com/alertd/alertd/actors/state/account"
	"github.com/alertd/alertd/edge/httpkit/httpkittest"
	"github.com/alertd/alertd/internal/testkit"
	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
	json "github.com/goccy/go-json"
	"github.com/valyala/fasthttp"
)

// TestMain fails the run if a test leaves a goroutine behind.
func TestMain(m *testing.M) { testkit.VerifyTestMain(m) }

// searchFailingStore makes every search read fail (the 500 path).
type searchFailingStore struct{ persistence.Store }

func (searchFailingStore) SearchPosts(context.Context, persistence.SearchQuery) ([]persistence.Post, error) {
	return nil, errors.New("store down")
}

type searchTestServer struct {
	e *httpkittest.Env
	h fasthttp.RequestHandler
}

// newSearchTestServer serves /v1/search over an index that is not warmed
// (so every search reads the store); broken makes those reads fail. The
// clock starts at 2026-05-10 23:59 UTC and moves only with advance.
func newSearchTestServer(t *testing.T, broken bool) *searchTestServer {
	t.Helper()
	e := httpkittest.New(t, nil)
	var store casearch.Store = e.Store
	if broken {
		store = searchFailingStore{e.Store}
	}
	ix := casearch.NewIndex(casearch.Options{Now: e.Clock.Now})
	deps := Deps{Service: casearch.NewService(ix, store, nil, nil, e.Kit.Log), Quota: casearch.NewQuota(casearch.QuotaOptions{}), Window: 24 * time.Hour}
	return &searchTestServer{e: e, h: httpkittest.Router(Routes(e.Kit, deps))}
}

func (ts *searchTestServer) clock() time.Time { return ts.e.Clock.Now() }

func (ts *searchTestServer) advance(d time.Duration) { ts.e.Clock.Advance(d) }

func (ts *searchTestServer) issue(t *testing.T, p protocol.Product, limit *int, expires *time.Time) string {
	t.Helper()
	c := account.Changes{}
	if limit != nil {
		c.CASearchDailyLimit = &limit
	}
	if expires != nil {
		c.ExpiresAt = &expires
	}
	if p == protocol.ProductTweetAlerts {
		c = account.Changes{}
	}
	return ts.e.Issue(t, "", p, c)
}

func (ts *searchTestServer) post(headers map[string]string, body string) *fasthttp.Response {
	return httpkittest.Do(ts.h, httpkittest.Request{Method: "POST", URI: "/v1/search", Headers: headers, Body: body})
}

func envelopeCode(t *testing.T, r *fasthttp.Response) string {
	t.Helper()
	var env protocol.Envelope
	if err := json.Unmarshal(r.Body(), &env); err != nil {
		t.Fatalf("not JSON: %s", r.Body())
	}
	return env.Code
}

func searchBearer(k string) map[string]string {
	return map[string]string{"Authorization": "Bearer " + k}
}

func searchLimit(v int) *int { return &v }

// searchQuotaHeaders returns the four quota headers ("" when absent).
func searchQuotaHeaders(r *fasthttp.Response) [4]string {
	h := &r.Header
	return [4]string{string(h.Peek("X-RateLimit-Daily-Limit")), string(h.Peek("X-RateLimit-Daily-Remaining")),
		string(h.Peek("X-RateLimit-Minute-Limit")), string(h.Peek("X-RateLimit-Minute-Remaining"))}
}

func searchWantStatus(t *testing.T, what string, r *fasthttp.Response, status int, code string) {
	t.Helper()
	if r.StatusCode() != status {
		t.Fatalf("%s: status %d, want %d: %s", what, r.StatusCode(), status, r.Body())
	}
	if status == 200 {
		var env struct {
			OK   bool                       `json:"ok"`
			Data map[string]json.RawMessage `json:"data"`
		}
		if err := json.Unmarshal(r.Body(), &env); err != nil || !env.OK || env.Data["tweets"] == nil || env.Data["summary"] == nil {
			t.Errorf("%s: not a search result: %s", what, r.Body())
		}
		return
	}
	if code == "" {
		if ct := string(r.Header.ContentType()); ct != "text/plain; charset=utf-8" {
			t.Errorf("%s: content type %q, want plain text", what, ct)
		}
		return
	}
	if got := envelopeCode(t, r); got != code {
		t.Errorf("%s: code %q, want %q", what, got, code)
	}
}

func TestSearchAuthAndGate(t *testing.T) {
	ts := newSearchTestServer(t, false)
	past := ts.clock().Add(-time.Hour)
	dt := ts.issue(t, protocol.ProductB2B, searchLimit(1000), nil)
	expired := ts.issue(t, protocol.ProductB2B, searchLimit(1000), &past)
	noAddon := ts.issue(t, protocol.ProductB2B, nil, nil)
	xg := ts.issue(t, protocol.ProductTweetAlerts, nil, nil)
	body := `{"query":"gm"}`
	for _, c := range []struct {
		name    string
		headers map[string]string
		status  int
		code    string
	}{
		{"no key", nil, 401, "unauthorized"},
		{"xg key", searchBearer(xg), 401, "unauthorized"},
		{"unknown", searchBearer(account.NewKey(protocol.ProductB2B)), 401, "unauthorized"},
		{"expired", searchBearer(expired), 403, "forbidden"},
		{"no add-on", searchBearer(noAddon), 403, "forbidden"},
		{"bearer", searchBearer(dt), 200, ""},
		{"x-api-key", map[string]string{"X-API-Key": " " + dt + " "}, 200, ""},
	} {
		r := ts.post(c.headers, body)
		if r.StatusCode() != c.status {
			t.Errorf("%s: status %d, want %d: %s", c.name, r.StatusCode(), c.status, r.Body())
			continue
		}
		if c.code != "" {
			if got := envelopeCode(t, r); got != c.code {
				t.Errorf("%s: code %s, want %s", c.name, got, c.code)
			}
			if q := searchQuotaHeaders(r); q != [4]string{} {
				t.Errorf("%s: quota headers %v on a refusal before the quota", c.name, q)
			}
		}
	}
	var env struct {
		Error string `json:"error"`
	}
	_ = json.Unmarshal(ts.post(searchBearer(expired), body).Body(), &env)
	if want := past.UTC().Format(time.RFC3339); !strings.Contains(env.Error, want) {
		t.Errorf("expired message %q does not name the expiry %s", env.Error, want)
	}
}

// TestSearchBodyErrorsAreCounted: "every call counts once" (spec 2): a
// refused body uses the allowance like a search (each case on a key with an
// allowance of 1, so the next well-formed call is refused for the day).
func TestSearchBodyErrorsAreCounted(t *testing.T) {
	ts := newSearchTestServer(t, false)
	for _, c := range []struct {
		name, ctype, body string
		status            int
		code              string
	}{
		{"no body", "application/json", "", 400, ""},
		{"invalid JSON", "application/json", `{"query":`, 400, ""},
		{"not an object", "application/json", `["gm"]`, 400, ""},
		{"no query", "application/json", `{"cursor":"x"}`, 422, ""},
		{"text/plain", "text/plain", `{"query":"gm"}`, 415, ""},
		{"empty query", "application/json", `{"query":"  "}`, 400, protocol.CodeBadRequest},
		{"long query", "application/json", `{"query":"` + searchLongString(201) + `"}`, 400, protocol.CodeBadRequest},
		{"bad since", "application/json", `{"query":"gm","since":"tomorrow"}`, 400, protocol.CodeBadRequest},
		{"old until", "application/json", `{"query":"gm","until":"2020-01-01"}`, 400, protocol.CodeBadRequest},
		{"since after until", "application/json", `{"query":"gm","since":"2026-05-10","until":"2026-05-09"}`, 400, protocol.CodeBadRequest},
	} {
		dt := ts.issue(t, protocol.ProductB2B, searchLimit(1), nil)
		var ctx fasthttp.RequestCtx
		ctx.Request.Header.SetMethod("POST")
		ctx.Request.SetRequestURI("/v1/search")
		ctx.Request.Header.Set("Authorization", "Bearer "+dt)
		ctx.Request.Header.SetContentType(c.ctype)
		ctx.Request.SetBodyString(c.body)
		ts.h(&ctx)
		searchWantStatus(t, c.name, &ctx.Response, c.status, c.code)
		if c.code != "" {
			if q := searchQuotaHeaders(&ctx.Response); q != [4]string{"1", "0", "20", "19"} {
				t.Errorf("%s: quota headers %v, want 1 0 20 19", c.name, q)
			}
		}
		r := ts.post(searchBearer(dt), `{"query":"gm"}`)
		searchWantStatus(t, c.name+", then", r, 429, protocol.CodeDailyLimitReached)
	}
}

func searchLongString(n int) string { return strings.Repeat("a", n) }

func TestSearchQuota(t *testing.T) {
	ts := newSearchTestServer(t, false)
	dt := ts.issue(t, protocol.ProductB2B, searchLimit(25), nil)
	h := searchBearer(dt)
	body := `{"query":"gm"}`
	for i := range casearch.PerSecond {
		r := ts.post(h, body)
		if r.StatusCode() != 200 {
			t.Fatalf("call %d: %d %s", i, r.StatusCode(), r.Body())
		}
		if q := searchQuotaHeaders(r); q != [4]string{"25", strconv.Itoa(24 - i), "20", strconv.Itoa(19 - i)} {
			t.Errorf("call %d: headers %v", i, q)
		}
	}
	r := ts.post(h, body)
	searchWantStatus(t, "11th in a second", r, 429, protocol.CodeRateLimited)
	if q := searchQuotaHeaders(r); q != [4]string{"25", "15", "20", "10"} || string(r.Header.Peek("Retry-After")) != "1" {
		t.Errorf("per-second 429: headers %v, Retry-After %q", q, r.Header.Peek("Retry-After"))
	}
	searchWantRetry(t, r, 1)
	ts.advance(time.Second)
	for range casearch.PerSecond {
		if r := ts.post(h, body); r.StatusCode() != 200 {
			t.Fatalf("second burst: %d", r.StatusCode())
		}
	}
	ts.advance(time.Second)
	r = ts.post(h, body)
	searchWantStatus(t, "21st in a minute", r, 429, protocol.CodeRateLimited)
	searchWantRetry(t, r, 60)
	if q := searchQuotaHeaders(r); q != [4]string{"25", "5", "20", "0"} {
		t.Errorf("per-minute 429 headers %v", q)
	}
	ts.advance(time.Minute) // 00:00:02 the next day: a new UTC day and minute
	for i := range 25 {
		if i > 0 && i%10 == 0 {
			ts.advance(time.Second)
		}
		if i == 20 {
			ts.advance(time.Minute)
		}
		if r := ts.post(h, body); r.StatusCode() != 200 {
			t.Fatalf("new day, call %d: %d %s", i, r.StatusCode(), r.Body())
		}
	}
	ts.advance(time.Minute)
	r = ts.post(h, body)
	searchWantStatus(t, "daily", r, 429, protocol.CodeDailyLimitReached)
	midnight := casearch.DayStart(ts.clock()).Add(24 * time.Hour)
	searchWantRetry(t, r, int((midnight.Sub(ts.clock())+time.Second-1)/time.Second))
	if q := searchQuotaHeaders(r); q != [4]string{"25", "0", "20", "20"} {
		t.Errorf("daily 429 headers %v", q)
	}
}

func searchWantRetry(t *testing.T, r *fasthttp.Response, secs int) {
	t.Helper()
	var env struct {
		RetryAfter int `json:"retry_after"`
	}
	if err := json.Unmarshal(r.Body(), &env); err != nil || env.RetryAfter != secs || string(r.Header.Peek("Retry-After")) != strconv.Itoa(secs) {
		t.Errorf("retry_after %d, Retry-After %q; want %d (%s)", env.RetryAfter, r.Header.Peek("Retry-After"), secs, r.Body())
	}
}

func TestSearchServerErrorIsCounted(t *testing.T) {
	ts := newSearchTestServer(t, true)
	dt := ts.issue(t, protocol.ProductB2B, searchLimit(3), nil)
	r := ts.post(searchBearer(dt), `{"query":"gm"}`)
	searchWantStatus(t, "store down", r, 500, protocol.CodeServerError)
	searchWantRetry(t, r, 30)
	if q := searchQuotaHeaders(r); q != [4]string{"3", "2", "20", "19"} {
		t.Errorf("500 headers %v, want the call counted", q)
	}
}

func TestSearchEchoesTheWindow(t *testing.T) {
	ts := newSearchTestServer(t, false)
	dt := ts.issue(t, protocol.ProductB2B, searchLimit(10), nil)
	r := ts.post(searchBearer(dt), `{"query":"$PEPE","since":"2026-05-01","until":1778457600}`)
	searchWantStatus(t, "ok", r, 200, "")
	if ct := string(r.Header.ContentType()); ct != "application/json" {
		t.Errorf("content type %q", ct)
	}
	var env struct {
		Data map[string]json.RawMessage `json:"data"`
	}
	_ = json.Unmarshal(r.Body(), &env)
	if string(env.Data["since"]) != `"2026-05-01"` || string(env.Data["until"]) != `1778457600` || string(env.Data["window_hours"]) != "24" ||
		string(env.Data["next_cursor"]) != "null" || string(env.Data["has_next_page"]) != "false" {
		t.Errorf("data %s", r.Body())
	}
}
