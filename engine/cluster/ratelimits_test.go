package cluster

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/alertd/alertd/actors/product/casearch"
	"github.com/alertd/alertd/actors/state/account"
)

// rateNode is one node's account registry, CA Search quota and RateCounts
// over a feed that is not started, its flush goroutine stopped: the test
// takes its items itself.
type rateNode struct {
	id    string
	feed  *Feed
	reg   *account.Registry
	quota *casearch.Quota
	c     *RateCounts
}

func newRateNode(t *testing.T, id string) *rateNode {
	f := NewFeed("", id, slog.New(slog.NewTextHandler(io.Discard, nil)))
	n := &rateNode{id: id, feed: f, reg: account.NewRegistry(nil, nil), quota: casearch.NewQuota(casearch.QuotaOptions{})}
	n.c = ShareRates(f, n.reg)
	n.c.ShareQuota(n.quota, func(context.Context) error { return nil })
	n.c.Stop()
	return n
}

// sendTo hands what n would announce now to the other node, as the feed
// would, after checking how many items it is.
func (n *rateNode) sendTo(t *testing.T, to *rateNode, want int) {
	t.Helper()
	items := n.c.items()
	if len(items) != want {
		t.Fatalf("%s announces %q, want %d items", n.id, items, want)
	}
	to.c.heard(n.id, items)
}

// TestRateCounts: REST requests and CA searches admitted on one node count
// on the other once it heard them (fixed clock: one window throughout).
func TestRateCounts(t *testing.T) {
	t.Parallel()
	a, b := newRateNode(t, "A"), newRateNode(t, "B")
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	allow := func(n *rateNode, family int) bool {
		ok, _ := n.reg.Limiter("acc_1").Allow(family, now, time.Second, 5)
		return ok
	}
	for range 3 {
		if !allow(a, 0) {
			t.Fatal("A refused under the limit")
		}
	}
	a.sendTo(t, b, 1) // one item: the window's latest count
	admitted := 0
	for range 5 {
		if allow(b, 0) {
			admitted++
		}
	}
	if admitted != 2 {
		t.Fatalf("B admitted %d after A's 3 at a limit of 5, want 2", admitted)
	}
	if !allow(b, 1) { // another family counts apart
		t.Fatal("B refused another family")
	}
	b.sendTo(t, a, 2)
	if allow(a, 0) {
		t.Fatal("A admitted over the limit after hearing B")
	}

	// CA Search: the day and the minute count both nodes' calls.
	for range 2 {
		if v := a.quota.Take("acc_1", 3, now); v.Err != nil {
			t.Fatalf("A refused a search: %v", v.Err)
		}
	}
	a.sendTo(t, b, 1)
	if v := b.quota.Take("acc_1", 3, now); v.Err != nil || v.DailyRemaining != 0 || v.MinuteRemaining != 17 {
		t.Fatalf("B's search: %+v, want admitted with 0 left today and 17 this minute", v)
	}
	b.sendTo(t, a, 1)
	if v := a.quota.Take("acc_1", 3, now); v.Err == nil {
		t.Fatal("A admitted a search over the day's allowance")
	}
}

func TestRateItemsRoundTrip(t *testing.T) {
	t.Parallel()
	start := time.UnixMilli(1_764_000_000_123)
	k, s, n, ok := decodeRate(encodeRate(rateKey{"acc_1", 3}, start, 7))
	if !ok || k != (rateKey{"acc_1", 3}) || !s.Equal(start) || n != 7 {
		t.Fatalf("rate round trip: %v %v %v %v", k, s, n, ok)
	}
	c := casearch.Counts{SecStart: start, SecN: 1, MinStart: start.Add(-time.Second), MinN: 2, Day: casearch.DayStart(start), Delta: 3}
	a, got, ok := decodeSearch(encodeSearch("acc_1", c))
	if !ok || a != "acc_1" || !got.SecStart.Equal(c.SecStart) || !got.MinStart.Equal(c.MinStart) || !got.Day.Equal(c.Day) ||
		got.SecN != 1 || got.MinN != 2 || got.Delta != 3 {
		t.Fatalf("search round trip: %q %+v %v", a, got, ok)
	}
	for _, bad := range []string{"r,16,a,1,1", "r,-1,a,1,1", "r,0,,1,1", "r,0,a,x,1", "r,0,a,1", "s,a,1,1,1,1,1", "s,a,1,1,1,1,1,-1"} {
		if _, _, _, ok := decodeRate(bad); ok {
			t.Errorf("decodeRate(%q) accepted", bad)
		}
		if _, _, ok := decodeSearch(bad); ok {
			t.Errorf("decodeSearch(%q) accepted", bad)
		}
	}
}
