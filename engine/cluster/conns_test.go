package cluster

import (
	"io"
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/alertd/alertd/actors/session"
	"github.com/alertd/alertd/protocol"
)

// connNode is one node's ConnLimit and ConnCounts over a feed that is not
// started: what it would announce waits in outEvents.
type connNode struct {
	id    string
	feed  *Feed
	limit *session.ConnLimit
	c     *ConnCounts
}

func newConnNode(t *testing.T, id string, now func() time.Time) *connNode {
	f := NewFeed("", id, slog.New(slog.NewTextHandler(io.Discard, nil)))
	l := session.NewConnLimit()
	c := ShareConns(f, l)
	c.now = now
	t.Cleanup(c.Stop)
	return &connNode{id: id, feed: f, limit: l, c: c}
}

// sent takes what n would have announced.
func (n *connNode) sent() []string {
	n.feed.mu.Lock()
	defer n.feed.mu.Unlock()
	out := n.feed.outEvents[EventConns]
	n.feed.outEvents, n.feed.nEvents = map[string][]string{}, 0
	return out
}

// deliver hands what from announced to to, as the feed would.
func deliver(from, to *connNode) { to.c.heard(from.id, from.sent()) }

// TestConnCounts: a quota's sockets on one node count on another once it
// heard, the release too; a node that asks gets the other's table after a
// reset; a node not heard from for deadAfter is forgotten.
func TestConnCounts(t *testing.T) {
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	now := func() time.Time { return clock }
	a, b := newConnNode(t, "A", now), newConnNode(t, "B", now)
	q := session.B2BQuota("acc_1")
	other := session.TweetAlertsQuota(protocol.ProductTweetAlerts, "acc_1")

	s1, ok1 := a.limit.Reserve(q, 3)
	_, ok2 := a.limit.Reserve(q, 3)
	if !ok1 || !ok2 {
		t.Fatal("A refused a slot under the limit")
	}
	deliver(a, b)
	if _, ok := b.limit.Reserve(q, 2); ok {
		t.Fatal("B took a third slot of a quota of 2 with two held on A")
	}
	if _, ok := b.limit.Reserve(other, 2); !ok {
		t.Fatal("B refused a slot of another quota")
	}
	s3, ok := b.limit.Reserve(q, 3)
	if !ok {
		t.Fatal("B refused the third slot of a quota of 3")
	}
	deliver(b, a)
	if _, ok := a.limit.Reserve(q, 3); ok {
		t.Fatal("A took a fourth slot of a quota of 3")
	}
	s1.Release()
	s1.Release() // once
	deliver(a, b)
	if got := b.c.others(q); got != 1 {
		t.Fatalf("B counts %d of A's slots after a release, want 1", got)
	}

	// A node that (re)starts listening asks; the other answers with its table.
	a.c.heard("B", []string{"sync"})
	if got := a.sent(); !slices.Equal(got, []string{"reset", encodeQuota(q, 1)}) {
		t.Errorf("A answered a sync with %q", got)
	}
	b.c.heard("A", []string{"reset"})
	if got := b.c.others(q); got != 0 {
		t.Errorf("B counts %d of A's slots after its reset, want 0", got)
	}
	b.c.heard("A", []string{encodeQuota(q, 1)})

	// A falls silent: B forgets it after deadAfter, not before.
	clock = clock.Add(deadAfter)
	b.c.expire()
	if got := b.c.others(q); got != 1 {
		t.Errorf("B forgot A at deadAfter: %d, want 1", got)
	}
	clock = clock.Add(time.Second)
	b.c.expire()
	if got := b.c.others(q); got != 0 {
		t.Errorf("B still counts %d of a dead node's slots", got)
	}
	s3.Release()
	if got := b.sent(); !slices.Equal(got, []string{encodeQuota(q, 0)}) {
		t.Errorf("B announced %q", got)
	}
}

// TestDecodeQuota: what encodeQuota writes reads back; anything else is
// refused.
func TestDecodeQuota(t *testing.T) {
	q := session.ProductQuota(protocol.ProductB2B, "acc_0123456789abcdef")
	if got, held, ok := decodeQuota(encodeQuota(q, 7)); !ok || got != q || held != 7 {
		t.Errorf("round trip: %v %d %v", got, held, ok)
	}
	for _, bad := range []string{"", "1,dt,acc", "x,dt,acc,1", "1,dt,acc,-1", "300,dt,acc,1", "1,dt,a,c,1"} {
		if _, _, ok := decodeQuota(bad); ok {
			t.Errorf("decodeQuota(%q) accepted", bad)
		}
	}
}
