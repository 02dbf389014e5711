package eca

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/alertd/alertd/actors/delivery"
	"github.com/alertd/alertd/actors/delivery/deliverytest"
	"github.com/alertd/alertd/protocol"
)

// Two watchlists over one store are two nodes: an entry created, removed
// or matched on one is reloaded by the other from the account announced.
func TestReloadByAccount(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := &memStore{}
	clk := &clock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	a := NewWatchlist(st, syncJobs{}, 4*time.Hour, clk.now, quiet)
	b := NewWatchlist(st, syncJobs{}, 4*time.Hour, clk.now, quiet)
	var heard []string
	a.OnChange(func(acct string) { heard = append(heard, acct) })
	e, err := a.Create(ctx, "x", Criteria{Ticker: "WIF"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Create(ctx, "y", Criteria{Ticker: "WIF"}); err != nil {
		t.Fatal(err)
	}
	if err := b.Reload(ctx, []string{"x"}); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(len(b.Active("x")), len(b.Active("y"))); got != "1 0" {
		t.Fatalf("after reloading x: %s", got)
	}
	if err := a.Remove(ctx, "x", e.ID); err != nil {
		t.Fatal(err)
	}
	if err := b.Reload(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(len(b.Active("x")), len(b.Active("y")), heard); got != "0 1 [x y x]" {
		t.Fatalf("after the remove and a full reload: %s", got)
	}
	if hs := b.match(launched("MINT", "CRE", "WIF", "Dog"), clk.now()); hitKeys(hs) != fmt.Sprintf("[y/%d/ticker]", e.ID+1) {
		t.Fatalf("b matches %s", hitKeys(hs))
	}
}

// Two detectors (two nodes) that both hold an entry and both hear its
// launch: with RecordFirst only the one whose record moved the entry to
// matched publishes, so a socket that hears both nodes gets one match.
func TestRecordFirstMatchesOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := &memStore{}
	clk := &clock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	hub := delivery.NewHub() // both nodes' frames reach this socket
	start := func() *Service {
		s, err := New(ctx, quietKit(t), Config{Store: st, Jobs: syncJobs{}, Hub: hub, Expiry: 4 * time.Hour,
			MatchesTTL: 24 * time.Hour, Now: clk.now, Log: quiet, RecordFirst: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(s.Stop)
		return s
	}
	a, b := start(), start()
	var announced []string
	var mu sync.Mutex
	for _, s := range []*Service{a, b} {
		s.Watchlist.OnChange(func(acct string) { mu.Lock(); announced = append(announced, acct); mu.Unlock() })
	}
	sock := deliverytest.Subscribe(t, hub, delivery.AccountTopic(protocol.ProductECA, "a"))
	e1, err := a.Watchlist.Create(ctx, "a", Criteria{Ticker: "WIF"})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Watchlist.Reload(ctx, []string{"a"}); err != nil {
		t.Fatal(err)
	}
	launch := &protocol.Observation{Kind: protocol.KindLaunchpad, Launchpad: launched("MINT", "CRE", "WIF", "Dog")}
	a.Observe(launch)
	b.Observe(launch)
	sock.WaitFrames(t, 1)
	if err := a.Watchlist.Reload(ctx, []string{"a"}); err != nil { // as the matching node's announcement makes it
		t.Fatal(err)
	}
	// Barrier: a second entry's match, heard by b (after the first launch)
	// and then a, is the socket's second frame.
	e2, err := a.Watchlist.Create(ctx, "a", Criteria{ContractAddress: "MINT2"})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Watchlist.Reload(ctx, []string{"a"}); err != nil {
		t.Fatal(err)
	}
	launch2 := &protocol.Observation{Kind: protocol.KindLaunchpad, Launchpad: launched("MINT2", "CRE", "ZZZ", "Zed")}
	b.Observe(launch2)
	a.Observe(launch2)
	frames := sock.WaitFrames(t, 2)
	for i, id := range []int64{e1.ID, e2.ID} {
		if !strings.Contains(frames[i], fmt.Sprintf(`"watchlist_entry":{"id":%d,`, id)) {
			t.Fatalf("frame %d: %s, want the match of entry %d", i, frames[i], id)
		}
	}
	if n, _ := a.TotalMatches(ctx, "a"); n != 2 {
		t.Fatalf("%d matches recorded, want 2", n)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(announced) < 4 { // two creations, two matches recorded
		t.Errorf("announced %v, want the creations and the matches recorded", announced)
	}
}
