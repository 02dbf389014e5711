package session

import (
	"strings"
	"testing"

	"github.com/alertd/alertd/actors/delivery"
	"github.com/alertd/alertd/protocol"
)

// b2bSockets opens n realtime sessions and one tweet-only session of one
// account; it returns them and their connections (tweet-only last).
func b2bSockets(t *testing.T, d testDeps, key, acct string, n int) ([]Socket, []*fakeConn) {
	t.Helper()
	var socks []Socket
	var conns []*fakeConn
	for range n {
		c := newFakeConn("192.0.2.40")
		s := NewRealtime(d.Deps)
		open(s, c)
		s.Message(true, loginFrame(key))
		wantOp(t, c.frames()[1], "4")
		c.take()
		socks, conns = append(socks, s), append(conns, c)
	}
	slot, ok := d.Limits.Reserve(B2BQuota(acct), protocol.DTWSConns)
	if !ok {
		t.Fatal("no slot for the tweet-only socket")
	}
	c := newFakeConn("192.0.2.40")
	s := NewTweetOnly(d.Deps, key, acct, slot)
	open(s, c)
	c.take()
	return append(socks, s), append(conns, c)
}

// gotPost reports whether frames hold exactly one event, of post id.
func gotPost(frames []string, id string) bool {
	return len(frames) == 1 && strings.Contains(frames[0], `"id":"`+id+`"`)
}

// TestB2BSocketsShareOneSubscription: the sockets of one account hear its
// handles through one group (one hub entry per handle, whatever the number
// of sockets); a target added reaches every socket, a removed one leaves
// every socket, a socket that closes leaves the others subscribed, and the
// last one out leaves nothing behind.
func TestB2BSocketsShareOneSubscription(t *testing.T) {
	d := newTestDeps(t)
	key, acct := d.issue(t, "enterprise", nil, "alpha")
	other, _ := d.issue(t, "enterprise", nil, "alpha")
	socks, conns := b2bSockets(t, d, key, acct, 3)
	oc := newFakeConn("192.0.2.41")
	os := NewRealtime(d.Deps)
	open(os, oc)
	os.Message(true, loginFrame(other))
	oc.take()

	if n := len(d.Hub.Subscribers(delivery.HandleTopic("alpha"))); n != 5 {
		t.Fatalf("alpha reaches %d sockets, want 5", n)
	}
	if n := len(d.groups.m); n != 2 {
		t.Fatalf("%d groups, want one per account", n)
	}
	if g := d.groups.m[acct].g; g.Members() != 4 || g.Handles() != 1 {
		t.Fatalf("account's group: %d members, %d handles; want 4 and 1", g.Members(), g.Handles())
	}

	lists := delivery.Lists{Hub: d.Hub, Product: protocol.ProductB2B}
	lists.TargetAdded(acct, "beta")
	lists.TargetAdded(acct, "beta") // a second notice of one change is harmless
	if n := d.Hub.Publish(delivery.HandleTopic("beta"), postEvent("beta", "1")); n != 4 {
		t.Fatalf("beta reached %d sockets, want the account's 4", n)
	}
	for i, c := range conns {
		if f := c.take(); !gotPost(f, "1") {
			t.Fatalf("socket %d got %q, want beta's post once", i, f)
		}
	}

	lists.TargetRemoved(acct, "alpha")
	if n := d.Hub.Publish(delivery.HandleTopic("alpha"), postEvent("alpha", "2")); n != 1 {
		t.Fatalf("alpha reached %d sockets after its removal, want the other account's 1", n)
	}
	for i, c := range conns {
		if f := c.take(); len(f) != 0 {
			t.Fatalf("socket %d got %q after alpha was removed", i, f)
		}
	}
	if !gotPost(oc.take(), "2") {
		t.Fatal("the other account's socket lost alpha")
	}

	socks[0].Closed(ReasonClientClosed)
	socks[3].Closed(ReasonClientClosed)
	d.Hub.Publish(delivery.HandleTopic("beta"), postEvent("beta", "3"))
	for i, c := range conns {
		open := i == 1 || i == 2
		if f := c.take(); gotPost(f, "3") != open {
			t.Fatalf("socket %d (open %v) got %q", i, open, f)
		}
	}
	socks[1].Closed(ReasonClientClosed)
	socks[2].Closed(ReasonClientClosed)
	os.Closed(ReasonClientClosed)
	if d.Hub.Topics() != 0 || len(d.groups.m) != 0 || d.Limits.Held(B2BQuota(acct)) != 0 {
		t.Fatalf("left behind: %d topics, %d groups, %d slots", d.Hub.Topics(), len(d.groups.m), d.Limits.Held(B2BQuota(acct)))
	}
}

// TestB2BGroupFollowsRenames: a rename of a target reaches every socket of
// the account, and the group leaves the new handle too when it closes.
func TestB2BGroupFollowsRenames(t *testing.T) {
	d := newTestDeps(t)
	key, acct := d.issue(t, "enterprise", nil, "alpha")
	socks, conns := b2bSockets(t, d, key, acct, 2)
	d.Hub.Rename("alpha", "alpha2")
	if n := d.Hub.Publish(delivery.HandleTopic("alpha2"), postEvent("alpha2", "1")); n != 3 {
		t.Fatalf("the new handle reached %d sockets, want 3", n)
	}
	for i, c := range conns {
		if f := c.take(); !gotPost(f, "1") {
			t.Fatalf("socket %d got %q", i, f)
		}
	}
	closeSockets(socks)
	if d.Hub.Topics() != 0 {
		t.Fatalf("%d topics left", d.Hub.Topics())
	}
}

// TestB2BGroupReadsTargetsAfresh: once the last socket of an account closed,
// the next one reads the target list again (nothing stale is kept).
func TestB2BGroupReadsTargetsAfresh(t *testing.T) {
	d := newTestDeps(t)
	key, acct := d.issue(t, "enterprise", nil, "alpha")
	socks, _ := b2bSockets(t, d, key, acct, 1)
	closeSockets(socks)
	d.Targets.(fakeTargets)[acct] = []string{"beta", "gamma"}
	c := newFakeConn("192.0.2.42")
	s := NewRealtime(d.Deps)
	open(s, c)
	s.Message(true, loginFrame(key))
	if f := c.frames(); len(f) != 2 || !strings.Contains(f[1], `"handles":2,`) {
		t.Fatalf("frames %q, want READY with 2 handles", f)
	}
	if d.Hub.Listened(delivery.HandleTopic("alpha")) || !d.Hub.Listened(delivery.HandleTopic("gamma")) {
		t.Fatal("the new group follows the old list")
	}
	s.Closed(ReasonClientClosed)
}

func closeSockets(socks []Socket) {
	for _, s := range socks {
		s.Closed(ReasonClientClosed)
	}
}
