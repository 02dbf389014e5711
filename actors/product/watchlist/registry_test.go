package watchlist_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/alertd/alertd/actors/product/watchlist"
	"github.com/alertd/alertd/actors/product/watchlist/watchtest"
	"github.com/alertd/alertd/protocol"
)

type settings struct {
	Min  int      `json:"min"`
	Tags []string `json:"tags"`
}

type opts struct {
	Digest bool `json:"digest,omitempty"`
}

func defaults() settings { return settings{Min: 2, Tags: []string{"a"}} }

var t0 = time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)

func newReg(t *testing.T, st *watchtest.Store) *watchlist.Registry[settings, opts] {
	t.Helper()
	r := watchlist.New[settings, opts](protocol.ProductCW, st, defaults, func() time.Time { return t0 })
	if err := r.Load(context.Background()); err != nil {
		t.Fatalf("Load: %v", err)
	}
	return r
}

func TestAddLimitRemove(t *testing.T) {
	ctx := context.Background()
	st := watchtest.NewStore()
	r := newReg(t, st)
	if _, err := r.Add(ctx, "a1", "alice", opts{Digest: true}, 2); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Add(ctx, "a1", "alice", opts{}, 2); !errors.Is(err, watchlist.ErrExists) {
		t.Fatalf("second add: %v, want ErrExists", err)
	}
	if _, err := r.Add(ctx, "a1", "bob", opts{}, 2); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Add(ctx, "a1", "carol", opts{}, 2); !errors.Is(err, watchlist.ErrLimit) {
		t.Fatalf("third add at ceiling 2: %v, want ErrLimit", err)
	}
	if _, err := r.Add(ctx, "a2", "alice", opts{}, 2); err != nil {
		t.Fatal(err)
	}
	if got := r.Watchers("alice"); !slices.Equal(got, []string{"a1", "a2"}) {
		t.Errorf("Watchers(alice) = %v", got)
	}
	if got := r.Names("a1"); !slices.Equal(got, []string{"alice", "bob"}) {
		t.Errorf("Names(a1) = %v", got)
	}
	if it, ok := r.Item("a1", "alice"); !ok || !it.Opts.Digest || !it.AddedAt.Equal(t0) {
		t.Errorf("Item(a1, alice) = %+v, %v", it, ok)
	}
	if err := r.Remove(ctx, "a1", "alice"); err != nil {
		t.Fatal(err)
	}
	if err := r.Remove(ctx, "a1", "alice"); !errors.Is(err, watchlist.ErrNotWatched) {
		t.Fatalf("second remove: %v, want ErrNotWatched", err)
	}
	if r.Has("a1", "alice") || !r.Has("a2", "alice") || !r.Watched("alice") {
		t.Errorf("after remove: a1 has alice %v, a2 has alice %v", r.Has("a1", "alice"), r.Has("a2", "alice"))
	}
	if err := r.Remove(ctx, "a2", "alice"); err != nil {
		t.Fatal(err)
	}
	if r.Watched("alice") || len(r.Watchers("alice")) != 0 {
		t.Errorf("alice still watched after both removes")
	}
	if got := r.AllItems(); !slices.Equal(got, []string{"bob"}) {
		t.Errorf("AllItems = %v", got)
	}
}

func TestAddManyAllOrNothing(t *testing.T) {
	ctx := context.Background()
	r := newReg(t, watchtest.NewStore())
	none := func(string) opts { return opts{} }
	added, existing, err := r.AddMany(ctx, "a", []string{"1", "2", "2"}, none, 3)
	if err != nil || len(added) != 2 || len(existing) != 0 {
		t.Fatalf("first AddMany: %v %v %v", added, existing, err)
	}
	// 2 new would make 4 > 3: nothing is added.
	added, existing, err = r.AddMany(ctx, "a", []string{"2", "3", "4"}, none, 3)
	if !errors.Is(err, watchlist.ErrLimit) || len(added) != 0 || !slices.Equal(existing, []string{"2"}) {
		t.Fatalf("over the ceiling: %v %v %v", added, existing, err)
	}
	if r.Count("a") != 2 {
		t.Fatalf("count %d after a refused AddMany, want 2", r.Count("a"))
	}
	added, existing, err = r.AddMany(ctx, "a", []string{"1", "3"}, none, 3)
	if err != nil || len(added) != 1 || added[0].Name != "3" || !slices.Equal(existing, []string{"1"}) {
		t.Fatalf("fitting AddMany: %v %v %v", added, existing, err)
	}
	// Only existing names: nothing to add, no limit check.
	added, existing, err = r.AddMany(ctx, "a", []string{"1"}, none, 0)
	if err != nil || len(added) != 0 || len(existing) != 1 {
		t.Fatalf("existing only: %v %v %v", added, existing, err)
	}
}

func TestSettingsWebhookAndReload(t *testing.T) {
	ctx := context.Background()
	st := watchtest.NewStore()
	r := newReg(t, st)
	if got := r.Settings("a"); got.Min != 2 || !slices.Equal(got.Tags, []string{"a"}) {
		t.Fatalf("defaults %+v", got)
	}
	refuse := errors.New("refused")
	if _, err := r.UpdateSettings(ctx, "a", func(s *settings) error { s.Min = 9; return refuse }); !errors.Is(err, refuse) {
		t.Fatalf("refusing change: %v", err)
	}
	if r.Settings("a").Min != 2 {
		t.Fatalf("a refused change was applied")
	}
	if _, err := r.UpdateSettings(ctx, "a", func(s *settings) error { s.Min = 7; return nil }); err != nil {
		t.Fatal(err)
	}
	if _, ok := r.Webhook("a"); ok {
		t.Fatalf("webhook set before SetWebhook")
	}
	w0, err := r.SetWebhook(ctx, "a", "https://x.example/h", "s3cret")
	if err != nil {
		t.Fatal(err)
	}
	if all := r.Webhooks(); len(all) != 1 || all["a"].ID != w0.ID || w0.ID == 0 {
		t.Fatalf("Webhooks() = %v, want a's with id %d", all, w0.ID)
	}
	if _, err := r.Add(ctx, "a", "zed", opts{Digest: true}, 5); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Add(ctx, "a", "amy", opts{}, 5); err != nil {
		t.Fatal(err)
	}
	if _, err := r.SetOptions(ctx, "a", "amy", opts{Digest: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.SetOptions(ctx, "a", "nobody", opts{}); !errors.Is(err, watchlist.ErrNotWatched) {
		t.Fatalf("SetOptions of an unwatched item: %v", err)
	}

	r2 := newReg(t, st) // a restart
	if got := r2.Settings("a"); got.Min != 7 || !slices.Equal(got.Tags, []string{"a"}) {
		t.Errorf("settings after reload %+v", got)
	}
	w, ok := r2.Webhook("a")
	if !ok || w.URL != "https://x.example/h" || w.Secret != "s3cret" || w.ID != w0.ID {
		t.Errorf("webhook after reload %+v %v", w, ok)
	}
	items := r2.Items("a")
	if fmt.Sprint(len(items)) != "2" || items[0].Name != "zed" || !items[0].Opts.Digest || !items[1].Opts.Digest {
		t.Errorf("items after reload %+v", items)
	}
}

func TestStoreFailureLeavesMemoryUnchanged(t *testing.T) {
	ctx := context.Background()
	st := watchtest.NewStore()
	r := newReg(t, st)
	st.Fail = errors.New("disk full")
	if _, err := r.Add(ctx, "a", "x", opts{}, 5); err == nil {
		t.Fatal("Add succeeded on a failing store")
	}
	if r.Has("a", "x") {
		t.Error("a failed Add shows in memory")
	}
	if _, err := r.UpdateSettings(ctx, "a", func(s *settings) error { s.Min = 0; return nil }); err == nil {
		t.Fatal("UpdateSettings succeeded on a failing store")
	}
	if r.Settings("a").Min != 2 {
		t.Error("a failed UpdateSettings shows in memory")
	}
}
