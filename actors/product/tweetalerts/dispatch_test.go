package tweetalerts

import (
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/alertd/alertd/actors/webhook"
	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
)

type capture struct {
	mu  sync.Mutex
	out []webhook.Outgoing
}

func (c *capture) Publish(out []webhook.Outgoing) {
	c.mu.Lock()
	c.out = append(c.out, out...)
	c.mu.Unlock()
}

func TestDispatcher(t *testing.T) {
	r := NewRegistry(newMemStore(), nil)
	all := func(string) bool { return true }
	_, _, _, _ = r.Track(t.Context(), "a1", []string{"whale"}, 10, all)
	w, _ := r.AddWebhook(t.Context(), persistence.Webhook{AccountID: "a1", URL: "http://x"}, 5)
	clock := time.UnixMilli(1_700_000_000_000)
	cap := &capture{}
	d := &Dispatcher{Registry: r, Webhooks: cap, Limit: func(string) int { return 10 }, Now: func() time.Time { return clock }}
	tw := tweet("77", "whale", protocol.PostTypePost, "gm")
	tw.CreatedAt = clock.UnixMilli() - 100
	o := &protocol.Observation{Kind: protocol.KindPost, Post: tw}
	d.OnPost(o, clock.UnixMilli(), false) // not new: nothing
	d.OnPost(o, clock.UnixMilli(), true)
	if len(cap.out) != 1 || cap.out[0].EndpointID != w.ID || cap.out[0].DeliveryID != DeliveryID(w.ID, "77") {
		t.Fatalf("webhook deliveries %+v", cap.out)
	}
	var body map[string]any
	if err := json.Unmarshal(cap.out[0].Body, &body); err != nil || body["event"] != "tweet" || body["timestamp"] != float64(clock.UnixMilli()) {
		t.Errorf("body %s", cap.out[0].Body)
	}
}
