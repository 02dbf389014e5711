package e2e

import (
	"fmt"
	"slices"
	"testing"

	"github.com/alertd/alertd/internal/testkit"
)

// TestHandleStateRestart: what a handle actor knows survives a restart of
// the engine (as it survives passivation or a panic): the following
// baseline and the memberships with their join times come back from the
// store. So after the restart nothing is taken as a new baseline and no
// follow or community event is lost or sent twice, on the realtime socket,
// to Community Watch and in the B2B social diff alike.
func TestHandleStateRestart(t *testing.T) {
	forEachStore(t, func(t *testing.T, m storeMode) {
		s := startServer(t, serverOpts{dbURL: m.DatabaseURL(t), configure: watchConfig})
		h := newHandle("hs")
		s.send(t, userMap(newUserID(), h)) // a resolved target: the social diff answers
		s.sync(t)
		dt := s.newDT(t, "enterprise", nil, h)
		cwk := s.watchIssue(t, "cw", nil)
		s.call(t, "POST", "/v1/cw/targets", cwk.key, map[string]any{"handle": h}).wantOK(t, 201)
		hook := watchNewHook(t)
		s.watchPutWebhook(t, "cw", cwk.key, hook)
		a, b, c := followUser(newUserID(), "fa_"+testkit.RandomHex(3)), followUser(newUserID(), "fb_"+testkit.RandomHex(3)),
			followUser(newUserID(), "fc_"+testkit.RandomHex(3))
		c1, c2, c3 := watchComm{"8801", "One", "", 10}, watchComm{"8802", "Two", "", 20}, watchComm{"8803", "Three", "", 30}

		s.send(t, followingObs(h, a, b), watchCommunities(h, c1)) // the baselines; Community Watch syncs (c1)
		s.send(t, watchCommunities(h, c1, c2))                    // c2 joins
		for i, id := range []string{c1.ID, c2.ID} {
			if d := decodeObj(t, hook.wait(t, 2)[i].body, "join").object(t, "data"); d.str(t, "community_id") != id {
				t.Fatalf("delivery %d %v, want the join of %s (the sync, then the change)", i, d, id)
			}
		}
		joinedAt := func(s *server) map[string]string {
			t.Helper()
			s.sync(t)
			l := s.call(t, "GET", "/v1/cw/targets", cwk.key, nil).wantOK(t, 200)
			out := map[string]string{}
			for _, raw := range decodeObj(t, l.array(t, "targets")[0], "target").array(t, "communities") {
				o := decodeObj(t, raw, "community")
				out[o.str(t, "community_id")] = string(o["joined_at"])
			}
			return out
		}
		before := joinedAt(s)
		if before[c1.ID] != "null" || before[c2.ID] == "null" || len(before) != 2 {
			t.Fatalf("memberships before the restart %v", before)
		}

		s = s.restart(t)
		w, _ := s.rtLogin(t, dt.key)
		s.send(t, followingObs(h, b, c), watchCommunities(h, c2, c3))
		var got []string
		for _, e := range s.drain(t, w) {
			got = append(got, e.name+" "+e.task(t).str(t, "id"))
		}
		slices.Sort(got)
		if want := []string{"social.following.new " + c["id"].(string), "social.following.removed " + a["id"].(string)}; !slices.Equal(got, want) {
			t.Errorf("realtime events after the restart %v, want %v (diffed against the list before it)", got, want)
		}

		s.webhooksDone(t, "cw")
		var hooks []string
		for _, d := range hook.all()[2:] {
			b := decodeObj(t, d.body, "delivery")
			data := b.object(t, "data")
			what := b.str(t, "event") + " " + data.str(t, "event_type")
			if b.str(t, "event") == "follow_change" {
				what += " " + data.object(t, "followed").str(t, "id")
			} else {
				what += " " + data.str(t, "community_id")
			}
			hooks = append(hooks, what)
		}
		slices.Sort(hooks)
		if want := []string{"community_change community_joined " + c3.ID, "follow_change account_followed " + c["id"].(string)}; !slices.Equal(hooks, want) {
			t.Errorf("Community Watch deliveries after the restart %v, want %v (no second sync, nothing twice)", hooks, want)
		}
		after := joinedAt(s)
		if after[c2.ID] != before[c2.ID] || after[c3.ID] == "null" || len(after) != 2 {
			t.Errorf("memberships after the restart %v: %s keeps its join time %s", after, c2.ID, before[c2.ID])
		}

		diff := s.lkGet(t, dt.key, "/v1/dt/social/diff/"+h).wantOK(t, 200)
		if added, removed := lkChangeIDs(t, lkObjects(t, diff, "added")), lkChangeIDs(t, lkObjects(t, diff, "removed")); fmt.Sprint(added) !=
			fmt.Sprintf("[following:added:%s:%s]", c["id"], c["handle"]) || fmt.Sprint(removed) != fmt.Sprintf("[following:removed:%s:%s]", a["id"], a["handle"]) {
			t.Errorf("social diff after the restart: added %v, removed %v", added, removed)
		}
	})
}
