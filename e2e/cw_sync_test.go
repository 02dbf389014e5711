package e2e

import (
	"fmt"
	"reflect"
	"testing"
)

// TestCWSync: Community Watch's one-time sync on first add (spec 3) and the
// Convergence Tracker counting the memberships found at it, on both stores.
func TestCWSync(t *testing.T) {
	forEachStore(t, func(t *testing.T, m storeMode) {
		s := startServer(t, serverOpts{dbURL: m.DatabaseURL(t), configure: watchConfig})
		subtests{
			{"CWSyncOnAdd", testCWSyncOnAdd},
			{"CTCountsSync", testCTCountsSync},
		}.run(t, s)
	})
}

// TestCWSyncRestart: a sync awaited (nothing known of the handle at the
// add) is remembered in the store: after a restart the first list still
// syncs, once, and then only changes alert. Both stores.
func TestCWSyncRestart(t *testing.T) {
	forEachStore(t, func(t *testing.T, m storeMode) {
		s := startServer(t, serverOpts{dbURL: m.DatabaseURL(t), configure: watchConfig})
		k := s.watchIssue(t, "cw", nil)
		h := watchHandle("pwsyncrs")
		s.call(t, "POST", "/v1/cw/targets", k.key, map[string]any{"handle": h}).wantOK(t, 201)
		hook := watchNewHook(t)
		s.watchPutWebhook(t, "cw", k.key, hook)
		s = s.restart(t)

		c1, c2 := watchComm{"9710", "Kept", "", 10}, watchComm{"9720", "New", "", 10}
		s.send(t, watchCommunities(h, c1))
		s.send(t, watchCommunities(h, c1, c2))
		got := hook.wait(t, 2)
		for i, id := range []string{c1.ID, c2.ID} {
			if d := decodeObj(t, got[i].body, "body").object(t, "data"); d.str(t, "community_id") != id || d.str(t, "event_type") != "community_joined" {
				t.Errorf("delivery %d %v, want the join of %s (the awaited sync, then the change)", i, d, id)
			}
		}
		s.webhooksDone(t, "cw")
		if n := len(hook.all()); n != 2 {
			t.Errorf("%d deliveries, want 2", n)
		}
	})
}

// watchKnown makes the engine know handles' memberships: another account
// watches them and their lists are ingested.
func (s *server) watchKnown(t *testing.T, lists ...map[string]any) {
	t.Helper()
	holder := s.watchIssue(t, "cw", nil).key
	seen := map[string]bool{}
	for _, l := range lists {
		h := l["handle"].(string)
		if !seen[h] {
			seen[h] = true
			s.call(t, "POST", "/v1/cw/targets", holder, map[string]any{"handle": h}).wantOK(t, 201)
		}
	}
	s.send(t, anySlice(lists)...)
	s.afterSync(t, "the holder's lists", func() (bool, string) {
		l := s.call(t, "GET", "/v1/cw/targets", holder, nil).wantOK(t, 200)
		for _, raw := range l.array(t, "targets") {
			if o := decodeObj(t, raw, "target"); !o.boolean(t, "synced") {
				return false, fmt.Sprint(o)
			}
		}
		return true, ""
	})
}

func anySlice(ls []map[string]any) []any {
	out := make([]any, len(ls))
	for i, l := range ls {
		out[i] = l
	}
	return out
}

// testCWSyncOnAdd: a handle whose communities the engine knows is added:
// each community goes once to the webhook and to the next socket opened,
// as a community_joined community_change; afterwards only changes. A second
// add after a remove syncs again.
func testCWSyncOnAdd(t *testing.T, s *server) {
	h := watchHandle("pwsync")
	c1, c2, c3 := watchComm{"9510", "One", "first", 10}, watchComm{"9520", "Two", "second", 20}, watchComm{"9530", "Three", "", 30}
	s.watchKnown(t, watchCommunities(h, c1, c2))

	k := s.watchIssue(t, "cw", nil)
	hook := watchNewHook(t)
	secret := s.watchPutWebhook(t, "cw", k.key, hook)
	before := s.watchDial(t, "cw", k.key) // opened before the add: h is not in its list
	d := s.call(t, "POST", "/v1/cw/targets", k.key, map[string]any{"handle": h}).wantOK(t, 201)
	if !d.boolean(t, "synced") || len(d.array(t, "communities")) != 2 {
		t.Errorf("added target %v: want synced with its 2 communities", d)
	}
	got := hook.wait(t, 2)
	hooked := map[string]obj{}
	for _, x := range got {
		watchSigned(t, x, secret, "X-CW-Client-Id", k.account)
		b := decodeObj(t, x.body, "webhook body")
		b.wantKeys(t, "webhook body", "event", "timestamp", "data")
		if b.str(t, "event") != "community_change" {
			t.Errorf("sync event %q", b.str(t, "event"))
		}
		data := b.object(t, "data")
		hooked[data.str(t, "community_id")] = data
	}
	w := s.watchDial(t, "cw", k.key)
	for _, c := range []watchComm{c1, c2} {
		f := watchNextFrame(t, w, "community_change")
		f.wantKeys(t, "sync", "event_type", "screen_name", "social_user_id", "community_id", "community_name", "description",
			"member_count", "creator_screen_name", "detected_at", "detection_latency_ms")
		if f.str(t, "event_type") != "community_joined" || f.str(t, "screen_name") != h || f.str(t, "community_id") != c.ID ||
			f.str(t, "community_name") != c.Name || f.num(t, "member_count") != float64(c.Members) {
			t.Errorf("sync frame %s, want the join of %s", watchShow(f), c.ID)
		}
		if !reflect.DeepEqual(hooked[c.ID], f) {
			t.Errorf("sync webhook data %v differs from the frame's %v", hooked[c.ID], f)
		}
	}
	if n := len(hook.all()); n != 2 {
		t.Errorf("%d webhook deliveries of the sync, want 2", n)
	}
	if got := before.Barrier(t); len(got) != 0 {
		t.Errorf("a socket opened before the add got %q", got)
	}
	again := s.watchDial(t, "cw", k.key)
	if got := again.Barrier(t); len(got) != 0 {
		t.Errorf("the sync reached a second socket: %q (once)", got)
	}

	// Afterwards only changes.
	s.send(t, watchCommunities(h, c1, c2, c3))
	for _, x := range []*wsClient{w, again} {
		if f := watchNextFrame(t, x, "community_change"); f.str(t, "community_id") != c3.ID || f.str(t, "event_type") != "community_joined" {
			t.Errorf("after the sync %s, want the join of %s only", watchShow(f), c3.ID)
		}
	}
	hook.wait(t, 3)
	s.afterSync(t, "deliveries", func() (bool, string) {
		st := s.call(t, "GET", "/v1/cw/status", k.key, nil).wantOK(t, 200)
		return st.num(t, "deliveries_24h") == 3, fmt.Sprint(st)
	})

	// Removed and added again: the watch is new, so is its sync.
	s.call(t, "DELETE", "/v1/cw/targets/"+h, k.key, nil).wantOK(t, 200)
	s.call(t, "POST", "/v1/cw/targets", k.key, map[string]any{"handle": h}).wantOK(t, 201)
	hook.wait(t, 6)
	re := s.watchDial(t, "cw", k.key)
	for _, c := range []watchComm{c1, c2, c3} {
		if f := watchNextFrame(t, re, "community_change"); f.str(t, "community_id") != c.ID {
			t.Errorf("re-add sync %s, want %s", watchShow(f), c.ID)
		}
	}
	s.webhooksDone(t, "cw")
	if n := len(hook.all()); n != 6 {
		t.Errorf("%d webhook deliveries, want 6 (sync 2, join 1, sync again 3)", n)
	}
}

// testCTCountsSync: a handle added to the Convergence Tracker counts with
// the memberships the engine knows at once: a join detected within the
// window counts with its join time, one found in the handle's first list
// (join time unknown) never does.
func testCTCountsSync(t *testing.T, s *server) {
	a, b, c, d := watchHandle("pwcts"), watchHandle("pwcts"), watchHandle("pwcts"), watchHandle("pwcts")
	x, old := watchComm{"9610", "Fresh", "", 50}, watchComm{"9620", "Old", "", 60}
	s.watchKnown(t, watchCommunities(a), watchCommunities(b), watchCommunities(c, old), watchCommunities(d, old),
		watchCommunities(a, x), watchCommunities(b, x))

	k := s.watchIssue(t, "ct", nil)
	hook := watchNewHook(t)
	s.watchPutWebhook(t, "ct", k.key, hook)
	w := s.watchDial(t, "ct", k.key)
	for _, h := range []string{c, d, a, b} {
		s.call(t, "POST", "/v1/ct/targets", k.key, map[string]any{"handle": h}).wantOK(t, 201)
	}
	f := watchNextFrame(t, w, "convergence")
	if f.str(t, "community_id") != x.ID || f.num(t, "convergence_count") != 2 || !watchSameSet(f.strings(t, "converging_handles"), a, b) {
		t.Errorf("convergence %s, want %s of %s and %s", watchShow(f), x.ID, a, b)
	}
	hook.wait(t, 1)
	s.afterSync(t, "current convergences", func() (bool, string) {
		cur := s.call(t, "GET", "/v1/ct/convergence", k.key, nil).wantOK(t, 200)
		cs := cur.array(t, "convergences")
		return len(cs) == 1 && decodeObj(t, cs[0], "current").str(t, "community_id") == x.ID, fmt.Sprint(cur)
	})
	if got := w.Barrier(t); len(got) != 0 {
		t.Errorf("old memberships converged: %q", got)
	}
}
