package api_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/alertd/alertd/actors/product/tweetalerts"
)

func (h *harness) tweetAlerts(t *testing.T) {
	k := h.keys["xg"]
	h.send(t, call{method: "GET", path: "/v1/subscription", key: k, want: 200})
	h.send(t, call{method: "GET", path: "/v1/subscription", key: h.keys["dt"], want: 200})
	h.send(t, call{method: "GET", path: "/v1/plans", key: k, want: 200})
	h.send(t, call{method: "GET", path: "/v1/settings", key: k, want: 200})
	h.send(t, call{method: "PATCH", path: "/v1/settings", key: k, body: map[string]any{"contracts_only": true}, want: 200})
	h.send(t, call{method: "PATCH", path: "/v1/settings", key: k, body: map[string]any{"auto_topics": nil}, want: 400})

	h.send(t, call{method: "POST", path: "/v1/accounts", key: k, body: map[string]any{"handles": []string{"@SolWhale", mike, "nobody_here"}}, want: 201})
	h.send(t, call{method: "POST", path: "/v1/accounts", key: k, body: map[string]any{"handles": []string{"not a handle"}}, want: 400})
	h.send(t, call{method: "POST", path: "/v1/accounts", key: k, body: map[string]any{}, want: 422})
	h.plainFailures(t, "POST", "/v1/accounts", k)
	h.send(t, call{method: "GET", path: "/v1/accounts", key: k, want: 200})
	h.send(t, call{method: "GET", path: "/v1/accounts", key: h.keys["dt"], want: 200})
	h.send(t, call{method: "GET", path: "/v1/accounts/" + whale, key: k, want: 200})
	h.send(t, call{method: "GET", path: "/v1/accounts/nobody_here", key: k, want: 404})
	h.send(t, call{method: "PUT", path: "/v1/accounts/" + whale + "/keywords", key: k, body: map[string]any{"keywords": []string{"launch", "CA"}}, want: 200})
	h.send(t, call{method: "PUT", path: "/v1/accounts/" + whale + "/keywords", key: k, body: map[string]any{"keywords": []string{""}}, want: 400})
	h.send(t, call{method: "DELETE", path: "/v1/accounts/" + whale + "/keywords", key: k, want: 200})
	h.send(t, call{method: "PUT", path: "/v1/accounts/" + whale + "/mute", key: k, body: map[string]any{"muted": true}, want: 200})
	h.send(t, call{method: "PUT", path: "/v1/accounts/" + whale + "/mute", key: k, body: map[string]any{}, want: 422})
	h.send(t, call{method: "PATCH", path: "/v1/accounts/" + whale + "/filters", key: k, body: map[string]any{"exclude_replies": true}, want: 200})
	h.send(t, call{method: "PATCH", path: "/v1/accounts/nobody_here/filters", key: k, body: map[string]any{}, want: 404})
	h.send(t, call{method: "DELETE", path: "/v1/accounts/" + mike, key: k, want: 200})
	h.send(t, call{method: "DELETE", path: "/v1/accounts/" + mike, key: k, want: 404})

	r := h.send(t, call{method: "POST", path: "/v1/webhooks", key: k, body: map[string]any{"url": "http://127.0.0.1:9/hook",
		"filter_handles": []string{whale}, "filter_keywords": []string{"launch"}}, want: 201})
	var hook struct {
		ID int64 `json:"id"`
	}
	r.data(t, &hook)
	h.send(t, call{method: "POST", path: "/v1/webhooks", key: k, body: map[string]any{"url": "ftp://example.com"}, want: 400})
	h.send(t, call{method: "POST", path: "/v1/webhooks", key: h.keys["dt"], body: map[string]any{"url": "http://127.0.0.1:9/x"}, want: 403})
	h.send(t, call{method: "GET", path: "/v1/webhooks", key: k, want: 200})
	h.send(t, call{method: "DELETE", path: "/v1/webhooks/" + strconv.FormatInt(hook.ID, 10), key: k, want: 200})
	h.send(t, call{method: "DELETE", path: "/v1/webhooks/999999", key: k, want: 404})

	h.eventually(t, call{method: "GET", path: "/v1/feed?limit=2", key: k},
		func(r reply) bool { return r.status == 200 && strings.Contains(string(r.body), post3) })
	h.send(t, call{method: "GET", path: "/v1/feed?limit=x", key: k, want: 400})
	h.send(t, call{method: "GET", path: "/v1/feed", want: 401})

	// The web dashboard's session.
	r = h.send(t, call{method: "POST", path: "/v1/auth/apikey", body: map[string]any{"api_key": k}, want: 200})
	var cookie string
	for _, c := range (&http.Response{Header: r.header}).Cookies() {
		if c.Name == "xg_session" {
			cookie = c.Name + "=" + c.Value
		}
	}
	if cookie == "" {
		t.Fatalf("no xg_session cookie: %v", r.header)
	}
	h.send(t, call{method: "GET", path: "/v1/feed", header: map[string]string{"Cookie": cookie}, want: 200})
	h.send(t, call{method: "GET", path: "/v1/feed", header: map[string]string{"Cookie": "xg_session=forged"}, want: 401})
	h.send(t, call{method: "POST", path: "/v1/auth/apikey", body: map[string]any{"api_key": "xg_nope"}, want: 401})
	h.send(t, call{method: "POST", path: "/v1/auth/apikey", body: map[string]any{}, want: 422})
	h.send(t, call{method: "POST", path: "/v1/auth/telegram", body: map[string]any{"id": 42, "auth_date": 1, "hash": "00"}, want: 401})
	// A Telegram sign-in while holding the API-key session links the two;
	// afterwards Telegram alone signs in.
	now := time.Now().Unix()
	fields := map[string]string{"id": "4242", "first_name": "Sol", "username": "solwhale_tg", "auth_date": strconv.FormatInt(now, 10)}
	login := map[string]any{"id": 4242, "first_name": "Sol", "username": "solwhale_tg", "auth_date": now,
		"hash": tweetalerts.TelegramHash(fields, botToken)}
	h.send(t, call{method: "POST", path: "/v1/auth/telegram", body: login, want: 401})
	h.send(t, call{method: "POST", path: "/v1/auth/telegram", body: login, header: map[string]string{"Cookie": cookie}, want: 403})
	h.send(t, call{method: "POST", path: "/v1/auth/telegram", body: login,
		header: map[string]string{"Cookie": cookie, "Sec-Fetch-Site": "same-origin"}, want: 200})
	h.send(t, call{method: "POST", path: "/v1/auth/telegram", body: login, want: 200})
	// The link is listed and removed; then linked again for what follows.
	h.send(t, call{method: "GET", path: "/v1/auth/telegram/links", key: k, want: 200})
	h.send(t, call{method: "DELETE", path: "/v1/auth/telegram/links/4242", header: map[string]string{"Cookie": cookie}, want: 403})
	h.send(t, call{method: "DELETE", path: "/v1/auth/telegram/links/4242", key: k, want: 200})
	h.send(t, call{method: "DELETE", path: "/v1/auth/telegram/links/4242", key: k, want: 404})
	h.send(t, call{method: "POST", path: "/v1/auth/telegram", body: login,
		header: map[string]string{"Cookie": cookie, "Sec-Fetch-Site": "same-origin"}, want: 200})

	// Key problems are `unauthorized` on Tweet Alerts, whatever they are.
	h.send(t, call{method: "GET", path: "/v1/settings", want: 401})
	h.send(t, call{method: "GET", path: "/v1/settings", key: h.keys["cw"], want: 401})
	h.send(t, call{method: "GET", path: "/v1/settings?api_key=" + k, want: 401})
}

func (h *harness) b2b(t *testing.T) {
	k := h.keys["dt"]
	h.send(t, call{method: "GET", path: "/v1/dt/status", key: k, want: 200})
	h.send(t, call{method: "GET", path: "/v1/dt/status", header: map[string]string{"X-API-Key": " " + k + "  "}, want: 200})
	for _, c := range []struct {
		call call
		code string
	}{
		{call{method: "GET", path: "/v1/dt/status", want: 401}, "key_missing"},
		{call{method: "GET", path: "/v1/dt/status?api_key=" + k, want: 401}, "key_in_query"},
		{call{method: "GET", path: "/v1/dt/status", key: h.keys["xg"], want: 401}, "key_malformed"},
		{call{method: "GET", path: "/v1/dt/status", key: "dt_unknown", want: 401}, "key_unknown"},
	} {
		if r := h.send(t, c.call); r.code() != c.code {
			t.Errorf("%s: code %q, want %q", c.call.path, r.code(), c.code)
		}
	}

	h.send(t, call{method: "POST", path: "/v1/dt/targets", key: k, body: map[string]any{"handle": "@" + whale}, want: 201})
	h.send(t, call{method: "POST", path: "/v1/dt/targets", key: k, body: map[string]any{"handle": whale}, want: 409})
	h.send(t, call{method: "POST", path: "/v1/dt/targets", key: k, body: map[string]any{"handle": "ghost_handle"}, want: 201})
	h.send(t, call{method: "POST", path: "/v1/dt/targets", key: k, body: map[string]any{"handle": ""}, want: 400})
	h.send(t, call{method: "POST", path: "/v1/dt/targets", key: k, body: map[string]any{}, want: 422})
	h.plainFailures(t, "POST", "/v1/dt/targets", k)
	h.send(t, call{method: "GET", path: "/v1/dt/targets", key: k, want: 200})
	h.send(t, call{method: "DELETE", path: "/v1/dt/targets/nobody_here", key: k, want: 404})

	h.send(t, call{method: "GET", path: "/v1/dt/profile/" + whale, key: k, want: 200})
	h.send(t, call{method: "GET", path: "/v1/dt/profile/" + mike, key: k, want: 403})
	if r := h.send(t, call{method: "GET", path: "/v1/dt/profile/ghost_handle", key: k, want: 503}); r.header.Get("Retry-After") == "" {
		t.Errorf("503 without Retry-After")
	}
	h.send(t, call{method: "GET", path: "/v1/dt/tweets/" + whale + "?limit=5", key: k, want: 200})
	h.send(t, call{method: "GET", path: "/v1/dt/following/" + whale + "?limit=0", key: k, want: 400})
	h.send(t, call{method: "GET", path: "/v1/dt/following/" + whale, key: h.keys["dt-starter"], want: 403})
	h.send(t, call{method: "GET", path: "/v1/dt/events/evt_" + post1, key: k, want: 200})
	h.send(t, call{method: "GET", path: "/v1/dt/events/nonsense", key: k, want: 400})
	h.send(t, call{method: "GET", path: "/v1/dt/events/evt_del_" + whale + "_1763712000123", key: k, want: 404})
	h.send(t, call{method: "GET", path: "/v1/dt/webhook", key: k, want: 200})
	h.send(t, call{method: "PUT", path: "/v1/dt/webhook", key: k, body: map[string]any{"url": "https://example.com/hook"}, want: 200})
	h.send(t, call{method: "PUT", path: "/v1/dt/webhook", key: k, body: map[string]any{"url": "not a url"}, want: 400})
	h.send(t, call{method: "GET", path: "/v1/dt/webhook", key: k, want: 200})
}

// b2bObserved reads what phase 2 recorded: follow edges, memberships,
// history, the social diff and a follow event's trace.
func (h *harness) b2bObserved(t *testing.T) {
	k := h.keys["dt"]
	h.eventually(t, call{method: "GET", path: "/v1/dt/following/" + whale, key: k},
		func(r reply) bool { return r.status == 200 && strings.Contains(string(r.body), queen) })
	h.eventually(t, call{method: "GET", path: "/v1/dt/followers/" + whale, key: k},
		func(r reply) bool { return r.status == 200 && strings.Contains(string(r.body), "newfan01") })
	h.eventually(t, call{method: "GET", path: "/v1/dt/communities/" + whale, key: k},
		func(r reply) bool { return r.status == 200 && strings.Contains(string(r.body), "1790000000000000002") })
	h.eventually(t, call{method: "GET", path: "/v1/dt/social/diff/" + whale, key: k},
		func(r reply) bool { return r.status == 200 && strings.Contains(string(r.body), queen) })
	h.eventually(t, call{method: "GET", path: "/v1/dt/profile/" + whale + "/history?limit=10&offset=0", key: k},
		func(r reply) bool { return r.status == 200 && strings.Contains(string(r.body), "48300") })
	h.send(t, call{method: "GET", path: "/v1/dt/tweets/" + whale, key: k, want: 200})
	h.send(t, call{method: "GET", path: "/v1/dt/profile/" + whale, key: k, want: 200})
	// A follow event's id carries the handle and its time: any time within
	// 10 seconds of the follow finds it.
	h.eventually(t, call{method: "GET", path: fmtPath("/v1/dt/events/evt_f_%s_%d", whale, ms(nowish())), key: k},
		func(r reply) bool { return r.status == 200 })
	h.send(t, call{method: "DELETE", path: "/v1/dt/targets/ghost_handle", key: k, want: 200})
}

func (h *harness) social(t *testing.T) {
	k := h.keys["dt"]
	h.send(t, call{method: "GET", path: "/social/user/" + whale, key: k, want: 200})
	h.send(t, call{method: "GET", path: "/social/user/nobody_here", key: k, want: 404})
	h.send(t, call{method: "GET", path: "/social/user/" + whale, want: 401})
	h.send(t, call{method: "GET", path: "/social/user/" + whale + "?api_key=" + k, want: 401})
	for _, id := range []string{post1, post2, post3} {
		h.send(t, call{method: "GET", path: "/social/tweet/" + id, key: k, want: 200})
	}
	h.send(t, call{method: "GET", path: "/social/tweet/abc", key: k, want: 400})
	h.send(t, call{method: "GET", path: "/social/tweet/42", key: k, want: 404})
	h.send(t, call{method: "POST", path: "/social/blacklist/SpamBot", key: k, want: 200})
	h.send(t, call{method: "POST", path: "/social/blacklist/spambot", key: k, want: 200})
	h.send(t, call{method: "POST", path: "/social/blacklist/not%20a%20handle", key: k, want: 400})
	h.send(t, call{method: "GET", path: "/social/blacklist", key: k, want: 200})
	h.send(t, call{method: "DELETE", path: "/social/blacklist/spambot", key: k, want: 200})
	h.send(t, call{method: "DELETE", path: "/social/blacklist/spambot", key: k, want: 404})
	h.send(t, call{method: "GET", path: "/social/communities?search=community&limit=5", key: k, want: 200})
	h.send(t, call{method: "GET", path: "/social/communities?offset=-1", key: k, want: 400})
}

func (h *harness) caSearch(t *testing.T) {
	k := h.keys["dt"]
	h.eventually(t, call{method: "POST", path: "/v1/search", key: k, body: map[string]any{"query": "$WIF2"}},
		func(r reply) bool { return r.status == 200 && strings.Contains(string(r.body), post3) })
	r := h.send(t, call{method: "POST", path: "/v1/search", key: k, body: map[string]any{"query": mint, "since": "2020-01-01"}, want: 200})
	if r.header.Get("X-RateLimit-Daily-Remaining") == "" {
		t.Errorf("200 without quota headers: %v", r.header)
	}
	h.send(t, call{method: "POST", path: "/v1/search", key: k, body: map[string]any{"query": "launch", "cursor": "junk"}, want: 200})
	h.send(t, call{method: "POST", path: "/v1/search", key: k, body: map[string]any{"query": "  "}, want: 400})
	h.send(t, call{method: "POST", path: "/v1/search", key: k, body: map[string]any{"query": "x", "since": "yesterday"}, want: 400})
	h.send(t, call{method: "POST", path: "/v1/search", key: k, body: map[string]any{}, want: 422})
	h.plainFailures(t, "POST", "/v1/search", k)
	h.send(t, call{method: "POST", path: "/v1/search", key: h.keys["dt-starter"], body: map[string]any{"query": "x"}, want: 403})
	h.send(t, call{method: "POST", path: "/v1/search", key: h.keys["xg"], body: map[string]any{"query": "x"}, want: 401})
	h.send(t, call{method: "POST", path: "/v1/search", body: map[string]any{"query": "x"}, want: 401})
}
