package e2e

import (
	"fmt"
	"testing"
)

// TestWatchRestart: targets, settings, webhooks (and their secrets),
// the community baseline, what convergences were reported and the last
// engagement counts all survive a restart, so nothing syncs, fires or
// reports twice.
func TestWatchRestart(t *testing.T) {
	forEachStore(t, func(t *testing.T, m storeMode) {
		s := startServer(t, serverOpts{dbURL: m.DatabaseURL(t), configure: watchConfig})

		cwk := s.watchIssue(t, "cw", nil)
		h := watchHandle("pwrs")
		s.call(t, "POST", "/v1/cw/targets", cwk.key, map[string]any{"handle": h, "new_followers": true}).wantOK(t, 201)
		s.call(t, "PATCH", "/v1/cw/settings", cwk.key, map[string]any{"flap_cooldown_secs": 60, "min_member_count": 3}).wantOK(t, 200)
		cwHook := watchNewHook(t)
		cwSecret := s.watchPutWebhook(t, "cw", cwk.key, cwHook)
		s.send(t, watchCommunities(h, watchComm{"4100", "Kept", "", 10}))
		cwHook.wait(t, 1) // the one-time sync: 4100
		s.afterSync(t, "the sync", func() (bool, string) {
			l := s.call(t, "GET", "/v1/cw/targets", cwk.key, nil).wantOK(t, 200)
			return decodeObj(t, l.array(t, "targets")[0], "target").boolean(t, "synced"), fmt.Sprint(l)
		})

		ctk := s.watchIssue(t, "ct", nil)
		a, b, c := watchHandle("pwrs"), watchHandle("pwrs"), watchHandle("pwrs")
		for _, x := range []string{a, b, c} {
			s.call(t, "POST", "/v1/ct/targets", ctk.key, map[string]any{"handle": x}).wantOK(t, 201)
		}
		ctHook := watchNewHook(t)
		s.watchPutWebhook(t, "ct", ctk.key, ctHook)
		x := watchComm{"4200", "Meeting", "", 50}
		s.send(t, watchCommunities(a), watchCommunities(b), watchCommunities(c))
		s.send(t, watchCommunities(a, x), watchCommunities(b, x))
		ctHook.wait(t, 1)

		etk := s.watchIssue(t, "et", nil)
		id := watchTweetID()
		s.call(t, "POST", "/v1/et/targets", etk.key, map[string]any{"tweet_ids": []string{id}}).wantOK(t, 201)
		etHook := watchNewHook(t)
		etSecret := s.watchPutWebhook(t, "et", etk.key, etHook)
		s.send(t, watchEngagement(id, 5, 0, 0, 0, 0))
		s.afterSync(t, "the engagement baseline", func() (bool, string) {
			e := s.call(t, "GET", "/v1/et/engagement/"+id, etk.key, nil).wantOK(t, 200)
			return !e.isNull("last_updated"), fmt.Sprint(e)
		})

		s = s.restart(t)

		l := s.call(t, "GET", "/v1/cw/targets", cwk.key, nil).wantOK(t, 200)
		tg := decodeObj(t, l.array(t, "targets")[0], "target")
		if tg.str(t, "handle") != h || !tg.boolean(t, "new_followers") || !tg.boolean(t, "synced") || len(tg.array(t, "communities")) != 1 {
			t.Errorf("cw target after restart %v", tg)
		}
		st := s.call(t, "GET", "/v1/cw/settings", cwk.key, nil).wantOK(t, 200)
		if st.num(t, "flap_cooldown_secs") != 60 || st.num(t, "min_member_count") != 3 {
			t.Errorf("cw settings after restart %v", st)
		}
		if wh := s.call(t, "GET", "/v1/cw/webhook", cwk.key, nil).wantOK(t, 200); wh.str(t, "url") != cwHook.url() {
			t.Errorf("cw webhook after restart %v", wh)
		}
		// No second sync: the next join alerts, signed with the same secret.
		s.send(t, watchCommunities(h, watchComm{"4100", "Kept", "", 10}, watchComm{"4101", "New", "", 10}))
		d := cwHook.wait(t, 2)[1]
		watchSigned(t, d, cwSecret, "X-CW-Client-Id", cwk.account)
		if got := decodeObj(t, d.body, "cw body").object(t, "data").str(t, "community_id"); got != "4101" {
			t.Errorf("cw delivery after restart is about %s, want 4101", got)
		}

		// The convergence reported before the restart does not fire again;
		// a third handle joining does.
		s.send(t, watchCommunities(a, x), watchCommunities(b, x))
		s.send(t, watchCommunities(c, x))
		got := ctHook.wait(t, 2)
		if n := decodeObj(t, got[1].body, "ct body").object(t, "data").num(t, "convergence_count"); n != 3 || len(got) != 2 {
			t.Errorf("ct deliveries after restart: %d, the second with count %v; want 2, then 3", len(got), n)
		}
		// History is written in the detector's order: once the count-3 report
		// is there, a second report of the first would be too.
		var hist obj
		s.afterSync(t, "the count-3 report in history", func() (bool, string) {
			hist = s.call(t, "GET", "/v1/ct/convergence/history", ctk.key, nil).wantOK(t, 200)
			hs := hist.array(t, "convergences")
			return len(hs) > 0 && decodeObj(t, hs[0], "h").num(t, "convergence_count") == 3, fmt.Sprint(hist)
		})
		if hist.num(t, "count") != 2 {
			t.Errorf("history after restart %v: want the two reports, nothing fired twice", hist)
		}
		if cur := s.call(t, "GET", "/v1/ct/convergence", ctk.key, nil).wantOK(t, 200); cur.num(t, "count") != 1 {
			t.Errorf("current convergences after restart %v", cur)
		}

		// The stored counts are the old side of the next update.
		s.send(t, watchEngagement(id, 6, 0, 0, 0, 0))
		e := etHook.wait(t, 1)[0]
		if e.header.Get("X-Webhook-Secret") != etSecret {
			t.Errorf("et secret after restart %q", e.header.Get("X-Webhook-Secret"))
		}
		body := decodeObj(t, e.body, "et body")
		if body.object(t, "old").num(t, "favorite_count") != 5 || body.object(t, "new").num(t, "favorite_count") != 6 {
			t.Errorf("et update after restart %s", e.body)
		}
	})
}
