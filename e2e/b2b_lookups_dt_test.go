package e2e

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/alertd/alertd/internal/testkit"
)

// lkHandlePaths are the per-handle endpoints of spec 2.
var lkHandlePaths = []string{"/v1/dt/profile/%s", "/v1/dt/profile/%s/history", "/v1/dt/tweets/%s",
	"/v1/dt/following/%s", "/v1/dt/followers/%s", "/v1/dt/communities/%s", "/v1/dt/social/diff/%s"}

func testLookupsAuth(t *testing.T, s *server) {
	acc := s.lkDT(t, "enterprise")
	xg := s.issue(t, map[string]any{"product": "xg"})
	paths := []string{"/v1/dt/webhook", "/v1/dt/events/evt_123"}
	for _, p := range lkHandlePaths {
		paths = append(paths, fmt.Sprintf(p, "somebody"))
	}
	for _, p := range paths {
		s.do(t, "GET", p, nil, nil).wantErr(t, 401, "key_missing")
		s.do(t, "GET", p+"?api_key="+acc.key, nil, nil).wantErr(t, 401, "key_in_query")
		s.do(t, "GET", p, bearer(xg.key), nil).wantErr(t, 401, "key_malformed")
		s.do(t, "GET", p, hdr{"X-API-Key": "dt_" + testkit.RandomHex(24)}, nil).wantErr(t, 401, "key_unknown")
	}
	for _, p := range []string{"/social/tweet/1", "/social/blacklist", "/social/communities"} {
		s.do(t, "GET", p, nil, nil).wantSocialErr(t, 401)
		s.do(t, "GET", p+"?api_key="+acc.key, nil, nil).wantSocialErr(t, 401)
	}
	s.do(t, "POST", "/social/blacklist/x", nil, nil).wantSocialErr(t, 401)
	s.do(t, "DELETE", "/social/blacklist/x", nil, nil).wantSocialErr(t, 401)
	s.do(t, "PUT", "/v1/dt/webhook", nil, `{"url":"https://x.example"}`).wantErr(t, 401, "key_missing")

	// A handle that is not on the caller's list: 403 forbidden, on every
	// per-handle endpoint, X-API-Key accepted.
	h, _ := s.lkResolved(t, s.lkDT(t, "enterprise"), "lk_other")
	for _, p := range lkHandlePaths {
		s.do(t, "GET", fmt.Sprintf(p, h), hdr{"X-API-Key": acc.key}, nil).wantErr(t, 403, "forbidden")
	}
}

func testLookupsPending(t *testing.T, s *server) {
	acc := s.lkDT(t, "enterprise")
	h, id := lkHandle("lk_pending"), lkID()
	d := s.lkTarget(t, acc.key, h)
	if !d.isNull("social_user_id") {
		t.Fatalf("target of an unknown handle: social_user_id %s, want null", d["social_user_id"])
	}
	for _, p := range lkHandlePaths {
		lkWantRetry(t, s.lkGet(t, acc.key, fmt.Sprintf(p, h)), 503, "service_unavailable", 30)
	}
	// A user observation resolves it.
	s.lkSend(t, lkUser(id, h, 100, 10))
	s.lkNow(t, acc.key, "/v1/dt/profile/"+h, "profile after resolution", func(d obj) bool { return d.str(t, "social_id") == id })
	for _, p := range lkHandlePaths {
		if r := s.lkGet(t, acc.key, fmt.Sprintf(p, h)); r.status != 200 {
			t.Errorf("after resolution: %s", r)
		}
	}
}

func testLookupsProfile(t *testing.T, s *server) {
	acc := s.lkDT(t, "enterprise")
	h, id := s.lkResolved(t, acc, "lk_prof")
	before := time.Now().Add(-time.Minute)
	p := s.lkGet(t, acc.key, "/v1/dt/profile/"+strings.ToUpper(h)).wantOK(t, 200) // handles are case-insensitive
	p.wantKeys(t, "profile", "social_id", "screen_name", "display_name", "bio", "location", "website", "followers",
		"following", "tweet_count", "likes_count", "listed_count", "media_count", "is_blue_verified", "verified_type",
		"avatar_url", "banner_url", "account_created_at", "scraped_at")
	for k, want := range map[string]string{"social_id": id, "screen_name": h, "display_name": "Name of " + h,
		"bio": "bio of " + h, "avatar_url": "https://pbs.example.com/" + h + ".jpg"} {
		if got := p.str(t, k); got != want {
			t.Errorf("profile %s = %q, want %q", k, got, want)
		}
	}
	if p.num(t, "followers") != 100 || p.num(t, "following") != 10 || !p.boolean(t, "is_blue_verified") {
		t.Errorf("profile counts or verification: %v", p)
	}
	for _, k := range []string{"location", "website", "verified_type", "banner_url", "account_created_at"} {
		if !p.isNull(k) {
			t.Errorf("profile %s = %s, want null", k, p[k])
		}
	}
	for _, k := range []string{"tweet_count", "likes_count", "listed_count", "media_count"} {
		if p.num(t, k) != 0 {
			t.Errorf("profile %s = %s, want 0", k, p[k])
		}
	}
	if at := lkTime(t, p, "scraped_at"); at.Before(before) || at.After(time.Now().Add(time.Minute)) {
		t.Errorf("scraped_at %v is not about now", at)
	}

	// History: one row per snapshot whose counts changed, newest first.
	u := lkUser(id, h, 100, 10)
	u["bio"] = "only the bio changed"
	s.lkSend(t, u)
	u2 := lkUser(id, h, 150, 10)
	s.lkSend(t, u2)
	u3 := lkUser(id, h, 150, 12)
	s.lkSend(t, u3)
	path := "/v1/dt/profile/" + h + "/history"
	d := s.lkNow(t, acc.key, path, "three history rows", func(d obj) bool { return d.num(t, "count") == 3 })
	d.wantKeys(t, "history", "history", "count")
	rows := lkObjects(t, d, "history")
	var got []string
	for _, r := range rows {
		r.wantKeys(t, "history item", "followers", "following", "tweet_count", "likes_count", "listed_count", "scraped_at")
		got = append(got, fmt.Sprintf("%v/%v", r.num(t, "followers"), r.num(t, "following")))
		lkTime(t, r, "scraped_at")
	}
	if want := []string{"150/12", "150/10", "100/10"}; !slices.Equal(got, want) {
		t.Errorf("history %v, want %v (newest first, unchanged counts skipped)", got, want)
	}
	if !lkTime(t, rows[0], "scraped_at").After(lkTime(t, rows[2], "scraped_at")) {
		t.Errorf("history not newest first: %v", rows)
	}
	page := s.lkGet(t, acc.key, path+"?limit=1&offset=1").wantOK(t, 200)
	if page.num(t, "count") != 1 || lkObjects(t, page, "history")[0].num(t, "followers") != 150 ||
		lkObjects(t, page, "history")[0].num(t, "following") != 10 {
		t.Errorf("history limit=1 offset=1: %v", page)
	}
	if d := s.lkGet(t, acc.key, path+"?limit=1000").wantOK(t, 200); d.num(t, "count") != 3 {
		t.Errorf("history limit above the max: %v", d)
	}
	if d := s.lkGet(t, acc.key, path+"?offset=3").wantOK(t, 200); d.num(t, "count") != 0 || len(d.array(t, "history")) != 0 {
		t.Errorf("history past the end: %v", d)
	}
	for _, q := range []string{"?limit=abc", "?limit=0", "?limit=-1", "?offset=-1", "?offset=x"} {
		s.lkGet(t, acc.key, path+q).wantErr(t, 400, "bad_request")
	}
	// profile_watch is needed for history, not for the profile.
	starter := s.lkDT(t, "starter")
	s.lkTarget(t, starter.key, h)
	s.lkGet(t, starter.key, path).wantErr(t, 403, "forbidden")
	s.lkGet(t, starter.key, "/v1/dt/profile/"+h).wantOK(t, 200)

	// A suspended user has no profile to show.
	sus := lkUser(id, h, 150, 12)
	sus["suspended"] = true
	s.lkSend(t, sus)
	s.sync(t)
	s.lkGet(t, acc.key, "/v1/dt/profile/"+h).wantErr(t, 404, "not_found")
}

func testLookupsTweets(t *testing.T, s *server) {
	acc := s.lkDT(t, "starter")
	h, id := s.lkResolved(t, acc, "lk_tweets")
	base := time.Now().Add(-time.Hour).UnixMilli()
	var obs []map[string]any
	var ids []string
	for i := range 22 {
		tid := lkID()
		ids = append(ids, tid)
		obs = append(obs, lkPost(tid, id, h, "post", fmt.Sprintf("post %d", i), base+int64(i)*1000))
	}
	// The newest is a reply with metrics and media, mentions only in its text.
	reply := obs[21]
	reply["type"], reply["text"] = "reply", "@Degen_Mike agreed, cc @bob"
	reply["in_reply_to"] = map[string]any{"tweet_id": "1", "user": "degen_mike"}
	reply["media"] = []map[string]any{{"type": "photo", "url": "https://pbs.example.com/m1.jpg"}}
	reply["metrics"] = map[string]any{"likes": 3, "retweets": 4, "replies": 5, "quotes": 6, "views": "700"}
	obs[20]["type"] = "quote"
	obs[20]["quoted_tweet"] = map[string]any{"id": "2", "text": "q", "author": map[string]any{"handle": "x", "name": "X", "avatar": ""}}
	obs[20]["mentions"] = []string{"alice"}
	s.lkSend(t, obs...)
	path := "/v1/dt/tweets/" + h
	// Posts land in the store in batches: wait for the newest as well as the count.
	d := s.lkNow(t, acc.key, path, "20 tweets", func(d obj) bool {
		its := lkObjects(t, d, "tweets")
		return d.num(t, "count") == 20 && len(its) > 0 && its[0].str(t, "tweet_id") == ids[21]
	})
	d.wantKeys(t, "tweets", "tweets", "count")
	items := lkObjects(t, d, "tweets")
	if len(items) != 20 {
		t.Fatalf("%d tweets, want 20", len(items))
	}
	for i, it := range items {
		if got, want := it.str(t, "tweet_id"), ids[21-i]; got != want {
			t.Errorf("tweet %d = %s, want %s (newest first, the last 20)", i, got, want)
		}
	}
	r := items[0]
	r.wantKeys(t, "tweet item", "tweet_id", "full_text", "created_at", "likes", "retweets", "replies", "quotes", "views",
		"bookmarks", "is_retweet", "is_reply", "is_quote", "reply_to_username", "media_urls", "mentions", "hashtags", "urls", "cashtags")
	if r.str(t, "full_text") != "@Degen_Mike agreed, cc @bob" || !r.boolean(t, "is_reply") || r.boolean(t, "is_quote") || r.boolean(t, "is_retweet") {
		t.Errorf("reply item %v", r)
	}
	if !lkTime(t, r, "created_at").Equal(time.UnixMilli(base + 21000)) {
		t.Errorf("created_at %s, want %v", r["created_at"], time.UnixMilli(base+21000).UTC())
	}
	for k, want := range map[string]float64{"likes": 3, "retweets": 4, "replies": 5, "quotes": 6, "views": 700, "bookmarks": 0} {
		if got := r.num(t, k); got != want {
			t.Errorf("reply %s = %v, want %v", k, got, want)
		}
	}
	if !r.isNull("reply_to_username") {
		t.Errorf("reply_to_username %s, want null", r["reply_to_username"])
	}
	if got := r.strings(t, "media_urls"); !slices.Equal(got, []string{"https://pbs.example.com/m1.jpg"}) {
		t.Errorf("media_urls %v", got)
	}
	if got := r.strings(t, "mentions"); !slices.Equal(got, []string{"Degen_Mike", "bob"}) {
		t.Errorf("mentions %v, want the @handles of the text", got)
	}
	for _, k := range []string{"hashtags", "urls", "cashtags"} {
		if got := r.strings(t, k); len(got) != 0 {
			t.Errorf("%s %v, want []", k, got)
		}
	}
	q := items[1]
	if !q.boolean(t, "is_quote") || q.boolean(t, "is_reply") || !slices.Equal(q.strings(t, "mentions"), []string{"alice"}) {
		t.Errorf("quote item %v", q)
	}
	if q.num(t, "likes") != 0 || q.num(t, "views") != 0 || len(q.strings(t, "media_urls")) != 0 {
		t.Errorf("null metrics must read 0 and no media []: %v", q)
	}
	if d := s.lkGet(t, acc.key, path+"?limit=5").wantOK(t, 200); d.num(t, "count") != 5 || len(d.array(t, "tweets")) != 5 {
		t.Errorf("limit=5: %v", d)
	}
	if d := s.lkGet(t, acc.key, path+"?limit=50").wantOK(t, 200); d.num(t, "count") != 20 {
		t.Errorf("limit=50 must stay capped at 20: count %v", d["count"])
	}
	s.lkGet(t, acc.key, path+"?limit=many").wantErr(t, 400, "bad_request")

	// A rename moves the target, and its new posts, to the new handle.
	renamed := lkHandle("lk_renamed")
	s.lkSend(t, lkUser(id, renamed, 100, 10))
	s.lkWaitUser(t, acc.key, renamed)
	newest := lkID()
	s.lkSend(t, lkPost(newest, id, renamed, "post", "after the rename", time.Now().UnixMilli()))
	s.lkNow(t, acc.key, "/v1/dt/tweets/"+renamed, "a post under the new handle", func(d obj) bool {
		return d.num(t, "count") > 0 && lkObjects(t, d, "tweets")[0].str(t, "tweet_id") == newest
	})

	// A handle with no posts yet: an empty list.
	h2, _ := s.lkResolved(t, acc, "lk_quiet")
	d = s.lkGet(t, acc.key, "/v1/dt/tweets/"+h2).wantOK(t, 200)
	if d.num(t, "count") != 0 || len(d.array(t, "tweets")) != 0 {
		t.Errorf("no posts: %v", d)
	}
}
