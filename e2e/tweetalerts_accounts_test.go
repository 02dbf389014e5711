package e2e

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/alertd/alertd/internal/testkit"
)

// TestTweetAlerts runs the Tweet Alerts suite against one server
// per store. Every subtest makes its own accounts and handles.
func TestTweetAlerts(t *testing.T) {
	forEachStore(t, func(t *testing.T, m storeMode) {
		s := startServer(t, serverOpts{dbURL: m.DatabaseURL(t), configure: tweetAlertsConfig})
		for _, c := range []struct {
			name string
			f    func(*testing.T, *server)
		}{
			{"AccountsAdd", testXGAccountsAdd},
			{"AccountsDetailAndDelete", testXGAccountsDetailAndDelete},
			{"AccountsDT", testXGAccountsDT},
			{"KeywordsMuteFilters", testXGKeywordsMuteFilters},
			{"Settings", testXGSettings},
			{"WebhooksCRUD", testXGWebhooksCRUD},
			{"WebhookDelivery", testXGWebhookDelivery},
			{"WebhookFilters", testXGWebhookFilters},
			{"WebhookRetries", testXGWebhookRetries},
			{"WebhookDisable", testXGWebhookDisable},
			{"WebhookLog", testXGWebhookLog},
			{"SocketAuthAndLimits", testXGSocketAuthAndLimits},
			{"SocketFrames", testXGSocketFrames},
			{"SocketSubscribeWholePlan", testXGSocketSubscribeWholePlan},
			{"SocketAlerts", testXGSocketAlerts},
			{"SocketLiveness", testXGSocketLiveness},
			{"SessionsAndFeed", testXGSessionsAndFeed},
			{"FeedSameMillisecond", testXGFeedSameMillisecond},
			{"Telegram", testXGTelegram},
			{"DashboardSession", testDashboardSession},
			{"HealthAfter", testHealth},
		} {
			t.Run(c.name, func(t *testing.T) { c.f(t, s) })
		}
	})
}

var xgTrackedKeys = []string{"handle", "is_active", "keywords", "muted", "exclude_replies", "exclude_reposts", "exclude_quotes", "added_at"}

// testXGAccountsAdd covers POST /v1/accounts: normalization, silent skips
// (unknown, suspended, over the remaining slots), already_exists, the 201
// shape, 400 for invalid handles and over 25, 422 without handles, 403 full.
func testXGAccountsAdd(t *testing.T, s *server) {
	k := s.xgKey(t, "free") // 1 tracked account
	list := s.do(t, "GET", "/v1/accounts", bearer(k.key), nil).wantOK(t, 200)
	list.wantKeys(t, "list", "accounts", "count", "limit")
	if len(list.array(t, "accounts")) != 0 || list.num(t, "count") != 0 || list.num(t, "limit") != 1 {
		t.Errorf("empty list %v", list)
	}
	hs := s.xgUsers(t, 3, true) // hs[2] is suspended
	starter := s.xgKey(t, "starter")
	before := time.Now().UnixMilli()
	d := s.xgTrack(t, starter.key, "@"+strings.ToUpper(hs[0]), "nobody_"+testkit.RandomHex(4), hs[2], hs[0])
	d.wantKeys(t, "add", "added", "already_exists", "total", "limit")
	if got := d.strings(t, "added"); !slices.Equal(got, []string{hs[0]}) {
		t.Errorf("added %v, want [%s] (unknown and suspended skipped, @ and case normalized)", got, hs[0])
	}
	if len(d.strings(t, "already_exists")) != 0 || d.num(t, "total") != 1 || d.num(t, "limit") != 10 {
		t.Errorf("add answer %v", d)
	}
	d = s.xgTrack(t, starter.key, hs[0], hs[1])
	if !slices.Equal(d.strings(t, "added"), []string{hs[1]}) || !slices.Equal(d.strings(t, "already_exists"), []string{hs[0]}) || d.num(t, "total") != 2 {
		t.Errorf("second add %v", d)
	}
	list = s.do(t, "GET", "/v1/accounts", bearer(starter.key), nil).wantOK(t, 200)
	accts := list.array(t, "accounts")
	if len(accts) != 2 || list.num(t, "count") != 2 || list.num(t, "limit") != 10 {
		t.Fatalf("list %v", list)
	}
	a := decodeObj(t, accts[0], "tracked account")
	a.wantKeys(t, "tracked account", xgTrackedKeys...)
	if a.str(t, "handle") != hs[0] || !a.boolean(t, "is_active") || len(a.strings(t, "keywords")) != 0 || a.boolean(t, "muted") ||
		a.boolean(t, "exclude_replies") || a.boolean(t, "exclude_reposts") || a.boolean(t, "exclude_quotes") {
		t.Errorf("tracked account %s, want %s first", accts[0], hs[0])
	}
	if at := a.num(t, "added_at"); at < float64(before-1000) || at > float64(time.Now().UnixMilli()+1000) {
		t.Errorf("added_at %v is not epoch ms of now", at)
	}

	// Handles beyond the remaining slots are skipped silently; a full plan is 403.
	free := s.xgKey(t, "free")
	d = s.xgTrack(t, free.key, hs[0], hs[1])
	if !slices.Equal(d.strings(t, "added"), []string{hs[0]}) || d.num(t, "total") != 1 || d.num(t, "limit") != 1 {
		t.Errorf("free plan add %v", d)
	}
	s.do(t, "POST", "/v1/accounts", xgJsonHdr(free.key), `{"handles":["`+hs[1]+`"]}`).wantErr(t, 403, "forbidden")

	// Invalid bodies.
	s.do(t, "POST", "/v1/accounts", xgJsonHdr(starter.key), `{"handles":["ok","not a handle"]}`).wantErr(t, 400, "bad_request")
	s.do(t, "POST", "/v1/accounts", xgJsonHdr(starter.key), `{"handles":"solo"}`).wantErr(t, 400, "bad_request")
	s.do(t, "POST", "/v1/accounts", xgJsonHdr(starter.key), `{"handles":[]}`).wantErr(t, 400, "bad_request")
	var many []string
	for i := range 26 {
		many = append(many, fmt.Sprintf("h%d", i))
	}
	b, _ := json.Marshal(map[string]any{"handles": many})
	s.do(t, "POST", "/v1/accounts", xgJsonHdr(starter.key), b).wantErr(t, 400, "bad_request")
	s.do(t, "POST", "/v1/accounts", xgJsonHdr(starter.key), `{}`).wantPlain(t, 422)
	s.do(t, "POST", "/v1/accounts", xgJsonHdr(starter.key), `{"handles":[`).wantPlain(t, 400)
	s.do(t, "GET", "/v1/accounts", nil, nil).wantErr(t, 401, "unauthorized")
}

// testXGAccountsDetailAndDelete covers the detail with profile, 404s,
// DELETE's answer, and keywords kept over a delete and back on a re-add.
func testXGAccountsDetailAndDelete(t *testing.T, s *server) {
	k := s.xgKey(t, "growth")
	hs := s.xgUsers(t, 2, false)
	s.xgTrack(t, k.key, hs...)
	d := s.do(t, "GET", "/v1/accounts/@"+strings.ToUpper(hs[0]), bearer(k.key), nil).wantOK(t, 200)
	d.wantKeys(t, "detail", append(slices.Clone(xgTrackedKeys), "profile")...)
	p := d.object(t, "profile")
	p.wantKeys(t, "profile", "display_name", "followers", "is_verified", "profile_pic")
	if p.str(t, "display_name") == "" || p.num(t, "followers") < 1000 || !strings.HasPrefix(p.str(t, "profile_pic"), "https://") {
		t.Errorf("profile %v", p)
	}
	s.do(t, "GET", "/v1/accounts/nobody_"+testkit.RandomHex(3), bearer(k.key), nil).wantErr(t, 404, "not_found")

	s.do(t, "PUT", "/v1/accounts/"+hs[0]+"/keywords", xgJsonHdr(k.key), `{"keywords":["sol","pump"]}`).wantOK(t, 200)
	s.do(t, "PUT", "/v1/accounts/"+hs[0]+"/mute", xgJsonHdr(k.key), `{"muted":true}`).wantOK(t, 200)
	r := s.do(t, "DELETE", "/v1/accounts/"+hs[0], bearer(k.key), nil).wantOK(t, 200)
	r.wantKeys(t, "delete", "removed", "total", "limit")
	if r.str(t, "removed") != hs[0] || r.num(t, "total") != 1 || r.num(t, "limit") != 35 {
		t.Errorf("delete answer %v", r)
	}
	s.do(t, "DELETE", "/v1/accounts/"+hs[0], bearer(k.key), nil).wantErr(t, 404, "not_found")
	s.do(t, "GET", "/v1/accounts/"+hs[0], bearer(k.key), nil).wantErr(t, 404, "not_found")
	s.xgTrack(t, k.key, hs[0])
	d = s.do(t, "GET", "/v1/accounts/"+hs[0], bearer(k.key), nil).wantOK(t, 200)
	if got := d.strings(t, "keywords"); !slices.Equal(got, []string{"sol", "pump"}) {
		t.Errorf("keywords after delete and re-add %v, want [sol pump]", got)
	}
	if d.boolean(t, "muted") {
		t.Errorf("mute survived the delete")
	}
}

// testXGAccountsDT: with a dt_ key, /v1/accounts is the B2B target list.
func testXGAccountsDT(t *testing.T, s *server) {
	dt := s.issue(t, map[string]any{"product": "dt", "plan": "starter", "max_handles": 2})
	hs := s.xgUsers(t, 3, false)
	d := s.xgTrack(t, dt.key, hs...)
	if len(d.strings(t, "added")) != 2 || d.num(t, "total") != 2 || d.num(t, "limit") != 2 {
		t.Errorf("dt add %v (ceiling 2)", d)
	}
	tg := s.do(t, "GET", "/v1/dt/targets", bearer(dt.key), nil).wantOK(t, 200)
	if tg.num(t, "count") != 2 {
		t.Errorf("targets %v", tg)
	}
	s.do(t, "POST", "/v1/accounts", xgJsonHdr(dt.key), `{"handles":["`+hs[2]+`"]}`).wantErr(t, 403, "forbidden")
	l := s.do(t, "GET", "/v1/accounts", bearer(dt.key), nil).wantOK(t, 200)
	if l.num(t, "count") != 2 || l.num(t, "limit") != 2 {
		t.Errorf("dt list %v", l)
	}
	added := d.strings(t, "added")
	r := s.do(t, "DELETE", "/v1/accounts/"+added[0], bearer(dt.key), nil).wantOK(t, 200)
	if r.num(t, "total") != 1 {
		t.Errorf("dt delete %v", r)
	}
	if tg := s.do(t, "GET", "/v1/dt/targets", bearer(dt.key), nil).wantOK(t, 200); tg.num(t, "count") != 1 {
		t.Errorf("targets after delete %v", tg)
	}
	s.do(t, "GET", "/v1/accounts/"+added[1], bearer(dt.key), nil).wantOK(t, 200)
}

// testXGKeywordsMuteFilters covers the per-account chat preferences.
func testXGKeywordsMuteFilters(t *testing.T, s *server) {
	k := s.xgKey(t, "starter")
	hs := s.xgUsers(t, 1, false)
	h := hs[0]
	s.xgTrack(t, k.key, h)
	r := s.do(t, "PUT", "/v1/accounts/"+h+"/keywords", xgJsonHdr(k.key), `{"keywords":["alpha","beta"]}`).wantOK(t, 200)
	r.wantKeys(t, "keywords", "handle", "keywords")
	r = s.do(t, "PUT", "/v1/accounts/@"+strings.ToUpper(h)+"/keywords", xgJsonHdr(k.key), `{"keywords":["gamma"]}`).wantOK(t, 200)
	if r.str(t, "handle") != h || !slices.Equal(r.strings(t, "keywords"), []string{"gamma"}) {
		t.Errorf("replace %v", r)
	}
	var twenty, long []string
	for i := range 21 {
		twenty = append(twenty, fmt.Sprint("k", i))
	}
	long = []string{strings.Repeat("x", 51)}
	for _, bad := range [][]string{twenty, long} {
		b, _ := json.Marshal(map[string]any{"keywords": bad})
		s.do(t, "PUT", "/v1/accounts/"+h+"/keywords", xgJsonHdr(k.key), b).wantErr(t, 400, "bad_request")
	}
	b, _ := json.Marshal(map[string]any{"keywords": twenty[:20]})
	s.do(t, "PUT", "/v1/accounts/"+h+"/keywords", xgJsonHdr(k.key), b).wantOK(t, 200)
	b, _ = json.Marshal(map[string]any{"keywords": []string{strings.Repeat("é", 50)}})
	s.do(t, "PUT", "/v1/accounts/"+h+"/keywords", xgJsonHdr(k.key), b).wantOK(t, 200)
	s.do(t, "PUT", "/v1/accounts/"+h+"/keywords", xgJsonHdr(k.key), `{}`).wantPlain(t, 422)
	r = s.do(t, "DELETE", "/v1/accounts/"+h+"/keywords", bearer(k.key), nil).wantOK(t, 200)
	if r.str(t, "handle") != h || len(r.strings(t, "keywords")) != 0 {
		t.Errorf("clear %v", r)
	}

	r = s.do(t, "PUT", "/v1/accounts/"+h+"/mute", xgJsonHdr(k.key), `{"muted":true}`).wantOK(t, 200)
	r.wantKeys(t, "mute", "handle", "muted")
	if !r.boolean(t, "muted") {
		t.Errorf("mute %v", r)
	}
	s.do(t, "PUT", "/v1/accounts/"+h+"/mute", xgJsonHdr(k.key), `{}`).wantPlain(t, 422)
	s.do(t, "PUT", "/v1/accounts/"+h+"/mute", xgJsonHdr(k.key), `{"muted":"yes"}`).wantErr(t, 400, "bad_request")

	r = s.do(t, "PATCH", "/v1/accounts/"+h+"/filters", xgJsonHdr(k.key), `{"exclude_quotes":true}`).wantOK(t, 200)
	r.wantKeys(t, "filters", "exclude_replies", "exclude_reposts", "exclude_quotes")
	if !r.isNull("exclude_replies") || !r.isNull("exclude_reposts") || !r.boolean(t, "exclude_quotes") {
		t.Errorf("filters echo %v", r)
	}
	s.do(t, "PATCH", "/v1/accounts/"+h+"/filters", xgJsonHdr(k.key), `{"exclude_replies":false,"exclude_reposts":true}`).wantOK(t, 200)
	s.do(t, "PATCH", "/v1/accounts/"+h+"/filters", xgJsonHdr(k.key), `{"exclude_replies":1}`).wantErr(t, 400, "bad_request")
	a := s.do(t, "GET", "/v1/accounts/"+h, bearer(k.key), nil).wantOK(t, 200)
	if !a.boolean(t, "muted") || a.boolean(t, "exclude_replies") || !a.boolean(t, "exclude_reposts") || !a.boolean(t, "exclude_quotes") {
		t.Errorf("stored prefs %v", a)
	}
	other := "nobody_" + testkit.RandomHex(3)
	s.do(t, "PUT", "/v1/accounts/"+other+"/keywords", xgJsonHdr(k.key), `{"keywords":["x"]}`).wantErr(t, 404, "not_found")
	s.do(t, "PUT", "/v1/accounts/"+other+"/mute", xgJsonHdr(k.key), `{"muted":true}`).wantErr(t, 404, "not_found")
	s.do(t, "PATCH", "/v1/accounts/"+other+"/filters", xgJsonHdr(k.key), `{}`).wantErr(t, 404, "not_found")
}

var xgSettingsKeys = []string{"exclude_replies", "contracts_only", "notifications_paused", "exclude_reposts", "auto_topics", "contract_topic"}

func testXGSettings(t *testing.T, s *server) {
	k := s.xgKey(t, "starter")
	d := s.do(t, "GET", "/v1/settings", bearer(k.key), nil).wantOK(t, 200)
	d.wantKeys(t, "settings", xgSettingsKeys...)
	for _, n := range xgSettingsKeys {
		if d.boolean(t, n) != (n == "auto_topics") {
			t.Errorf("default %s = %v", n, d.boolean(t, n))
		}
	}
	d = s.do(t, "PATCH", "/v1/settings", xgJsonHdr(k.key), `{"contracts_only":true,"auto_topics":false}`).wantOK(t, 200)
	d.wantKeys(t, "settings", xgSettingsKeys...)
	if !d.boolean(t, "contracts_only") || d.boolean(t, "auto_topics") || d.boolean(t, "exclude_replies") {
		t.Errorf("patched %v", d)
	}
	s.do(t, "PATCH", "/v1/settings", xgJsonHdr(k.key), `{"exclude_replies":"no"}`).wantErr(t, 400, "bad_request")
	s.do(t, "PATCH", "/v1/settings", xgJsonHdr(k.key), `{"exclude_replies":null}`).wantErr(t, 400, "bad_request")
	d = s.do(t, "PATCH", "/v1/settings", xgJsonHdr(k.key), `{"notifications_paused":true}`).wantOK(t, 200)
	if !d.boolean(t, "contracts_only") || !d.boolean(t, "notifications_paused") {
		t.Errorf("omitted fields changed: %v", d)
	}
	d = s.do(t, "GET", "/v1/settings", bearer(k.key), nil).wantOK(t, 200)
	if !d.boolean(t, "contracts_only") || !d.boolean(t, "notifications_paused") || d.boolean(t, "auto_topics") {
		t.Errorf("stored settings %v", d)
	}
	sub := s.do(t, "GET", "/v1/subscription", bearer(k.key), nil).wantOK(t, 200)
	if sub.str(t, "tier") != "Starter" || sub.num(t, "account_limit") != 10 {
		t.Errorf("subscription %v", sub)
	}
}
