package cw

import (
	"testing"
	"time"

	"github.com/alertd/alertd/actors/delivery"
)

// added adds h for acct in the registry, then tells the tracker, as
// POST /v1/cw/targets does.
func (r *rig) added(acct, h string) {
	r.t.Helper()
	r.add(acct, h, TargetOptions{})
	if err := r.tr.Added(acct, h); err != nil {
		r.t.Fatal(err)
	}
}

func frameIDs(t *testing.T, fs []map[string]any) []string {
	t.Helper()
	var out []string
	for _, f := range fs {
		d := dataOf(t, f)
		out = append(out, d["event_type"].(string)+"/"+d["community_id"].(string))
	}
	return out
}

func heldIDs(t *testing.T, evs []*delivery.Event) []string {
	t.Helper()
	s := &fakeSock{}
	for _, e := range evs {
		s.Send(e.ProductFrame())
	}
	return frameIDs(t, s.take())
}

func TestAddedSyncsKnownMemberships(t *testing.T) {
	r := newRig(t)
	a, b, c := comm("1", "Alpha", "", 10), comm("2", "Beta", "", 200), comm("3", "Gamma", "", 30)
	r.added("holder", "alice")
	r.communities("alice", time.Second, a, b) // the engine knows alice's communities
	r.hooks.take()
	r.settings("acct", func(s *Settings) { s.MinMemberCount = 100 })
	open := r.socket("acct", "alice") // a socket open at the add that lists alice (as one opened after it would)

	r.added("acct", "alice")
	if got := frameIDs(t, open.take()); len(got) != 2 || got[0] != "community_joined/1" || got[1] != "community_joined/2" {
		t.Fatalf("live sync frames %v", got)
	}
	hooks := r.hooks.take() // the webhook under the settings: only b has 100 members
	if len(hooks) != 1 || hooks[0].account != "acct" || dataOf(t, hooks[0].body)["community_id"] != "2" {
		t.Fatalf("sync webhooks %v", hooks)
	}
	if got := heldIDs(t, r.tr.TakeSyncs("acct", []string{"bob", "alice"})); len(got) != 2 {
		t.Fatalf("held for the next socket %v", got)
	}
	if got := r.tr.TakeSyncs("acct", []string{"alice"}); len(got) != 0 {
		t.Fatalf("held twice: %d frames", len(got))
	}
	if got := r.tr.TakeSyncs("holder", []string{"alice"}); len(got) != 2 {
		t.Fatalf("the holder's own sync (awaited, made at the first list): %d frames", len(got))
	}

	r.communities("alice", 0, a, b, c) // afterwards only changes
	if got := frameIDs(t, open.take()); len(got) != 1 || got[0] != "community_joined/3" {
		t.Fatalf("after the sync %v", got)
	}
}

func TestAddedAwaitsFirstList(t *testing.T) {
	r := newRig(t)
	r.added("acct", "alice") // nothing known yet
	sock := r.socket("acct", "alice")
	if f := sock.take(); len(f) != 0 || len(r.hooks.take()) != 0 {
		t.Fatalf("a sync before any list: %v", f)
	}
	// The awaited sync survives a restart of the tracker (persisted state).
	r.tr.Stop()
	r.start()
	r.communities("alice", time.Second, comm("1", "Alpha", "", 10))
	if got := frameIDs(t, sock.take()); len(got) != 1 || got[0] != "community_joined/1" {
		t.Fatalf("the awaited sync %v", got)
	}
	if h := r.hooks.take(); len(h) != 1 {
		t.Fatalf("sync webhooks %v", h)
	}
	// Removed before its first list: no sync.
	r.added("gone", "bob")
	if err := r.reg.Remove(t.Context(), "gone", "bob"); err != nil {
		t.Fatal(err)
	}
	r.add("other", "bob", TargetOptions{}) // bob stays watched, without an add's sync
	r.communities("bob", 0, comm("5", "E", "", 1))
	if h := r.hooks.take(); len(h) != 0 {
		t.Fatalf("a removed account got the sync: %v", h)
	}
}

func TestSyncsExpire(t *testing.T) {
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	s := NewSyncs(func() time.Time { return now })
	s.put("a", "h", []*delivery.Event{delivery.NewFrame([]byte(`{}`), "h", 0)})
	s.put("b", "h", []*delivery.Event{delivery.NewFrame([]byte(`{}`), "h", 0)})
	now = now.Add(SyncHold + time.Second)
	if got := s.Take("a", []string{"h"}, MaxReplay); len(got) != 0 {
		t.Fatalf("an expired sync was taken: %d", len(got))
	}
	s.put("c", "h", nil) // sweeps
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.held["b"]; ok {
		t.Fatal("an expired sync of an account that never connected is kept")
	}
}

func TestSyncsTakeAtMost(t *testing.T) {
	s := NewSyncs(nil)
	frames := func(h string, n int) []*delivery.Event {
		out := make([]*delivery.Event, n)
		for i := range out {
			out[i] = delivery.NewFrame([]byte(`{}`), h, 0)
		}
		return out
	}
	s.put("a", "x", frames("x", 3))
	s.put("a", "y", frames("y", 3))
	if got := s.Take("a", []string{"x", "y"}, 4); len(got) != 4 || got[3].Item != "y" {
		t.Fatalf("took %d frames, want 4 (x's 3, then one of y)", len(got))
	}
	if got := s.Take("a", []string{"x", "y"}, 4); len(got) != 2 || got[0].Item != "y" {
		t.Fatalf("the next socket took %d frames, want y's other 2", len(got))
	}
	if got := s.Take("a", []string{"x", "y"}, 4); len(got) != 0 {
		t.Fatalf("taken twice: %d", len(got))
	}
}
