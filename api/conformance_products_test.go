package api_test

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// nowish is the time of a call made right after an ingest.
func nowish() time.Time { return time.Now() }

// watchWebhook exercises GET and PUT /v1/<seg>/webhook of cw, ct and et.
func (h *harness) watchWebhook(t *testing.T, seg, key string) {
	h.send(t, call{method: "GET", path: "/v1/" + seg + "/webhook", key: key, want: 200})
	h.send(t, call{method: "PUT", path: "/v1/" + seg + "/webhook", key: key, body: map[string]any{"url": "http://127.0.0.1:9/" + seg}, want: 200})
	h.send(t, call{method: "PUT", path: "/v1/" + seg + "/webhook", key: key, body: map[string]any{"url": " "}, want: 400})
	h.send(t, call{method: "PUT", path: "/v1/" + seg + "/webhook", key: key, body: map[string]any{}, want: 422})
	h.send(t, call{method: "GET", path: "/v1/" + seg + "/webhook", key: key, want: 200})
}

// storedWebhook exercises GET and PUT /v1/<seg>/webhook of trending, pf,
// eca and sa (stored only).
func (h *harness) storedWebhook(t *testing.T, seg, key string) {
	h.send(t, call{method: "GET", path: "/v1/" + seg + "/webhook", key: key, want: 200})
	h.send(t, call{method: "PUT", path: "/v1/" + seg + "/webhook", key: key, body: map[string]any{"url": "https://example.com/" + seg}, want: 200})
	h.send(t, call{method: "GET", path: "/v1/" + seg + "/webhook", key: key, want: 200})
	h.send(t, call{method: "PUT", path: "/v1/" + seg + "/webhook", key: key, body: map[string]any{"url": nil}, want: 200})
	h.send(t, call{method: "PUT", path: "/v1/" + seg + "/webhook", key: key, body: map[string]any{"url": "mailto:x@example.com"}, want: 400})
	h.send(t, call{method: "PUT", path: "/v1/" + seg + "/webhook", key: key, body: map[string]any{}, want: 422})
}

// productAuth: the product APIs answer any key problem with `unauthorized`.
func (h *harness) productAuth(t *testing.T, path, other string) {
	for _, key := range []string{"", other, "cw_unknown"} {
		if r := h.send(t, call{method: "GET", path: path, key: key, want: 401}); r.code() != "unauthorized" {
			t.Errorf("%s: code %q, want unauthorized", path, r.code())
		}
	}
}

func (h *harness) cwAdd(t *testing.T) {
	k := h.keys["cw"]
	h.productAuth(t, "/v1/cw/status", h.keys["ct"])
	h.send(t, call{method: "POST", path: "/v1/cw/targets", key: k, body: map[string]any{"handle": whale, "new_followers": true}, want: 201})
	h.send(t, call{method: "POST", path: "/v1/cw/targets", key: k, body: map[string]any{"handle": mike}, want: 201})
	h.send(t, call{method: "POST", path: "/v1/cw/targets", key: k, body: map[string]any{"handle": whale}, want: 409})
	h.send(t, call{method: "POST", path: "/v1/cw/targets", key: k, body: map[string]any{"handle": "no way"}, want: 400})
	h.send(t, call{method: "POST", path: "/v1/cw/targets", key: k, body: map[string]any{}, want: 422})
	h.plainFailures(t, "POST", "/v1/cw/targets", k)
	h.send(t, call{method: "PATCH", path: "/v1/cw/targets/" + mike, key: k, body: map[string]any{"new_followers": true}, want: 200})
	h.send(t, call{method: "PATCH", path: "/v1/cw/targets/nobody_here", key: k, body: map[string]any{"new_followers": true}, want: 404})
	h.send(t, call{method: "PATCH", path: "/v1/cw/targets/" + mike, key: k, body: map[string]any{}, want: 422})
	h.send(t, call{method: "GET", path: "/v1/cw/settings", key: k, want: 200})
	h.send(t, call{method: "PATCH", path: "/v1/cw/settings", key: k, body: map[string]any{"event_types": []string{"community_renamed", "community_joined"},
		"min_member_count": 10, "flap_cooldown_secs": 60}, want: 200})
	h.send(t, call{method: "PATCH", path: "/v1/cw/settings", key: k, body: map[string]any{"flap_cooldown_secs": 7200}, want: 400})
	h.send(t, call{method: "GET", path: "/v1/cw/status", key: k, want: 200})
	h.watchWebhook(t, "cw", k)
	// The handle ceiling: 20 on this plan.
	for i := 0; i < 18; i++ {
		h.send(t, call{method: "POST", path: "/v1/cw/targets", key: k, body: map[string]any{"handle": "filler_" + strconv.Itoa(i)}, want: 201})
	}
	if r := h.send(t, call{method: "POST", path: "/v1/cw/targets", key: k, body: map[string]any{"handle": "one_too_many"}, want: 403}); r.code() != "handle_limit_reached" {
		t.Errorf("code %q, want handle_limit_reached", r.code())
	}
	for i := 0; i < 18; i++ {
		h.send(t, call{method: "DELETE", path: "/v1/cw/targets/filler_" + strconv.Itoa(i), key: k, want: 200})
	}
	h.send(t, call{method: "DELETE", path: "/v1/cw/targets/filler_0", key: k, want: 404})
}

func (h *harness) cwObserved(t *testing.T) {
	k := h.keys["cw"]
	h.eventually(t, call{method: "GET", path: "/v1/cw/targets", key: k},
		func(r reply) bool { return r.status == 200 && strings.Contains(string(r.body), `"joined_at":"`) })
	h.send(t, call{method: "GET", path: "/v1/cw/status", key: k, want: 200})
}

func (h *harness) ctAdd(t *testing.T) {
	k := h.keys["ct"]
	h.productAuth(t, "/v1/ct/status", h.keys["cw"])
	h.send(t, call{method: "POST", path: "/v1/ct/targets", key: k, body: map[string]any{"handle": whale}, want: 201})
	h.send(t, call{method: "POST", path: "/v1/ct/targets", key: k, body: map[string]any{"handle": mike}, want: 201})
	h.send(t, call{method: "POST", path: "/v1/ct/targets", key: k, body: map[string]any{"handle": mike}, want: 409})
	h.send(t, call{method: "POST", path: "/v1/ct/targets", key: k, body: map[string]any{}, want: 422})
	h.send(t, call{method: "GET", path: "/v1/ct/targets", key: k, want: 200})
	h.send(t, call{method: "DELETE", path: "/v1/ct/targets/nobody_here", key: k, want: 404})
	h.send(t, call{method: "GET", path: "/v1/ct/settings", key: k, want: 200})
	h.send(t, call{method: "PATCH", path: "/v1/ct/settings", key: k, body: map[string]any{"min_convergence": 2, "time_window_hours": 48}, want: 200})
	h.send(t, call{method: "PATCH", path: "/v1/ct/settings", key: k, body: map[string]any{"min_convergence": 1}, want: 400})
	h.send(t, call{method: "GET", path: "/v1/ct/convergence", key: k, want: 200})
	h.send(t, call{method: "GET", path: "/v1/ct/convergence/history?limit=0", key: k, want: 400})
	h.send(t, call{method: "GET", path: "/v1/ct/status", key: k, want: 200})
	h.watchWebhook(t, "ct", k)
}

func (h *harness) ctObserved(t *testing.T) {
	k := h.keys["ct"]
	h.eventually(t, call{method: "GET", path: "/v1/ct/convergence", key: k},
		func(r reply) bool { return r.status == 200 && strings.Contains(string(r.body), "1790000000000000002") })
	h.eventually(t, call{method: "GET", path: "/v1/ct/convergence/history?limit=70", key: k},
		func(r reply) bool { return r.status == 200 && strings.Contains(string(r.body), "1790000000000000002") })
	h.send(t, call{method: "GET", path: "/v1/ct/status", key: k, want: 200})
	h.send(t, call{method: "DELETE", path: "/v1/ct/targets/" + mike, key: k, want: 200})
}

func (h *harness) etAdd(t *testing.T) {
	k := h.keys["et"]
	h.productAuth(t, "/v1/et/status", h.keys["cw"])
	h.send(t, call{method: "POST", path: "/v1/et/targets", key: k, body: map[string]any{"tweet_ids": []string{post1, post2}}, want: 201})
	h.send(t, call{method: "POST", path: "/v1/et/targets", key: k, body: map[string]any{"tweet_ids": []string{post1}}, want: 201})
	h.send(t, call{method: "POST", path: "/v1/et/targets", key: k, body: map[string]any{"tweet_ids": []string{"x1"}}, want: 400})
	h.send(t, call{method: "POST", path: "/v1/et/targets", key: k, body: map[string]any{}, want: 422})
	var many []string
	for i := 0; i < 30; i++ {
		many = append(many, strconv.Itoa(100+i))
	}
	h.send(t, call{method: "POST", path: "/v1/et/targets", key: k, body: map[string]any{"tweet_ids": many}, want: 403})
	h.send(t, call{method: "GET", path: "/v1/et/targets", key: k, want: 200})
	h.send(t, call{method: "GET", path: "/v1/et/engagement/" + post1, key: k, want: 200})
	h.send(t, call{method: "GET", path: "/v1/et/engagement/42", key: k, want: 404})
	h.send(t, call{method: "DELETE", path: "/v1/et/targets/" + post2, key: k, want: 200})
	h.send(t, call{method: "DELETE", path: "/v1/et/targets/" + post2, key: k, want: 404})
	h.send(t, call{method: "GET", path: "/v1/et/status", key: k, want: 200})
	h.watchWebhook(t, "et", k)
}

func (h *harness) etObserved(t *testing.T) {
	h.eventually(t, call{method: "GET", path: "/v1/et/engagement/" + post1, key: h.keys["et"]},
		func(r reply) bool { return r.status == 200 && strings.Contains(string(r.body), `"last_updated":"`) })
}

func (h *harness) trending(t *testing.T) {
	k := h.keys["trend"]
	h.productAuth(t, "/v1/trending/status", h.keys["pf"])
	h.send(t, call{method: "GET", path: "/v1/trending/categories", key: k, want: 200})
	h.send(t, call{method: "PUT", path: "/v1/trending/subscriptions", key: k, body: map[string]any{"categories": []string{"crypto", "AI", "knitting"}}, want: 200})
	h.send(t, call{method: "PUT", path: "/v1/trending/subscriptions", key: k, body: map[string]any{"categories": "crypto"}, want: 400})
	h.send(t, call{method: "PUT", path: "/v1/trending/subscriptions", key: k, body: map[string]any{}, want: 422})
	h.send(t, call{method: "GET", path: "/v1/trending/subscriptions", key: k, want: 200})
	h.send(t, call{method: "GET", path: "/v1/trending/categories", key: k, want: 200})
	h.send(t, call{method: "GET", path: "/v1/trending/status", key: k, want: 200})
	h.storedWebhook(t, "trending", k)
}

func (h *harness) pfAdd(t *testing.T) {
	k := h.keys["pf"]
	h.productAuth(t, "/v1/pf/status", h.keys["eca"])
	h.send(t, call{method: "POST", path: "/v1/pf/targets", key: k, body: map[string]any{"wallet_address": wallet, "label": "dev",
		"alert_types": []string{"token_launch", "callouts"}}, want: 201})
	h.send(t, call{method: "POST", path: "/v1/pf/targets", key: k, body: map[string]any{"wallet_address": wallet}, want: 409})
	h.send(t, call{method: "POST", path: "/v1/pf/targets", key: k, body: map[string]any{"wallet_address": "0xnot"}, want: 400})
	h.send(t, call{method: "POST", path: "/v1/pf/targets", key: k, body: map[string]any{"wallet_address": mint, "alert_types": []string{"moon"}}, want: 400})
	h.send(t, call{method: "POST", path: "/v1/pf/targets", key: k, body: map[string]any{}, want: 422})
	h.send(t, call{method: "GET", path: "/v1/pf/targets", key: k, want: 200})
	h.send(t, call{method: "GET", path: "/v1/pf/events", key: k, want: 200})
	h.send(t, call{method: "GET", path: "/v1/pf/status", key: k, want: 200})
	h.send(t, call{method: "DELETE", path: "/v1/pf/targets/" + mint, key: k, want: 404})
	h.storedWebhook(t, "pf", k)
}

func (h *harness) pfObserved(t *testing.T) {
	k := h.keys["pf"]
	h.eventually(t, call{method: "GET", path: "/v1/pf/events", key: k},
		func(r reply) bool { return r.status == 200 && strings.Contains(string(r.body), "token_launched") })
	h.send(t, call{method: "DELETE", path: "/v1/pf/targets/" + wallet, key: k, want: 200})
}

func (h *harness) ecaAdd(t *testing.T) {
	k := h.keys["eca"]
	h.productAuth(t, "/v1/eca/status", h.keys["sa"])
	h.send(t, call{method: "POST", path: "/v1/eca/watchlist", key: k, body: map[string]any{"creator_address": wallet, "ticker": "X"}, want: 400})
	h.send(t, call{method: "POST", path: "/v1/eca/watchlist", key: k, body: map[string]any{}, want: 400})
	h.send(t, call{method: "POST", path: "/v1/eca/watchlist", key: k, body: map[string]any{"ticker": "$WIF2", "token_name": "Dog Wif Hat Two"}, want: 201})
	h.send(t, call{method: "POST", path: "/v1/eca/watchlist", key: k, body: map[string]any{"ticker": "OTHER"}, want: 403})
	h.send(t, call{method: "GET", path: "/v1/eca/watchlist", key: k, want: 200})
	h.send(t, call{method: "GET", path: "/v1/eca/matches", key: k, want: 200})
	h.send(t, call{method: "GET", path: "/v1/eca/status", key: k, want: 200})
	h.send(t, call{method: "DELETE", path: "/v1/eca/watchlist/999999", key: k, want: 404})
	h.storedWebhook(t, "eca", k)
}

func (h *harness) ecaObserved(t *testing.T) {
	k := h.keys["eca"]
	h.eventually(t, call{method: "GET", path: "/v1/eca/matches", key: k},
		func(r reply) bool {
			return r.status == 200 && strings.Contains(string(r.body), `"match_type":"ticker"`)
		})
	h.send(t, call{method: "GET", path: "/v1/eca/watchlist", key: k, want: 200})
	h.send(t, call{method: "GET", path: "/v1/eca/status", key: k, want: 200})
	r := h.send(t, call{method: "POST", path: "/v1/eca/watchlist", key: k, body: map[string]any{"creator_address": wallet}, want: 201})
	var e struct {
		ID int64 `json:"id"`
	}
	r.data(t, &e)
	h.send(t, call{method: "DELETE", path: "/v1/eca/watchlist/" + strconv.FormatInt(e.ID, 10), key: k, want: 200})
}

func (h *harness) searchAlerts(t *testing.T) {
	k := h.keys["sa"]
	h.productAuth(t, "/v1/sa/status", h.keys["trend"])
	r := h.send(t, call{method: "POST", path: "/v1/sa/queries", key: k, body: map[string]any{"query_text": "wif launch", "interval": "1m"}, want: 201})
	var q struct {
		ID int64 `json:"query_id"`
	}
	r.data(t, &q)
	h.send(t, call{method: "POST", path: "/v1/sa/queries", key: k, body: map[string]any{"query_text": "Launch WIF"}, want: 409})
	h.send(t, call{method: "POST", path: "/v1/sa/queries", key: k, body: map[string]any{"query_text": "x", "interval": "2m"}, want: 400})
	h.send(t, call{method: "POST", path: "/v1/sa/queries", key: k, body: map[string]any{"query_text": strings.Repeat("a", 201)}, want: 400})
	h.send(t, call{method: "POST", path: "/v1/sa/queries", key: k, body: map[string]any{}, want: 422})
	h.send(t, call{method: "GET", path: "/v1/sa/queries", key: k, want: 200})
	h.send(t, call{method: "GET", path: "/v1/sa/status", key: k, want: 200})
	h.send(t, call{method: "DELETE", path: "/v1/sa/queries/" + strconv.FormatInt(q.ID, 10), key: k, want: 200})
	h.send(t, call{method: "DELETE", path: "/v1/sa/queries/" + strconv.FormatInt(q.ID, 10), key: k, want: 404})
	h.storedWebhook(t, "sa", k)
}
