package api_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/alertd/alertd/api/openapitest"
	"github.com/gorilla/websocket"
)

// The accounts and ids the scenario observes.
const (
	whale   = "solwhale"
	whaleID = "744628103955443712"
	mike    = "degenmike"
	mikeID  = "1111"
	queen   = "chartqueen"
	queenID = "2222"
	post1   = "1860000000000000001"
	post2   = "1860000000000000002"
	post3   = "1860000000000000003"
	wallet  = "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM"
	mint    = "7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU"
)

// TestConformance drives every product through its success and error paths
// on an in-process engine and validates each request it expects to succeed
// and every answer against the OpenAPI document.
func TestConformance(t *testing.T) {
	if testing.Short() {
		t.Skip("end to end: starts the engine")
	}
	h := startEngine(t)
	t.Run("meta", h.meta)
	t.Run("pages", h.pages)
	t.Run("admin", h.admin)
	t.Run("ingest", h.ingestAPI)
	h.observePhase1(t)
	t.Run("tweetalerts", h.tweetAlerts)
	t.Run("tweetalerts/session", h.dashboardSession)
	t.Run("webhooklog", h.webhookLog)
	t.Run("b2b", h.b2b)
	t.Run("social", h.social)
	t.Run("casearch", h.caSearch)
	t.Run("cw/add", h.cwAdd)
	t.Run("ct/add", h.ctAdd)
	t.Run("et/add", h.etAdd)
	t.Run("trending", h.trending)
	t.Run("pumpfun/add", h.pfAdd)
	t.Run("eca/add", h.ecaAdd)
	t.Run("searchalerts", h.searchAlerts)
	h.observePhase2(t)
	t.Run("b2b/observed", h.b2bObserved)
	t.Run("cw/observed", h.cwObserved)
	t.Run("ct/observed", h.ctObserved)
	t.Run("et/observed", h.etObserved)
	t.Run("pumpfun/observed", h.pfObserved)
	t.Run("eca/observed", h.ecaObserved)
	t.Run("sockets", h.sockets)
	t.Run("console", h.console) // last: every counter has moved
	h.everyRouteSucceeded(t)
}

func (h *harness) meta(t *testing.T) {
	h.send(t, call{method: "GET", path: "/health", want: 200})
	r := h.send(t, call{method: "GET", path: "/v1/openapi.json", want: 200})
	var doc struct {
		OpenAPI string `json:"openapi"`
	}
	if err := json.Unmarshal(r.body, &doc); err != nil || doc.OpenAPI != "3.1.0" {
		t.Errorf("GET /v1/openapi.json is not the 3.1 document: %.200s", r.body)
	}
	// /metrics on the public listener (no --internal-addr): the admin token.
	r = h.send(t, call{method: "GET", path: "/metrics", key: adminToken, want: 200})
	if !bytes.Contains(r.body, []byte("alertd_ingest_observations_total")) {
		t.Errorf("GET /metrics has no alertd families: %.300s", r.body)
	}
	h.send(t, call{method: "GET", path: "/metrics", want: 401})
	// Unknown routes and unserved methods: the 404 of the document's rule.
	h.send(t, call{method: "GET", path: "/v1/nope", want: 404})
	h.send(t, call{method: "PUT", path: "/v1/dt/status", want: 404})
	h.send(t, call{method: "GET", path: "/social/nope", want: 404})
	h.send(t, call{method: "GET", path: "/nope", want: 404})
	h.send(t, call{method: "OPTIONS", path: "/v1/accounts", want: 200})

	// The Transport the e2e harness can wrap its client in.
	c := &http.Client{Transport: openapitest.Transport(t, nil), Timeout: 10 * time.Second}
	resp, err := c.Get(h.base + "/health")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
}

func (h *harness) admin(t *testing.T) {
	for _, p := range []struct {
		product string
		extra   map[string]any
	}{
		{"xg", map[string]any{"plan": "ultra"}},
		{"dt", map[string]any{"plan": "enterprise", "max_handles": 10, "ca_search_daily_limit": 1000, "late_delivery": true}},
		{"cw", map[string]any{"max_handles": 20}},
		{"ct", map[string]any{"max_handles": 20}},
		{"et", map[string]any{"max_tweets": 25}},
		{"trend", nil},
		{"pf", map[string]any{"max_wallets": 3}},
		{"eca", nil},
		{"sa", map[string]any{"expires_at": time.Now().Add(30 * 24 * time.Hour).UTC().Format(time.RFC3339)}},
	} {
		h.keys[p.product], h.accts[p.product] = h.issue(t, p.product, "", p.extra)
	}
	// A second dt account without the CA Search add-on.
	h.keys["dt-starter"], h.accts["dt-starter"] = h.issue(t, "dt", "", map[string]any{"plan": "starter"})

	h.send(t, call{method: "PATCH", path: "/admin/v1/accounts/" + h.accts["dt"] + "/products/dt", key: adminToken,
		body: map[string]any{"max_handles": 12}, want: 200})
	h.send(t, call{method: "PATCH", path: "/admin/v1/accounts/" + h.accts["pf"] + "/products/pf", key: adminToken,
		body: map[string]any{"max_wallets": 3, "expires_at": nil}, want: 200})
	h.send(t, call{method: "PATCH", path: "/admin/v1/accounts/" + h.accts["dt"] + "/products/zz", key: adminToken,
		body: map[string]any{}, want: 404})
	h.send(t, call{method: "PATCH", path: "/admin/v1/accounts/acc_nobody/products/dt", key: adminToken,
		body: map[string]any{"plan": "pro"}, want: 404})
	h.send(t, call{method: "POST", path: "/admin/v1/keys", key: adminToken, body: map[string]any{"plan": "pro"}, want: 422})
	h.send(t, call{method: "POST", path: "/admin/v1/keys", key: adminToken, body: map[string]any{"product": "zz"}, want: 400})
	h.send(t, call{method: "POST", path: "/admin/v1/keys", key: adminToken,
		body: map[string]any{"product": "xg", "colour": "blue"}, want: 400})
	h.send(t, call{method: "POST", path: "/admin/v1/keys", key: "wrong", body: map[string]any{"product": "xg"}, want: 401})
	h.plainFailures(t, "POST", "/admin/v1/keys", adminToken)

	spare, _ := h.issue(t, "trend", "", nil)
	h.send(t, call{method: "DELETE", path: "/admin/v1/keys/" + spare, key: adminToken, want: 200})
	h.send(t, call{method: "DELETE", path: "/admin/v1/keys/trend_unknown", key: adminToken, want: 404})
	h.send(t, call{method: "GET", path: "/v1/trending/status", key: spare, want: 401})
}

func (h *harness) ingestAPI(t *testing.T) {
	arr := "[" + obs("market_cap", map[string]any{"mint": mint, "market_cap": 1}) + "," + `{"kind":"nope"}` + "]"
	r := h.send(t, call{method: "POST", path: "/ingest/v1/observations", key: adminToken, body: arr, want: 200, invalid: true})
	var d struct {
		Accepted int `json:"accepted"`
		Rejected []struct {
			Index int `json:"index"`
		} `json:"rejected"`
	}
	r.data(t, &d)
	if d.Accepted != 1 || len(d.Rejected) != 1 || d.Rejected[0].Index != 1 {
		t.Errorf("array ingest: %s", r.body)
	}
	h.send(t, call{method: "POST", path: "/ingest/v1/observations", key: adminToken, body: `{"kind":"user"}`, want: 400})
	h.send(t, call{method: "POST", path: "/ingest/v1/observations", key: adminToken, body: "x", ctype: "text/csv", want: 415})
	h.send(t, call{method: "POST", path: "/ingest/v1/observations", key: "wrong", body: "[]", want: 401})
}

func user(id, handle string, followers int) string {
	return obs("user", map[string]any{"id": id, "handle": handle, "name": strings.ToUpper(handle[:1]) + handle[1:],
		"bio": "on-chain since 2017", "avatar": "https://pbs.example.com/" + handle + ".jpg", "banner_url": nil,
		"location": nil, "website": nil, "followers": followers, "following": 311, "verified": true,
		"verification_type": "blue", "pinned_post": []string{}, "categories": []string{"founders"}, "suspended": false})
}

func post(id, typ, text string, at time.Time, extra map[string]any) string {
	f := map[string]any{"id": id, "created_at": ms(at), "type": typ, "text": text, "cashtags": []string{"WIF2"},
		"media":    []map[string]string{{"type": "photo", "url": "https://pbs.example.com/media/" + id + ".jpg"}},
		"mentions": []string{},
		"author": map[string]any{"id": whaleID, "handle": whale, "name": "Sol Whale", "avatar": "https://pbs.example.com/w.jpg",
			"description": "on-chain", "verification": map[string]any{"is_verified": true, "type": "blue"},
			"affiliation": nil, "stats": map[string]any{"followers": 48210, "following": 311}},
		"in_reply_to": nil, "quoted_tweet": nil, "possibly_sensitive": false, "conversation_id": id,
		"entities": map[string]any{"hashtags": []any{}, "urls": []any{}, "symbols": []any{}},
		"metrics":  map[string]any{"likes": 3, "retweets": 1, "replies": 0, "quotes": 0, "views": "120"}}
	for k, v := range extra {
		f[k] = v
	}
	return obs("post", f)
}

// observePhase1: the users and posts the REST lookups read.
func (h *harness) observePhase1(t *testing.T) {
	now := time.Now()
	h.ingest(t,
		user(whaleID, whale, 48210), user(mikeID, mike, 900), user(queenID, queen, 50),
		post(post1, "post", "new launch $WIF2 CA: "+mint+" @degenmike", now.Add(-2*time.Minute), nil),
		post(post2, "reply", "@degenmike agreed $WIF2", now.Add(-time.Minute), map[string]any{
			"in_reply_to": map[string]any{"tweet_id": post1, "user": whale}, "conversation_id": post1}),
		post(post3, "quote", "look at this $WIF2", now.Add(-30*time.Second), map[string]any{
			"quoted_tweet": map[string]any{"id": post1, "text": "new launch", "author": map[string]any{
				"handle": whale, "name": "Sol Whale", "avatar": "https://pbs.example.com/w.jpg"}}}),
	)
	h.eventually(t, call{method: "GET", path: "/social/user/" + queen, key: h.keys["dt"]},
		func(r reply) bool { return r.status == 200 })
	h.eventually(t, call{method: "GET", path: "/social/tweet/" + post3, key: h.keys["dt"]},
		func(r reply) bool { return r.status == 200 })
}

// observePhase2: follows, communities, engagement and launchpad activity of
// what the products now watch; then the joins a convergence needs.
func (h *harness) observePhase2(t *testing.T) {
	following := func(users ...string) string {
		var list []map[string]any
		for _, u := range users {
			list = append(list, map[string]any{"id": map[string]string{mike: mikeID, queen: queenID}[u], "handle": u,
				"name": u, "bio": "", "followers": 10, "following": 1, "protected": false})
		}
		return obs("following", map[string]any{"handle": whale, "users": list})
	}
	communities := func(handle string, ids ...string) string {
		list := []map[string]any{}
		for _, id := range ids {
			list = append(list, map[string]any{"id": id, "name": "Community " + id, "description": "ship it",
				"member_count": 15230, "creator_screen_name": "solfounder"})
		}
		return obs("communities", map[string]any{"handle": handle, "communities": list})
	}
	h.ingest(t,
		following(mike), following(mike, queen),
		obs("followers_new", map[string]any{"handle": whale, "users": []map[string]any{{"id": "3333", "handle": "newfan01", "name": "New Fan"}}}),
		communities(whale, "1790000000000000001"), communities(mike),
		user(whaleID, whale, 48300),
		obs("engagement", map[string]any{"tweet_id": post1, "favorite_count": 120, "retweet_count": 31,
			"reply_count": 12, "quote_count": 4, "bookmark_count": 9}),
		obs("trending", map[string]any{"category": "crypto", "tweet": map[string]any{"tweet_id": "1860000000000000009",
			"author_screen_name": "newsdesk", "author_display_name": "News Desk", "full_text": "markets are moving",
			"created_at": time.Now().UTC().Format(time.RFC3339), "retweet_count": 1, "like_count": 5, "reply_count": 3,
			"quote_count": 0, "view_count": 910, "media_count": 0, "tweet_url": "https://x.com/newsdesk/status/1860000000000000009"}}),
		obs("launchpad", map[string]any{"event_type": "token_launched", "wallet_address": wallet, "mint": mint,
			"token_name": "Dog Wif Hat Two", "token_symbol": "WIF2", "creator": wallet,
			"bonding_curve": "4wTV1YmiEkRvAtNtsSGPtUrqRYQMe5SKy2uB4Jjaxnjf", "uri": "https://ipfs.example.com/Qm123",
			"signature": "5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW", "market_cap": 31.5}),
		obs("callout", map[string]any{"caller_wallet": wallet, "caller_username": "alphacaller", "mint": mint,
			"creator": wallet, "token_name": "Dog Wif Hat Two", "token_symbol": "WIF2", "callout_mcap": 40000,
			"market_cap": 40000, "amount_held": 1500000, "cost_basis_sol": 2.5, "thesis": "strong community"}),
	)
	// Both handles synced: now they join one community together.
	for _, handle := range []string{whale, mike} {
		h.eventually(t, call{method: "GET", path: "/v1/cw/targets", key: h.keys["cw"]}, func(r reply) bool {
			return r.status == 200 && strings.Contains(string(r.body), `"handle":"`+handle+`","social_user_id":"`) &&
				synced(t, r, handle)
		})
	}
	h.ingest(t, communities(whale, "1790000000000000001", "1790000000000000002"), communities(mike, "1790000000000000002"))
}

// synced reports whether the cw target list shows handle synced.
func synced(t *testing.T, r reply, handle string) bool {
	var d struct {
		Targets []struct {
			Handle string `json:"handle"`
			Synced bool   `json:"synced"`
		} `json:"targets"`
	}
	r.data(t, &d)
	for _, x := range d.Targets {
		if x.Handle == handle {
			return x.Synced
		}
	}
	return false
}

// sockets: the upgrades, refused and accepted.
func (h *harness) sockets(t *testing.T) {
	for _, path := range []string{"/v1/ws", "/v1/dt/ws", "/social/tweet/websocket", "/v1/cw/ws", "/v1/ct/ws", "/v1/et/ws",
		"/v1/trending/ws", "/v1/pf/ws", "/v1/eca/ws", "/v1/sa/ws"} {
		h.send(t, call{method: "GET", path: path + "?api_key=xg_nope", want: 401})
	}
	// A right key but no WebSocket handshake.
	h.send(t, call{method: "GET", path: "/v1/cw/ws?api_key=" + h.keys["cw"], want: 400})
	h.send(t, call{method: "GET", path: "/v1/dt/realtime/ws", want: 400})

	for _, path := range []string{"/v1/ws?api_key=" + h.keys["xg"], "/v1/dt/realtime/ws", "/v1/dt/ws?api_key=" + h.keys["dt"],
		"/social/tweet/websocket?api_key=" + h.keys["dt"], "/v1/cw/ws?api_key=" + h.keys["cw"], "/v1/ct/ws?api_key=" + h.keys["ct"],
		"/v1/et/ws?api_key=" + h.keys["et"], "/v1/trending/ws?api_key=" + h.keys["trend"], "/v1/pf/ws?api_key=" + h.keys["pf"],
		"/v1/eca/ws?api_key=" + h.keys["eca"], "/v1/sa/ws?api_key=" + h.keys["sa"]} {
		url := "ws" + strings.TrimPrefix(h.base, "http") + path
		conn, resp, err := websocket.DefaultDialer.Dial(url, nil)
		if err != nil {
			t.Fatalf("dial %s: %v", path, err)
		}
		req, _ := http.NewRequest("GET", h.base+path, nil)
		if err := h.v.Response(req, resp.StatusCode, resp.Header, nil); err != nil {
			t.Errorf("openapi: %v", err)
		}
		if resp.StatusCode == http.StatusSwitchingProtocols {
			h.record("GET", req.URL.Path)
		}
		conn.Close()
	}
}
