package e2e

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestCT runs the Convergence Tracker suite against one server per store.
func TestCT(t *testing.T) {
	forEachStore(t, func(t *testing.T, m storeMode) {
		s := startServer(t, serverOpts{dbURL: m.DatabaseURL(t), configure: watchConfig})
		subtests{
			{"CTTargetsAndSettings", testCTTargetsAndSettings},
			{"CTConvergence", testCTConvergence},
		}.run(t, s)
	})
}

func testCTTargetsAndSettings(t *testing.T, s *server) {
	k := s.watchIssue(t, "ct", map[string]any{"max_handles": 20})
	l := s.call(t, "GET", "/v1/ct/targets", k.key, nil).wantOK(t, 200)
	l.wantKeys(t, "ct targets", "targets", "count", "max_handles")
	var hs []string
	for range 20 {
		h := watchHandle("pwct")
		d := s.call(t, "POST", "/v1/ct/targets", k.key, map[string]any{"handle": h}).wantOK(t, 201)
		d.wantKeys(t, "ct target", "handle", "social_user_id", "added_at")
		hs = append(hs, h)
	}
	s.call(t, "POST", "/v1/ct/targets", k.key, map[string]any{"handle": hs[0]}).wantErr(t, 409, "conflict")
	s.call(t, "POST", "/v1/ct/targets", k.key, map[string]any{"handle": watchHandle("pwct")}).wantErr(t, 403, "handle_limit_reached")
	s.call(t, "POST", "/v1/ct/targets", k.key, map[string]any{"handle": "-"}).wantErr(t, 400, "bad_request")
	s.call(t, "POST", "/v1/ct/targets", k.key, map[string]any{"nope": 1}).wantPlain(t, 422)
	s.call(t, "DELETE", "/v1/ct/targets/"+watchHandle("never"), k.key, nil).wantErr(t, 404, "not_found")
	s.call(t, "DELETE", "/v1/ct/targets/"+hs[0], k.key, nil).wantOK(t, 200)
	l = s.call(t, "GET", "/v1/ct/targets", k.key, nil).wantOK(t, 200)
	if l.num(t, "count") != 19 || l.num(t, "max_handles") != 20 {
		t.Errorf("ct targets after a delete %v", l)
	}

	get := func() obj {
		d := s.call(t, "GET", "/v1/ct/settings", k.key, nil).wantOK(t, 200)
		d.wantKeys(t, "ct settings", "min_convergence", "time_window_hours", "min_member_count")
		return d
	}
	if d := get(); d.num(t, "min_convergence") != 2 || d.num(t, "time_window_hours") != 24 || d.num(t, "min_member_count") != 0 {
		t.Errorf("default ct settings %v", d)
	}
	for _, ok := range []map[string]any{
		{"min_convergence": 20, "time_window_hours": 168},
		{"min_convergence": 2, "time_window_hours": 1, "min_member_count": 0},
		{"min_member_count": 250},
	} {
		d := s.call(t, "PATCH", "/v1/ct/settings", k.key, ok).wantOK(t, 200)
		for f, v := range ok {
			if d.num(t, f) != float64(v.(int)) {
				t.Errorf("PATCH %v: %s = %v", ok, f, d[f])
			}
		}
	}
	for _, bad := range []map[string]any{
		{"min_convergence": 1}, {"min_convergence": 21}, {"min_convergence": 2.5}, {"min_convergence": "3"},
		{"time_window_hours": 0}, {"time_window_hours": 169}, {"time_window_hours": nil},
		{"min_member_count": -1},
		{"min_convergence": 5, "time_window_hours": 500},
	} {
		s.call(t, "PATCH", "/v1/ct/settings", k.key, bad).wantErr(t, 400, "bad_request")
	}
	if d := get(); d.num(t, "min_convergence") != 2 || d.num(t, "time_window_hours") != 1 || d.num(t, "min_member_count") != 250 {
		t.Errorf("ct settings after refused PATCHes %v", d)
	}
	for _, q := range []string{"0", "-1", "abc", "1.5", ""} {
		s.call(t, "GET", "/v1/ct/convergence/history?limit="+q, k.key, nil).wantErr(t, 400, "bad_request")
	}
	h := s.call(t, "GET", "/v1/ct/convergence/history?limit=100", k.key, nil).wantOK(t, 200)
	h.wantKeys(t, "history", "convergences", "count", "limit")
	if h.num(t, "limit") != 50 || h.num(t, "count") != 0 {
		t.Errorf("history with limit=100: %v, want limit 50", h)
	}
	if h := s.call(t, "GET", "/v1/ct/convergence/history", k.key, nil).wantOK(t, 200); h.num(t, "limit") != 50 {
		t.Errorf("default history limit %v", h["limit"])
	}
}

func testCTConvergence(t *testing.T, s *server) {
	k := s.watchIssue(t, "ct", nil) // no Community Watch subscription needed
	a, b, c := watchHandle("pwcv"), watchHandle("pwcv"), watchHandle("pwcv")
	for _, h := range []string{a, b, c} {
		s.call(t, "POST", "/v1/ct/targets", k.key, map[string]any{"handle": h}).wantOK(t, 201)
	}
	hook := watchNewHook(t)
	secret := s.watchPutWebhook(t, "ct", k.key, hook)
	w := s.watchDial(t, "ct", k.key)
	x := watchComm{"5100", "Convergent", "d", 777}
	// Syncs: c is already in x, which does not count (its join time is unknown).
	s.send(t, watchCommunities(a), watchCommunities(b), watchCommunities(c, x))
	s.send(t, watchCommunities(a, x)) // one join in the window: nothing
	s.send(t, watchCommunities(b, x)) // two: convergence
	d := watchNextFrame(t, w, "convergence")
	d.wantKeys(t, "convergence", "community_id", "community_name", "member_count", "converging_handles", "convergence_count", "detected_at")
	if d.str(t, "community_id") != "5100" || d.str(t, "community_name") != "Convergent" || d.num(t, "member_count") != 777 ||
		d.num(t, "convergence_count") != 2 || !watchSameSet(d.strings(t, "converging_handles"), a, b) {
		t.Errorf("convergence %s", watchShow(d))
	}
	watchISO(t, d, "detected_at")
	got := hook.wait(t, 1)
	watchSigned(t, got[0], secret, "X-CT-Client-Id", k.account)
	body := decodeObj(t, got[0].body, "ct webhook")
	body.wantKeys(t, "ct webhook", "event", "timestamp", "data")
	if body.str(t, "event") != "convergence_detected" || !reflect.DeepEqual(body.object(t, "data"), d) {
		t.Errorf("ct webhook %s", got[0].body)
	}
	if ts := body.num(t, "timestamp"); ts < float64(time.Now().Add(-time.Minute).UnixMilli()) {
		t.Errorf("timestamp %v", ts)
	}

	s.send(t, watchCommunities(b, x)) // unchanged: quiet
	s.send(t, watchCommunities(c))    // c leaves...
	s.send(t, watchCommunities(c, x)) // ...and joins: three now
	d = watchNextFrame(t, w, "convergence")
	if d.num(t, "convergence_count") != 3 || !watchSameSet(d.strings(t, "converging_handles"), a, b, c) {
		t.Errorf("grown convergence %s, want a, b, c (the unchanged observation must not fire)", watchShow(d))
	}
	hook.wait(t, 2)

	cur := s.call(t, "GET", "/v1/ct/convergence", k.key, nil).wantOK(t, 200)
	cur.wantKeys(t, "current", "convergences", "count")
	cs := cur.array(t, "convergences")
	if len(cs) != 1 || cur.num(t, "count") != 1 {
		t.Fatalf("current %v", cur)
	}
	cd := decodeObj(t, cs[0], "current convergence")
	if cd.num(t, "convergence_count") != 3 || cd.str(t, "community_id") != "5100" {
		t.Errorf("current convergence %v", cd)
	}
	var hist obj
	s.afterSync(t, "history of 2", func() (bool, string) {
		hist = s.call(t, "GET", "/v1/ct/convergence/history", k.key, nil).wantOK(t, 200)
		return hist.num(t, "count") == 2, fmt.Sprint(hist)
	})
	hs := hist.array(t, "convergences")
	if n0, n1 := decodeObj(t, hs[0], "h0").num(t, "convergence_count"), decodeObj(t, hs[1], "h1").num(t, "convergence_count"); n0 != 3 || n1 != 2 {
		t.Errorf("history counts %v, %v; want newest first (3, 2)", n0, n1)
	}
	if one := s.call(t, "GET", "/v1/ct/convergence/history?limit=1", k.key, nil).wantOK(t, 200); one.num(t, "count") != 1 || one.num(t, "limit") != 1 {
		t.Errorf("history limit=1 %v", one)
	}
	st := s.call(t, "GET", "/v1/ct/status", k.key, nil).wantOK(t, 200)
	st.wantKeys(t, "ct status", "handles_tracked", "handle_limit", "convergences_24h", "webhook_configured")
	if st.num(t, "handles_tracked") != 3 || st.num(t, "handle_limit") != 20 || st.num(t, "convergences_24h") != 2 || !st.boolean(t, "webhook_configured") {
		t.Errorf("ct status %v", st)
	}

	// A higher bar: nothing holds, and a new join does not fire.
	s.call(t, "PATCH", "/v1/ct/settings", k.key, map[string]any{"min_convergence": 4}).wantOK(t, 200)
	if cur := s.call(t, "GET", "/v1/ct/convergence", k.key, nil).wantOK(t, 200); cur.num(t, "count") != 0 {
		t.Errorf("current under min_convergence 4: %v", cur)
	}
	if strings.Contains(string(hook.all()[0].body), "community_left") {
		t.Errorf("a leave was delivered")
	}
}

// watchSameSet reports whether got holds exactly want, in any order (joins
// detected in the same millisecond sort by handle).
func watchSameSet(got []string, want ...string) bool {
	g, w := slices.Clone(got), slices.Clone(want)
	slices.Sort(g)
	slices.Sort(w)
	return slices.Equal(g, w)
}

// watchShow renders an object for failure messages.
func watchShow(o obj) string {
	b, _ := json.Marshal(o)
	return string(b)
}
