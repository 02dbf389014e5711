package e2e

// Login filters end to end (spec 2 "Login filters"): onlyCA, onlyTicker,
// types and categories, each on its own socket, compared with an unfiltered
// socket on the same handles.

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/alertd/alertd/internal/testkit"
)

// filterType is the `types` label an event falls under.
func filterType(t *testing.T, e event) string {
	t.Helper()
	switch e.name {
	case "social.post.new", "social.post.update":
		return map[string]string{"post": "tweet", "repost": "retweet", "quote": "quote", "reply": "reply"}[e.data(t).str(t, "type")]
	case "social.following.new":
		return "follow"
	case "social.following.removed":
		return "unfollow"
	case "social.follower.new":
		return "follower"
	case "social.tweet.deleted":
		return "deleted"
	case "social.profile.update":
		return map[string]string{"handle": "update_handle", "bio": "update_bio", "description": "update_bio",
			"avatar": "update_photo", "avatar_url": "update_photo", "name": "update_name", "display_name": "update_name",
			"banner_url": "update_banner_url", "location": "update_location", "website": "update_website",
			"pinned_post": "update_pinned_post", "verified": "update_verified"}[e.data(t).str(t, "field")]
	}
	t.Fatalf("unknown event %s", e)
	return ""
}

// eventKey identifies an event for comparisons between sockets.
func eventKey(t *testing.T, e event) string {
	t.Helper()
	switch e.name {
	case "social.profile.update":
		return e.id + "/" + e.data(t).str(t, "field")
	case "social.following.new", "social.following.removed", "social.follower.new":
		return e.id + "/" + e.task(t).str(t, "id")
	}
	return e.id + "/" + e.name
}

// filtered checks that sock got exactly the events of ref that keep says
// it should: it reads that many, then a heartbeat barrier must show nothing
// more. ref must already hold every event of the scenario.
func filtered(t *testing.T, s *server, what string, sock *wsClient, ref []event, keep func(event) bool) {
	t.Helper()
	var want []string
	for _, e := range ref {
		if keep(e) {
			want = append(want, eventKey(t, e))
		}
	}
	got := sock.events(t, len(want))
	got = append(got, s.drain(t, sock)...)
	var gotKeys []string
	for _, e := range got {
		gotKeys = append(gotKeys, eventKey(t, e))
	}
	slices.Sort(want)
	slices.Sort(gotKeys)
	if !slices.Equal(want, gotKeys) {
		t.Errorf("%s: got %v\nwant %v", what, gotKeys, want)
	}
}

func testRTFilterOnlyCAAndTicker(t *testing.T, s *server) {
	h := newHandle("rt_fca")
	u := userMap(newUserID(), h)
	s.send(t, u, followingObs(h))
	a := s.newDT(t, "enterprise", nil, h)
	ref, _ := s.rtLogin(t, a.key)
	ca, _ := s.rtLogin(t, jsonMap{"api_key": a.key, "onlyCA": true})
	tk, _ := s.rtLogin(t, jsonMap{"api_key": a.key, "onlyTicker": true})
	both, _ := s.rtLogin(t, jsonMap{"api_key": a.key, "onlyCA": true, "onlyTicker": true})
	off, _ := s.rtLogin(t, jsonMap{"api_key": a.key, "onlyCA": false, "onlyTicker": false})

	plain := postObs(h, "post", "gm")
	sol := postObs(h, "post", "ape "+solanaCA)
	evm := postObs(h, "reply", "ca: "+evmCA)
	tickText := postObs(h, "quote", "$BONK to the moon")
	tickField := postObs(h, "post", "no dollar sign here")
	tickField["cashtags"] = []string{"WIF"}
	ocrCA := postObs(h, "post", "picture")
	ocrCA["ocr_text"] = "CA " + solanaCA
	caAndTick := postObs(h, "repost", "$PEPE "+evmCA)
	v := maps.Clone(u)
	v["location"] = "Mars"
	s.send(t, plain, sol, evm, tickText, tickField, ocrCA, caAndTick, deletedObs(h, newTweetID(), nil),
		followingObs(h, followUser(newUserID(), "fq_"+testkit.RandomHex(3))), followersObs(h, jsonMap{"id": newUserID(), "handle": "nn", "name": nil}), v)
	all := ref.events(t, 11)
	isPost := func(e event) bool { return strings.HasPrefix(e.name, "social.post.") }
	hasCA := map[string]bool{"evt_" + sol["id"].(string): true, "evt_" + evm["id"].(string): true,
		"evt_" + ocrCA["id"].(string): true, "evt_" + caAndTick["id"].(string): true}
	hasTick := map[string]bool{"evt_" + tickText["id"].(string): true, "evt_" + tickField["id"].(string): true,
		"evt_" + caAndTick["id"].(string): true}
	filtered(t, s, "onlyCA", ca, all, func(e event) bool { return !isPost(e) || hasCA[e.id] })
	filtered(t, s, "onlyTicker", tk, all, func(e event) bool { return !isPost(e) || hasTick[e.id] })
	filtered(t, s, "onlyCA+onlyTicker", both, all, func(e event) bool { return !isPost(e) || hasCA[e.id] && hasTick[e.id] })
	filtered(t, s, "false flags", off, all, func(event) bool { return true })
}

// typeLabels are `types` entries as clients write them, with the filter
// type each means.
var typeLabels = [][2]string{
	{"Tweet", "tweet"}, {"RETWEET", "retweet"}, {"quote", "quote"}, {"Reply", "reply"},
	{"Follow", "follow"}, {"unfollow", "unfollow"}, {"Follower", "follower"}, {"Deleted", "deleted"},
	{"Update Handle", "update_handle"}, {"update_bio", "update_bio"}, {"Update_Photo", "update_photo"},
	{"update name", "update_name"}, {"Update Banner Url", "update_banner_url"}, {"update_location", "update_location"},
	{"Update Website", "update_website"}, {"update_pinned_post", "update_pinned_post"}, {"UPDATE_VERIFIED", "update_verified"},
}

func testRTFilterTypes(t *testing.T, s *server) {
	h, h2 := newHandle("rt_fty"), newHandle("rt_fty2")
	u := userMap(newUserID(), h, "founders")
	gone := followUser(newUserID(), "fg_"+testkit.RandomHex(3))
	s.send(t, u, followingObs(h, gone))
	s.userNow(t, s.newDT(t, "starter", nil).key, h)

	// Sockets: an unfiltered reference, "All", [] and one per label; at most
	// five per account.
	type sock struct {
		name string
		w    *wsClient
		keep func(string) bool
	}
	var socks []sock
	var acct dtAccount
	login := func(name string, types []string, keep func(string) bool) {
		if len(socks)%5 == 0 {
			acct = s.newDT(t, "enterprise", nil, h)
		}
		d := jsonMap{"api_key": acct.key}
		if types != nil {
			d["types"] = types
		}
		w := s.rtDial(t, "")
		w.SendText(t, loginJSON(t, d))
		w.ready(t)
		socks = append(socks, sock{name, w, keep})
	}
	login("reference", nil, func(string) bool { return true })
	login("All", []string{"All"}, func(string) bool { return true })
	login("empty", []string{}, func(string) bool { return true })
	for _, l := range typeLabels {
		want := l[1]
		login(l[0], []string{l[0]}, func(ty string) bool { return ty == want })
	}
	login("tweet+reply+update_bio", []string{"tweet", "Reply", "Update Bio"}, func(ty string) bool {
		return ty == "tweet" || ty == "reply" || ty == "update_bio"
	})
	// update_banner is not a type (banner changes are update_banner_url): an
	// unknown label matches nothing and leaves the session open (filters
	// only remove events).
	login("update_banner", []string{"update_banner"}, func(string) bool { return false })
	login("tweet+update_banner+future", []string{"tweet", "update_banner", "some_future_type"}, func(ty string) bool { return ty == "tweet" })

	v := maps.Clone(u)
	v["name"], v["bio"], v["avatar"], v["banner_url"] = "N2", "B2", "https://pbs.example.com/a2.jpg", "https://pbs.example.com/b2.jpg"
	v["location"], v["website"], v["pinned_post"], v["verified"] = "Here", "https://w.example.com", []string{"1"}, true
	ren := maps.Clone(v)
	ren["handle"] = h2
	s.send(t, postObs(h, "post", "a"), postObs(h, "repost", "b"), postObs(h, "quote", "c"), postObs(h, "reply", "d"),
		followingObs(h, followUser(newUserID(), "fn_"+testkit.RandomHex(3))), followersObs(h, jsonMap{"id": newUserID(), "handle": "fz", "name": "Z"}),
		deletedObs(h, newTweetID(), "gone"), v, ren)
	// 4 posts, follow, unfollow, follower, deleted, 11 profile fields, rename.
	all := socks[0].w.events(t, 20)
	seen := map[string]bool{}
	for _, e := range all {
		seen[filterType(t, e)] = true
	}
	for _, l := range typeLabels {
		if !seen[l[1]] {
			t.Fatalf("the scenario produced no %s event: %v", l[1], names(all))
		}
	}
	for _, sk := range socks[1:] {
		filtered(t, s, "types "+sk.name, sk.w, all, func(e event) bool { return sk.keep(filterType(t, e)) })
	}
}

func testRTFilterCategories(t *testing.T, s *server) {
	tag := testkit.RandomHex(3)
	perp, exch := "perp_coins_"+tag, "exchanges_"+tag
	hc, hn, hx := newHandle("rt_fcat"), newHandle("rt_fcat"), newHandle("rt_fcat")
	a := s.newDT(t, "pro", nil, hc, hn, hx)
	// Logged in before any account has these categories: resolved later.
	// Names match whatever their case, spaces and underscores: PerpCoinsX,
	// "perp  coins  x" and perp_coins_x are one category.
	early, _ := s.rtLogin(t, jsonMap{"api_key": a.key, "categories": []string{"PerpCoins" + strings.ToUpper(tag)}})
	uc := userMap(newUserID(), hc, perp, "founders")
	un := userMap(newUserID(), hn)
	ux := userMap(newUserID(), hx, exch)
	s.send(t, uc, un, ux)
	for _, h := range []string{hc, hn, hx} {
		s.userNow(t, a.key, h)
	}
	ref, _ := s.rtLogin(t, a.key)
	spaced, _ := s.rtLogin(t, jsonMap{"api_key": a.key, "categories": []string{" EXCHANGES_" + strings.ToUpper(tag) + " ", "perp  coins  " + tag}})
	allC, _ := s.rtLogin(t, jsonMap{"api_key": a.key, "categories": []string{"all"}})
	none, _ := s.rtLogin(t, jsonMap{"api_key": a.key, "categories": []string{"no_such_category_" + tag}, "types": []string{}})

	vc := maps.Clone(uc)
	vc["bio"] = "new bio"
	vn := maps.Clone(un)
	vn["bio"] = "new bio"
	s.send(t, postObs(hc, "post", "c"), postObs(hn, "post", "n"), postObs(hx, "post", "x"),
		deletedObs(hc, nil, nil), deletedObs(hn, nil, nil), deletedObs(hx, nil, nil), vc, vn)
	all := ref.events(t, 10)
	of := func(hs ...string) func(event) bool {
		return func(e event) bool { return slices.Contains(hs, e.handle(t)) }
	}
	filtered(t, s, "categories [PerpCoins] (logged in before the category existed)", early, all, of(hc))
	filtered(t, s, "categories [EXCHANGES, perp  coins]", spaced, all, of(hc, hx))
	filtered(t, s, "categories [all]", allC, all, of(hc, hn, hx))
	filtered(t, s, "categories [unknown]", none, all, of())
}
