package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/alertd/alertd/internal/testkit"
)

// TestAdmin: the admin API (CONTRACT.md section 2) and /health.
func TestAdmin(t *testing.T) {
	forEachStore(t, func(t *testing.T, m storeMode) {
		s := startServer(t, serverOpts{dbURL: m.DatabaseURL(t)})
		subtests{
			{"Health", testHealth},
			{"AdminAuth", testAdminAuth},
			{"AdminIssueEveryProduct", testAdminIssueEveryProduct},
			{"AdminPatch", testAdminPatch},
			{"AdminDeactivateAndReissue", testAdminDeactivateAndReissue},
			{"AdminExpiry", testAdminExpiry},
			{"AdminParseFailures", testAdminParseFailures},
			{"HealthAfter", testHealth},
		}.run(t, s)
	})
}

// issued is the answer to POST /admin/v1/keys.
type issued struct {
	account, product, key, plan string
	data                        obj
}

// issue issues a key and asserts the 201 answer's shape (CONTRACT.md section 2).
func (s *server) issue(t *testing.T, body map[string]any) issued {
	t.Helper()
	r := s.adminDo(t, "POST", "/admin/v1/keys", body)
	d := r.wantOK(t, 201)
	d.wantKeys(t, "issue data", "account_id", "product", "key", "plan", "expires_at")
	is := issued{account: d.str(t, "account_id"), product: d.str(t, "product"), key: d.str(t, "key"),
		plan: d.str(t, "plan"), data: d}
	if is.account == "" {
		t.Errorf("issue %v: empty account_id", body)
	}
	if want, _ := body["product"].(string); is.product != want {
		t.Errorf("issue %v: product %q, want %q", body, is.product, want)
	}
	if want := is.product + "_"; !strings.HasPrefix(is.key, want) || len(is.key) < len(want)+16 {
		t.Errorf("issue %v: key %q does not look like %s<secret>", body, is.key, want)
	}
	if is.plan == "" {
		t.Errorf("issue %v: empty plan", body)
	}
	if acc, ok := body["account_id"].(string); ok && is.account != acc {
		t.Errorf("issue %v: account_id %q, want %q", body, is.account, acc)
	}
	return is
}

// patch changes a subscription and returns the answer.
func (s *server) patch(t *testing.T, account, product string, body any) resp {
	t.Helper()
	return s.adminDo(t, "PATCH", "/admin/v1/accounts/"+account+"/products/"+product, body)
}

func (s *server) dtStatus(t *testing.T, key string) resp {
	t.Helper()
	return s.do(t, "GET", "/v1/dt/status", bearer(key), nil)
}

// wantExpiry asserts that member expires_at of d is the instant want (nil: null).
func wantExpiry(t *testing.T, what string, d obj, want *time.Time) {
	t.Helper()
	if want == nil {
		if !d.isNull("expires_at") {
			t.Errorf("%s: expires_at %s, want null", what, d["expires_at"])
		}
		return
	}
	got, err := time.Parse(time.RFC3339, d.str(t, "expires_at"))
	if err != nil {
		t.Fatalf("%s: expires_at %s is not RFC 3339: %v", what, d["expires_at"], err)
	}
	if !got.Equal(*want) {
		t.Errorf("%s: expires_at %v, want %v", what, got, *want)
	}
}

// testHealth asserts /health's shape on a server with no socket open. The
// sockets of earlier subtests were closed by their clients; the transport
// counts each out once it has read the close, so it is awaited.
func testHealth(t *testing.T, s *server) {
	testkit.WaitFor(t, 10*time.Second, "the closed sockets counted out", func() (bool, string) {
		n := s.wsConnections(t)
		return n == 0, fmt.Sprintf("ws_connections %v", n)
	})
	r := s.do(t, "GET", "/health", nil, nil)
	if r.status != 200 {
		t.Fatalf("%s: want 200", r)
	}
	wantJSONType(t, r)
	o := decodeObj(t, r.body, r.String())
	o.wantKeys(t, "/health", "status", "db", "listeners", "ws_connections", "store_bytes") // bare, no envelope
	if o.num(t, "store_bytes") <= 0 {
		t.Errorf("/health store_bytes %s, want the store's size", o["store_bytes"])
	}
	if got := o.str(t, "status"); got != "ok" {
		t.Errorf("/health status %q, want ok", got)
	}
	if got := o.str(t, "db"); got != "ok" {
		t.Errorf("/health db %q, want ok", got)
	}
	if got := string(o["listeners"]); got != "1" {
		t.Errorf("/health listeners %s, want 1", got)
	}
	if got := string(o["ws_connections"]); got != "0" {
		t.Errorf("/health ws_connections %s, want 0", got)
	}
}

func testAdminAuth(t *testing.T, s *server) {
	body := `{"product":"xg"}`
	ct := hdr{"Content-Type": "application/json"}
	with := func(extra hdr) hdr {
		h := hdr{}
		for k, v := range ct {
			h[k] = v
		}
		for k, v := range extra {
			h[k] = v
		}
		return h
	}
	dt := s.issue(t, map[string]any{"product": "dt"})
	for name, h := range map[string]hdr{
		"no token":         with(nil),
		"wrong token":      with(bearer(s.admin + "x")),
		"empty bearer":     with(hdr{"Authorization": "Bearer "}),
		"token not bearer": with(hdr{"Authorization": s.admin}),
		"api key":          with(bearer(dt.key)),
		"x-api-key":        with(hdr{"X-API-Key": s.admin}),
	} {
		t.Run(name, func(t *testing.T) {
			s.do(t, "POST", "/admin/v1/keys", h, body).wantErr(t, 401, "unauthorized")
			s.do(t, "PATCH", "/admin/v1/accounts/"+dt.account+"/products/dt", h, `{"plan":"pro"}`).wantErr(t, 401, "unauthorized")
			s.do(t, "DELETE", "/admin/v1/keys/"+dt.key, h, nil).wantErr(t, 401, "unauthorized")
			s.do(t, "POST", "/ingest/v1/observations", with(h), `[]`).wantErr(t, 401, "unauthorized")
		})
	}
	// None of the refused calls did anything.
	s.dtStatus(t, dt.key).wantOK(t, 200)
	if d := s.dtStatus(t, dt.key).wantOK(t, 200); strings.Contains(string(d["modules"]), "follows") {
		t.Errorf("a refused PATCH changed the plan: %s", d["modules"])
	}
}

func testAdminIssueEveryProduct(t *testing.T, s *server) {
	for _, p := range []string{"xg", "dt", "cw", "ct", "et", "trend", "pf", "eca", "sa"} {
		is := s.issue(t, map[string]any{"product": p})
		wantExpiry(t, p, is.data, nil)
		// A second product on the same account keeps the account.
		again := s.issue(t, map[string]any{"product": "xg", "account_id": is.account})
		if again.account != is.account {
			t.Errorf("%s: second product got account %q, want %q", p, again.account, is.account)
		}
	}
	// Two issues without account_id make two accounts.
	a, b := s.issue(t, map[string]any{"product": "et"}), s.issue(t, map[string]any{"product": "et"})
	if a.account == b.account {
		t.Errorf("two issues without account_id share account %q", a.account)
	}
	if a.key == b.key {
		t.Errorf("two issues returned the same key")
	}

	// Explicit plans and sizes are echoed and applied.
	exp := time.Now().Add(30 * 24 * time.Hour).UTC().Truncate(time.Second)
	xg := s.issue(t, map[string]any{"product": "xg", "plan": "growth", "expires_at": exp.Format(time.RFC3339)})
	if xg.plan != "growth" {
		t.Errorf("xg plan %q, want growth", xg.plan)
	}
	wantExpiry(t, "xg growth", xg.data, &exp)
	sub := s.do(t, "GET", "/v1/subscription", bearer(xg.key), nil).wantOK(t, 200)
	if got := sub.str(t, "tier"); got != "Growth" {
		t.Errorf("/v1/subscription tier %q, want Growth", got)
	}
	if got := sub.num(t, "account_limit"); got != 35 {
		t.Errorf("/v1/subscription account_limit %v, want 35 (growth)", got)
	}
	wantExpiry(t, "/v1/subscription", sub, &exp)

	dt := s.issue(t, map[string]any{"product": "dt", "plan": "pro", "max_handles": 300, "late_delivery": true})
	if dt.plan != "pro" {
		t.Errorf("dt plan %q, want pro", dt.plan)
	}
	st := s.dtStatus(t, dt.key).wantOK(t, 200)
	st.wantKeys(t, "/v1/dt/status", "targets", "max_handles", "is_active", "days_left", "modules")
	if got := st.num(t, "max_handles"); got != 300 {
		t.Errorf("/v1/dt/status max_handles %v, want 300", got)
	}
	if !st.boolean(t, "is_active") {
		t.Errorf("/v1/dt/status is_active false for a plan with no end date")
	}
	if got := st.num(t, "days_left"); got != 0 {
		t.Errorf("/v1/dt/status days_left %v, want 0 for no end date", got)
	}
	mods := st.strings(t, "modules")
	for _, m := range []string{"realtime", "late_delivery"} {
		if !contains(mods, m) {
			t.Errorf("/v1/dt/status modules %v lack %q", mods, m)
		}
	}

	for _, c := range []struct {
		name string
		body map[string]any
	}{
		{"unknown product", map[string]any{"product": "zz"}},
		{"empty product", map[string]any{"product": ""}},
		{"product not a string", map[string]any{"product": 5}},
		{"uppercase product", map[string]any{"product": "DT"}},
		{"max_tweets on dt", map[string]any{"product": "dt", "max_tweets": 25}},
		{"max_wallets on xg", map[string]any{"product": "xg", "max_wallets": 3}},
		{"modules on cw", map[string]any{"product": "cw", "modules": []string{"realtime"}}},
		{"max_handles on et", map[string]any{"product": "et", "max_handles": 20}},
		{"ca_search_daily_limit on xg", map[string]any{"product": "xg", "ca_search_daily_limit": 1000}},
		{"late_delivery on cw", map[string]any{"product": "cw", "late_delivery": true}},
		{"unknown xg plan", map[string]any{"product": "xg", "plan": "gold"}},
		{"unknown dt plan", map[string]any{"product": "dt", "plan": "ultra"}},
		{"cw size not offered", map[string]any{"product": "cw", "max_handles": 33}},
		{"et size not offered", map[string]any{"product": "et", "max_tweets": 30}},
		{"pf size not offered", map[string]any{"product": "pf", "max_wallets": 4}},
		{"dt ceiling over 1000", map[string]any{"product": "dt", "max_handles": 1001}},
		{"unknown dt module", map[string]any{"product": "dt", "modules": []string{"telepathy"}}},
		{"expires_at not RFC 3339", map[string]any{"product": "dt", "expires_at": "tomorrow"}},
		{"max_handles not an integer", map[string]any{"product": "dt", "max_handles": "many"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s.adminDo(t, "POST", "/admin/v1/keys", c.body).wantErr(t, 400, "bad_request")
		})
	}
	// Sizes within the offer are accepted.
	for _, body := range []map[string]any{
		{"product": "cw", "max_handles": 500}, {"product": "ct", "max_handles": 50},
		{"product": "et", "max_tweets": 50}, {"product": "pf", "max_wallets": 20},
		{"product": "dt", "plan": "enterprise", "max_handles": 1000, "ca_search_daily_limit": 2000},
	} {
		s.issue(t, body)
	}
}

func testAdminPatch(t *testing.T, s *server) {
	xg := s.issue(t, map[string]any{"product": "xg"})
	if got := s.do(t, "GET", "/v1/subscription", bearer(xg.key), nil).wantOK(t, 200).str(t, "tier"); !strings.EqualFold(got, xg.plan) {
		t.Errorf("tier %q, want the issued plan %q", got, xg.plan)
	}
	d := s.patch(t, xg.account, "xg", map[string]any{"plan": "pro"}).wantOK(t, 200)
	if got := d.str(t, "account_id"); got != xg.account {
		t.Errorf("PATCH account_id %q, want %q", got, xg.account)
	}
	if got := d.str(t, "product"); got != "xg" {
		t.Errorf("PATCH product %q, want xg", got)
	}
	if got := d.str(t, "plan"); got != "pro" {
		t.Errorf("PATCH plan %q, want pro", got)
	}
	wantExpiry(t, "PATCH xg", d, nil)
	sub := s.do(t, "GET", "/v1/subscription", bearer(xg.key), nil).wantOK(t, 200)
	if got := sub.str(t, "tier"); got != "Pro" {
		t.Errorf("tier after PATCH %q, want Pro", got)
	}
	if got := sub.num(t, "account_limit"); got != 75 {
		t.Errorf("account_limit after PATCH %v, want 75 (pro)", got)
	}

	dt := s.issue(t, map[string]any{"product": "dt", "plan": "starter"})
	d = s.patch(t, dt.account, "dt", map[string]any{"plan": "enterprise"}).wantOK(t, 200)
	if got := d.str(t, "plan"); got != "enterprise" {
		t.Errorf("PATCH dt plan %q, want enterprise", got)
	}
	st := s.dtStatus(t, dt.key).wantOK(t, 200)
	for _, m := range []string{"realtime", "follows", "profile_watch", "followers"} {
		if !contains(st.strings(t, "modules"), m) {
			t.Errorf("enterprise modules %s lack %q", st["modules"], m)
		}
	}
	if got, want := st.num(t, "max_handles"), d.num(t, "max_handles"); got != want {
		t.Errorf("status max_handles %v, PATCH answer said %v", got, want)
	}
	d = s.patch(t, dt.account, "dt", map[string]any{"max_handles": 700, "modules": []string{"realtime", "follows"}}).wantOK(t, 200)
	if got := d.str(t, "plan"); got != "enterprise" {
		t.Errorf("PATCH without plan changed the plan to %q", got)
	}
	st = s.dtStatus(t, dt.key).wantOK(t, 200)
	if got := st.num(t, "max_handles"); got != 700 {
		t.Errorf("status max_handles %v, want 700", got)
	}
	if mods := st.strings(t, "modules"); contains(mods, "profile_watch") || !contains(mods, "follows") {
		t.Errorf("status modules %v, want realtime and follows only", mods)
	}

	cw := s.issue(t, map[string]any{"product": "cw"})
	if got := s.patch(t, cw.account, "cw", map[string]any{"max_handles": 200}).wantOK(t, 200).num(t, "max_handles"); got != 200 {
		t.Errorf("PATCH cw max_handles answered %v, want 200", got)
	}

	s.patch(t, xg.account, "xg", map[string]any{"max_tweets": 25}).wantErr(t, 400, "bad_request")
	s.patch(t, xg.account, "xg", map[string]any{"plan": "platinum"}).wantErr(t, 400, "bad_request")
	s.patch(t, dt.account, "dt", map[string]any{"max_handles": 0}).wantErr(t, 400, "bad_request")
	s.patch(t, "acc_doesnotexist0000", "xg", map[string]any{"plan": "pro"}).wantErr(t, 404, "not_found")
	s.patch(t, xg.account, "zz", map[string]any{"plan": "pro"}).wantErr(t, 404, "not_found")
	s.patch(t, xg.account, "cw", map[string]any{"max_handles": 50}).wantErr(t, 404, "not_found") // no cw subscription
	s.patch(t, xg.account, "xg", `{"plan":`).wantPlain(t, 400)
	// The failed PATCHes left the plan alone.
	if got := s.do(t, "GET", "/v1/subscription", bearer(xg.key), nil).wantOK(t, 200).str(t, "tier"); got != "Pro" {
		t.Errorf("tier %q after refused PATCHes, want Pro", got)
	}
}

func testAdminDeactivateAndReissue(t *testing.T, s *server) {
	dt := s.issue(t, map[string]any{"product": "dt"})
	s.dtStatus(t, dt.key).wantOK(t, 200)
	d := s.adminDo(t, "DELETE", "/admin/v1/keys/"+dt.key, nil).wantOK(t, 200)
	d.wantKeys(t, "DELETE data", "deactivated")
	if !d.boolean(t, "deactivated") {
		t.Errorf("DELETE: deactivated is not true")
	}
	s.dtStatus(t, dt.key).wantErr(t, 401, "key_deactivated")
	s.adminDo(t, "DELETE", "/admin/v1/keys/dt_"+strings.Repeat("0", 48), nil).wantErr(t, 404, "not_found")

	// Reissue: the old key is unknown at once, the new one works, and the
	// plan is kept (a reissue is not a downgrade).
	xg := s.issue(t, map[string]any{"product": "xg", "plan": "business"})
	old := s.issue(t, map[string]any{"product": "dt", "account_id": xg.account, "plan": "pro"})
	s.dtStatus(t, old.key).wantOK(t, 200)
	s.do(t, "GET", "/v1/subscription", bearer(old.key), nil).wantOK(t, 200)
	nu := s.issue(t, map[string]any{"product": "dt", "account_id": xg.account})
	if nu.key == old.key {
		t.Fatalf("reissue returned the same key")
	}
	if nu.plan != "pro" {
		t.Errorf("reissue changed the plan from pro to %q", nu.plan)
	}
	s.dtStatus(t, old.key).wantErr(t, 401, "key_unknown")
	s.do(t, "GET", "/v1/subscription", bearer(old.key), nil).wantErr(t, 401, "unauthorized")
	s.dtStatus(t, nu.key).wantOK(t, 200)
	// The other product's key of the account is untouched.
	if got := s.do(t, "GET", "/v1/subscription", bearer(xg.key), nil).wantOK(t, 200).str(t, "tier"); got != "Business" {
		t.Errorf("xg tier %q after a dt reissue, want Business", got)
	}
	// Revoking the old key again is 404: it no longer exists.
	s.adminDo(t, "DELETE", "/admin/v1/keys/"+old.key, nil).wantErr(t, 404, "not_found")
}

func testAdminExpiry(t *testing.T, s *server) {
	past := time.Date(2021, 3, 4, 5, 6, 7, 0, time.UTC)
	dt := s.issue(t, map[string]any{"product": "dt", "expires_at": past.Format(time.RFC3339)})
	wantExpiry(t, "issue", dt.data, &past)
	env := s.dtStatus(t, dt.key).wantErr(t, 401, "key_expired")
	if msg := env.str(t, "error"); !strings.Contains(msg, "2021-03-04") {
		t.Errorf("key_expired message %q does not name the date 2021-03-04", msg)
	}
	// Renewal without an end date: the same key works again.
	d := s.patch(t, dt.account, "dt", map[string]any{"expires_at": nil}).wantOK(t, 200)
	wantExpiry(t, "PATCH null", d, nil)
	st := s.dtStatus(t, dt.key).wantOK(t, 200)
	if !st.boolean(t, "is_active") || st.num(t, "days_left") != 0 {
		t.Errorf("after renewal with no end date: is_active %s days_left %s, want true and 0", st["is_active"], st["days_left"])
	}
	// Past again, then renewed with a future date.
	s.patch(t, dt.account, "dt", map[string]any{"expires_at": past.Format(time.RFC3339)}).wantOK(t, 200)
	s.dtStatus(t, dt.key).wantErr(t, 401, "key_expired")
	future := time.Now().UTC().Add(72*time.Hour - time.Minute).Truncate(time.Second)
	d = s.patch(t, dt.account, "dt", map[string]any{"expires_at": future.Format(time.RFC3339)}).wantOK(t, 200)
	wantExpiry(t, "PATCH future", d, &future)
	st = s.dtStatus(t, dt.key).wantOK(t, 200)
	if got := st.num(t, "days_left"); got != 3 {
		t.Errorf("days_left %v, want 3 for an end %v away", got, time.Until(future).Round(time.Minute))
	}

	// Tweet Alerts says unauthorized for an expired key, and renewal works there too.
	xg := s.issue(t, map[string]any{"product": "xg", "plan": "starter", "expires_at": past.Format(time.RFC3339)})
	s.do(t, "GET", "/v1/subscription", bearer(xg.key), nil).wantErr(t, 401, "unauthorized")
	s.patch(t, xg.account, "xg", map[string]any{"expires_at": future.Format(time.RFC3339)}).wantOK(t, 200)
	wantExpiry(t, "/v1/subscription", s.do(t, "GET", "/v1/subscription", bearer(xg.key), nil).wantOK(t, 200), &future)
}

// testAdminParseFailures: spec 1 "Errors": parse failures are plain text.
func testAdminParseFailures(t *testing.T, s *server) {
	post := func(ct string, body any) resp {
		h := bearer(s.admin)
		if ct != "" {
			h["Content-Type"] = ct
		}
		return s.do(t, "POST", "/admin/v1/keys", h, body)
	}
	post("application/json", `{"product":`).wantPlain(t, 400)
	post("application/json", `{"product":"xg"} trailing`).wantPlain(t, 400)
	post("application/json", ``).wantPlain(t, 400)
	post("application/json", `["xg"]`).wantPlain(t, 400)
	post("text/plain", `{"product":"xg"}`).wantPlain(t, 415)
	post("", `{"product":"xg"}`).wantPlain(t, 415)
	post("application/json", `{"plan":"free"}`).wantPlain(t, 422)
	post("application/json", `{}`).wantPlain(t, 422)
	post("application/json; charset=utf-8", `{"product":"xg"}`).wantOK(t, 201)

	// Whitespace keeps the JSON valid at any size: one byte over 64 KB is
	// refused, a body at the limit is read.
	pad := func(n int) string { return `{"product":"xg"` + strings.Repeat(" ", n-len(`{"product":"xg"}`)) + `}` }
	post("application/json", pad(64*1024+1)).wantPlain(t, 413)
	post("application/json", pad(64*1024)).wantOK(t, 201)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
