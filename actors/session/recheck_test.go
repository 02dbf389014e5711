package session

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/alertd/alertd/actors/delivery"
	"github.com/alertd/alertd/actors/state/account"
	"github.com/alertd/alertd/protocol"
)

// opened is one socket of every kind, opened with one key each.
type opened struct {
	kind SocketKind
	sock Socket
	conn *fakeConn
}

// openEveryKind opens, for account acct, a realtime, a tweet-only and a
// /v1/ws socket with its dt_ key, a /v1/ws socket with an xg_ key and a
// cw product socket, and returns them with the keys' products.
func openEveryKind(t *testing.T, d testDeps) []opened {
	t.Helper()
	dt, acct := d.issue(t, "enterprise", nil, "alpha")
	var out []opened

	rc := newFakeConn("192.0.2.30")
	rt := NewRealtime(d.Deps)
	open(rt, rc)
	rt.Message(true, loginFrame(dt))
	wantOp(t, rc.frames()[1], "4")
	out = append(out, opened{KindRealtime, rt, rc})

	slot, _ := d.Limits.Reserve(B2BQuota(acct), protocol.DTWSConns)
	tc := newFakeConn("192.0.2.30")
	tw := NewTweetOnly(d.Deps, dt, acct, slot)
	open(tw, tc)
	out = append(out, opened{KindTweetOnly, tw, tc})

	pdt, _ := d.reg.Authenticate(dt, protocol.ProductB2B)
	xs, xc := openTweetAlerts(t, d, dt, pdt, func(string) bool { return true })
	xs.Message(true, []byte(`{"type":"subscribe","handles":["alpha"]}`))
	out = append(out, opened{KindTweetAlerts, xs, xc})

	xg, pxg := d.issueFor(t, protocol.ProductTweetAlerts, "pro", acct)
	gs, gc := openTweetAlerts(t, d, xg, pxg, func(string) bool { return true })
	out = append(out, opened{KindTweetAlerts, gs, gc})

	cw, pcw := d.issueFor(t, protocol.ProductCW, "", acct)
	slot, _ = d.Limits.Reserve(ProductQuota(protocol.ProductCW, acct), 10)
	pc := newFakeConn("192.0.2.30")
	ps := NewProduct(d.Deps, protocol.ProductCW, cw, pcw.AccountID,
		Scope{Topics: []delivery.Topic{delivery.AccountTopic(protocol.ProductCW, acct)}}, slot)
	open(ps, pc)
	out = append(out, opened{KindProduct, ps, pc})
	for _, o := range out {
		if o.conn.closed {
			t.Fatalf("%v socket closed at open", o.kind)
		}
	}
	return out
}

func closeAll(socks []opened, r CloseReason) {
	for _, o := range socks {
		o.sock.Closed(r)
	}
}

// TestEveryKindEndsWithItsKey: a key revoked, deactivated or expired closes
// every kind of socket it opened at the next re-check (one heartbeat
// interval), with the reason counted; a socket of another key stays.
func TestEveryKindEndsWithItsKey(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name   string
		end    func(t *testing.T, d testDeps, acct string, p protocol.Product, key string)
		reason CloseReason
	}{
		{"revoked", func(t *testing.T, d testDeps, acct string, p protocol.Product, _ string) {
			if _, err := d.reg.Issue(ctx, acct, p, account.Changes{}); err != nil { // reissue revokes
				t.Fatal(err)
			}
		}, ReasonKeyUnknown},
		{"deactivated", func(t *testing.T, d testDeps, _ string, _ protocol.Product, key string) {
			if err := d.reg.Deactivate(ctx, key); err != nil {
				t.Fatal(err)
			}
		}, ReasonKeyDeactivated},
		{"expired", func(t *testing.T, d testDeps, acct string, p protocol.Product, _ string) {
			past := d.Now().Add(-time.Second)
			pp := &past
			if _, err := d.reg.Change(ctx, acct, p, account.Changes{ExpiresAt: &pp}); err != nil {
				t.Fatal(err)
			}
		}, ReasonSubscriptionExpired},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := newTestDeps(t)
			socks := openEveryKind(t, d)
			acct := socks[1].sock.(*TweetOnly).account
			// The dt_ key ends; the xg_ and cw_ sockets keep theirs.
			c.end(t, d, acct, protocol.ProductB2B, socks[1].sock.(*TweetOnly).key)
			for _, o := range socks {
				o.conn.fire(d.Timings.HeartbeatInterval)
			}
			for i, o := range socks {
				want := i < 3
				if o.conn.closed != want {
					t.Fatalf("%v socket %d: closed %v, want %v", o.kind, i, o.conn.closed, want)
				}
			}
			if f := socks[0].conn.frames(); !strings.Contains(f[len(f)-1], `"op":3`) {
				t.Errorf("realtime socket ended without DISCONNECT: %q", f)
			}
			closeAll(socks, ReasonClosedByServer)
			for _, k := range []SocketKind{KindRealtime, KindTweetOnly, KindTweetAlerts} {
				if n := d.Stats.Closes(k, c.reason); n != 1 {
					t.Errorf("%v: %d closes for %v, want 1", k, n, c.reason)
				}
			}
			if d.Hub.Topics() != 0 || quotas(d.Limits) != 0 {
				t.Errorf("left %d topics, %d quotas", d.Hub.Topics(), quotas(d.Limits))
			}
		})
	}
}

// TestExpiryTimerEndsEveryKind: the subscription's end closes the socket
// when it passes, without waiting for the tick.
func TestExpiryTimerEndsEveryKind(t *testing.T) {
	d := newTestDeps(t)
	socks := openEveryKind(t, d)
	acct := socks[1].sock.(*TweetOnly).account
	for _, p := range []protocol.Product{protocol.ProductB2B, protocol.ProductTweetAlerts, protocol.ProductCW} {
		soon := d.Now().Add(10 * time.Second)
		ps := &soon
		if _, err := d.reg.Change(context.Background(), acct, p, account.Changes{ExpiresAt: &ps}); err != nil {
			t.Fatal(err)
		}
	}
	for _, o := range socks {
		o.conn.fire(d.Timings.HeartbeatInterval) // the tick sees the new end and arms its timer
	}
	for _, o := range socks {
		if o.conn.closed {
			t.Fatalf("%v socket closed before its end", o.kind)
		}
	}
	d.advance(10 * time.Second)
	for _, o := range socks {
		o.conn.fire(10 * time.Second)
		if !o.conn.closed {
			t.Errorf("%v socket open after its subscription ended", o.kind)
		}
	}
	closeAll(socks, ReasonClosedByServer)
	if n := d.Stats.Closes(KindProduct, ReasonSubscriptionExpired); n != 1 {
		t.Errorf("product closes for expiry: %d", n)
	}
}

// TestTargetRemovedReachesEverySocket: DELETE /v1/dt/targets/{handle}
// unsubscribes the handle on every socket of the account (realtime,
// tweet-only, and /v1/ws opened with the dt_ key).
func TestTargetRemovedReachesEverySocket(t *testing.T) {
	d := newTestDeps(t)
	socks := openEveryKind(t, d)
	acct := socks[1].sock.(*TweetOnly).account
	if n := len(d.Hub.Subscribers(delivery.HandleTopic("alpha"))); n != 3 {
		t.Fatalf("alpha has %d subscribers, want realtime, tweet-only and /v1/ws", n)
	}
	delivery.Lists{Hub: d.Hub, Product: protocol.ProductB2B}.TargetRemoved(acct, "alpha")
	if n := len(d.Hub.Subscribers(delivery.HandleTopic("alpha"))); n != 0 {
		t.Fatalf("alpha still has %d subscribers", n)
	}
	for _, o := range socks {
		o.conn.take()
	}
	d.Hub.Publish(delivery.HandleTopic("alpha"), postEvent("alpha", "9"))
	for _, o := range socks {
		if f := o.conn.take(); len(f) != 0 {
			t.Errorf("%v socket got %q after the target was removed", o.kind, f)
		}
	}
	if x := socks[2].sock.(*TweetAlerts); x.Active() != 0 {
		t.Errorf("/v1/ws socket still counts %d handles", x.Active())
	}
	closeAll(socks, ReasonClientClosed)
}

// TestPlanNarrowsRealtime: modules taken away at the next re-check stop
// their events; READY announced what the session delivers, so nothing is
// added.
func TestPlanNarrowsRealtime(t *testing.T) {
	d := newTestDeps(t)
	key, acct := d.issue(t, "enterprise", nil, "alpha")
	c := newFakeConn("192.0.2.31")
	s := NewRealtime(d.Deps)
	open(s, c)
	s.Message(true, loginFrame(key))
	c.take()
	d.Hub.Publish(delivery.HandleTopic("alpha"), postEvent("alpha", "1"))
	if f := c.take(); len(f) != 1 || !strings.Contains(f[0], `"ocr_text"`) {
		t.Fatalf("enterprise post frame %q", f)
	}
	plan, mods := "pro", []string{"follows"}
	if _, err := d.reg.Change(context.Background(), acct, protocol.ProductB2B, account.Changes{Plan: &plan, Modules: &mods}); err != nil {
		t.Fatal(err)
	}
	c.fire(d.Timings.HeartbeatInterval)
	d.Hub.Publish(delivery.HandleTopic("alpha"), postEvent("alpha", "2"))
	if f := c.take(); len(f) != 0 || c.closed {
		t.Fatalf("posts still delivered after realtime left the modules: %q (closed %v)", f, c.closed)
	}
	s.Closed(ReasonClientClosed)
}

// TestCloseReasons: the session's own reason wins over the transport's;
// without one the transport's counts; the open gauge follows.
func TestCloseReasons(t *testing.T) {
	d := newTestDeps(t)
	c := newFakeConn("192.0.2.32")
	s := NewRealtime(d.Deps)
	open(s, c)
	if d.Stats.Open(KindRealtime) != 1 {
		t.Fatalf("open gauge %d", d.Stats.Open(KindRealtime))
	}
	c.fire(d.Timings.LoginWindow)
	s.Closed(ReasonClientClosed) // the transport saw the client go; the session closed it first
	key, _ := d.issue(t, "pro", nil)
	c2 := newFakeConn("192.0.2.32")
	s2 := NewRealtime(d.Deps)
	open(s2, c2)
	s2.Message(true, loginFrame(key))
	s2.Closed(ReasonSlowConsumer)
	s2.Closed(ReasonClientClosed) // once only
	if d.Stats.Closes(KindRealtime, ReasonLoginTimeout) != 1 || d.Stats.Closes(KindRealtime, ReasonSlowConsumer) != 1 ||
		d.Stats.Closes(KindRealtime, ReasonClientClosed) != 0 || d.Stats.Open(KindRealtime) != 0 {
		var got []string
		d.Stats.EachClose(func(k SocketKind, r CloseReason, n uint64) { got = append(got, k.String()+"/"+r.String()) })
		t.Fatalf("closes %v, open %d", got, d.Stats.Open(KindRealtime))
	}
}

// TestProductSocketAborted: a product session subscribes before the 101
// (its frames go to the connection, which queues them) and an aborted
// upgrade releases the slot and every subscription.
func TestProductSocketAborted(t *testing.T) {
	d := newTestDeps(t)
	key, p := d.issueFor(t, protocol.ProductCW, "", "")
	topic := delivery.AccountTopic(protocol.ProductCW, p.AccountID)
	slot, _ := d.Limits.Reserve(ProductQuota(protocol.ProductCW, p.AccountID), 10)
	s := NewProduct(d.Deps, protocol.ProductCW, key, p.AccountID, Scope{Topics: []delivery.Topic{topic}, Items: []string{"whale"}}, slot)
	c := newFakeConn("192.0.2.33")
	s.Prepare(c)
	d.Hub.Publish(topic, delivery.NewFrame([]byte(`{"type":"community_change","data":{}}`), "whale", 0))
	d.Hub.Publish(topic, delivery.NewFrame([]byte(`{"type":"community_change","data":{}}`), "other", 0))
	if f := c.frames(); len(f) != 1 {
		t.Fatalf("frames before the socket opened: %q, want the one about whale", f)
	}
	s.Aborted()
	s.Aborted()
	if d.Hub.Topics() != 0 || quotas(d.Limits) != 0 {
		t.Fatalf("aborted socket left %d topics, %d quotas", d.Hub.Topics(), quotas(d.Limits))
	}
	var none uint64
	d.Stats.EachClose(func(SocketKind, CloseReason, uint64) { none++ })
	if none != 0 {
		t.Fatal("an aborted upgrade was counted as a closed socket")
	}
}
