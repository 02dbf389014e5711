package watchlist_test

import (
	"context"
	"slices"
	"testing"

	"github.com/alertd/alertd/actors/product/watchlist/watchtest"
)

// TestReload: two registries over one store, as two nodes of a cluster:
// what one writes it announces (OnChange), and the other's Reload of that
// account makes its memory match, removals, settings and webhooks
// included, leaving other accounts alone.
func TestReload(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := watchtest.NewStore()
	a, b := newReg(t, st), newReg(t, st)
	var changed []string
	a.OnChange(func(acct string) { changed = append(changed, acct) })
	reload := func() {
		t.Helper()
		if err := b.Reload(ctx, changed); err != nil {
			t.Fatalf("Reload: %v", err)
		}
		changed = nil
	}

	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	_, err := a.Add(ctx, "a1", "alice", opts{Digest: true}, 5)
	must(err)
	_, err = a.Add(ctx, "a1", "bob", opts{}, 5)
	must(err)
	_, err = b.Add(ctx, "b1", "alice", opts{}, 5) // b's own account: not named, kept
	must(err)
	_, err = a.UpdateSettings(ctx, "a1", func(s *settings) error { s.Min = 7; return nil })
	must(err)
	_, err = a.SetWebhook(ctx, "a1", "https://example.com/h", "sec")
	must(err)
	if !slices.Equal(changed, []string{"a1", "a1", "a1", "a1"}) {
		t.Fatalf("OnChange heard %v", changed)
	}
	reload()
	if got := b.Names("a1"); !slices.Equal(got, []string{"alice", "bob"}) {
		t.Errorf("b's list of a1 = %v", got)
	}
	if got := b.Watchers("alice"); !slices.Equal(got, []string{"a1", "b1"}) {
		t.Errorf("b's watchers of alice = %v", got)
	}
	if it, _ := b.Item("a1", "alice"); !it.Opts.Digest {
		t.Errorf("b's options of a1/alice = %+v", it.Opts)
	}
	if s := b.Settings("a1"); s.Min != 7 {
		t.Errorf("b's settings of a1 = %+v", s)
	}
	if w, ok := b.Webhook("a1"); !ok || w.URL != "https://example.com/h" || w.Secret != "sec" {
		t.Errorf("b's webhook of a1 = %+v %v", w, ok)
	}

	must(a.Remove(ctx, "a1", "alice"))
	reload()
	if got := b.Names("a1"); !slices.Equal(got, []string{"bob"}) {
		t.Errorf("after the removal, b's list of a1 = %v", got)
	}
	if got := b.Watchers("alice"); !slices.Equal(got, []string{"b1"}) || b.Watched("bob") != true {
		t.Errorf("after the removal, b's watchers of alice = %v", got)
	}
	// A full reload (nil) matches the store too.
	must(a.Remove(ctx, "a1", "bob"))
	changed = nil
	if err := b.Reload(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if b.Watched("bob") || b.Count("a1") != 0 || !b.Watched("alice") {
		t.Errorf("after a full reload: bob watched %v, a1 has %d, alice watched %v", b.Watched("bob"), b.Count("a1"), b.Watched("alice"))
	}
}
