package e2e

// Realtime events end to end: every event type of spec 2 "Events", driven
// through the ingest API, with exact members and values.

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/alertd/alertd/internal/testkit"
)

const (
	solanaCA = "7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU"
	evmCA    = "0x6982508145454Ce325dDbE47a25d4ec3d2311933"
)

// wantPostEvent asserts a post event (new or update) of post p: the d
// members, the tweet event id, no event_time, task_info {handle}, and data
// equal to the observation without kind (OCR fields only for enterprise).
func wantPostEvent(t *testing.T, e event, name string, p jsonMap, enterprise bool, extraD ...string) {
	t.Helper()
	e.d.wantKeys(t, name+" d", append([]string{"event", "event_id", "task_info", "data"}, extraD...)...)
	if e.name != name {
		t.Fatalf("event %q, want %q: %s", e.name, name, e)
	}
	if want := "evt_" + p["id"].(string); e.id != want {
		t.Errorf("event_id %q, want %q", e.id, want)
	}
	task := e.task(t)
	task.wantKeys(t, "task_info", "handle")
	author := p["author"].(jsonMap)
	if got := task.str(t, "handle"); got != author["handle"] {
		t.Errorf("task_info.handle %q, want %q", got, author["handle"])
	}
	want := expectedTweet(p, enterprise)
	if !sameJSON(t, e.d["data"], want) {
		got, _ := json.Marshal(roundTripRaw(t, e.d["data"]))
		exp, _ := json.Marshal(roundTrip(t, want))
		t.Errorf("%s data differs\n got: %s\nwant: %s", name, got, exp)
	}
}

// expectedTweet is the event data of post observation p.
func expectedTweet(p jsonMap, enterprise bool) jsonMap {
	want := maps.Clone(p)
	delete(want, "kind")
	ocr, hasOCR := want["ocr_text"]
	delete(want, "ocr_text")
	if enterprise {
		cas := []string{}
		if hasOCR && ocr != nil {
			for _, w := range strings.Fields(ocr.(string)) {
				if w == solanaCA || w == evmCA {
					cas = append(cas, w)
				}
			}
			want["ocr_text"] = ocr
		} else {
			want["ocr_text"] = nil
		}
		want["extracted_cas"] = cas
	}
	return want
}

// wantNonTweetIDs asserts event_id = <prefix><handle>_<event_time>.
func wantNonTweetIDs(t *testing.T, e event, prefix, handle string) int64 {
	t.Helper()
	at := int64(e.d.num(t, "event_time"))
	if want := prefix + handle + "_" + strconv.FormatInt(at, 10); e.id != want {
		t.Errorf("%s event_id %q, want %q (suffix = event_time)", e.name, e.id, want)
	}
	if d := time.Since(time.UnixMilli(at)); d < -time.Second || d > time.Minute {
		t.Errorf("%s event_time %d is %v away from now", e.name, at, d)
	}
	return at
}

func testRTPostEvents(t *testing.T, s *server) {
	h := newHandle("rt_post")
	ent := s.newDT(t, "enterprise", nil, h)
	pro := s.newDT(t, "pro", nil, h)
	we, _ := s.rtLogin(t, ent.key)
	wp, _ := s.rtLogin(t, pro.key)

	plain := postObs(h, "post", "gm frens")
	ocr := postObs(h, "post", "look at this chart $SOL")
	ocr["cashtags"] = []string{"SOL"}
	ocr["entities"] = jsonMap{"hashtags": []any{jsonMap{"text": "chart", "indices": []int{0, 6}}}, "urls": []any{},
		"symbols": []any{jsonMap{"text": "SOL", "indices": []int{19, 23}}}}
	ocr["ocr_text"] = "contract " + solanaCA + " and " + evmCA
	reply := postObs(h, "reply", "@parent_user agreed")
	reply["mentions"] = []string{"parent_user"}
	quote := postObs(h, "quote", "this")
	repost := postObs(h, "repost", "RT @someone: original")
	repost["metrics"] = jsonMap{"likes": nil, "retweets": nil, "replies": nil, "quotes": nil, "views": nil}
	repost["author"].(jsonMap)["verification"] = jsonMap{"is_verified": false, "type": nil}
	posts := []jsonMap{plain, ocr, reply, quote, repost}
	s.send(t, toAny(posts)...)
	for _, p := range posts {
		wantPostEvent(t, we.nextEvent(t), "social.post.new", p, true)
		wantPostEvent(t, wp.nextEvent(t), "social.post.new", p, false)
	}

	// media[].type is always photo (videos come as their preview image),
	// whatever the observation called it, in the post and in a quoted post.
	video := postObs(h, "quote", "watch")
	video["media"] = []any{jsonMap{"type": "video", "url": "https://pbs.example.com/v/preview.jpg"},
		jsonMap{"type": "animated_gif", "url": "https://pbs.example.com/g/preview.jpg"}}
	video["quoted_tweet"] = jsonMap{"id": newTweetID(), "text": "clip", "author": jsonMap{"handle": "q_" + h, "name": "Q", "avatar": ""},
		"media": []any{jsonMap{"type": "Video", "url": "https://pbs.example.com/q/preview.jpg"}}}
	s.send(t, video)
	e := we.nextEvent(t)
	data := e.d.object(t, "data")
	var types []string
	for _, raw := range data.array(t, "media") {
		types = append(types, decodeObj(t, raw, "media").str(t, "type"))
	}
	for _, raw := range data.object(t, "quoted_tweet").array(t, "media") {
		types = append(types, decodeObj(t, raw, "quoted media").str(t, "type"))
	}
	if !slices.Equal(types, []string{"photo", "photo", "photo"}) {
		t.Errorf("media types %v, want photo for each", types)
	}
}

func toAny(ms []jsonMap) []any {
	out := make([]any, len(ms))
	for i, m := range ms {
		out[i] = m
	}
	return out
}

// testRTPostUpdate: rule 5. A reply first without its parent, then with it,
// gives post.new then post.update under the same event id; an identical
// re-observation gives nothing; OCR recovered later updates enterprise only.
func testRTPostUpdate(t *testing.T, s *server) {
	h := newHandle("rt_upd")
	ent := s.newDT(t, "enterprise", nil, h)
	pro := s.newDT(t, "pro", nil, h)
	we, _ := s.rtLogin(t, ent.key)
	wp, _ := s.rtLogin(t, pro.key)

	bare := postObs(h, "reply", "@parent_user yes")
	bare["quoted_tweet"] = nil
	full := maps.Clone(bare)
	full["quoted_tweet"] = jsonMap{"id": "1800000000000000001", "text": "the parent post",
		"author": jsonMap{"handle": "parent_user", "name": nil, "avatar": "https://pbs.example.com/a/parent.jpg"}}
	s.send(t, bare)
	for _, w := range []*wsClient{we, wp} {
		wantPostEvent(t, w.nextEvent(t), "social.post.new", bare, w == we)
	}
	s.send(t, full)
	for _, w := range []*wsClient{we, wp} {
		e := w.nextEvent(t)
		wantPostEvent(t, e, "social.post.update", full, w == we)
		if e.data(t).str(t, "id") != bare["id"] {
			t.Errorf("update data.id differs from the original")
		}
	}
	// The same again, and the bare version again: nothing. The next event is
	// a new post of the same handle (the handle's observations are in order).
	next := postObs(h, "post", "next")
	s.send(t, full, bare, next)
	for _, w := range []*wsClient{we, wp} {
		wantPostEvent(t, w.nextEvent(t), "social.post.new", next, w == we)
	}

	// OCR text recovered later: an update for enterprise only.
	img := postObs(h, "post", "see picture")
	s.send(t, img)
	for _, w := range []*wsClient{we, wp} {
		wantPostEvent(t, w.nextEvent(t), "social.post.new", img, w == we)
	}
	withOCR := maps.Clone(img)
	withOCR["ocr_text"] = "buy " + solanaCA
	after := postObs(h, "post", "after")
	s.send(t, withOCR, after)
	wantPostEvent(t, we.nextEvent(t), "social.post.update", withOCR, true)
	wantPostEvent(t, we.nextEvent(t), "social.post.new", after, true)
	wantPostEvent(t, wp.nextEvent(t), "social.post.new", after, false)
}

func testRTDeleted(t *testing.T, s *server) {
	h := newHandle("rt_del")
	st := s.newDT(t, "starter", nil, h)
	w, _ := s.rtLogin(t, st.key)
	id := newTweetID()
	s.send(t, deletedObs(h, id, "the deleted text"), deletedObs(h, nil, nil))
	for i, want := range []string{`{"tweet_id":"` + id + `","text":"the deleted text"}`, `{"tweet_id":null,"text":null}`} {
		e := w.nextEvent(t)
		if e.name != "social.tweet.deleted" {
			t.Fatalf("event %d: %s", i, e)
		}
		e.d.wantKeys(t, "deleted d", "event", "event_id", "event_time", "task_info", "data")
		e.task(t).wantKeys(t, "deleted task_info", "handle")
		if e.handle(t) != h {
			t.Errorf("task_info.handle %q", e.handle(t))
		}
		wantNonTweetIDs(t, e, "evt_del_", h)
		e.data(t).wantKeys(t, "deleted data", "tweet_id", "text")
		if !sameJSON(t, e.d["data"], json.RawMessage(want)) {
			t.Errorf("deleted data %s, want %s", e.d["data"], want)
		}
	}
}

func testRTFollowsAndFollowers(t *testing.T, s *server) {
	h := newHandle("rt_fol")
	ent := s.newDT(t, "enterprise", nil, h)
	w, _ := s.rtLogin(t, ent.key)
	a, b, c := followUser(newUserID(), "fa_"+testkit.RandomHex(3)), followUser(newUserID(), "fb_"+testkit.RandomHex(3)), followUser(newUserID(), "fc_"+testkit.RandomHex(3))
	ghost := jsonMap{"id": newUserID(), "handle": "", "name": nil, "bio": nil, "followers": nil, "following": nil, "protected": nil}
	// The first list is the baseline: no events; the post after it is next.
	sentinel := postObs(h, "post", "after the baseline")
	s.send(t, followingObs(h, a, b, ghost), sentinel)
	wantPostEvent(t, w.nextEvent(t), "social.post.new", sentinel, true)

	s.send(t, followingObs(h, b, c))
	evs := w.events(t, 3)
	byName := map[string][]event{}
	for _, e := range evs {
		byName[e.name] = append(byName[e.name], e)
	}
	if len(byName["social.following.new"]) != 1 || len(byName["social.following.removed"]) != 2 {
		t.Fatalf("events %v, want 1 following.new and 2 following.removed", evs)
	}
	var times []int64
	check := func(e event, prefix string, user jsonMap) {
		t.Helper()
		e.d.wantKeys(t, e.name+" d", "event", "event_id", "event_time", "task_info", "data")
		task := e.task(t)
		task.wantKeys(t, "task_info", "handle", "id")
		if task.str(t, "handle") != h || task.str(t, "id") != user["id"] {
			t.Errorf("%s task_info %v, want handle %s id %v", e.name, task, h, user["id"])
		}
		times = append(times, wantNonTweetIDs(t, e, prefix, h))
		e.data(t).wantKeys(t, e.name+" data", "id", "handle", "name", "bio", "followers", "following", "protected")
		if !sameJSON(t, e.d["data"], user) {
			t.Errorf("%s data %s, want %v", e.name, e.d["data"], user)
		}
	}
	check(byName["social.following.new"][0], "evt_f_", c)
	for _, e := range byName["social.following.removed"] {
		if e.task(t).str(t, "id") == a["id"] {
			check(e, "evt_fr_", a)
		} else {
			check(e, "evt_fr_", ghost) // unavailable profile: handle "" and name null
		}
	}
	if times[0] != times[1] || times[1] != times[2] {
		t.Errorf("events detected together have event_time %v, want one value", times)
	}

	f1 := jsonMap{"id": newUserID(), "handle": "fl_" + testkit.RandomHex(3), "name": "Follower One"}
	f2 := jsonMap{"id": newUserID(), "handle": "fl_" + testkit.RandomHex(3), "name": nil}
	s.send(t, followersObs(h, f1, f2))
	for _, f := range []jsonMap{f1, f2} {
		e := w.nextEvent(t)
		if e.name != "social.follower.new" {
			t.Fatalf("got %s, want social.follower.new", e)
		}
		e.d.wantKeys(t, "follower d", "event", "event_id", "event_time", "task_info", "data")
		e.task(t).wantKeys(t, "task_info", "handle", "id")
		if e.task(t).str(t, "id") != f["id"] {
			t.Errorf("task_info.id %q, want %v", e.task(t).str(t, "id"), f["id"])
		}
		wantNonTweetIDs(t, e, "evt_fl_", h)
		e.data(t).wantKeys(t, "follower data", "id", "handle", "name")
		if !sameJSON(t, e.d["data"], f) {
			t.Errorf("follower data %s, want %v", e.d["data"], f)
		}
	}
}

// profileChange is one expected social.profile.update.
type profileChange struct{ field, prev, updated string }

// wantProfileEvents reads len(want) profile updates in order, all with one
// event id (detected together), task_info {handle}.
func wantProfileEvents(t *testing.T, w *wsClient, handle string, want []profileChange) {
	t.Helper()
	var id string
	for i, c := range want {
		e := w.nextEvent(t)
		if e.name != "social.profile.update" {
			t.Fatalf("event %d: %s, want social.profile.update", i, e)
		}
		e.d.wantKeys(t, "profile d", "event", "event_id", "event_time", "task_info", "data")
		e.task(t).wantKeys(t, "profile task_info", "handle")
		if e.handle(t) != handle {
			t.Errorf("task_info.handle %q, want %q", e.handle(t), handle)
		}
		wantNonTweetIDs(t, e, "evt_p_", handle)
		if i == 0 {
			id = e.id
		} else if e.id != id {
			t.Errorf("profile updates of one snapshot have ids %q and %q", id, e.id)
		}
		want := fmt.Sprintf(`{"field":%q,"prev":%q,"updated":%q}`, c.field, c.prev, c.updated)
		if !sameJSON(t, e.d["data"], json.RawMessage(want)) {
			t.Errorf("profile update %d: data %s, want %s", i, e.d["data"], want)
		}
	}
}

func testRTProfileUpdates(t *testing.T, s *server) {
	h := newHandle("rt_prof")
	pro := s.newDT(t, "pro", nil, h)
	id := newUserID()
	u := userMap(id, h, "founders")
	s.send(t, u) // the first snapshot is a baseline: no events
	w, _ := s.rtLogin(t, pro.key)

	v := maps.Clone(u)
	v["name"], v["bio"], v["avatar"] = "New Name", "new bio", "https://pbs.example.com/a/new.jpg"
	v["banner_url"], v["location"], v["website"] = "https://pbs.example.com/b/new.jpg", "Lisbon", "https://example.com"
	v["verified"], v["pinned_post"] = true, []string{"1700000000000000001", "1700000000000000002"}
	v["followers"], v["verification_type"] = 999, "blue" // not profile fields
	s.send(t, v)
	wantProfileEvents(t, w, h, []profileChange{
		{"name", u["name"].(string), "New Name"}, {"display_name", u["name"].(string), "New Name"},
		{"bio", u["bio"].(string), "new bio"}, {"description", u["bio"].(string), "new bio"},
		{"avatar", u["avatar"].(string), "https://pbs.example.com/a/new.jpg"}, {"avatar_url", u["avatar"].(string), "https://pbs.example.com/a/new.jpg"},
		{"banner_url", "", "https://pbs.example.com/b/new.jpg"},
		{"location", "", "Lisbon"},
		{"website", "", "https://example.com"},
		{"verified", "false", "true"},
		{"pinned_post", "", "1700000000000000001,1700000000000000002"},
	})
	x := maps.Clone(v)
	x["verified"], x["pinned_post"], x["website"], x["location"] = false, []string{}, nil, ""
	x["followers"] = 1000 // alone: no event
	s.send(t, x)
	wantProfileEvents(t, w, h, []profileChange{
		{"location", "Lisbon", ""}, {"website", "https://example.com", ""}, {"verified", "true", "false"},
		{"pinned_post", "1700000000000000001,1700000000000000002", ""},
	})
}

// testRTRename: a rename arrives as field handle under the new handle, and
// the socket keeps getting the account's events under the new handle.
func testRTRename(t *testing.T, s *server) {
	h, h2 := newHandle("rt_ren"), newHandle("rt_ren2")
	pro := s.newDT(t, "pro", nil, h)
	id := newUserID()
	u := userMap(id, h)
	s.send(t, u)
	s.userNow(t, pro.key, h)
	w, _ := s.rtLogin(t, pro.key)

	v := maps.Clone(u)
	v["handle"], v["name"] = h2, "Renamed"
	s.send(t, v)
	wantProfileEvents(t, w, h2, []profileChange{
		{"handle", h, h2}, {"name", u["name"].(string), "Renamed"}, {"display_name", u["name"].(string), "Renamed"},
	})
	s.userNow(t, pro.key, h2)
	p := postObs(h2, "post", "posting under the new name")
	s.send(t, p)
	wantPostEvent(t, w.nextEvent(t), "social.post.new", p, false)

	// A socket opened after the rename follows the account too.
	w2, ready := s.rtLogin(t, pro.key)
	if ready.num(t, "handles") != 1 {
		t.Errorf("READY handles %v after a rename, want 1", ready.num(t, "handles"))
	}
	stream := postObs(h2, "post", "second post under the new name")
	s.send(t, stream)
	wantPostEvent(t, w2.nextEvent(t), "social.post.new", stream, false)
	wantPostEvent(t, w.nextEvent(t), "social.post.new", stream, false)
}

// testRTModuleGating: starter gets posts and deletions; pro adds profile
// and follower events; enterprise adds follows.
func testRTModuleGating(t *testing.T, s *server) {
	h := newHandle("rt_mod")
	id := newUserID()
	u := userMap(id, h)
	s.send(t, u, followingObs(h))
	s.userNow(t, s.newDT(t, "starter", nil).key, h)
	keys := map[string]string{}
	socks := map[string]*wsClient{}
	for _, plan := range []string{"starter", "pro", "enterprise"} {
		keys[plan] = s.newDT(t, plan, nil, h).key
		socks[plan], _ = s.rtLogin(t, keys[plan])
	}
	v := maps.Clone(u)
	v["bio"] = "changed"
	s.send(t, postObs(h, "post", "gm"), deletedObs(h, newTweetID(), "x"),
		followingObs(h, followUser(newUserID(), "fx_"+testkit.RandomHex(3))),
		followersObs(h, jsonMap{"id": newUserID(), "handle": "nf_" + testkit.RandomHex(3), "name": "N"}), v)
	want := map[string][]string{
		"enterprise": {"social.post.new", "social.tweet.deleted", "social.following.new", "social.follower.new", "social.profile.update", "social.profile.update"},
		"pro":        {"social.post.new", "social.tweet.deleted", "social.follower.new", "social.profile.update", "social.profile.update"},
		"starter":    {"social.post.new", "social.tweet.deleted"},
	}
	for _, plan := range []string{"enterprise", "pro", "starter"} { // enterprise first: it sees everything
		got := names(socks[plan].events(t, len(want[plan])))
		got = append(got, names(s.drain(t, socks[plan]))...)
		wantSameNames(t, plan, got, want[plan])
	}
}

func names(evs []event) []string {
	out := make([]string, len(evs))
	for i, e := range evs {
		out[i] = e.name
	}
	return out
}

func wantSameNames(t *testing.T, what string, got, want []string) {
	t.Helper()
	count := map[string]int{}
	for _, n := range got {
		count[n]++
	}
	for _, n := range want {
		count[n]--
	}
	for _, c := range count {
		if c != 0 {
			t.Errorf("%s: events %v, want %v (as a multiset)", what, got, want)
			return
		}
	}
}
