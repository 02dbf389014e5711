package e2e

import (
	"fmt"
	"slices"
	"strconv"
	"testing"
	"time"
)

// lkTracePath is the trace endpoint of an id made of prefix, handle and ms.
func lkTracePath(prefix, handle string, ms int64) string {
	return "/v1/dt/events/" + prefix + handle + "_" + lkItoa(ms)
}

func lkItoa(v int64) string { return strconv.FormatInt(v, 10) }

func testLookupsTweetTrace(t *testing.T, s *server) {
	acc := s.lkDT(t, "starter")
	h, id := s.lkResolved(t, acc, "lk_trace_tw")
	tid := lkID()
	created := time.Now().Add(-2 * time.Second).UnixMilli()
	p := lkPost(tid, id, h, "quote", "quoting this", created)
	p["quoted_tweet"] = map[string]any{"id": "5", "text": "q", "author": map[string]any{"handle": "x", "name": "X", "avatar": ""}}
	s.lkSend(t, p)
	path := "/v1/dt/events/evt_" + tid
	d := s.lkNow(t, acc.key, path, "tweet trace record", func(obj) bool { return true })
	d.wantKeys(t, "trace record", "event_id", "event", "handle", "detected_at", "match_count", "matches")
	if d.str(t, "event_id") != "evt_"+tid || d.str(t, "event") != "social.tweet.new" || d.str(t, "handle") != h || d.num(t, "match_count") != 1 {
		t.Errorf("tweet record %v", d)
	}
	ms := lkObjects(t, d, "matches")
	if len(ms) != 1 {
		t.Fatalf("matches %v", d["matches"])
	}
	m := ms[0]
	m.wantKeys(t, "tweet match", "tweet_id", "text", "is_reply", "is_quote", "tweet_created_at", "detected_at")
	if m.str(t, "tweet_id") != tid || m.str(t, "text") != "quoting this" || m.boolean(t, "is_reply") || !m.boolean(t, "is_quote") {
		t.Errorf("match %v", m)
	}
	if !lkTime(t, m, "tweet_created_at").Equal(time.UnixMilli(created)) {
		t.Errorf("tweet_created_at %s, want %v", m["tweet_created_at"], time.UnixMilli(created).UTC())
	}
	if det := lkTime(t, m, "detected_at"); !det.Equal(lkTime(t, d, "detected_at")) || time.Since(det) > time.Minute {
		t.Errorf("detected_at %s / %s", m["detected_at"], d["detected_at"])
	}
	s.lkGet(t, acc.key, "/v1/dt/events/evt_"+lkID()).wantErr(t, 404, "not_found")
	// A post of a handle that is not on the caller's list.
	other := s.lkDT(t, "enterprise")
	s.lkGet(t, other.key, path).wantErr(t, 403, "forbidden")
	// The realtime module gates post records as it gates post events.
	noRealtime := s.lkDT(t, "enterprise", "follows")
	s.lkTarget(t, noRealtime.key, h)
	s.lkGet(t, noRealtime.key, path).wantErr(t, 403, "forbidden")
	// (h itself may end in _<digits>, which parses as a time: use a plain handle)
	for _, bad := range []string{"evt_", "evt_12a", "abc", "evt_f_justhandle", "evt_f_" + h + "_x", "evt_zz_" + h + "_1", "evt_f_bad-handle_1"} {
		s.lkGet(t, acc.key, "/v1/dt/events/"+bad).wantErr(t, 400, "bad_request")
	}
}

func testLookupsEventTrace(t *testing.T, s *server) {
	acc := s.lkDT(t, "enterprise")
	h, id := s.lkResolved(t, acc, "lk_trace")
	a, b, c := [2]string{lkID(), "alpha"}, [2]string{lkID(), "bravo"}, [2]string{lkID(), "charlie"}
	s.lkSend(t, lkFollowing(h, a))
	// The baseline is in once the following list shows it.
	s.lkNow(t, acc.key, "/v1/dt/following/"+h, "baseline", func(d obj) bool { return d.num(t, "total") == 1 })
	s.lkSend(t, lkFollowing(h, b, c))
	at := time.Now().UnixMilli()

	d := s.lkNow(t, acc.key, lkTracePath("evt_f_", h, at), "follow records", func(d obj) bool { return d.num(t, "match_count") == 2 })
	d.wantKeys(t, "trace record", "event_id", "event", "handle", "detected_at", "match_count", "matches", "match_window_secs")
	if d.str(t, "event") != "social.following.new" || d.str(t, "handle") != h || d.num(t, "match_window_secs") != 10 ||
		d.str(t, "event_id") != "evt_f_"+h+"_"+lkItoa(at) || !lkTime(t, d, "detected_at").Equal(time.UnixMilli(at)) {
		t.Errorf("follow record %v", d)
	}
	var got []string
	for _, m := range lkObjects(t, d, "matches") {
		m.wantKeys(t, "non-tweet match", "tweet_id", "text", "is_reply", "is_quote", "tweet_created_at", "detected_at", "event_id", "event", "data")
		if !m.isNull("tweet_id") || !m.isNull("text") || !m.isNull("tweet_created_at") || m.boolean(t, "is_reply") || m.boolean(t, "is_quote") {
			t.Errorf("non-tweet match carries tweet fields: %v", m)
		}
		if m.str(t, "event") != "social.following.new" || len(m.str(t, "event_id")) < len("evt_f_") || m.str(t, "event_id")[:6] != "evt_f_" {
			t.Errorf("match %v", m)
		}
		if at2 := lkTime(t, m, "detected_at"); at2.Sub(time.UnixMilli(at)).Abs() > 10*time.Second {
			t.Errorf("match detected_at %v outside the window", at2)
		}
		got = append(got, m.object(t, "data").str(t, "id"))
	}
	slices.Sort(got)
	want := []string{b[0], c[0]}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("follow matches %v, want %v", got, want)
	}
	rm := s.lkNow(t, acc.key, lkTracePath("evt_fr_", h, at), "unfollow record", func(obj) bool { return true })
	if rm.str(t, "event") != "social.following.removed" || rm.num(t, "match_count") != 1 ||
		lkObjects(t, rm, "matches")[0].object(t, "data").str(t, "id") != a[0] {
		t.Errorf("unfollow record %v", rm)
	}

	s.lkSend(t, lkFollowersNew(h, [2]string{lkID(), "fan"}))
	atF := time.Now().UnixMilli()
	fl := s.lkNow(t, acc.key, lkTracePath("evt_fl_", h, atF), "follower record", func(obj) bool { return true })
	if fl.str(t, "event") != "social.follower.new" || fl.num(t, "match_count") != 1 {
		t.Errorf("follower record %v", fl)
	}
	u := lkUser(id, h, 100, 10)
	u["bio"] = "a new bio"
	s.lkSend(t, u)
	atP := time.Now().UnixMilli()
	pr := s.lkNow(t, acc.key, lkTracePath("evt_p_", h, atP), "profile record", func(obj) bool { return true })
	if pr.str(t, "event") != "social.profile.update" || pr.num(t, "match_count") < 1 {
		t.Errorf("profile record %v", pr)
	}
	for _, m := range lkObjects(t, pr, "matches") {
		if d := m.object(t, "data"); d.str(t, "field") != "bio" && d.str(t, "field") != "description" {
			t.Errorf("profile match %v: only the bio changed", m)
		}
	}

	// Outside the window, deleted posts, other lists, missing modules.
	s.lkGet(t, acc.key, lkTracePath("evt_f_", h, at-time.Hour.Milliseconds())).wantErr(t, 404, "not_found")
	s.lkGet(t, acc.key, lkTracePath("evt_f_", h, at+time.Minute.Milliseconds())).wantErr(t, 404, "not_found")
	s.lkGet(t, acc.key, lkTracePath("evt_del_", h, at)).wantErr(t, 404, "not_found")
	other, _ := s.lkResolved(t, s.lkDT(t, "enterprise"), "lk_trace_other")
	s.lkGet(t, acc.key, lkTracePath("evt_f_", other, at)).wantErr(t, 403, "forbidden")
	s.lkGet(t, acc.key, lkTracePath("evt_del_", other, at)).wantErr(t, 403, "forbidden")
	pro := s.lkDT(t, "pro")
	s.lkTarget(t, pro.key, h)
	s.lkGet(t, pro.key, lkTracePath("evt_f_", h, at)).wantErr(t, 403, "forbidden")
	s.lkGet(t, pro.key, lkTracePath("evt_fr_", h, at)).wantErr(t, 403, "forbidden")
	s.lkGet(t, pro.key, lkTracePath("evt_fl_", h, atF)).wantOK(t, 200)
	s.lkGet(t, pro.key, lkTracePath("evt_p_", h, atP)).wantOK(t, 200)
	starter := s.lkDT(t, "starter")
	s.lkTarget(t, starter.key, h)
	s.lkGet(t, starter.key, lkTracePath("evt_p_", h, atP)).wantErr(t, 403, "forbidden")
	s.lkGet(t, starter.key, lkTracePath("evt_fl_", h, atF)).wantErr(t, 403, "forbidden")
	s.lkGet(t, starter.key, lkTracePath("evt_del_", h, at)).wantErr(t, 404, "not_found")
}

func testLookupsSocialTweet(t *testing.T, s *server) {
	acc := s.lkDT(t, "starter")
	h, id := lkHandle("lk_stw"), lkID()
	s.lkSend(t, lkUser(id, h, 4321, 10))
	s.lkWaitUser(t, acc.key, h)
	tid := lkID()
	created := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC).UnixMilli()
	p := lkPost(tid, id, h, "post", "gm gm", created)
	p["media"] = []map[string]any{{"type": "photo", "url": "https://pbs.example.com/1.jpg"}, {"type": "photo", "url": "https://pbs.example.com/2.jpg"}}
	p["metrics"] = map[string]any{"likes": 1, "retweets": 2, "replies": nil, "quotes": 0, "views": "1234"}
	s.lkSend(t, p)
	path := "/social/tweet/" + tid
	s.sync(t)
	r := s.lkGet(t, acc.key, path)
	if r.status != 200 {
		t.Fatalf("tweet lookup after Sync: %s", r)
	}
	wantJSONType(t, r)
	o := decodeObj(t, r.body, r.String())
	o.wantKeys(t, "tweet lookup", "id", "text", "media", "createdAt", "type", "author", "likeCount", "retweetCount",
		"replyCount", "quoteCount", "viewCount", "bookmarkCount")
	if o.str(t, "id") != tid || o.str(t, "text") != "gm gm" || o.str(t, "type") != "post" ||
		o.str(t, "createdAt") != "Wed Mar 04 05:06:07 +0000 2026" {
		t.Errorf("tweet lookup %v", o)
	}
	if got := o.strings(t, "media"); !slices.Equal(got, []string{"https://pbs.example.com/1.jpg", "https://pbs.example.com/2.jpg"}) {
		t.Errorf("media %v", got)
	}
	au := o.object(t, "author")
	au.wantKeys(t, "author", "userName", "name", "profilePicture", "followers", "isVerified")
	if au.str(t, "userName") != h || au.str(t, "name") != "Name of "+h || au.num(t, "followers") != 4321 || !au.boolean(t, "isVerified") ||
		au.str(t, "profilePicture") != "https://pbs.example.com/"+h+".jpg" {
		t.Errorf("author %v, want the directory's current profile", au)
	}
	if o.num(t, "likeCount") != 1 || o.num(t, "retweetCount") != 2 || !o.isNull("replyCount") || o.num(t, "quoteCount") != 0 ||
		o.num(t, "viewCount") != 1234 || !o.isNull("bookmarkCount") {
		t.Errorf("counts before engagement %v", o)
	}
	// A later engagement observation gives the current counts.
	s.lkSend(t, map[string]any{"kind": "engagement", "tweet_id": tid, "favorite_count": 50, "retweet_count": 6,
		"reply_count": 3, "quote_count": 2, "bookmark_count": 7})
	s.sync(t)
	r = s.lkGet(t, acc.key, path)
	o = decodeObj(t, r.body, r.String())
	if r.status != 200 || o.num(t, "likeCount") != 50 || o.num(t, "retweetCount") != 6 || o.num(t, "replyCount") != 3 || o.num(t, "quoteCount") != 2 ||
		o.num(t, "bookmarkCount") != 7 || o.num(t, "viewCount") != 1234 {
		t.Errorf("counts after engagement %v", o)
	}

	// Types; an author the directory does not know comes from the post.
	stranger, sid := lkHandle("lk_stranger"), lkID()
	rid := lkID()
	rp := lkPost(rid, sid, stranger, "repost", "RT", created)
	re := lkPost(lkID(), id, h, "reply", "@x yes", created)
	re["in_reply_to"] = map[string]any{"tweet_id": "1", "user": "x"}
	s.lkSend(t, rp, re)
	s.sync(t)
	for tweet, want := range map[string]string{rid: "post", re["id"].(string): "reply"} {
		r := s.lkGet(t, acc.key, "/social/tweet/"+tweet)
		if r.status != 200 || decodeObj(t, r.body, r.String()).str(t, "type") != want {
			t.Errorf("type of %s after Sync: %s, want %s", tweet, r, want)
		}
	}
	r = s.lkGet(t, acc.key, "/social/tweet/"+rid)
	sa := decodeObj(t, r.body, r.String()).object(t, "author")
	if sa.str(t, "userName") != stranger || sa.str(t, "name") != "Author "+stranger || sa.num(t, "followers") != 5 || sa.boolean(t, "isVerified") {
		t.Errorf("author from the post %v", sa)
	}

	s.lkGet(t, acc.key, "/social/tweet/abc").wantSocialErr(t, 400)
	s.lkGet(t, acc.key, "/social/tweet/12a").wantSocialErr(t, 400)
	s.lkGet(t, acc.key, "/social/tweet/"+lkID()).wantSocialErr(t, 404)
}

func testLookupsBlacklist(t *testing.T, s *server) {
	acc, other := s.lkDT(t, "starter"), s.lkDT(t, "starter")
	list := func(key string) obj {
		r := s.lkGet(t, key, "/social/blacklist")
		if r.status != 200 {
			t.Fatalf("%s", r)
		}
		wantJSONType(t, r)
		o := decodeObj(t, r.body, r.String())
		o.wantKeys(t, "blacklist", "status", "blacklist", "count")
		if o.str(t, "status") != "success" {
			t.Errorf("blacklist status %s", o["status"])
		}
		return o
	}
	if o := list(acc.key); o.num(t, "count") != 0 || len(o.strings(t, "blacklist")) != 0 {
		t.Errorf("empty blacklist %v", o)
	}
	write := func(method, name string, status int) obj {
		r := s.do(t, method, "/social/blacklist/"+name, bearer(acc.key), nil)
		if r.status != status {
			t.Fatalf("%s: status %d, want %d", r, r.status, status)
		}
		o := decodeObj(t, r.body, r.String())
		if status == 200 {
			o.wantKeys(t, "blacklist write", "status", "msg")
			if o.str(t, "status") != "success" || o.str(t, "msg") == "" {
				t.Errorf("write answer %v", o)
			}
		}
		return o
	}
	write("POST", "Spammer_One", 200)
	write("POST", "@spammer_one", 200) // idempotent, case-insensitive
	write("POST", "shill", 200)
	if o := list(acc.key); !slices.Equal(o.strings(t, "blacklist"), []string{"spammer_one", "shill"}) || o.num(t, "count") != 2 {
		t.Errorf("blacklist %v", o)
	}
	if o := list(other.key); o.num(t, "count") != 0 {
		t.Errorf("another account's blacklist %v", o)
	}
	write("DELETE", "spammer_one", 200)
	s.do(t, "DELETE", "/social/blacklist/spammer_one", bearer(acc.key), nil).wantSocialErr(t, 404)
	s.do(t, "DELETE", "/social/blacklist/never_added", bearer(acc.key), nil).wantSocialErr(t, 404)
	s.do(t, "POST", "/social/blacklist/bad-name!", bearer(acc.key), nil).wantSocialErr(t, 400)
	if o := list(acc.key); !slices.Equal(o.strings(t, "blacklist"), []string{"shill"}) {
		t.Errorf("after delete %v", o)
	}

	// The list holds at most 1,000 handles: the next is refused with 403 in
	// the social shape; one already on it is still an idempotent success,
	// and a removal makes room.
	for i := 1; i < 1000; i++ {
		write("POST", fmt.Sprintf("bl_%d", i), 200)
	}
	if o := list(acc.key); o.num(t, "count") != 1000 {
		t.Fatalf("blacklist count %v, want 1000", o.num(t, "count"))
	}
	s.do(t, "POST", "/social/blacklist/one_too_many", bearer(acc.key), nil).wantSocialErr(t, 403)
	write("POST", "shill", 200)
	write("DELETE", "bl_1", 200)
	write("POST", "one_too_many", 200)
}
