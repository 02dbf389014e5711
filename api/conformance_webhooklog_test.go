package api_test

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"
)

// webhookLog: a Tweet Alerts webhook receives a post; its delivery shows in
// the owner's log and the admin's, and is redelivered by id and by range.
func (h *harness) webhookLog(t *testing.T) {
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(204) }))
	defer rcv.Close()
	k := h.keys["xg"]
	r := h.send(t, call{method: "POST", path: "/v1/webhooks", key: k, body: map[string]any{"url": rcv.URL + "/hook"}, want: 201})
	var hook struct {
		ID int64 `json:"id"`
	}
	r.data(t, &hook)
	id := strconv.FormatInt(hook.ID, 10)
	defer h.send(t, call{method: "DELETE", path: "/v1/webhooks/" + id, key: k, want: 200})

	h.ingest(t, post("1860000000000000004", "post", "for the webhook", time.Now(), nil))
	var log struct {
		Deliveries []struct {
			DeliveryID string `json:"delivery_id"`
			State      string `json:"state"`
		} `json:"deliveries"`
	}
	r = h.eventually(t, call{method: "GET", path: "/v1/webhooks/" + id + "/deliveries", key: k}, func(r reply) bool {
		if r.status != 200 {
			return false
		}
		r.data(t, &log)
		return len(log.Deliveries) == 1 && log.Deliveries[0].State == "delivered"
	})
	did := log.Deliveries[0].DeliveryID
	h.send(t, call{method: "GET", path: "/v1/webhooks/" + id + "/deliveries?limit=1&cursor=x", key: k, want: 400})
	h.send(t, call{method: "GET", path: "/v1/webhooks/999999/deliveries", key: k, want: 404})
	h.send(t, call{method: "GET", path: "/v1/webhooks/" + id + "/deliveries", want: 401})

	admin := "/admin/v1/webhooks/" + id
	h.send(t, call{method: "GET", path: admin + "/deliveries?product=xg&limit=5", key: adminToken, want: 200})
	h.send(t, call{method: "GET", path: admin + "/deliveries?product=trend", key: adminToken, want: 400})
	h.send(t, call{method: "GET", path: admin + "/deliveries", key: "wrong", want: 401})
	h.send(t, call{method: "POST", path: admin + "/deliveries/" + did + "/redeliver", key: adminToken, want: 202})
	h.eventually(t, call{method: "GET", path: admin + "/deliveries", key: adminToken}, func(r reply) bool {
		return r.status == 200 && countAttempts(t, r) == 2
	})
	h.send(t, call{method: "POST", path: admin + "/deliveries/nope/redeliver", key: adminToken, want: 404})
	h.send(t, call{method: "POST", path: admin + "/redeliver", key: adminToken,
		body: map[string]any{"since": time.Now().Add(-time.Hour).UTC().Format(time.RFC3339), "states": []string{"delivered"}}, want: 202})
	h.send(t, call{method: "POST", path: admin + "/redeliver", key: adminToken, body: map[string]any{"since": "yesterday"}, want: 400})
	h.send(t, call{method: "POST", path: admin + "/redeliver", key: adminToken, body: map[string]any{}, want: 422})
	h.send(t, call{method: "POST", path: "/admin/v1/webhooks/999999/redeliver", key: adminToken,
		body: map[string]any{"since": time.Now().UTC().Format(time.RFC3339)}, want: 409})
}

// countAttempts is the number of attempts of the log's newest delivery.
func countAttempts(t *testing.T, r reply) int {
	var log struct {
		Deliveries []struct {
			Attempts []map[string]any `json:"attempts"`
		} `json:"deliveries"`
	}
	r.data(t, &log)
	if len(log.Deliveries) == 0 {
		return 0
	}
	return len(log.Deliveries[0].Attempts)
}
