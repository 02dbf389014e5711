package e2e

import (
	"slices"
	"testing"
)

// TestB2BLookupsRestart: what the lookups keep survives a restart, what was
// ingested just before SIGTERM is written on the way down, and a following
// list after the restart is diffed against the stored edges (no new
// baseline).
func TestB2BLookupsRestart(t *testing.T) {
	forEachStore(t, func(t *testing.T, m storeMode) {
		s := startServer(t, serverOpts{dbURL: m.DatabaseURL(t)})
		acc := s.lkDT(t, "enterprise")
		h, _ := s.lkResolved(t, acc, "lk_restart")
		a, b := [2]string{lkID(), "alpha"}, [2]string{lkID(), "bravo"}
		s.lkSend(t, lkFollowing(h, a))
		s.lkNow(t, acc.key, "/v1/dt/following/"+h, "baseline", func(d obj) bool { return d.num(t, "total") == 1 })
		put := bearer(acc.key)
		put["Content-Type"] = "application/json"
		s.do(t, "PUT", "/v1/dt/webhook", put, `{"url":"https://hooks.example.com/r"}`).wantOK(t, 200)
		if r := s.do(t, "POST", "/social/blacklist/spammer", bearer(acc.key), nil); r.status != 200 {
			t.Fatalf("%s", r)
		}
		// Ingested right before SIGTERM: the recorder flushes on the way down.
		cid := lkID()
		s.lkSend(t, map[string]any{"kind": "communities", "handle": h, "communities": []any{
			map[string]any{"id": cid, "name": "Restart Club", "description": "", "member_count": 3, "creator_screen_name": "x"}}})

		s = s.restart(t)
		d := s.lkGet(t, acc.key, "/v1/dt/communities/"+h).wantOK(t, 200)
		if items := lkObjects(t, d, "communities"); len(items) != 1 || items[0].str(t, "community_id") != cid {
			t.Errorf("communities after the restart: %v", d)
		}
		if d := s.lkGet(t, acc.key, "/v1/dt/webhook").wantOK(t, 200); d.str(t, "url") != "https://hooks.example.com/r" || !d.boolean(t, "has_secret") {
			t.Errorf("webhook after the restart: %v", d)
		}
		r := s.lkGet(t, acc.key, "/social/blacklist")
		if bl := decodeObj(t, r.body, r.String()); !slices.Equal(bl.strings(t, "blacklist"), []string{"spammer"}) {
			t.Errorf("blacklist after the restart: %s", r)
		}
		s.lkSend(t, lkFollowing(h, b))
		diff := s.lkNow(t, acc.key, "/v1/dt/social/diff/"+h, "diff after the restart", func(d obj) bool { return d.num(t, "added_count") == 1 })
		if got := lkChangeIDs(t, lkObjects(t, diff, "removed")); !slices.Equal(got, []string{"following:removed:" + a[0] + ":alpha"}) {
			t.Errorf("removed after the restart %v", got)
		}
		if got := lkChangeIDs(t, lkObjects(t, diff, "added")); !slices.Equal(got, []string{"following:added:" + b[0] + ":bravo"}) {
			t.Errorf("added after the restart %v", got)
		}
	})
}
