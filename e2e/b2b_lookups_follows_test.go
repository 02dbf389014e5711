package e2e

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/alertd/alertd/internal/testkit"
)

// lkEdgeIDs lists "target_id:is_current" of a follow list.
func lkEdgeIDs(t *testing.T, items []obj) []string {
	t.Helper()
	var out []string
	for _, e := range items {
		out = append(out, fmt.Sprintf("%s:%v", e.str(t, "target_id"), e.boolean(t, "is_current")))
	}
	return out
}

func lkChangeIDs(t *testing.T, items []obj) []string {
	t.Helper()
	var out []string
	for _, c := range items {
		c.wantKeys(t, "diff item", "target_id", "target_screen_name", "relation", "change", "changed_at")
		lkTime(t, c, "changed_at")
		out = append(out, c.str(t, "relation")+":"+c.str(t, "change")+":"+c.str(t, "target_id")+":"+c.str(t, "target_screen_name"))
	}
	return out
}

func testLookupsFollows(t *testing.T, s *server) {
	acc := s.lkDT(t, "enterprise")
	h, _ := s.lkResolved(t, acc, "lk_follows")
	a, b, c := [2]string{lkID(), "alpha"}, [2]string{lkID(), "bravo"}, [2]string{lkID(), "charlie"}
	fpath, dpath := "/v1/dt/following/"+h, "/v1/dt/social/diff/"+h

	// The first list is the baseline: edges, but no changes.
	s.lkSend(t, lkFollowing(h, a, b))
	d := s.lkNow(t, acc.key, fpath, "baseline following", func(d obj) bool {
		return d.num(t, "total") == 2 && len(lkObjects(t, d, "following")) == 2
	})
	d.wantKeys(t, "following list", "following", "count", "total")
	items := lkObjects(t, d, "following")
	if d.num(t, "count") != 2 || len(items) != 2 {
		t.Fatalf("following %v", d)
	}
	items[0].wantKeys(t, "follow edge", "target_id", "target_screen_name", "is_current", "first_seen_at", "last_seen_at")
	first := lkTime(t, items[0], "first_seen_at")
	if !lkTime(t, items[0], "last_seen_at").Equal(first) {
		t.Errorf("a new edge: last_seen_at %s != first_seen_at %s", items[0]["last_seen_at"], items[0]["first_seen_at"])
	}
	diff := s.lkGet(t, acc.key, dpath).wantOK(t, 200)
	diff.wantKeys(t, "diff", "added", "removed", "added_count", "removed_count")
	if diff.num(t, "added_count") != 0 || diff.num(t, "removed_count") != 0 {
		t.Errorf("diff after the baseline: %v, want no changes", diff)
	}

	// The next list: a goes, c comes.
	s.lkSend(t, lkFollowing(h, b, c))
	d = s.lkNow(t, acc.key, fpath, "second following", func(d obj) bool {
		return slices.Contains(lkEdgeIDs(t, lkObjects(t, d, "following")), c[0]+":true")
	})
	if got, want := lkEdgeIDs(t, lkObjects(t, d, "following")), []string{c[0] + ":true", b[0] + ":true", a[0] + ":false"}; !slices.Equal(got, want) {
		t.Errorf("following %v, want %v (current first, newest first)", got, want)
	}
	if d.num(t, "total") != 2 || d.num(t, "count") != 3 {
		t.Errorf("total %v count %v, want 2 current of 3 listed", d["total"], d["count"])
	}
	byID := map[string]obj{}
	for _, e := range lkObjects(t, d, "following") {
		byID[e.str(t, "target_id")] = e
	}
	if got := byID[b[0]]; !lkTime(t, got, "last_seen_at").After(lkTime(t, got, "first_seen_at")) || got.str(t, "target_screen_name") != "bravo" {
		t.Errorf("a kept edge is touched: %v", got)
	}
	if got := byID[a[0]]; !lkTime(t, got, "last_seen_at").Equal(lkTime(t, got, "first_seen_at")) {
		t.Errorf("a removed edge keeps its last sighting: %v", got)
	}
	page := s.lkGet(t, acc.key, fpath+"?limit=1&offset=1").wantOK(t, 200)
	if got := lkEdgeIDs(t, lkObjects(t, page, "following")); !slices.Equal(got, []string{b[0] + ":true"}) || page.num(t, "total") != 2 {
		t.Errorf("page limit=1 offset=1: %v", page)
	}
	s.lkGet(t, acc.key, fpath+"?limit=x").wantErr(t, 400, "bad_request")

	// New followers: the singular `follower` key; they count as added.
	f1 := [2]string{lkID(), "fan_one"}
	s.lkSend(t, lkFollowersNew(h, f1))
	// total and the list are two reads: wait until both show the follower.
	fl := s.lkNow(t, acc.key, "/v1/dt/followers/"+h, "followers", func(d obj) bool {
		return d.num(t, "total") == 1 && len(lkObjects(t, d, "follower")) == 1
	})
	fl.wantKeys(t, "followers list", "follower", "count", "total")
	if got := lkEdgeIDs(t, lkObjects(t, fl, "follower")); !slices.Equal(got, []string{f1[0] + ":true"}) {
		t.Errorf("followers %v", got)
	}

	diff = s.lkNow(t, acc.key, dpath, "diff with the follower", func(d obj) bool { return d.num(t, "added_count") == 2 })
	if got, want := lkChangeIDs(t, lkObjects(t, diff, "added")), []string{
		"follower:added:" + f1[0] + ":fan_one", "following:added:" + c[0] + ":charlie",
	}; !slices.Equal(got, want) {
		t.Errorf("added %v, want %v (newest first)", got, want)
	}
	if got, want := lkChangeIDs(t, lkObjects(t, diff, "removed")), []string{"following:removed:" + a[0] + ":alpha"}; !slices.Equal(got, want) || diff.num(t, "removed_count") != 1 {
		t.Errorf("removed %v, want %v", got, want)
	}
	if at := lkTime(t, lkObjects(t, diff, "removed")[0], "changed_at"); time.Since(at) > time.Minute || time.Until(at) > time.Minute {
		t.Errorf("changed_at %v is not about now", at)
	}

	// Module gating: following and the diff need follows, followers needs
	// followers; a plan with follows only sees no follower changes.
	pro := s.lkDT(t, "pro")
	s.lkTarget(t, pro.key, h)
	s.lkGet(t, pro.key, fpath).wantErr(t, 403, "forbidden")
	s.lkGet(t, pro.key, dpath).wantErr(t, 403, "forbidden")
	s.lkGet(t, pro.key, "/v1/dt/followers/"+h).wantOK(t, 200)
	starter := s.lkDT(t, "starter")
	s.lkTarget(t, starter.key, h)
	s.lkGet(t, starter.key, "/v1/dt/followers/"+h).wantErr(t, 403, "forbidden")
	followsOnly := s.lkDT(t, "enterprise", "realtime", "follows")
	s.lkTarget(t, followsOnly.key, h)
	d = s.lkGet(t, followsOnly.key, dpath).wantOK(t, 200)
	if got := lkChangeIDs(t, lkObjects(t, d, "added")); !slices.Equal(got, []string{"following:added:" + c[0] + ":charlie"}) {
		t.Errorf("diff without the followers module: added %v", got)
	}
}

func testLookupsCommunities(t *testing.T, s *server) {
	acc := s.lkDT(t, "starter")
	h, _ := s.lkResolved(t, acc, "lk_comm")
	tag := testkit.RandomHex(4) // keeps this run's catalog entries apart
	c1, c2, c3 := lkID(), lkID(), lkID()
	comm := func(id, name string, members int) map[string]any {
		return map[string]any{"id": id, "name": name, "description": "about " + name, "member_count": members, "creator_screen_name": "maker"}
	}
	s.lkSend(t, map[string]any{"kind": "communities", "handle": h, "communities": []any{
		comm(c1, "Solana Builders "+tag, 500), comm(c2, "Degen Club "+tag, 90)}})
	path := "/v1/dt/communities/" + h
	s.lkNow(t, acc.key, path, "first membership", func(d obj) bool { return d.num(t, "count") == 2 })
	s.lkSend(t, map[string]any{"kind": "communities", "handle": h, "communities": []any{
		comm(c2, "Degen Club Renamed "+tag, 95), comm(c3, "EVM builders "+tag, 700)}})
	d := s.lkNow(t, acc.key, path, "second membership", func(d obj) bool { return d.num(t, "count") == 3 })
	d.wantKeys(t, "communities", "communities", "count")
	items := lkObjects(t, d, "communities")
	var got []string
	for _, c := range items {
		c.wantKeys(t, "membership", "community_id", "community_name", "member_count", "creator_screen_name", "is_current", "first_seen_at", "last_seen_at")
		got = append(got, fmt.Sprintf("%s:%s:%v:%v", c.str(t, "community_id"), c.str(t, "community_name"), c.num(t, "member_count"), c.boolean(t, "is_current")))
		if c.str(t, "creator_screen_name") != "maker" {
			t.Errorf("creator_screen_name %s", c["creator_screen_name"])
		}
	}
	want := []string{c3 + ":EVM builders " + tag + ":700:true", c2 + ":Degen Club Renamed " + tag + ":95:true", c1 + ":Solana Builders " + tag + ":500:false"}
	if !slices.Equal(got, want) {
		t.Errorf("memberships %v, want %v", got, want)
	}

	// The catalog: every community seen, by member count, name contains search.
	cat := func(q string) obj {
		r := s.lkGet(t, acc.key, "/social/communities"+q)
		if r.status != 200 {
			t.Fatalf("%s", r)
		}
		wantJSONType(t, r)
		o := decodeObj(t, r.body, r.String())
		o.wantKeys(t, "catalog", "status", "communities", "count")
		if o.str(t, "status") != "success" {
			t.Errorf("catalog status %s", o["status"])
		}
		return o
	}
	ids := func(o obj) []string {
		var out []string
		for _, c := range lkObjects(t, o, "communities") {
			out = append(out, c.str(t, "id"))
		}
		return out
	}
	o := cat("?search=" + tag)
	if got := ids(o); !slices.Equal(got, []string{c3, c1, c2}) || o.num(t, "count") != 3 {
		t.Errorf("catalog %v, want [%s %s %s] (largest first)", got, c3, c1, c2)
	}
	item := lkObjects(t, o, "communities")[2]
	item.wantKeys(t, "catalog item", "id", "name", "description", "memberCount", "image")
	if item.str(t, "name") != "Degen Club Renamed "+tag || item.str(t, "description") != "about Degen Club Renamed "+tag ||
		item.num(t, "memberCount") != 95 || !item.isNull("image") {
		t.Errorf("catalog item %v", item)
	}
	if got := ids(cat("?search=BUILDERS%20" + tag)); !slices.Equal(got, []string{c3, c1}) {
		t.Errorf("search 'BUILDERS %s' = %v, want [%s %s] (case-insensitive contains)", tag, got, c3, c1)
	}
	if got := ids(cat("?search=%20sOLANA%20builders%20" + tag + "%20")); !slices.Equal(got, []string{c1}) {
		t.Errorf("search ' sOLANA builders %s ' = %v, want [%s] (trimmed)", tag, got, c1)
	}
	if got := ids(cat("?search=builders&limit=200")); !slices.Contains(got, c3) || !slices.Contains(got, c1) {
		t.Errorf("search builders %v lacks this run's communities", got)
	}
	if got := ids(cat("?search=" + tag + "&limit=1&offset=1")); !slices.Equal(got, []string{c1}) {
		t.Errorf("limit=1 offset=1: %v", got)
	}
	if o := cat("?search=nothing_" + tag); o.num(t, "count") != 0 || len(o.array(t, "communities")) != 0 {
		t.Errorf("no match: %v", o)
	}
	s.lkGet(t, acc.key, "/social/communities?limit=0").wantSocialErr(t, 400)
	s.lkGet(t, acc.key, "/social/communities?offset=no").wantSocialErr(t, 400)
}

func testLookupsWebhook(t *testing.T, s *server) {
	acc := s.lkDT(t, "starter")
	d := s.lkGet(t, acc.key, "/v1/dt/webhook").wantOK(t, 200)
	d.wantKeys(t, "webhook", "url", "has_secret")
	if !d.isNull("url") || d.boolean(t, "has_secret") {
		t.Errorf("webhook before any: %v", d)
	}
	put := func(body string) resp {
		h := bearer(acc.key)
		h["Content-Type"] = "application/json"
		return s.do(t, "PUT", "/v1/dt/webhook", h, body)
	}
	p := put(`{"url":"https://hooks.example.com/dt"}`).wantOK(t, 200)
	p.wantKeys(t, "webhook put", "url", "secret", "note")
	secret := p.str(t, "secret")
	if p.str(t, "url") != "https://hooks.example.com/dt" || !lkHex64.MatchString(secret) || p.str(t, "note") == "" {
		t.Errorf("put answer %v", p)
	}
	d = s.lkGet(t, acc.key, "/v1/dt/webhook").wantOK(t, 200)
	if d.str(t, "url") != "https://hooks.example.com/dt" || !d.boolean(t, "has_secret") {
		t.Errorf("webhook after put: %v", d)
	}
	if _, shown := d["secret"]; shown {
		t.Errorf("GET shows the secret")
	}
	stream := put(`{"url":"http://hooks.example.com/other"}`).wantOK(t, 200)
	if stream.str(t, "secret") == secret || !lkHex64.MatchString(stream.str(t, "secret")) {
		t.Errorf("the secret was not rotated: %v", stream)
	}
	if d := s.lkGet(t, acc.key, "/v1/dt/webhook").wantOK(t, 200); d.str(t, "url") != "http://hooks.example.com/other" {
		t.Errorf("webhook after the second put: %v", d)
	}
	// Another account has its own setting.
	if d := s.lkGet(t, s.lkDT(t, "starter").key, "/v1/dt/webhook").wantOK(t, 200); !d.isNull("url") {
		t.Errorf("another account sees %v", d)
	}
	for _, body := range []string{`{"url":""}`, `{"url":"ftp://x.example/a"}`, `{"url":"hooks.example.com"}`, `{"url":12}`,
		`{"url":"https://"}`, `{"url":null}`} {
		put(body).wantErr(t, 400, "bad_request")
	}
	put(`{"uri":"https://x.example"}`).wantPlain(t, 422)
	put(`{"url":`).wantPlain(t, 400)
	s.do(t, "PUT", "/v1/dt/webhook", bearer(acc.key), `{"url":"https://x.example"}`).wantPlain(t, 415)
}
