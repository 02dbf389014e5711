package tweetalerts

import (
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/alertd/alertd/actors/handle"
	"github.com/alertd/alertd/actors/kit/kittest"
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
	d.Dispatch(tweet("78", "stranger", protocol.PostTypePost, "gm"), clock.UnixMilli()) // nobody tracks it
	d.Dispatch(tw, clock.UnixMilli())
	if len(cap.out) != 1 || cap.out[0].EndpointID != w.ID || cap.out[0].DeliveryID != DeliveryID(w.ID, "77") {
		t.Fatalf("webhook deliveries %+v", cap.out)
	}
	var body map[string]any
	if err := json.Unmarshal(cap.out[0].Body, &body); err != nil || body["event"] != "tweet" || body["timestamp"] != float64(clock.UnixMilli()) {
		t.Errorf("body %s", cap.out[0].Body)
	}
}

// TestMatcher: the matcher actor dispatches the new posts it hears, not
// re-observations.
func TestMatcher(t *testing.T) {
	k := kittest.Quiet(t)
	r := NewRegistry(newMemStore(), nil)
	_, _, _, _ = r.Track(t.Context(), "a1", []string{"whale"}, 10, func(string) bool { return true })
	if _, err := r.AddWebhook(t.Context(), persistence.Webhook{AccountID: "a1", URL: "http://x"}, 5); err != nil {
		t.Fatal(err)
	}
	cap := &capture{}
	m, err := StartMatcher(t.Context(), k, &Dispatcher{Registry: r, Webhooks: cap, Limit: func(string) int { return 10 }, Now: time.Now}, nil)
	if err != nil {
		t.Fatal(err)
	}
	seen := func(id string, isNew bool) *handle.PostSeen {
		return &handle.PostSeen{Handle: "whale", New: isNew, FirstSeen: 1,
			Obs: &protocol.Observation{Kind: protocol.KindPost, Post: tweet(id, "whale", protocol.PostTypePost, "gm")}}
	}
	m.Hear(seen("1", false))
	m.Hear(seen("2", true))
	if err := k.Barrier(t.Context()); err != nil {
		t.Fatal(err)
	}
	cap.mu.Lock()
	defer cap.mu.Unlock()
	if len(cap.out) != 1 || cap.out[0].DeliveryID[len(cap.out[0].DeliveryID)-2:] != "-2" {
		t.Errorf("deliveries %+v, want the new post only", cap.out)
	}
	m.Stop()
}
