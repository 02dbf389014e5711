package e2e

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/alertd/alertd/internal/testkit"
)

// TestCW runs the Community Watch suite against one server per store.
func TestCW(t *testing.T) {
	forEachStore(t, func(t *testing.T, m storeMode) {
		s := startServer(t, serverOpts{dbURL: m.DatabaseURL(t), configure: watchConfig})
		subtests{
			{"CWTargets", testCWTargets},
			{"CWSettings", testCWSettings},
			{"CWWebhookRegistration", testCWWebhookRegistration},
			{"CWEvents", testCWEvents},
			{"CWFiltersAndFlap", testCWFiltersAndFlap},
			{"CWRetries", testCWRetries},
			{"CWSocketTargetsAtConnect", testCWSocketTargetsAtConnect},
		}.run(t, s)
	})
}

// testWatchAuth: product keys work only on their own product (401
// unauthorized elsewhere), keys in the query are refused on REST, and the
// sockets answer bad keys with a plain-text 401 before the upgrade.
func testWatchAuth(t *testing.T, s *server) {
	keys := map[string]string{}
	for _, p := range []string{"cw", "ct", "et"} {
		keys[p] = s.watchIssue(t, p, nil).key
	}
	xg := s.watchIssue(t, "xg", map[string]any{"plan": "pro"}).key
	for _, p := range []string{"cw", "ct", "et"} {
		path := "/v1/" + p + "/status"
		s.do(t, "GET", path, bearer(keys[p]), nil).wantOK(t, 200)
		s.do(t, "GET", path, nil, nil).wantErr(t, 401, "unauthorized")
		s.do(t, "GET", path, bearer(xg), nil).wantErr(t, 401, "unauthorized")
		s.do(t, "GET", path+"?api_key="+keys[p], nil, nil).wantErr(t, 401, "unauthorized")
		s.do(t, "GET", path, bearer(p+"_"+strings.Repeat("0", 48)), nil).wantErr(t, 401, "unauthorized")
		for _, other := range []string{"cw", "ct", "et"} {
			if other != p {
				s.do(t, "GET", path, bearer(keys[other]), nil).wantErr(t, 401, "unauthorized")
			}
		}
		for _, bad := range []string{"", xg, keys[map[string]string{"cw": "ct", "ct": "et", "et": "cw"}[p]]} {
			_, r, err := dialFrom(t, s.wsURL("/v1/"+p+"/ws?api_key="+bad), "")
			if err == nil || r == nil {
				t.Fatalf("%s ws with key %q: upgraded, want 401", p, bad)
			}
			b := testkit.ResponseText(r)
			if r.StatusCode != 401 || !strings.HasPrefix(r.Header.Get("Content-Type"), "text/plain") || strings.Contains(b, "{") {
				t.Errorf("%s ws with key %q: %s (%s), want a plain-text 401", p, bad, b, r.Header.Get("Content-Type"))
			}
		}
		s.do(t, "GET", "/v1/"+p+"/nope", bearer(keys[p]), nil).wantErr(t, 404, "not_found")
	}
}

func testCWTargets(t *testing.T, s *server) {
	k := s.watchIssue(t, "cw", map[string]any{"max_handles": 20})
	list := s.call(t, "GET", "/v1/cw/targets", k.key, nil).wantOK(t, 200)
	list.wantKeys(t, "targets", "targets", "count", "max_handles")
	if len(list.array(t, "targets")) != 0 || list.num(t, "count") != 0 || list.num(t, "max_handles") != 20 {
		t.Fatalf("empty list %v", list)
	}
	first := watchHandle("pwcw")
	d := s.call(t, "POST", "/v1/cw/targets", k.key, map[string]any{"handle": "@" + strings.ToUpper(first)}).wantOK(t, 201)
	d.wantKeys(t, "added target", "handle", "social_user_id", "new_followers", "added_at", "synced", "communities")
	if d.str(t, "handle") != first || d.boolean(t, "new_followers") || d.boolean(t, "synced") || !d.isNull("social_user_id") {
		t.Errorf("added target %v", d)
	}
	if at := watchISO(t, d, "added_at"); time.Since(at) > time.Minute || time.Until(at) > time.Minute {
		t.Errorf("added_at %v is not now", at)
	}
	s.call(t, "POST", "/v1/cw/targets", k.key, map[string]any{"handle": first}).wantErr(t, 409, "conflict")
	s.call(t, "POST", "/v1/cw/targets", k.key, map[string]any{"handle": "not a handle!"}).wantErr(t, 400, "bad_request")
	s.call(t, "POST", "/v1/cw/targets", k.key, map[string]any{"handle": 5}).wantErr(t, 400, "bad_request")
	s.call(t, "POST", "/v1/cw/targets", k.key, map[string]any{"handle": "  "}).wantErr(t, 400, "bad_request")
	s.call(t, "POST", "/v1/cw/targets", k.key, map[string]any{"handle": watchHandle("x"), "new_followers": "yes"}).wantErr(t, 400, "bad_request")
	s.call(t, "POST", "/v1/cw/targets", k.key, map[string]any{}).wantPlain(t, 422)
	s.call(t, "POST", "/v1/cw/targets", k.key, `{"handle":`).wantPlain(t, 400)
	s.do(t, "POST", "/v1/cw/targets", bearer(k.key), `{"handle":"abc"}`).wantPlain(t, 415)
	s.call(t, "POST", "/v1/cw/targets", k.key, `{"handle":"`+strings.Repeat("a", 70*1024)+`"}`).wantPlain(t, 413)

	handles := []string{first}
	for len(handles) < 20 {
		h := watchHandle("pwcw")
		digest := len(handles) == 5
		d := s.call(t, "POST", "/v1/cw/targets", k.key, map[string]any{"handle": h, "new_followers": digest}).wantOK(t, 201)
		if d.boolean(t, "new_followers") != digest {
			t.Errorf("new_followers %v, want %v", d["new_followers"], digest)
		}
		handles = append(handles, h)
	}
	e := s.call(t, "POST", "/v1/cw/targets", k.key, map[string]any{"handle": watchHandle("pwcw")}).wantErr(t, 403, "handle_limit_reached")
	if !strings.Contains(e.str(t, "error"), "20/20") {
		t.Errorf("limit error %q does not say 20/20", e.str(t, "error"))
	}
	s.call(t, "DELETE", "/v1/cw/targets/"+watchHandle("never"), k.key, nil).wantErr(t, 404, "not_found")
	rm := s.call(t, "DELETE", "/v1/cw/targets/"+strings.ToUpper(handles[3]), k.key, nil).wantOK(t, 200)
	rm.wantKeys(t, "removed", "removed", "count", "max_handles")
	if rm.str(t, "removed") != handles[3] || rm.num(t, "count") != 19 {
		t.Errorf("removed %v", rm)
	}
	s.call(t, "DELETE", "/v1/cw/targets/"+handles[3], k.key, nil).wantErr(t, 404, "not_found")
	last := watchHandle("pwcw")
	s.call(t, "POST", "/v1/cw/targets", k.key, map[string]any{"handle": last}).wantOK(t, 201)
	handles = append(slices.Delete(handles, 3, 4), last)

	list = s.call(t, "GET", "/v1/cw/targets", k.key, nil).wantOK(t, 200)
	var got []string
	for _, raw := range list.array(t, "targets") {
		o := decodeObj(t, raw, "target")
		got = append(got, o.str(t, "handle"))
		if o.boolean(t, "new_followers") != (o.str(t, "handle") == handles[4]) {
			t.Errorf("target %v: new_followers", o)
		}
	}
	if !slices.Equal(got, handles) || list.num(t, "count") != 20 {
		t.Errorf("listed %v (count %v), want %v in the order added", got, list["count"], handles)
	}

	// The digest switch, per handle.
	p := s.call(t, "PATCH", "/v1/cw/targets/"+handles[0], k.key, map[string]any{"new_followers": true}).wantOK(t, 200)
	if !p.boolean(t, "new_followers") || p.str(t, "handle") != handles[0] {
		t.Errorf("patched %v", p)
	}
	s.call(t, "PATCH", "/v1/cw/targets/"+watchHandle("never"), k.key, map[string]any{"new_followers": true}).wantErr(t, 404, "not_found")
	s.call(t, "PATCH", "/v1/cw/targets/"+handles[0], k.key, map[string]any{"new_followers": 1}).wantErr(t, 400, "bad_request")
	s.call(t, "PATCH", "/v1/cw/targets/"+handles[0], k.key, map[string]any{}).wantPlain(t, 422)

	// A bigger plan raises the ceiling at once.
	s.patch(t, k.account, "cw", map[string]any{"max_handles": 50}).wantOK(t, 200)
	s.call(t, "POST", "/v1/cw/targets", k.key, map[string]any{"handle": watchHandle("pwcw")}).wantOK(t, 201)
	st := s.call(t, "GET", "/v1/cw/status", k.key, nil).wantOK(t, 200)
	if st.num(t, "handles_tracked") != 21 || st.num(t, "handle_limit") != 50 {
		t.Errorf("status %v", st)
	}
}

func testCWSettings(t *testing.T, s *server) {
	k := s.watchIssue(t, "cw", nil).key
	all := []string{"community_joined", "community_renamed", "community_description_changed", "account_followed"}
	get := func() obj {
		d := s.call(t, "GET", "/v1/cw/settings", k, nil).wantOK(t, 200)
		d.wantKeys(t, "settings", "event_types", "min_member_count", "flap_cooldown_secs")
		return d
	}
	d := get()
	if !slices.Equal(d.strings(t, "event_types"), all) || d.num(t, "min_member_count") != 0 || d.num(t, "flap_cooldown_secs") != 0 {
		t.Fatalf("default settings %v", d)
	}
	d = s.call(t, "PATCH", "/v1/cw/settings", k, map[string]any{"event_types": []string{"account_followed", "community_joined", "community_joined"}}).wantOK(t, 200)
	if got := d.strings(t, "event_types"); !slices.Equal(got, []string{"community_joined", "account_followed"}) {
		t.Errorf("event_types %v, want [community_joined account_followed] (deduplicated, spec order)", got)
	}
	d = s.call(t, "PATCH", "/v1/cw/settings", k, map[string]any{"min_member_count": 100, "flap_cooldown_secs": 3600}).wantOK(t, 200)
	if d.num(t, "min_member_count") != 100 || d.num(t, "flap_cooldown_secs") != 3600 || len(d.strings(t, "event_types")) != 2 {
		t.Errorf("after a partial PATCH %v: omitted fields must stay", d)
	}
	for _, bad := range []map[string]any{
		{"event_types": []string{"community_left"}},
		{"event_types": []string{"community_created"}},
		{"event_types": "community_joined"},
		{"event_types": nil},
		{"event_types": []any{1}},
		{"min_member_count": -1},
		{"min_member_count": 1.5},
		{"min_member_count": "5"},
		{"min_member_count": nil},
		{"flap_cooldown_secs": 3601},
		{"flap_cooldown_secs": -1},
		{"flap_cooldown_secs": true},
		{"min_member_count": 7, "flap_cooldown_secs": 4000}, // nothing is applied
	} {
		s.call(t, "PATCH", "/v1/cw/settings", k, bad).wantErr(t, 400, "bad_request")
	}
	d = get()
	if d.num(t, "min_member_count") != 100 || d.num(t, "flap_cooldown_secs") != 3600 {
		t.Errorf("a refused PATCH changed the settings: %v", d)
	}
	s.call(t, "PATCH", "/v1/cw/settings", k, `[]`).wantPlain(t, 400)
	d = s.call(t, "PATCH", "/v1/cw/settings", k, map[string]any{"event_types": []string{}, "flap_cooldown_secs": 0, "min_member_count": 0}).wantOK(t, 200)
	if len(d.strings(t, "event_types")) != 0 || d.num(t, "flap_cooldown_secs") != 0 {
		t.Errorf("emptied settings %v", d)
	}
	if got := get().strings(t, "event_types"); len(got) != 0 {
		t.Errorf("event_types after emptying %v", got)
	}
}

func testCWWebhookRegistration(t *testing.T, s *server) {
	for _, p := range []string{"cw", "ct", "et"} {
		k := s.watchIssue(t, p, nil).key
		path := "/v1/" + p + "/webhook"
		d := s.call(t, "GET", path, k, nil).wantOK(t, 200)
		d.wantKeys(t, "webhook", "url", "configured", "updated_at")
		if !d.isNull("url") || d.boolean(t, "configured") {
			t.Errorf("%s webhook before PUT %v", p, d)
		}
		s.call(t, "PUT", path, k, map[string]any{}).wantPlain(t, 422)
		for _, bad := range []any{5, "", "ftp://8.8.8.8/x", "not a url", "http://10.0.0.1/h", "http://169.254.169.254/latest",
			"http://[::1]:9/h", "http://192.168.1.1/", "http://224.0.0.1/", "http://user:pw@127.0.0.1/"} {
			s.call(t, "PUT", path, k, map[string]any{"url": bad}).wantErr(t, 400, "bad_request")
		}
		h := watchNewHook(t)
		secret := s.watchPutWebhook(t, p, k, h)
		d = s.call(t, "GET", path, k, nil).wantOK(t, 200)
		d.wantKeys(t, "webhook", "url", "configured", "updated_at")
		if d.str(t, "url") != h.url() || !d.boolean(t, "configured") {
			t.Errorf("%s webhook %v", p, d)
		}
		if strings.Contains(fmt.Sprint(d), secret) {
			t.Errorf("GET shows the secret")
		}
		if again := s.watchPutWebhook(t, p, k, h); again == secret {
			t.Errorf("a second PUT kept the secret")
		}
		if !s.call(t, "GET", "/v1/"+p+"/status", k, nil).wantOK(t, 200).boolean(t, "webhook_configured") {
			t.Errorf("%s status: webhook_configured false", p)
		}
	}
}

func testCWEvents(t *testing.T, s *server) {
	u := newUser("pwcw")
	s.send(t, json.RawMessage(u.line(t)))
	h := u.Handle
	k := s.watchIssue(t, "cw", nil)
	s.call(t, "POST", "/v1/cw/targets", k.key, map[string]any{"handle": h, "new_followers": true}).wantOK(t, 201)
	s.afterSync(t, "social_user_id of the target", func() (bool, string) {
		l := s.call(t, "GET", "/v1/cw/targets", k.key, nil).wantOK(t, 200)
		o := decodeObj(t, l.array(t, "targets")[0], "target")
		return !o.isNull("social_user_id") && o.str(t, "social_user_id") == u.ID, fmt.Sprint(o)
	})
	hook := watchNewHook(t)
	secret := s.watchPutWebhook(t, "cw", k.key, hook)
	w := s.watchDial(t, "cw", k.key)

	c1, c2 := watchComm{"9100", "Alpha", "first", 1000}, watchComm{"9200", "Beta", "second", 2000}
	// The first list after the add (the engine knew none at the add) is the
	// one-time sync: a community_joined per community, once, on the socket
	// opened after the add and on the webhook.
	s.send(t, watchCommunities(h, c1, c2))
	for _, id := range []string{"9100", "9200"} {
		if d := watchNextFrame(t, w, "community_change"); d.str(t, "community_id") != id || d.str(t, "event_type") != "community_joined" {
			t.Errorf("sync frame %v, want the join of %s", d, id)
		}
	}
	for _, x := range hook.wait(t, 2) {
		watchSigned(t, x, secret, "X-CW-Client-Id", k.account)
	}
	s.afterSync(t, "the sync", func() (bool, string) {
		l := s.call(t, "GET", "/v1/cw/targets", k.key, nil).wantOK(t, 200)
		o := decodeObj(t, l.array(t, "targets")[0], "target")
		return o.boolean(t, "synced") && len(o.array(t, "communities")) == 2, fmt.Sprint(o)
	})
	if got := w.Barrier(t); len(got) != 0 { // after Sync: nothing more was queued for the socket
		t.Errorf("the one-time sync sent more frames: %q", got)
	}
	l := s.call(t, "GET", "/v1/cw/targets", k.key, nil).wantOK(t, 200)
	c := decodeObj(t, decodeObj(t, l.array(t, "targets")[0], "target").array(t, "communities")[0], "community")
	c.wantKeys(t, "community", "community_id", "community_name", "member_count", "joined_at")
	if c.str(t, "community_id") != "9100" || !c.isNull("joined_at") {
		t.Errorf("synced community %v (joined_at must be null: joined before the sync)", c)
	}

	c3 := watchComm{"9300", "Gamma", "third", 3000}
	before := time.Now()
	s.send(t, watchCommunities(h, c1, c2, c3))
	d := watchNextFrame(t, w, "community_change") // the first change after the sync
	d.wantKeys(t, "join", "event_type", "screen_name", "social_user_id", "community_id", "community_name", "description",
		"member_count", "creator_screen_name", "detected_at", "detection_latency_ms")
	if d.str(t, "event_type") != "community_joined" || d.str(t, "screen_name") != h || d.str(t, "social_user_id") != u.ID ||
		d.str(t, "community_id") != "9300" || d.str(t, "community_name") != "Gamma" || d.str(t, "description") != "third" ||
		d.num(t, "member_count") != 3000 || d.str(t, "creator_screen_name") != "creator_9300" {
		t.Errorf("join data %v", d)
	}
	if at := watchISO(t, d, "detected_at"); at.Before(before.Add(-time.Second)) || at.After(time.Now().Add(time.Second)) {
		t.Errorf("detected_at %v is not about now", at)
	}
	if lat := d.num(t, "detection_latency_ms"); lat < 0 || lat > 30000 || lat != float64(int64(lat)) {
		t.Errorf("detection_latency_ms %v", lat)
	}
	got := hook.wait(t, 3)
	first := got[2]
	watchSigned(t, first, secret, "X-CW-Client-Id", k.account)
	body := decodeObj(t, first.body, "webhook body")
	body.wantKeys(t, "webhook body", "event", "timestamp", "data")
	if body.str(t, "event") != "community_change" {
		t.Errorf("event %q", body.str(t, "event"))
	}
	if ts := body.num(t, "timestamp"); ts < float64(before.Add(-time.Second).UnixMilli()) || ts > float64(time.Now().UnixMilli()+1000) {
		t.Errorf("timestamp %v is not epoch ms of now", ts)
	}
	if !reflect.DeepEqual(body.object(t, "data"), d) {
		t.Errorf("webhook data %v differs from the frame's %v", body.object(t, "data"), d)
	}

	// A rename and a description change in one snapshot: two frames, in
	// snapshot order.
	s.send(t, watchCommunities(h, watchComm{"9100", "Alpha Two", "first", 1001}, watchComm{"9200", "Beta", "second, longer", 2000}, c3))
	r := watchNextFrame(t, w, "community_change")
	r.wantKeys(t, "rename", "event_type", "screen_name", "social_user_id", "community_id", "community_name", "old_name",
		"description", "member_count", "creator_screen_name", "detected_at", "detection_latency_ms")
	if r.str(t, "event_type") != "community_renamed" || r.str(t, "old_name") != "Alpha" || r.str(t, "community_name") != "Alpha Two" || r.num(t, "member_count") != 1001 {
		t.Errorf("rename %v", r)
	}
	dc := watchNextFrame(t, w, "community_change")
	dc.wantKeys(t, "description change", "event_type", "screen_name", "social_user_id", "community_id", "community_name",
		"description", "old_description", "member_count", "creator_screen_name", "detected_at", "detection_latency_ms")
	if dc.str(t, "event_type") != "community_description_changed" || dc.str(t, "old_description") != "second" || dc.str(t, "description") != "second, longer" {
		t.Errorf("description change %v", dc)
	}

	// Follows: the first list is the baseline; a new follow goes to the
	// webhook only, never the socket. So does the new-follower digest.
	s.send(t, watchFollowing(h, "501", "502"))
	s.send(t, watchFollowing(h, "501", "502", "503"))
	s.send(t, watchFollowersNew(h, "701", "702"))
	c4 := watchComm{"9400", "Delta", "", 4}
	s.send(t, watchCommunities(h, watchComm{"9100", "Alpha Two", "first", 1001}, watchComm{"9200", "Beta", "second, longer", 2000}, c3, c4))
	if j := watchNextFrame(t, w, "community_change"); j.str(t, "community_id") != "9400" || j.str(t, "event_type") != "community_joined" {
		t.Errorf("after follows and a digest the next frame is %v, want the join of 9400 (follows are not on the socket)", j)
	}
	all := hook.wait(t, 8) // the sync (2), joins 9300 and 9400, rename, description, follow, digest
	byEvent := map[string][]obj{}
	for _, x := range all {
		watchSigned(t, x, secret, "X-CW-Client-Id", k.account)
		b := decodeObj(t, x.body, "webhook body")
		b.wantKeys(t, "webhook body", "event", "timestamp", "data")
		byEvent[b.str(t, "event")] = append(byEvent[b.str(t, "event")], b.object(t, "data"))
	}
	if len(byEvent["community_change"]) != 6 || len(byEvent["follow_change"]) != 1 || len(byEvent["new_followers"]) != 1 {
		t.Fatalf("webhook events %v", byEvent)
	}
	f := byEvent["follow_change"][0]
	f.wantKeys(t, "follow data", "event_type", "screen_name", "social_user_id", "followed", "detected_at", "detection_latency_ms")
	fd := f.object(t, "followed")
	if f.str(t, "event_type") != "account_followed" || f.str(t, "screen_name") != h || fd.str(t, "id") != "503" || fd.str(t, "screen_name") != "Acct503" /* the platform's spelling */ {
		t.Errorf("follow data %v", f)
	}
	nf := byEvent["new_followers"][0]
	nf.wantKeys(t, "digest data", "screen_name", "social_user_id", "followers", "count", "detected_at", "detection_latency_ms")
	if nf.num(t, "count") != 2 || len(nf.array(t, "followers")) != 2 {
		t.Errorf("digest %v", nf)
	}

	s.afterSync(t, "status counts", func() (bool, string) {
		st := s.call(t, "GET", "/v1/cw/status", k.key, nil).wantOK(t, 200)
		st.wantKeys(t, "status", "handles_tracked", "handle_limit", "communities_tracked", "deliveries_24h", "webhook_configured")
		ok := st.num(t, "handles_tracked") == 1 && st.num(t, "handle_limit") == 20 && st.num(t, "communities_tracked") == 4 &&
			st.num(t, "deliveries_24h") == 8 && st.boolean(t, "webhook_configured")
		return ok, fmt.Sprint(st)
	})
	l = s.call(t, "GET", "/v1/cw/targets", k.key, nil).wantOK(t, 200)
	joined := 0
	for _, raw := range decodeObj(t, l.array(t, "targets")[0], "target").array(t, "communities") {
		if !decodeObj(t, raw, "community").isNull("joined_at") {
			joined++
		}
	}
	if joined != 2 {
		t.Errorf("%d communities with a join time, want 2 (9300 and 9400)", joined)
	}
}

func testCWFiltersAndFlap(t *testing.T, s *server) {
	h := watchHandle("pwflt")
	picky, flappy := s.watchIssue(t, "cw", nil), s.watchIssue(t, "cw", nil)
	for _, k := range []issued{picky, flappy} {
		s.call(t, "POST", "/v1/cw/targets", k.key, map[string]any{"handle": h}).wantOK(t, 201)
	}
	s.call(t, "PATCH", "/v1/cw/settings", picky.key, map[string]any{"event_types": []string{"community_renamed"}, "min_member_count": 100}).wantOK(t, 200)
	s.call(t, "PATCH", "/v1/cw/settings", flappy.key, map[string]any{"flap_cooldown_secs": 3600}).wantOK(t, 200)
	ph, fh := watchNewHook(t), watchNewHook(t)
	s.watchPutWebhook(t, "cw", picky.key, ph)
	s.watchPutWebhook(t, "cw", flappy.key, fh)
	pw, fw := s.watchDial(t, "cw", picky.key), s.watchDial(t, "cw", flappy.key)

	small, big := watchComm{"8100", "Small", "", 5}, watchComm{"8200", "Big", "", 500}
	s.send(t, watchCommunities(h))             // sync
	s.send(t, watchCommunities(h, small, big)) // two joins
	for _, w := range []*wsClient{pw, fw} {    // settings never apply to the socket
		for _, id := range []string{"8100", "8200"} {
			if d := watchNextFrame(t, w, "community_change"); d.str(t, "community_id") != id || d.str(t, "event_type") != "community_joined" {
				t.Errorf("frame %v, want the join of %s", d, id)
			}
		}
	}
	s.send(t, watchCommunities(h, watchComm{"8100", "Small2", "", 5}, watchComm{"8200", "Big2", "", 500})) // two renames
	s.send(t, watchCommunities(h, watchComm{"8100", "Small2", "", 5}))                                     // big left: nothing
	s.send(t, watchCommunities(h, watchComm{"8100", "Small2", "", 5}, watchComm{"8200", "Big2", "", 500})) // back: a flap for flappy
	for _, w := range []*wsClient{pw, fw} {
		for _, want := range []string{"community_renamed/8100", "community_renamed/8200", "community_joined/8200"} {
			d := watchNextFrame(t, w, "community_change")
			if got := d.str(t, "event_type") + "/" + d.str(t, "community_id"); got != want {
				t.Errorf("frame %s, want %s (the socket gets the re-join; no leave is sent)", got, want)
			}
		}
	}
	summary := func(k issued, want int) {
		s.afterSync(t, "deliveries", func() (bool, string) {
			st := s.call(t, "GET", "/v1/cw/status", k.key, nil).wantOK(t, 200)
			return st.num(t, "deliveries_24h") == float64(want), fmt.Sprint(st)
		})
	}
	// picky: only renames, only of communities of 100 members or more.
	summary(picky, 1)
	// flappy: both joins, both renames; the re-join within the cooldown is hidden.
	summary(flappy, 4)
	kinds := func(h *watchHook, n int) []string {
		var out []string
		for _, x := range h.wait(t, n) {
			d := decodeObj(t, x.body, "body").object(t, "data")
			out = append(out, d.str(t, "event_type")+"/"+d.str(t, "community_id"))
		}
		slices.Sort(out)
		return out
	}
	if got := kinds(ph, 1); fmt.Sprint(got) != "[community_renamed/8200]" {
		t.Errorf("picky webhooks %v", got)
	}
	if got := kinds(fh, 4); fmt.Sprint(got) != "[community_joined/8100 community_joined/8200 community_renamed/8100 community_renamed/8200]" {
		t.Errorf("flappy webhooks %v", got)
	}
}

func testCWRetries(t *testing.T, s *server) {
	h := watchHandle("pwretry")
	retry, final := s.watchIssue(t, "cw", nil), s.watchIssue(t, "cw", nil)
	rh, fh := watchNewHook(t, 500, 503, 200), watchNewHook(t, 400)
	for _, x := range []struct {
		k issued
		h *watchHook
	}{{retry, rh}, {final, fh}} {
		s.call(t, "POST", "/v1/cw/targets", x.k.key, map[string]any{"handle": h}).wantOK(t, 201)
		s.watchPutWebhook(t, "cw", x.k.key, x.h)
	}
	s.send(t, watchCommunities(h), watchCommunities(h, watchComm{"7100", "R", "", 1}))
	got := rh.wait(t, 3)
	for i, x := range got {
		if string(x.body) != string(got[0].body) || x.header.Get("X-Delivery-Id") != got[0].header.Get("X-Delivery-Id") || x.header.Get("X-Delivery-Id") == "" {
			t.Errorf("attempt %d differs from the first: same body and delivery id expected", i+1)
		}
	}
	fh.wait(t, 1)
	s.webhooksDone(t, "cw")
	if n := len(rh.all()); n != 3 {
		t.Errorf("%d attempts after 5xx, 5xx, 200; want 3", n)
	}
	if n := len(fh.all()); n != 1 {
		t.Errorf("%d attempts after a 400; want 1 (4xx is not retried)", n)
	}
}

func testCWSocketTargetsAtConnect(t *testing.T, s *server) {
	k := s.watchIssue(t, "cw", nil).key
	h1, h2 := watchHandle("pwsock"), watchHandle("pwsock")
	s.call(t, "POST", "/v1/cw/targets", k, map[string]any{"handle": h1}).wantOK(t, 201)
	w := s.watchDial(t, "cw", k)
	s.call(t, "POST", "/v1/cw/targets", k, map[string]any{"handle": h2}).wantOK(t, 201)
	s.send(t, watchCommunities(h1), watchCommunities(h2))
	s.send(t, watchCommunities(h2, watchComm{"6200", "Two", "", 1}), watchCommunities(h1, watchComm{"6100", "One", "", 1}))
	if d := watchNextFrame(t, w, "community_change"); d.str(t, "screen_name") != h1 {
		t.Errorf("first frame for %s, want %s: the list is read at connect", d.str(t, "screen_name"), h1)
	}
	w2 := s.watchDial(t, "cw", k) // reconnect: now both
	s.send(t, watchCommunities(h2, watchComm{"6200", "Two", "", 1}, watchComm{"6201", "Three", "", 1}))
	// h2's join of 6200 above may be detected only after w2 connected (the
	// detector runs asynchronously): then w2 gets it first, rightly.
	d := watchNextFrame(t, w2, "community_change")
	if d.str(t, "screen_name") == h2 && d.str(t, "community_id") == "6200" {
		d = watchNextFrame(t, w2, "community_change")
	}
	if d.str(t, "screen_name") != h2 || d.str(t, "community_id") != "6201" {
		t.Errorf("after a reconnect: %v", d)
	}
	// An account holds at most 10 sockets per product.
	for range 8 {
		s.watchDial(t, "cw", k)
	}
	_, r, err := dialFrom(t, s.wsURL("/v1/cw/ws?api_key="+k), "")
	if err == nil || r == nil || r.StatusCode != 429 || !strings.HasPrefix(r.Header.Get("Content-Type"), "text/plain") {
		t.Errorf("an 11th socket: %v %s, want a plain-text 429", err, testkit.ResponseText(r))
	}
	w.CloseGracefully()
	testkit.WaitFor(t, 10*time.Second, "a freed socket slot", func() (bool, string) {
		c, r, err := dialFrom(t, s.wsURL("/v1/cw/ws?api_key="+k), "")
		if err != nil {
			return false, testkit.ResponseText(r)
		}
		c.Close()
		return true, ""
	})
}
