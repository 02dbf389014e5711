package tweetalerts

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/alertd/alertd/persistence"
)

// TestRegistryReload: what one registry stores, another over the same
// store (another node) takes on Reload of the accounts named: tracked
// lists (ranks and matching included), prefs, settings and webhooks; its
// listener hears the handles untracked and the webhooks that came and
// went; onChange names the accounts of the first one's changes only.
func TestRegistryReload(t *testing.T) {
	ctx := context.Background()
	st := newMemStore()
	a, b := NewRegistry(st, nil), NewRegistry(st, nil)
	var announced []string
	a.OnChange(func(acct string) { announced = append(announced, acct) })
	b.OnChange(func(acct string) { t.Errorf("b announced %s: a reload is not its own change", acct) })
	ev := &events{}
	b.SetListener(ev)
	all := func(string) bool { return true }

	if _, _, _, err := a.Track(ctx, "a1", []string{"whale", "degen"}, 10, all); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := a.Track(ctx, "a2", []string{"whale"}, 10, all); err != nil {
		t.Fatal(err)
	}
	w1, err := a.AddWebhook(ctx, persistence.Webhook{AccountID: "a1", URL: "u1", FilterHandles: []string{"degen"}}, 5)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.UpdatePrefs(ctx, "a1", "whale", func(p *persistence.HandlePrefs) { p.Muted = true }); err != nil {
		t.Fatal(err)
	}
	if _, err := a.UpdateSettings(ctx, "a1", func(s *persistence.TweetAlertsSettings) { s.NotificationsPaused = true }); err != nil {
		t.Fatal(err)
	}
	if err := b.Reload(ctx, []string{"a1"}); err != nil {
		t.Fatal(err)
	}
	if got := handlesOf(b.Tracked("a1")); !slices.Equal(got, []string{"whale", "degen"}) {
		t.Errorf("b tracks %v for a1, want [whale degen]", got)
	}
	if b.Count("a2") != 0 {
		t.Errorf("b reloaded a2, which was not named")
	}
	if !b.Prefs("a1", "whale").Muted || !b.Settings("a1").NotificationsPaused {
		t.Errorf("b's prefs %+v and settings %+v of a1 are not a's", b.Prefs("a1", "whale"), b.Settings("a1"))
	}
	limit := func(string) int { return 10 }
	if got := b.MatchWebhooks("degen", "gm", limit, nil); !slices.Equal(got, []int64{w1.ID}) {
		t.Errorf("b matches %v for degen, want [%d]", got, w1.ID)
	}
	if !b.IsActive("a1", "degen", 2) || b.IsActive("a1", "degen", 1) {
		t.Errorf("b's ranks of a1: degen active under 2 %v, under 1 %v", b.IsActive("a1", "degen", 2), b.IsActive("a1", "degen", 1))
	}

	if _, err := a.Untrack(ctx, "a1", "whale"); err != nil {
		t.Fatal(err)
	}
	if err := a.DeleteWebhook(ctx, "a1", w1.ID); err != nil {
		t.Fatal(err)
	}
	w2, _ := a.AddWebhook(ctx, persistence.Webhook{AccountID: "a2", URL: "u2"}, 5)
	if err := b.Reload(ctx, nil); err != nil { // every account
		t.Fatal(err)
	}
	if got := handlesOf(b.Tracked("a1")); !slices.Equal(got, []string{"degen"}) {
		t.Errorf("b tracks %v for a1, want [degen]", got)
	}
	if !b.IsActive("a1", "degen", 1) {
		t.Errorf("b: degen did not move up on a1's list")
	}
	if got := b.MatchWebhooks("whale", "gm", limit, nil); !slices.Equal(got, []int64{w2.ID}) {
		t.Errorf("b matches %v for whale, want [%d] (a2's)", got, w2.ID)
	}
	want := []string{fmt.Sprint("added ", w1.ID), "untracked a1/whale", fmt.Sprint("added ", w2.ID), fmt.Sprint("removed ", w1.ID)}
	if ev.mu.Lock(); !slices.Equal(ev.log, want) {
		t.Errorf("b's listener heard %q, want %q", ev.log, want)
	}
	ev.mu.Unlock()
	if want := []string{"a1", "a2", "a1", "a1", "a1", "a1", "a1", "a2"}; !slices.Equal(announced, want) {
		t.Errorf("a announced %q, want %q", announced, want)
	}
}
