package api_test

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/alertd/alertd/actors/product/tweetalerts"
)

// pages: the dashboard and the console, and every asset they name, both as
// browsers ask for it (the catch-all's slashes as they are) and as the
// document's one parameter (escaped); revalidation by ETag; unknown assets.
func (h *harness) pages(t *testing.T) {
	assetRef := regexp.MustCompile(`(?:src|href)="/assets/([^"]+)"`)
	assets := map[string]bool{}
	for _, page := range []string{"/", "/admin/"} {
		r := h.send(t, call{method: "GET", path: page, want: 200})
		if page == "/" && !strings.Contains(string(r.body), `name="api_key"`) {
			t.Errorf("the dashboard has no input named api_key")
		}
		for _, m := range assetRef.FindAllStringSubmatch(string(r.body), -1) {
			assets[m[1]] = true
		}
		if r := h.send(t, call{method: "HEAD", path: page, want: 200}); len(r.body) != 0 {
			t.Errorf("HEAD %s has a body", page)
		}
	}
	if len(assets) < 5 {
		t.Fatalf("the pages name %d assets", len(assets))
	}
	for a := range assets {
		escaped := "/assets/" + strings.ReplaceAll(a, "/", "%2F")
		r := h.send(t, call{method: "GET", path: "/assets/" + a, docPath: escaped, want: 200})
		same := h.send(t, call{method: "GET", path: escaped, want: 200})
		if string(same.body) != string(r.body) || len(r.body) == 0 {
			t.Errorf("%s and %s differ, or are empty", "/assets/"+a, escaped)
		}
		etag := r.header.Get("ETag")
		h.send(t, call{method: "GET", path: "/assets/" + a, docPath: escaped, header: map[string]string{"If-None-Match": etag}, want: 304})
		h.send(t, call{method: "GET", path: "/assets/" + a, docPath: escaped, header: map[string]string{"If-None-Match": `"stale"`}, want: 200})
	}
	h.send(t, call{method: "GET", path: "/assets/nope.js", want: 404})
	h.send(t, call{method: "GET", path: "/assets/dashboard/index.html", docPath: "/assets/dashboard%2Findex.html", want: 404})
	h.send(t, call{method: "GET", path: "/assets/..%2Fembed.go", want: 404})
	// Unrouted: no HEAD on assets, no other page.
	h.send(t, call{method: "HEAD", path: "/assets/nope.js", want: 404})
	h.send(t, call{method: "GET", path: "/index.html", want: 404})
	// The console only with its slash (no redirect). The validator matches
	// paths without regard to a trailing slash, so this one is checked here.
	resp, err := h.client.Get(h.base + "/admin")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 404 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
		t.Errorf("GET /admin: %d %s, want the plain 404", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
}

// dashboardSession: the xg_session cookie on every Tweet Alerts route, the
// same-origin rule for changes, who is signed in, the Secure attribute by
// scheme, a Telegram session (rate-limited with its account), sign-out.
func (h *harness) dashboardSession(t *testing.T) {
	k := h.keys["xg"]
	signIn := func(hdr map[string]string) (reply, string) {
		r := h.send(t, call{method: "POST", path: "/v1/auth/apikey", body: map[string]any{"api_key": k}, header: hdr, want: 200})
		for _, c := range (&http.Response{Header: r.header}).Cookies() {
			if c.Name == "xg_session" {
				return r, c.Name + "=" + c.Value
			}
		}
		t.Fatalf("no xg_session cookie: %v", r.header)
		return r, ""
	}
	r, cookie := signIn(nil)
	if strings.Contains(strings.ToLower(r.header.Get("Set-Cookie")), "secure") {
		t.Errorf("over plain HTTP the cookie is Secure, which a browser on http:// would drop: %s", r.header.Get("Set-Cookie"))
	}
	if r, _ := signIn(map[string]string{"X-Forwarded-Proto": "https"}); !strings.Contains(r.header.Get("Set-Cookie"), "; secure;") {
		t.Errorf("behind a TLS proxy the cookie is not Secure: %s", r.header.Get("Set-Cookie"))
	}

	var who struct {
		Product string `json:"product"`
		Via     string `json:"via"`
	}
	h.send(t, call{method: "GET", path: "/v1/auth/session", header: map[string]string{"Cookie": cookie}, want: 200}).data(t, &who)
	if who.Product != "xg" || who.Via != "apikey" {
		t.Errorf("session %+v", who)
	}
	h.send(t, call{method: "GET", path: "/v1/auth/session", want: 401})
	h.send(t, call{method: "GET", path: "/v1/auth/session", header: map[string]string{"Cookie": "xg_session=forged"}, want: 401})

	read := map[string]string{"Cookie": cookie}
	for _, p := range []string{"/v1/subscription", "/v1/plans", "/v1/accounts", "/v1/accounts/" + whale, "/v1/settings", "/v1/webhooks", "/v1/feed"} {
		h.send(t, call{method: "GET", path: p, header: read, want: 200})
	}
	same := map[string]string{"Cookie": cookie, "Sec-Fetch-Site": "same-origin"}
	origin := map[string]string{"Cookie": cookie, "Origin": h.base}
	h.send(t, call{method: "PATCH", path: "/v1/settings", header: same, body: map[string]any{"contracts_only": false}, want: 200})
	h.send(t, call{method: "POST", path: "/v1/accounts", header: origin, body: map[string]any{"handles": []string{mike}}, want: 201})
	h.send(t, call{method: "PUT", path: "/v1/accounts/" + mike + "/keywords", header: same, body: map[string]any{"keywords": []string{"launch"}}, want: 200})
	h.send(t, call{method: "DELETE", path: "/v1/accounts/" + mike + "/keywords", header: same, want: 200})
	h.send(t, call{method: "PUT", path: "/v1/accounts/" + mike + "/mute", header: same, body: map[string]any{"muted": false}, want: 200})
	h.send(t, call{method: "PATCH", path: "/v1/accounts/" + mike + "/filters", header: same, body: map[string]any{"exclude_quotes": true}, want: 200})
	var hook struct {
		ID int64 `json:"id"`
	}
	h.send(t, call{method: "POST", path: "/v1/webhooks", header: same, body: map[string]any{"url": "http://127.0.0.1:9/session-hook"}, want: 201}).data(t, &hook)

	// The same changes from another site, or with no origin at all: 403.
	for _, hdr := range []map[string]string{
		{"Cookie": cookie},
		{"Cookie": cookie, "Sec-Fetch-Site": "cross-site"},
		{"Cookie": cookie, "Origin": "http://evil.example"},
	} {
		for _, c := range []call{
			{method: "PATCH", path: "/v1/settings", body: map[string]any{"contracts_only": true}},
			{method: "POST", path: "/v1/accounts", body: map[string]any{"handles": []string{queen}}},
			{method: "PUT", path: "/v1/accounts/" + mike + "/keywords", body: map[string]any{"keywords": []string{"x"}}},
			{method: "DELETE", path: "/v1/accounts/" + mike + "/keywords"},
			{method: "PUT", path: "/v1/accounts/" + mike + "/mute", body: map[string]any{"muted": true}},
			{method: "PATCH", path: "/v1/accounts/" + mike + "/filters", body: map[string]any{}},
			{method: "POST", path: "/v1/webhooks", body: map[string]any{"url": "http://127.0.0.1:9/evil"}},
			{method: "DELETE", path: "/v1/webhooks/" + strconv.FormatInt(hook.ID, 10)},
			{method: "DELETE", path: "/v1/accounts/" + mike},
		} {
			c.header, c.want = hdr, 403
			if r := h.send(t, c); r.code() != "forbidden" {
				t.Errorf("%s %s cross-site: code %q", c.method, c.path, r.code())
			}
		}
	}
	h.send(t, call{method: "DELETE", path: "/v1/webhooks/" + strconv.FormatInt(hook.ID, 10), header: same, want: 200})
	h.send(t, call{method: "DELETE", path: "/v1/accounts/" + mike, header: origin, want: 200})
	// A key in Authorization wins over the cookie: no origin needed.
	h.send(t, call{method: "PATCH", path: "/v1/settings", key: k, header: read, body: map[string]any{"contracts_only": false}, want: 200})

	// A Telegram session (the user was linked in tweetalerts) acts for the
	// account and counts in its rate window.
	now := time.Now().Unix()
	fields := map[string]string{"id": "4242", "first_name": "Sol", "username": "solwhale_tg", "auth_date": strconv.FormatInt(now, 10)}
	login := map[string]any{"id": 4242, "first_name": "Sol", "username": "solwhale_tg", "auth_date": now,
		"hash": tweetalerts.TelegramHash(fields, botToken)}
	r = h.send(t, call{method: "POST", path: "/v1/auth/telegram", body: login, want: 200})
	var tg string
	for _, c := range (&http.Response{Header: r.header}).Cookies() {
		if c.Name == "xg_session" {
			tg = c.Name + "=" + c.Value
		}
	}
	h.send(t, call{method: "GET", path: "/v1/auth/session", header: map[string]string{"Cookie": tg}, want: 200}).data(t, &who)
	if who.Via != "telegram" {
		t.Errorf("telegram session %+v", who)
	}
	h.send(t, call{method: "GET", path: "/v1/settings", header: map[string]string{"Cookie": tg}, want: 200})
	h.send(t, call{method: "PATCH", path: "/v1/settings", header: map[string]string{"Cookie": tg, "Sec-Fetch-Site": "same-origin"},
		body: map[string]any{"contracts_only": false}, want: 200})

	// Sign-out: from the pages only; it clears the cookie.
	h.send(t, call{method: "POST", path: "/v1/auth/logout", header: map[string]string{"Cookie": cookie}, want: 403})
	h.send(t, call{method: "POST", path: "/v1/auth/logout", header: map[string]string{"Origin": "http://evil.example"}, want: 403})
	r = h.send(t, call{method: "POST", path: "/v1/auth/logout", header: same, want: 200})
	if c := r.header.Get("Set-Cookie"); !strings.HasPrefix(c, "xg_session=; max-age=0;") {
		t.Errorf("sign-out Set-Cookie %q", c)
	}
	h.send(t, call{method: "POST", path: "/v1/auth/logout", header: map[string]string{"Origin": h.base, "X-Forwarded-Proto": "https"}, want: 200})
}

// console: the console's live numbers, its account list (subscriptions in
// the admin API's shape, keys by id) and deactivating a key by id.
func (h *harness) console(t *testing.T) {
	h.send(t, call{method: "GET", path: "/admin/v1/stats", want: 401})
	h.send(t, call{method: "GET", path: "/admin/v1/stats", key: h.keys["xg"], want: 401})
	h.send(t, call{method: "GET", path: "/admin/v1/accounts", key: "adm_wrong", want: 401})

	r := h.send(t, call{method: "GET", path: "/admin/v1/stats", key: adminToken, want: 200})
	var st struct {
		Store struct {
			Kind      string `json:"kind"`
			SizeBytes *int64 `json:"size_bytes"`
		} `json:"store"`
		Ingest struct {
			Accepted, Rejected uint64
		} `json:"ingest"`
		Webhooks []struct {
			Product string `json:"product"`
		} `json:"webhooks"`
	}
	r.data(t, &st)
	// ingestAPI sent the one line that was ever rejected; every other
	// observation of the scenario was accepted.
	if st.Store.Kind != "embedded" || st.Store.SizeBytes == nil || st.Ingest.Accepted < 10 || st.Ingest.Rejected != 1 ||
		len(st.Webhooks) == 0 || st.Webhooks[0].Product != "xg" {
		t.Errorf("stats %s", r.body)
	}
	if r.header.Get("Cache-Control") != "no-store" {
		t.Errorf("stats Cache-Control %q", r.header.Get("Cache-Control"))
	}

	// Two keys of one account and product: the first is revoked by the
	// second (409 by id), the second is deactivated by id.
	old, acct := h.issue(t, "trend", "", nil)
	cur, _ := h.issue(t, "trend", acct, nil)
	id := func(key string) string { s := sha256.Sum256([]byte(key)); return hex.EncodeToString(s[:]) }
	var list struct {
		Accounts []struct {
			AccountID     string `json:"account_id"`
			Subscriptions []struct {
				AccountID string `json:"account_id"`
				Product   string `json:"product"`
			} `json:"subscriptions"`
			Keys []struct {
				KeyID string `json:"key_id"`
				State string `json:"state"`
			} `json:"keys"`
		} `json:"accounts"`
		Count int `json:"count"`
	}
	r = h.send(t, call{method: "GET", path: "/admin/v1/accounts", key: adminToken, want: 200})
	r.data(t, &list)
	if list.Count != len(list.Accounts) || len(list.Accounts) < 10 {
		t.Fatalf("accounts: %d listed, count %d", len(list.Accounts), list.Count)
	}
	first := list.Accounts[0]
	states := map[string]string{}
	for _, k := range first.Keys {
		states[k.KeyID] = k.State
	}
	if first.AccountID != acct || len(first.Subscriptions) != 1 || first.Subscriptions[0].AccountID != acct ||
		len(states) != 2 || states[id(cur)] != "active" || states[id(old)] != "revoked" {
		t.Errorf("newest account %+v, want %s with its two keys by SHA-256", first, acct)
	}
	if strings.Contains(string(r.body), cur) || strings.Contains(string(r.body), old) {
		t.Errorf("the account list shows a key in clear")
	}

	path := "/admin/v1/accounts/" + acct + "/keys/"
	h.send(t, call{method: "DELETE", path: path + id(cur), want: 401})
	h.send(t, call{method: "DELETE", path: path + "abc", key: adminToken, want: 400})
	h.send(t, call{method: "DELETE", path: "/admin/v1/accounts/" + h.accts["xg"] + "/keys/" + id(cur), key: adminToken, want: 404})
	h.send(t, call{method: "DELETE", path: path + id(old), key: adminToken, want: 409})
	h.send(t, call{method: "GET", path: "/v1/trending/status", key: cur, want: 200})
	h.send(t, call{method: "DELETE", path: path + id(cur), key: adminToken, want: 200})
	h.send(t, call{method: "DELETE", path: path + id(cur), key: adminToken, want: 200}) // again: still off
	h.send(t, call{method: "GET", path: "/v1/trending/status", key: cur, want: 401})
}
