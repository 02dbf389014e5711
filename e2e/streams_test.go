package e2e

import (
	"strings"
	"testing"
)

// streamProducts are the four products with their path segment and key prefix.
var streamProducts = []struct{ segment, product string }{
	{"trending", "trend"}, {"pf", "pf"}, {"eca", "eca"}, {"sa", "sa"},
}

// streamRoutes are every REST route of the four products (method, path).
var streamRoutes = [][2]string{
	{"GET", "/v1/trending/categories"}, {"GET", "/v1/trending/subscriptions"}, {"PUT", "/v1/trending/subscriptions"},
	{"GET", "/v1/trending/webhook"}, {"PUT", "/v1/trending/webhook"}, {"GET", "/v1/trending/status"},
	{"GET", "/v1/pf/targets"}, {"POST", "/v1/pf/targets"}, {"DELETE", "/v1/pf/targets/x"}, {"GET", "/v1/pf/events"},
	{"GET", "/v1/pf/webhook"}, {"PUT", "/v1/pf/webhook"}, {"GET", "/v1/pf/status"},
	{"GET", "/v1/eca/watchlist"}, {"POST", "/v1/eca/watchlist"}, {"DELETE", "/v1/eca/watchlist/1"}, {"GET", "/v1/eca/matches"},
	{"GET", "/v1/eca/webhook"}, {"PUT", "/v1/eca/webhook"}, {"GET", "/v1/eca/status"},
	{"GET", "/v1/sa/queries"}, {"POST", "/v1/sa/queries"}, {"DELETE", "/v1/sa/queries/1"},
	{"GET", "/v1/sa/webhook"}, {"PUT", "/v1/sa/webhook"}, {"GET", "/v1/sa/status"},
}

// testStreamsAuth: every route answers key problems with 401 `unauthorized`
// (keys are product-scoped), the sockets with a plain-text 401 before the
// upgrade, and a right key reaches the route.
func testStreamsAuth(t *testing.T, s *server) {
	keys := map[string]string{}
	for _, p := range streamProducts {
		keys[p.segment] = s.issue(t, map[string]any{"product": p.product}).key
	}
	cw := s.issue(t, map[string]any{"product": "cw"}).key
	for _, r := range streamRoutes {
		seg := strings.Split(r[1], "/")[2]
		other := keys["sa"]
		if seg == "sa" {
			other = keys["pf"]
		}
		for _, c := range []struct {
			name string
			h    hdr
		}{
			{"no key", hdr{}},
			{"another product's key", bearer(other)},
			{"a cw key", bearer(cw)},
			{"unknown key", bearer(strings.Replace(keys[seg], "_", "_0", 1))},
			{"not bearer", hdr{"Authorization": "Basic " + keys[seg]}},
		} {
			t.Run(r[0]+" "+r[1]+" "+c.name, func(t *testing.T) {
				s.do(t, r[0], r[1], c.h, nil).wantErr(t, 401, "unauthorized")
			})
		}
		if r[0] == "GET" {
			s.do(t, "GET", r[1]+"?api_key="+keys[seg], hdr{}, nil).wantErr(t, 401, "unauthorized")
			if r := s.do(t, "GET", r[1], bearer(keys[seg]), nil); r.status != 200 {
				t.Errorf("%s with its key: %s", r.path, r)
			}
		}
	}
	revoked := s.issue(t, map[string]any{"product": "sa"})
	s.adminDo(t, "DELETE", "/admin/v1/keys/"+revoked.key, nil).wantOK(t, 200)
	expired := s.issue(t, map[string]any{"product": "pf", "expires_at": "2022-02-02T02:02:02Z"})
	s.do(t, "GET", "/v1/sa/status", bearer(revoked.key), nil).wantErr(t, 401, "unauthorized")
	s.do(t, "GET", "/v1/pf/status", bearer(expired.key), nil).wantErr(t, 401, "unauthorized")
	for _, p := range streamProducts {
		other := keys["sa"]
		if p.segment == "sa" {
			other = keys["pf"]
		}
		s.streamRefused(t, p.segment, "")
		s.streamRefused(t, p.segment, "?api_key=")
		s.streamRefused(t, p.segment, "?api_key="+other)
		s.streamRefused(t, p.segment, "?api_key="+p.product+"_0000000000000000000000000000000000000000")
		w := s.streamDial(t, p.segment, keys[p.segment])
		w.CloseGracefully()
	}
	s.streamRefused(t, "sa", "?api_key="+revoked.key)
	s.streamRefused(t, "pf", "?api_key="+expired.key)
	// A plain GET (no upgrade) with a good key is not a WebSocket.
	if r := s.do(t, "GET", "/v1/eca/ws?api_key="+keys["eca"], hdr{}, nil); r.status != 400 {
		t.Errorf("GET /v1/eca/ws without an upgrade: %s, want 400", r)
	}
}

// testStreamsWebhooks: the stored-only webhook of each product: null until set,
// validated, replaced, cleared with null; parse failures in plain text.
func testStreamsWebhooks(t *testing.T, s *server) {
	for _, p := range streamProducts {
		t.Run(p.segment, func(t *testing.T) {
			key := s.issue(t, map[string]any{"product": p.product}).key
			path := "/v1/" + p.segment + "/webhook"
			d := s.call(t, "GET", path, key, nil).wantOK(t, 200)
			d.wantKeys(t, "webhook", "url", "updated_at")
			if !d.isNull("url") || !d.isNull("updated_at") {
				t.Errorf("webhook before any PUT: %v", d)
			}
			s.call(t, "PUT", path, key, `{}`).wantPlain(t, 422)
			s.call(t, "PUT", path, key, `{"url":`).wantPlain(t, 400)
			s.call(t, "PUT", path, key, `["https://x.example.com"]`).wantPlain(t, 400)
			s.do(t, "PUT", path, hdr{"Authorization": "Bearer " + key, "Content-Type": "text/plain"}, `{"url":"https://a.example.com"}`).wantPlain(t, 415)
			s.call(t, "PUT", path, key, `{"url":"`+strings.Repeat("a", 70<<10)+`"}`).wantPlain(t, 413)
			for _, bad := range []string{`{"url":5}`, `{"url":""}`, `{"url":"ftp://files.example.com/x"}`, `{"url":"not a url"}`,
				`{"url":"https://"}`, `{"url":"/relative/path"}`, `{"url":"https://` + strings.Repeat("a", 2050) + `.example.com"}`} {
				s.call(t, "PUT", path, key, bad).wantErr(t, 400, "bad_request")
			}
			u := "https://hooks.example.com/" + p.segment + "?token=abc"
			d = s.call(t, "PUT", path, key, map[string]any{"url": u}).wantOK(t, 200)
			if d.str(t, "url") != u {
				t.Errorf("PUT answer url %s", d["url"])
			}
			wantISOTimeRFC(t, "updated_at", d.str(t, "updated_at"))
			if got := s.call(t, "GET", path, key, nil).wantOK(t, 200).str(t, "url"); got != u {
				t.Errorf("stored url %q, want %q", got, u)
			}
			u2 := "http://127.0.0.1:9/local"
			s.call(t, "PUT", path, key, map[string]any{"url": u2}).wantOK(t, 200)
			if got := s.call(t, "GET", path, key, nil).wantOK(t, 200).str(t, "url"); got != u2 {
				t.Errorf("replaced url %q, want %q", got, u2)
			}
			d = s.call(t, "PUT", path, key, `{"url":null}`).wantOK(t, 200)
			if !d.isNull("url") {
				t.Errorf("cleared: %v", d)
			}
			if d := s.call(t, "GET", path, key, nil).wantOK(t, 200); !d.isNull("url") || d.isNull("updated_at") {
				t.Errorf("after clear: %v", d)
			}
		})
	}
}

// wantISOTimeRFC asserts an RFC 3339 time.
func wantISOTimeRFC(t *testing.T, what, s string) {
	t.Helper()
	if _, err := parseRFC3339(s); err != nil {
		t.Errorf("%s = %q, not RFC 3339: %v", what, s, err)
	}
}
