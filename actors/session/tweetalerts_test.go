package session

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/alertd/alertd/actors/delivery"
	"github.com/alertd/alertd/actors/state/account"
	"github.com/alertd/alertd/protocol"
)

// issueFor issues a key of product p on plan (into account acct, "" for a
// new one) and returns it with its principal.
func (d testDeps) issueFor(t testing.TB, p protocol.Product, plan, acct string) (string, account.Principal) {
	t.Helper()
	c := account.Changes{}
	if plan != "" {
		c.Plan = &plan
	}
	is, err := d.reg.Issue(context.Background(), acct, p, c)
	if err != nil {
		t.Fatal(err)
	}
	pr, reason := d.reg.Authenticate(is.Key, p)
	if reason != account.OK {
		t.Fatalf("fresh key refused: %v", reason)
	}
	return is.Key, pr
}

// openTweetAlerts opens a /v1/ws session of a key, as the edge does.
func openTweetAlerts(t *testing.T, d testDeps, key string, p account.Principal, tracked func(string) bool) (*TweetAlerts, *fakeConn) {
	t.Helper()
	handles, conns, ok := TweetAlertsLimits(&p)
	if !ok {
		t.Fatal("no WebSocket on this plan")
	}
	slot, ok := d.Limits.Reserve(TweetAlertsQuota(p.Product, p.AccountID), conns)
	if !ok {
		t.Fatal("no slot")
	}
	c := newFakeConn("192.0.2.20")
	s := NewTweetAlerts(d.Deps, &p, key, handles, tracked, slot)
	open(s, c)
	return s, c
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

func (c *fakeConn) take() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]string, len(c.sent))
	for i, b := range c.sent {
		out[i] = string(b)
	}
	c.sent = nil
	return out
}

func TestTweetAlertsSubscribe(t *testing.T) {
	d := newTestDeps(t)
	key, p := d.issueFor(t, protocol.ProductTweetAlerts, "starter", "")
	tracked := map[string]bool{"whale": true, "degen": true, "alpha": true, "beta": true}
	s, c := openTweetAlerts(t, d, key, p, func(h string) bool { return tracked[h] })
	max, _, _ := TweetAlertsLimits(&p)

	s.Message(true, []byte(`{"type":"ping"}`))
	if got := c.take(); fmt.Sprint(got) != `[{"type":"pong"}]` {
		t.Fatalf("ping: %v", got)
	}
	var many []string
	for i := range max + 1 {
		h := fmt.Sprintf("h%d", i)
		tracked[h] = true
		many = append(many, `"`+h+`"`)
	}
	s.Message(true, []byte(`{"type":"subscribe","handles":["whale","ghost",`+strings.Join(many, ",")+`]}`))
	got := c.take()
	if fmt.Sprint(frameTypes(t, got)) != "[error error ack]" {
		t.Fatalf("subscribe frames %v", got)
	}
	if !strings.Contains(got[0], "ghost") || !strings.Contains(got[1], "limit") {
		t.Errorf("errors %v", got[:2])
	}
	if !strings.Contains(got[2], fmt.Sprintf(`"active":%d,"max":%d`, max, max)) {
		t.Errorf("ack %s", got[2])
	}
	// Already subscribed: acknowledged again, nothing added.
	s.Message(true, []byte(`{"type":"subscribe","handles":["whale"]}`))
	if got := c.take(); fmt.Sprint(got) != fmt.Sprintf(`[{"type":"ack","action":"subscribe","handles":["whale"],"active":%d,"max":%d}]`, max, max) {
		t.Errorf("resubscribe %v", got)
	}
	s.Message(true, []byte(`{"type":"unsubscribe","handles":["h0","nope"]}`))
	if got := c.take(); fmt.Sprint(got) != fmt.Sprintf(`[{"type":"ack","action":"unsubscribe","handles":["h0","nope"],"active":%d,"max":%d}]`, max-1, max) {
		t.Errorf("unsubscribe %v", got)
	}
	s.Message(true, []byte(`{"type":"nope"}`))
	s.Message(true, []byte(`not json`))
	if got := frameTypes(t, c.take()); fmt.Sprint(got) != "[error error]" {
		t.Errorf("bad frames answered %v", got)
	}
	if s.Active() != max-1 {
		t.Errorf("active %d", s.Active())
	}
	s.Closed(ReasonClientClosed)
	if d.Hub.Topics() != 0 || quotas(d.Limits) != 0 {
		t.Fatalf("closed socket left %d topics, %d quotas", d.Hub.Topics(), quotas(d.Limits))
	}
}

// TestTweetAlertsPublishRules: alerts of subscribed handles only, for posts
// younger than the limit detected after the subscription; a handle that
// leaves the list is unsubscribed on the owner's sockets only.
func TestTweetAlertsPublishRules(t *testing.T) {
	d := newTestDeps(t)
	all := func(string) bool { return true }
	key, p := d.issueFor(t, protocol.ProductTweetAlerts, "pro", "")
	_, p2 := d.issueFor(t, protocol.ProductTweetAlerts, "pro", "")
	s1, c1 := openTweetAlerts(t, d, key, p, all)
	s2, c2 := openTweetAlerts(t, d, key, p, all)
	so, co := openTweetAlerts(t, d, "", p2, all) // a dashboard session of another account
	s1.Message(true, []byte(`{"type":"subscribe","handles":["whale"]}`))
	s2.Message(true, []byte(`{"type":"subscribe","handles":["whale"]}`))
	so.Message(true, []byte(`{"type":"subscribe","handles":["degen"]}`))
	c1.take()
	c2.take()
	co.take()
	subAt := d.Now().UnixMilli()

	post := func(id string, createdAgo time.Duration, detected int64) {
		e := postEvent("whale", id)
		e.CreatedAt = d.Now().Add(-createdAgo).UnixMilli()
		e.Tweet.CreatedAt, e.DetectedAt = e.CreatedAt, detected
		d.Hub.Publish(delivery.HandleTopic("whale"), e)
	}
	post("1", time.Second, subAt)      // fresh, detected after subscribing: sent to both
	post("2", 61*time.Second, subAt)   // too old
	post("3", 59*time.Second, subAt+5) // young enough
	post("4", time.Second, subAt-1)    // detected before the subscription
	for _, c := range []*fakeConn{c1, c2} {
		var ids []string
		for _, f := range c.take() {
			var m map[string]any
			_ = json.Unmarshal([]byte(f), &m)
			if m["type"] != "alert" {
				t.Fatalf("frame %s", f)
			}
			ids = append(ids, fmt.Sprint(m["tweet_id"]))
		}
		if fmt.Sprint(ids) != "[1 3]" {
			t.Errorf("alerts %v, want [1 3]", ids)
		}
	}
	if got := co.take(); len(got) != 0 {
		t.Errorf("socket of another handle got %v", got)
	}
	// Untracking unsubscribes the owner's sockets only.
	delivery.Lists{Hub: d.Hub, Product: protocol.ProductTweetAlerts}.TargetRemoved(p.AccountID, "whale")
	if s1.Active() != 0 || s2.Active() != 0 || so.Active() != 1 {
		t.Fatalf("after untrack: active %d %d %d", s1.Active(), s2.Active(), so.Active())
	}
	post("5", time.Second, subAt+10)
	if len(c1.take())+len(c2.take()) != 0 {
		t.Errorf("alerts after untrack")
	}
	for _, s := range []*TweetAlerts{s1, s2, so} {
		s.Closed(ReasonClientClosed)
	}
	if d.Hub.Topics() != 0 || quotas(d.Limits) != 0 {
		t.Errorf("closed sockets left %d topics, %d quotas", d.Hub.Topics(), quotas(d.Limits))
	}
}

// TestTweetAlertsNarrowsToPlan: a lower plan drops the handles subscribed
// last at the next re-check; a plan without a WebSocket closes the socket.
func TestTweetAlertsNarrowsToPlan(t *testing.T) {
	d := newTestDeps(t)
	key, p := d.issueFor(t, protocol.ProductTweetAlerts, "pro", "")
	s, c := openTweetAlerts(t, d, key, p, func(string) bool { return true })
	lower, _ := protocol.FindTweetAlertsPlan("starter")
	var hs []string
	for i := range lower.Accounts + 2 {
		hs = append(hs, fmt.Sprintf(`"h%02d"`, i))
		s.Message(true, []byte(`{"type":"subscribe","handles":[`+hs[i]+`]}`))
		d.advance(time.Millisecond) // each later than the one before
	}
	c.take()
	plan := "starter"
	if _, err := d.reg.Change(context.Background(), p.AccountID, protocol.ProductTweetAlerts, account.Changes{Plan: &plan}); err != nil {
		t.Fatal(err)
	}
	c.fire(d.Timings.HeartbeatInterval)
	got := c.take()
	if s.Active() != lower.Accounts || len(got) != 1 || !strings.Contains(got[0], fmt.Sprintf("h%02d, h%02d", lower.Accounts+1, lower.Accounts)) {
		t.Fatalf("narrowed to %d handles, frames %v", s.Active(), got)
	}
	plan = "free"
	if _, err := d.reg.Change(context.Background(), p.AccountID, protocol.ProductTweetAlerts, account.Changes{Plan: &plan}); err != nil {
		t.Fatal(err)
	}
	c.fire(d.Timings.HeartbeatInterval)
	if !c.closed || c.closeCode != ClosePolicy {
		t.Fatalf("free plan: closed %v code %d", c.closed, c.closeCode)
	}
	s.Closed(ReasonClosedByServer)
	if n := d.Stats.Closes(KindTweetAlerts, ReasonPlanChanged); n != 1 {
		t.Errorf("plan_changed closes %d, want 1", n)
	}
}

// TestTweetAlertsDropsInactive: a subscribed handle that is no longer an
// active one of the tracked list (past the plan after a downgrade) stops at
// the next re-check, even when the count fits the plan.
func TestTweetAlertsDropsInactive(t *testing.T) {
	d := newTestDeps(t)
	key, p := d.issueFor(t, protocol.ProductTweetAlerts, "pro", "")
	var mu sync.Mutex
	inactive := map[string]bool{}
	s, c := openTweetAlerts(t, d, key, p, func(h string) bool {
		mu.Lock()
		defer mu.Unlock()
		return !inactive[h]
	})
	s.Message(true, []byte(`{"type":"subscribe","handles":["old","new"]}`))
	c.take()
	mu.Lock()
	inactive["new"] = true
	mu.Unlock()
	c.fire(d.Timings.HeartbeatInterval)
	got := c.take()
	if s.Active() != 1 || len(got) != 1 || !strings.Contains(got[0], "unsubscribed new") {
		t.Fatalf("%d handles left, frames %v", s.Active(), got)
	}
}

// A Telegram dashboard session's socket ends at its next re-check once the
// link it was opened through is removed; until then it stays.
func TestTweetAlertsEndsWithTelegramLink(t *testing.T) {
	d := newTestDeps(t)
	_, p := d.issueFor(t, protocol.ProductTweetAlerts, "pro", "")
	handles, conns, _ := TweetAlertsLimits(&p)
	slot, ok := d.Limits.Reserve(TweetAlertsQuota(p.Product, p.AccountID), conns)
	if !ok {
		t.Fatal("no slot")
	}
	var linked atomic.Bool
	linked.Store(true)
	c := newFakeConn("192.0.2.21")
	s := NewTweetAlerts(d.Deps, &p, "", handles, func(string) bool { return true }, slot).BoundToLink(linked.Load)
	open(s, c)
	c.fire(d.Timings.HeartbeatInterval)
	if c.closed {
		t.Fatal("closed while the link stands")
	}
	linked.Store(false)
	c.fire(d.Timings.HeartbeatInterval)
	if !c.closed {
		t.Fatal("still open after the link was removed")
	}
	s.Closed(ReasonClosedByServer)
	if n := d.Stats.Closes(KindTweetAlerts, ReasonKeyUnknown); n != 1 {
		t.Errorf("closes counted as key_unknown: %d, want 1", n)
	}
}
