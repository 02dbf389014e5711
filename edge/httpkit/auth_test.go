package httpkit_test

import (
	"strings"
	"testing"

	"github.com/alertd/alertd/actors/state/account"
	"github.com/alertd/alertd/edge/httpkit"
	"github.com/alertd/alertd/edge/httpkit/httpkittest"
	"github.com/alertd/alertd/protocol"
	json "github.com/goccy/go-json"
	"github.com/valyala/fasthttp"
)

// keyed serves one route of family f at path that answers 200 {"ok":1}
// once the middleware let the request through.
func keyed(e *httpkittest.Env, f *httpkit.Family, path string) fasthttp.RequestHandler {
	return httpkittest.Router([]httpkit.Route{httpkit.GET(path, e.Kit.Keyed(f, func(*fasthttp.RequestCtx, *account.Principal) (int, any, error) {
		return 200, map[string]int{"ok": 1}, nil
	}))})
}

func get(h fasthttp.RequestHandler, uri string, headers map[string]string) *fasthttp.Response {
	return httpkittest.Do(h, httpkittest.Request{Method: "GET", URI: uri, Headers: headers})
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
	e := httpkittest.New(t, nil)
	h := keyed(e, httpkit.FamilyB2B, "/v1/dt/status")
	dt := e.Issue(t, "", protocol.ProductB2B, account.Changes{})
	xg := e.Issue(t, "", protocol.ProductTweetAlerts, account.Changes{})
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
		r := get(h, c.uri, c.headers)
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
	e := httpkittest.New(t, nil)
	h := keyed(e, httpkit.FamilyTweetAlerts, "/v1/subscription")
	dt := e.Issue(t, "", protocol.ProductB2B, account.Changes{})
	xg := e.Issue(t, "", protocol.ProductTweetAlerts, account.Changes{})
	cw := e.Issue(t, "", protocol.ProductCW, account.Changes{})
	for _, hd := range []map[string]string{nil, {"Authorization": "Bearer " + cw}, {"Authorization": "Bearer xg_nope"}, {"X-API-Key": xg}} {
		r := get(h, "/v1/subscription", hd)
		if r.StatusCode() != 401 || envelopeCode(t, r) != "unauthorized" {
			t.Errorf("%v: %d %s", hd, r.StatusCode(), r.Body())
		}
	}
	if r := get(h, "/v1/subscription?api_key="+xg, nil); r.StatusCode() != 401 || envelopeCode(t, r) != "unauthorized" {
		t.Errorf("query key on a Tweet Alerts route: %d %s", r.StatusCode(), r.Body())
	}
	if r := get(h, "/v1/subscription", map[string]string{"Authorization": "Bearer  " + xg}); r.StatusCode() != 401 {
		t.Errorf("stray spaces accepted outside B2B REST: %d", r.StatusCode())
	}
	for _, k := range []string{xg, dt} {
		if r := get(h, "/v1/subscription", httpkittest.Bearer(k)); r.StatusCode() != 200 {
			t.Errorf("%s key refused: %d %s", k[:3], r.StatusCode(), r.Body())
		}
	}
}

func TestSocialRefusalShape(t *testing.T) {
	e := httpkittest.New(t, nil)
	r := get(keyed(e, httpkit.FamilySocial, "/social/user/{username}"), "/social/user/nobody", nil)
	if r.StatusCode() != 401 {
		t.Fatalf("status %d", r.StatusCode())
	}
	var m map[string]any
	if err := json.Unmarshal(r.Body(), &m); err != nil || m["status"] != "error" || m["msg"] == nil || m["code"] != nil || m["ok"] != nil {
		t.Fatalf("body %s", r.Body())
	}
}

func TestExpiredKeyNamesTheDate(t *testing.T) {
	e := httpkittest.New(t, nil)
	past := e.Clock.Now().Add(-1)
	pp := &past
	dt := e.Issue(t, "", protocol.ProductB2B, account.Changes{ExpiresAt: &pp})
	r := get(keyed(e, httpkit.FamilyB2B, "/v1/dt/status"), "/v1/dt/status", httpkittest.Bearer(dt))
	if r.StatusCode() != 401 || envelopeCode(t, r) != "key_expired" || !strings.Contains(string(r.Body()), past.UTC().Format("2006-01-02T15:04:05Z")) {
		t.Fatalf("expired key: %d %s", r.StatusCode(), r.Body())
	}
}

func FuzzPresentedKey(f *testing.F) {
	f.Add("Bearer dt_abc", "", "")
	f.Add("bearer", " dt_x \n", "api_key=1")
	f.Add("", "\x00", "a=b&api_key")
	f.Fuzz(func(t *testing.T, auth, xkey, query string) {
		for _, fam := range []*httpkit.Family{httpkit.FamilyB2B, httpkit.FamilyTweetAlerts, httpkit.FamilySocial} {
			var ctx fasthttp.RequestCtx
			ctx.Request.SetRequestURI("/v1/dt/status?" + query)
			if auth != "" {
				ctx.Request.Header.Set("Authorization", auth)
			}
			if xkey != "" {
				ctx.Request.Header.Set("X-API-Key", xkey)
			}
			key, reason := fam.PresentedKey(&ctx)
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
