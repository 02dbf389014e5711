package e2e

import (
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestAuth: keys on every product's routes, and the REST rate limit at the
// spec's window.
func TestAuth(t *testing.T) {
	forEachStore(t, func(t *testing.T, m storeMode) {
		s := startServer(t, serverOpts{dbURL: m.DatabaseURL(t)})
		subtests{
			{"B2BAuth", testB2BAuth},
			{"TweetAlertsAuth", testTweetAlertsAuth},
			{"SocialAuth", testSocialAuth},
			{"RateLimit", testRateLimit},
			{"RateLimitPerFamily", testRateLimitPerFamily},
		}.run(t, s)
	})
}

// testB2BAuth: every key_* code of spec 1's table on /v1/dt/status.
func testB2BAuth(t *testing.T, s *server) {
	dt := s.issue(t, map[string]any{"product": "dt"})
	xg := s.issue(t, map[string]any{"product": "xg", "account_id": dt.account})
	expired := s.issue(t, map[string]any{"product": "dt", "expires_at": "2020-01-01T00:00:00Z"})
	gone := s.issue(t, map[string]any{"product": "dt"})
	s.adminDo(t, "DELETE", "/admin/v1/keys/"+gone.key, nil).wantOK(t, 200)
	unknown := "dt_" + strings.Repeat("ab", 24)

	const path = "/v1/dt/status"
	for _, c := range []struct {
		name  string
		path  string
		h     hdr
		code  string
		extra string
	}{
		{name: "no header", h: nil, code: "key_missing"},
		{name: "empty bearer", h: hdr{"Authorization": "Bearer "}, code: "key_missing"},
		{name: "bearer only", h: hdr{"Authorization": "Bearer"}, code: "key_missing"},
		{name: "empty x-api-key", h: hdr{"X-API-Key": ""}, code: "key_missing"},
		{name: "key in query", path: path + "?api_key=" + url.QueryEscape(dt.key), code: "key_in_query"},
		{name: "key in query and header", path: path + "?api_key=" + url.QueryEscape(dt.key), h: bearer(dt.key), code: "key_in_query"},
		{name: "empty key in query", path: path + "?api_key=", code: "key_in_query"},
		{name: "xg key", h: bearer(xg.key), code: "key_malformed"},
		{name: "xg key in x-api-key", h: hdr{"X-API-Key": xg.key}, code: "key_malformed"},
		{name: "junk", h: bearer("hello"), code: "key_malformed"},
		{name: "other product", h: bearer("cw_" + strings.Repeat("0", 48)), code: "key_malformed"},
		{name: "unknown dt key", h: bearer(unknown), code: "key_unknown"},
		{name: "unknown in x-api-key", h: hdr{"X-API-Key": unknown}, code: "key_unknown"},
		{name: "expired", h: bearer(expired.key), code: "key_expired", extra: "2020-01-01"},
		{name: "deactivated", h: bearer(gone.key), code: "key_deactivated"},
		{name: "deactivated in x-api-key", h: hdr{"X-API-Key": gone.key}, code: "key_deactivated"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := c.path
			if p == "" {
				p = path
			}
			env := s.do(t, "GET", p, c.h, nil).wantErr(t, 401, c.code)
			if c.extra != "" && !strings.Contains(env.str(t, "error"), c.extra) {
				t.Errorf("error %q does not name %q", env.str(t, "error"), c.extra)
			}
		})
	}

	// Accepted spellings of a good key.
	for name, h := range map[string]hdr{
		"bearer":                 bearer(dt.key),
		"lowercase bearer":       {"Authorization": "bearer " + dt.key},
		"x-api-key":              {"X-API-Key": dt.key},
		"x-api-key lowercase":    {"x-api-key": dt.key},
		"stray spaces in bearer": {"Authorization": "Bearer    " + dt.key},
	} {
		t.Run("accepted/"+name, func(t *testing.T) {
			st := s.do(t, "GET", path, h, nil).wantOK(t, 200)
			st.wantKeys(t, path, "targets", "max_handles", "is_active", "days_left", "modules")
		})
	}
	// Trailing and leading blanks exactly as a sloppy client sends them
	// (net/http would trim them, so these go byte for byte).
	for name, line := range map[string]string{
		"bearer trailing spaces":    "Authorization: Bearer " + dt.key + "   ",
		"bearer trailing tab":       "Authorization: Bearer " + dt.key + " \t ",
		"x-api-key spaces both":     "X-API-Key:    " + dt.key + "    ",
		"x-api-key leading spaces":  "X-API-Key:   " + dt.key,
		"bearer spaces both ends":   "Authorization:   Bearer  " + dt.key + "  ",
		"x-api-key trailing tabs":   "X-API-Key: " + dt.key + "\t\t",
		"bearer many inner spaces ": "Authorization: Bearer        " + dt.key,
	} {
		t.Run("accepted raw/"+name, func(t *testing.T) {
			r := s.rawRequest(t, "GET "+path+" HTTP/1.1\r\nHost: alertd\r\n"+line+"\r\nConnection: close\r\n\r\n")
			r.wantOK(t, 200)
		})
	}

	// B2B REST is not rate-limited (spec 2 "Limits").
	for i := 0; i < 40; i++ {
		if r := s.dtStatus(t, dt.key); r.status != 200 {
			t.Fatalf("request %d: %s: B2B REST must not be rate-limited", i, r)
		}
	}
}

// testTweetAlertsAuth: on Tweet Alerts every key problem is 401
// `unauthorized`, never a key_* code; xg_ and dt_ keys work, others do not.
func testTweetAlertsAuth(t *testing.T, s *server) {
	xg := s.issue(t, map[string]any{"product": "xg", "plan": "starter"})
	dt := s.issue(t, map[string]any{"product": "dt", "plan": "pro"})
	cw := s.issue(t, map[string]any{"product": "cw"})
	expired := s.issue(t, map[string]any{"product": "xg", "plan": "pro", "expires_at": "2020-01-01T00:00:00Z"})
	gone := s.issue(t, map[string]any{"product": "xg", "plan": "pro"})
	s.adminDo(t, "DELETE", "/admin/v1/keys/"+gone.key, nil).wantOK(t, 200)
	old := s.issue(t, map[string]any{"product": "xg", "plan": "pro"})
	s.issue(t, map[string]any{"product": "xg", "account_id": old.account}) // revokes old

	for _, path := range []string{"/v1/subscription", "/v1/plans"} {
		for _, c := range []struct {
			name string
			q    string
			h    hdr
		}{
			{name: "no header"},
			{name: "empty bearer", h: hdr{"Authorization": "Bearer "}},
			{name: "key in query", q: "?api_key=" + url.QueryEscape(xg.key)},
			{name: "junk", h: bearer("hello")},
			{name: "cw key", h: bearer(cw.key)},
			{name: "unknown xg", h: bearer("xg_" + strings.Repeat("0", 48))},
			{name: "expired", h: bearer(expired.key)},
			{name: "deactivated", h: bearer(gone.key)},
			{name: "regenerated", h: bearer(old.key)},
		} {
			t.Run(path+"/"+c.name, func(t *testing.T) {
				s.do(t, "GET", path+c.q, c.h, nil).wantErr(t, 401, "unauthorized")
			})
		}
	}

	sub := s.do(t, "GET", "/v1/subscription", bearer(xg.key), nil).wantOK(t, 200)
	sub.wantKeys(t, "/v1/subscription", "tier", "account_limit", "expires_at")
	if got := sub.str(t, "tier"); got != "Starter" {
		t.Errorf("tier %q, want Starter (its name in /v1/plans)", got)
	}
	if got := sub.num(t, "account_limit"); got != 10 {
		t.Errorf("account_limit %v, want 10 (starter)", got)
	}
	if !sub.isNull("expires_at") {
		t.Errorf("expires_at %s, want null (no end date)", sub["expires_at"])
	}
	// A dt_ key works on the Tweet Alerts routes.
	dtSub := s.do(t, "GET", "/v1/subscription", bearer(dt.key), nil).wantOK(t, 200)
	dtSub.wantKeys(t, "/v1/subscription (dt key)", "tier", "account_limit", "expires_at")
	// Either key's tier is a plan name of GET /v1/plans.
	var planNames []string
	for _, raw := range s.do(t, "GET", "/v1/plans", bearer(xg.key), nil).wantOK(t, 200).array(t, "plans") {
		planNames = append(planNames, decodeObj(t, raw, "plan").str(t, "name"))
	}
	for _, tier := range []string{sub.str(t, "tier"), dtSub.str(t, "tier")} {
		if !slices.Contains(planNames, tier) {
			t.Errorf("tier %q is not a name of GET /v1/plans %v", tier, planNames)
		}
	}

	want := map[string][2]int{ // spec 1 plan table: tracked accounts, webhooks
		"free": {1, 0}, "starter": {10, 1}, "growth": {35, 2}, "pro": {75, 5},
		"business": {150, 10}, "scale": {200, 10}, "enterprise": {500, 25}, "ultra": {1000, 50},
	}
	for _, key := range []string{xg.key, dt.key} {
		d := s.do(t, "GET", "/v1/plans", bearer(key), nil).wantOK(t, 200)
		d.wantKeys(t, "/v1/plans", "plans")
		found := map[string]bool{}
		for i, raw := range d.array(t, "plans") {
			p := decodeObj(t, raw, "plan item")
			p.wantKeys(t, "plan item", "name", "price_usd", "account_limit", "max_webhooks")
			name := p.str(t, "name")
			p.num(t, "price_usd")
			if l, ok := want[strings.ToLower(name)]; ok {
				found[strings.ToLower(name)] = true
				if got := [2]int{int(p.num(t, "account_limit")), int(p.num(t, "max_webhooks"))}; got != l {
					t.Errorf("plan %d %q: account_limit, max_webhooks = %v, want %v", i, name, got, l)
				}
			}
		}
		for name := range want {
			if !found[name] {
				t.Errorf("/v1/plans has no Tweet Alerts plan %q", name)
			}
		}
	}
}

// testSocialAuth: /social/* refuses with {status: error, msg}, no code, no ok.
func testSocialAuth(t *testing.T, s *server) {
	dt := s.issue(t, map[string]any{"product": "dt"})
	xg := s.issue(t, map[string]any{"product": "xg", "plan": "pro"})
	gone := s.issue(t, map[string]any{"product": "dt"})
	s.adminDo(t, "DELETE", "/admin/v1/keys/"+gone.key, nil).wantOK(t, 200)
	expired := s.issue(t, map[string]any{"product": "dt", "expires_at": "2020-01-01T00:00:00Z"})
	const path = "/social/user/nobody_here"
	for name, c := range map[string]struct {
		q string
		h hdr
	}{
		"no header":    {},
		"empty bearer": {h: hdr{"Authorization": "Bearer "}},
		"key in query": {q: "?api_key=" + url.QueryEscape(dt.key)},
		"xg key":       {h: bearer(xg.key)},
		"junk":         {h: bearer("junk")},
		"unknown":      {h: bearer("dt_" + strings.Repeat("1", 48))},
		"deactivated":  {h: bearer(gone.key)},
		"expired":      {h: bearer(expired.key)},
	} {
		t.Run(name, func(t *testing.T) {
			s.do(t, "GET", path+c.q, c.h, nil).wantSocialErr(t, 401)
		})
	}
	// With a good key (either header) the same path is a 404 in the same shape.
	s.do(t, "GET", path, bearer(dt.key), nil).wantSocialErr(t, 404)
	s.do(t, "GET", path, hdr{"X-API-Key": dt.key}, nil).wantSocialErr(t, 404)
}

// testRateLimit: Tweet Alerts REST is limited per account in 1-second
// windows; a free plan allows 2 requests per window, and all keys of the
// account share it. Bursts are many times the limit, so the assertions hold
// however the window boundaries fall.
func testRateLimit(t *testing.T, s *server) {
	xg := s.issue(t, map[string]any{"product": "xg", "plan": "free"})
	var ok, limited int
	var first429 resp
	start := time.Now()
	for i := 0; i < 20; i++ {
		r := s.do(t, "GET", "/v1/subscription", bearer(xg.key), nil)
		switch r.status {
		case 200:
			ok++
		case 429:
			if limited == 0 {
				first429 = r
			}
			limited++
		default:
			t.Fatalf("request %d: %s", i, r)
		}
	}
	elapsed := time.Since(start)
	if ok == 0 || limited == 0 {
		t.Fatalf("20 back-to-back requests on a free plan: %d ok, %d limited; want both", ok, limited)
	}
	// At most 2 per window: windows touched <= elapsed seconds + 2.
	if max := 2 * (int(elapsed/time.Second) + 2); ok > max {
		t.Errorf("%d requests passed in %v on a 2-per-second plan (at most %d possible)", ok, elapsed, max)
	}
	env := first429.wantErr(t, 429, "rate_limited")
	if got := string(env["retry_after"]); got != "1" {
		t.Errorf("retry_after %s, want 1", got)
	}
	if got := first429.header.Get("Retry-After"); got != "1" {
		t.Errorf("Retry-After header %q, want 1", got)
	}

	// Shared window: on fresh accounts, three calls with the dt key (whose own
	// allowance is far higher) use up the free xg allowance of the account,
	// so the xg key's first call is refused. Unshared, that call could never
	// be refused: it would be the first of its own window. A window boundary
	// inside a burst could let one attempt pass, so up to five attempts.
	shared := false
	for attempt := 0; attempt < 5 && !shared; attempt++ {
		a := s.issue(t, map[string]any{"product": "xg", "plan": "free"})
		b := s.issue(t, map[string]any{"product": "dt", "account_id": a.account})
		for i := 0; i < 3; i++ {
			if r := s.do(t, "GET", "/v1/plans", bearer(b.key), nil); r.status != 200 && r.status != 429 {
				t.Fatalf("dt key on /v1/plans: %s", r)
			}
		}
		r := s.do(t, "GET", "/v1/subscription", bearer(a.key), nil)
		switch r.status {
		case 429:
			env := r.wantErr(t, 429, "rate_limited")
			if string(env["retry_after"]) != "1" || r.header.Get("Retry-After") != "1" {
				t.Errorf("shared-window 429: retry_after %s, Retry-After %q, want 1 and 1", env["retry_after"], r.header.Get("Retry-After"))
			}
			shared = true
		case 200:
		default:
			t.Fatalf("xg key: %s", r)
		}
	}
	if !shared {
		t.Errorf("the xg key's first request was never refused after the dt key of the same account used the window: keys do not share the account's rate limit")
	}

	// Another account is not affected by this one's burst.
	other := s.issue(t, map[string]any{"product": "xg", "plan": "free"})
	for i := 0; i < 20; i++ {
		s.do(t, "GET", "/v1/subscription", bearer(xg.key), nil)
	}
	s.do(t, "GET", "/v1/subscription", bearer(other.key), nil).wantOK(t, 200)
}

// testRateLimitPerFamily: one counter per account per product family (issue
// 10 item 3, CONTRACT section 2): a Community Watch burst that spends its own
// allowance leaves the same account's Tweet Alerts allowance whole, so the
// xg key's first call passes. Shared, the burst's count (20 or more) would
// refuse it unless the burst straddled a window, hence up to five tries.
func testRateLimitPerFamily(t *testing.T, s *server) {
	for attempt := 0; attempt < 5; attempt++ {
		xg := s.issue(t, map[string]any{"product": "xg", "plan": "free"})
		cw := s.issue(t, map[string]any{"product": "cw", "account_id": xg.account})
		burst := 0
		for i := 0; i < 30; i++ {
			r := s.do(t, "GET", "/v1/cw/status", bearer(cw.key), nil)
			if r.status == 429 {
				burst = i
				break
			}
			if r.status != 200 {
				t.Fatalf("cw call %d: %s", i, r)
			}
		}
		if burst < 20 {
			continue // the burst straddled a window: try again
		}
		if r := s.do(t, "GET", "/v1/subscription", bearer(xg.key), nil); r.status != 200 {
			t.Fatalf("the xg key's first call after a cw burst of the same account: %s", r)
		}
		return
	}
	t.Fatal("no cw burst of 20 calls within one window in five tries")
}
