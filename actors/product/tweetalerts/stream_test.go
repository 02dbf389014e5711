package tweetalerts

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/alertd/alertd/actors/webhook"
	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
)

// sink is a fake socket writer.
type sink struct {
	mu     sync.Mutex
	frames []string
}

func (s *sink) Send(f []byte) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.frames = append(s.frames, string(f))
	return true
}

func (s *sink) take() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.frames
	s.frames = nil
	return out
}

func frameTypes(t *testing.T, frames []string) []string {
	t.Helper()
	var out []string
	for _, f := range frames {
		var m map[string]any
		if err := json.Unmarshal([]byte(f), &m); err != nil {
			t.Fatalf("frame not JSON: %s", f)
		}
		out = append(out, fmt.Sprint(m["type"]))
	}
	return out
}

func TestSocketSubscribe(t *testing.T) {
	clock := time.UnixMilli(1_700_000_000_000)
	st := NewStream(60*time.Second, func() time.Time { return clock })
	out := &sink{}
	tracked := map[string]bool{"whale": true, "degen": true, "alpha": true}
	s := st.Open(out, "xg:a1", 2, func(h string) bool { return tracked[h] })

	s.Handle([]byte(`{"type":"ping"}`))
	if got := out.take(); fmt.Sprint(got) != `[{"type":"pong"}]` {
		t.Fatalf("ping: %v", got)
	}
	s.Handle([]byte(`{"type":"subscribe","handles":["whale","ghost","degen","alpha"]}`))
	got := out.take()
	if fmt.Sprint(frameTypes(t, got)) != "[error error ack]" {
		t.Fatalf("subscribe frames %v", got)
	}
	if !strings.Contains(got[0], "ghost") || !strings.Contains(got[1], "limit") {
		t.Errorf("errors %v", got[:2])
	}
	if got[2] != `{"type":"ack","action":"subscribe","handles":["whale","degen"],"active":2,"max":2}` {
		t.Errorf("ack %s", got[2])
	}
	// Already subscribed: acknowledged again, nothing added.
	s.Handle([]byte(`{"type":"subscribe","handles":["whale"]}`))
	if got := out.take(); fmt.Sprint(got) != `[{"type":"ack","action":"subscribe","handles":["whale"],"active":2,"max":2}]` {
		t.Errorf("resubscribe %v", got)
	}
	s.Handle([]byte(`{"type":"unsubscribe","handles":["degen","nope"]}`))
	if got := out.take(); fmt.Sprint(got) != `[{"type":"ack","action":"unsubscribe","handles":["degen","nope"],"active":1,"max":2}]` {
		t.Errorf("unsubscribe %v", got)
	}
	s.Handle([]byte(`{"type":"nope"}`))
	s.Handle([]byte(`not json`))
	if got := frameTypes(t, out.take()); fmt.Sprint(got) != "[error error]" {
		t.Errorf("bad frames answered %v", got)
	}
	if s.Active() != 1 {
		t.Errorf("active %d", s.Active())
	}
}

func TestStreamPublishRules(t *testing.T) {
	clock := time.UnixMilli(1_700_000_000_000)
	var mu sync.Mutex
	now := func() time.Time { mu.Lock(); defer mu.Unlock(); return clock }
	st := NewStream(60*time.Second, now)
	a1, a2, other := &sink{}, &sink{}, &sink{}
	all := func(string) bool { return true }
	s1 := st.Open(a1, "xg:a1", 10, all)
	s2 := st.Open(a2, "xg:a1", 10, all)
	so := st.Open(other, "xg:a2", 10, all)
	s1.Handle([]byte(`{"type":"subscribe","handles":["whale"]}`))
	s2.Handle([]byte(`{"type":"subscribe","handles":["whale"]}`))
	so.Handle([]byte(`{"type":"subscribe","handles":["degen"]}`))
	a1.take()
	a2.take()
	other.take()
	subAt := clock.UnixMilli()

	post := func(id string, createdAgo time.Duration, detected int64) {
		tw := tweet(id, "Whale", protocol.PostTypePost, "x")
		tw.CreatedAt = now().Add(-createdAgo).UnixMilli()
		a := protocol.NewTweetAlert(tw, detected)
		st.Publish(&a, detected)
	}
	post("1", time.Second, subAt)      // fresh, detected after subscribing: sent to both
	post("2", 61*time.Second, subAt)   // too old
	post("3", 59*time.Second, subAt+5) // young enough
	post("4", time.Second, subAt-1)    // detected before the subscription
	for _, s := range []*sink{a1, a2} {
		var ids []string
		for _, f := range s.take() {
			var m map[string]any
			_ = json.Unmarshal([]byte(f), &m)
			ids = append(ids, fmt.Sprint(m["tweet_id"]))
		}
		if fmt.Sprint(ids) != "[1 3]" {
			t.Errorf("alerts %v, want [1 3]", ids)
		}
	}
	if got := other.take(); len(got) != 0 {
		t.Errorf("socket of another handle got %v", got)
	}
	if st.Sent() != 4 {
		t.Errorf("sent %d", st.Sent())
	}
	// Untracking unsubscribes the owner's sockets only; closing drops the rest.
	st.Untracked("xg:a1", "whale")
	post("5", time.Second, subAt+10)
	if len(a1.take())+len(a2.take()) != 0 {
		t.Errorf("alerts after untrack")
	}
	s1.Close()
	s2.Close()
	so.Close()
	st.mu.RLock()
	defer st.mu.RUnlock()
	if len(st.byHandle) != 0 || len(st.byOwner) != 0 {
		t.Errorf("stream keeps state after every socket closed: %v %v", st.byHandle, st.byOwner)
	}
}

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
	st := NewStream(time.Minute, func() time.Time { return clock })
	out := &sink{}
	st.Open(out, "xg:a1", 5, all).Handle([]byte(`{"type":"subscribe","handles":["whale"]}`))
	out.take()
	cap := &capture{}
	d := &Dispatcher{Registry: r, Stream: st, Webhooks: cap, Limit: func(string) int { return 10 }, Now: func() time.Time { return clock }}
	tw := tweet("77", "whale", protocol.PostTypePost, "gm")
	tw.CreatedAt = clock.UnixMilli() - 100
	o := &protocol.Observation{Kind: protocol.KindPost, Post: tw}
	d.OnPost(o, clock.UnixMilli(), false) // not new: nothing
	d.OnPost(o, clock.UnixMilli(), true)
	if n := len(out.take()); n != 1 {
		t.Errorf("%d alerts on the socket, want 1", n)
	}
	if len(cap.out) != 1 || cap.out[0].EndpointID != w.ID || cap.out[0].DeliveryID != DeliveryID(w.ID, "77") {
		t.Fatalf("webhook deliveries %+v", cap.out)
	}
	var body map[string]any
	if err := json.Unmarshal(cap.out[0].Body, &body); err != nil || body["event"] != "tweet" || body["timestamp"] != float64(clock.UnixMilli()) {
		t.Errorf("body %s", cap.out[0].Body)
	}
}
