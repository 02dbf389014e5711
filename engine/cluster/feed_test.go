package cluster

import (
	"context"
	"io"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/alertd/alertd/persistence/pgtest"
)

// TestFeedPayloads: accounts go in as few NOTIFY payloads as fit under
// PostgreSQL's limit, each naming its node and registry; none means all.
func TestFeedPayloads(t *testing.T) {
	f := NewFeed("", "node1", slog.New(slog.NewTextHandler(io.Discard, nil)))
	p := pending{}
	p.add(RegAccounts)
	p.add(RegAccounts, "ignored") // all of it already
	p.add(RegTargets, "b", "a")
	got := f.payloads(p, nil)
	if want := []string{"node1 accounts", "node1 targets a b"}; !slices.Equal(got, want) {
		t.Fatalf("payloads %q, want %q", got, want)
	}
	p = pending{}
	var accts []string
	for i := range 2000 {
		accts = append(accts, "acct_"+strings.Repeat("x", 4)+string(rune('a'+i%26))+strings.Repeat("0", i%7)+itoa(i))
	}
	p.add(RegTargets, accts...)
	got = f.payloads(p, nil)
	if len(got) < 2 {
		t.Fatalf("2,000 accounts in %d payload(s)", len(got))
	}
	var back []string
	for _, s := range got {
		if len(s) > maxPayload {
			t.Errorf("payload of %d bytes, more than %d", len(s), maxPayload)
		}
		fields := strings.Fields(s)
		if fields[0] != "node1" || fields[1] != RegTargets || len(fields) < 3 {
			t.Errorf("payload starts %q", fields[:min(3, len(fields))])
		}
		back = append(back, fields[2:]...)
	}
	if slices.Sort(accts); !slices.Equal(back, accts) {
		t.Errorf("the payloads carry %d accounts, want the %d given once each", len(back), len(accts))
	}
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var b []byte
	for ; i > 0; i /= 10 {
		b = append([]byte{byte('0' + i%10)}, b...)
	}
	return string(b)
}

// reloads records a registry's reloads for a test.
type reloads chan []string

func (r reloads) reload(_ context.Context, accounts []string) error {
	r <- accounts
	return nil
}

// TestFeedCarriesChanges: a change announced by one node reloads the
// accounts it names on the other, and only there; registries the other
// node does not keep are ignored.
func TestFeedCarriesChanges(t *testing.T) {
	url := pgtest.Migrated(t)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	targetsA, targetsB, accountsB := reloads(make(chan []string, 10)), reloads(make(chan []string, 10)), reloads(make(chan []string, 10))
	a := NewFeed(url, "A", log)
	a.Register(RegTargets, targetsA.reload)
	b := NewFeed(url, "B", log)
	b.Register(RegTargets, targetsB.reload)
	b.Register(RegAccounts, accountsB.reload)
	eventsB := make(chan []string, 10)
	b.HandleEvents("ev", func(node string, items []string) {
		if node != "A" {
			t.Errorf("event from %q, want A", node)
		}
		eventsB <- items
	})
	for _, f := range []*Feed{a, b} {
		f.Start()
		t.Cleanup(f.Stop)
		<-f.listening
	}
	for _, r := range []reloads{targetsA, targetsB, accountsB} {
		if got := <-r; got != nil { // once LISTEN holds: in full
			t.Fatalf("first reload of %q, want all (nil)", got)
		}
	}

	a.Changed(RegTargets, "acct_2", "acct_1")
	if got := <-targetsB; !slices.Equal(got, []string{"acct_1", "acct_2"}) {
		t.Fatalf("B reloaded targets of %q, want [acct_1 acct_2]", got)
	}
	a.Changed(RegAccounts) // A keeps no accounts registry: announcing is enough
	if got := <-accountsB; got != nil {
		t.Fatalf("B reloaded accounts %q, want all (nil)", got)
	}
	a.Changed("unknown", "x")
	a.Changed(RegTargets, "fence") // in order after the unknown one
	if got := <-targetsB; !slices.Equal(got, []string{"fence"}) {
		t.Fatalf("B reloaded targets of %q, want [fence]", got)
	}
	// Events are not coalesced: each is heard once, in order.
	for _, it := range []string{"x", "x", "y"} {
		a.Publish("ev", it)
	}
	var events []string
	for len(events) < 3 {
		events = append(events, <-eventsB...)
	}
	if !slices.Equal(events, []string{"x", "x", "y"}) {
		t.Fatalf("B heard events %q, want [x x y]", events)
	}
	// B's announcement comes after A's on A's connection too: had A
	// reloaded its own, those would come first.
	b.Changed(RegTargets, "acct_3")
	if got := <-targetsA; !slices.Equal(got, []string{"acct_3"}) {
		t.Fatalf("A reloaded targets of %q first, want [acct_3] (not its own announcements)", got)
	}
}
