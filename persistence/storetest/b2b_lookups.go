package storetest

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/alertd/alertd/persistence"
)

// lookupTests cover the LookupStore (profile history, follow edges, social
// diff, communities, latest engagement, blacklist, dt webhook).
var lookupTests = []test{
	{"profile history keeps changes only, newest first", testProfileHistory},
	{"profile history pages", testProfileHistoryPages},
	{"follow edges: baseline, changes, touch", testFollowEdges},
	{"follow edges: pages, counts, duplicates in one update", testFollowEdgePages},
	{"follow edges: some targets, batches, list times", testFollowEdgeBatches},
	{"follow edges: first sighting kept", testFollowEdgeFirstSeenKept},
	{"follow edges: new followers", testAddFollowers},
	{"social diff by relation, change, time, limit", testSocialDiff},
	{"handle communities and the catalog", testHandleCommunities},
	{"community catalog search and ranking", testCommunityCatalog},
	{"latest engagement", testLatestEngagement},
	{"blacklist", testDTBlacklist},
	{"dt webhook", testDTWebhook},
}

func lkCounts(user string, followers, following int64, d time.Duration) persistence.ProfileCounts {
	return persistence.ProfileCounts{UserID: user, Followers: followers, Following: following, ScrapedAt: at(d)}
}

func lkFollowers(rows []persistence.ProfileCounts) []int64 {
	out := make([]int64, len(rows))
	for i, r := range rows {
		out[i] = r.Followers
	}
	return out
}

func testProfileHistory(t *testing.T, s persistence.Store) {
	ctx := t.Context()
	must(t, "AppendProfileHistory", s.AppendProfileHistory(ctx, []persistence.ProfileCounts{
		lkCounts("u1", 10, 1, 0),
		lkCounts("u1", 10, 1, time.Second), // same counts: skipped
		lkCounts("u2", 5, 5, time.Second),
		lkCounts("u1", 11, 1, 2*time.Second),
	}))
	must(t, "AppendProfileHistory again", s.AppendProfileHistory(ctx, []persistence.ProfileCounts{
		lkCounts("u1", 11, 1, 3*time.Second), // same as the stored latest: skipped
		lkCounts("u1", 11, 2, 4*time.Second),
		lkCounts("u1", 10, 1, 5*time.Second), // back to an older value: a change
		{UserID: "u2", Followers: 5, Following: 5, TweetCount: 1, ScrapedAt: at(6 * time.Second)},
	}))
	must(t, "AppendProfileHistory empty", s.AppendProfileHistory(ctx, nil))
	got, err := s.ProfileHistory(ctx, "u1", 0, 0)
	must(t, "ProfileHistory", err)
	if f := lkFollowers(got); !slices.Equal(f, []int64{10, 11, 11, 10}) {
		t.Fatalf("u1 followers %v, want [10 11 11 10]", f)
	}
	checkTime(t, "newest ScrapedAt", got[0].ScrapedAt, at(5*time.Second))
	checkTime(t, "oldest ScrapedAt", got[3].ScrapedAt, at(0))
	if got[1].Following != 2 || got[1].UserID != "u1" {
		t.Errorf("second row %+v, want following 2 of u1", got[1])
	}
	got, err = s.ProfileHistory(ctx, "u2", 0, 0)
	must(t, "ProfileHistory u2", err)
	if len(got) != 2 || got[0].TweetCount != 1 || got[1].TweetCount != 0 {
		t.Errorf("u2 rows %+v, want a tweet-count change on top of the first", got)
	}
	got, err = s.ProfileHistory(ctx, "nobody", 10, 0)
	must(t, "ProfileHistory nobody", err)
	if len(got) != 0 {
		t.Errorf("unknown user has %d rows", len(got))
	}
}

func testProfileHistoryPages(t *testing.T, s persistence.Store) {
	rows := make([]persistence.ProfileCounts, 30)
	for i := range rows {
		rows[i] = lkCounts("u", int64(i), 0, time.Duration(i)*time.Second)
	}
	must(t, "AppendProfileHistory", s.AppendProfileHistory(t.Context(), rows))
	for _, c := range []struct {
		limit, offset int
		want          []int64
	}{
		{3, 0, []int64{29, 28, 27}},
		{2, 5, []int64{24, 23}},
		{5, 28, []int64{1, 0}},
		{5, 30, nil},
	} {
		got, err := s.ProfileHistory(t.Context(), "u", c.limit, c.offset)
		must(t, "ProfileHistory", err)
		if f := lkFollowers(got); !slices.Equal(f, c.want) {
			t.Errorf("ProfileHistory(limit %d, offset %d) = %v, want %v", c.limit, c.offset, f, c.want)
		}
	}
}

func lkI64(v int64) *int64 { return &v }

func lkCheckCount(t *testing.T, what string, got, want *int64) {
	t.Helper()
	switch {
	case got == nil && want == nil:
	case got == nil || want == nil:
		t.Errorf("%s = %v, want %v", what, lkFmt(got), lkFmt(want))
	case *got != *want:
		t.Errorf("%s = %d, want %d", what, *got, *want)
	}
}

func lkFmt(p *int64) string {
	if p == nil {
		return "nil"
	}
	return fmt.Sprint(*p)
}

func testLatestEngagement(t *testing.T, s persistence.Store) {
	ctx := t.Context()
	_, err := s.LatestEngagement(ctx, "1")
	checkNotFound(t, "LatestEngagement before any", err)
	must(t, "PutLatestEngagement", s.PutLatestEngagement(ctx, []persistence.LatestEngagement{
		{TweetID: "1", Likes: lkI64(5), Retweets: lkI64(1), Replies: lkI64(0), Quotes: lkI64(0), Bookmarks: lkI64(2), ObservedAt: at(time.Second)},
		{TweetID: "2", Likes: lkI64(7), ObservedAt: at(0)},
		// Same tweet twice in one batch: the newer wins where it has counts.
		{TweetID: "1", Likes: lkI64(9), Retweets: nil, Replies: lkI64(3), Quotes: lkI64(1), ObservedAt: at(2 * time.Second)},
	}))
	e, err := s.LatestEngagement(ctx, "1")
	must(t, "LatestEngagement", err)
	lkCheckCount(t, "likes", e.Likes, lkI64(9))
	lkCheckCount(t, "retweets", e.Retweets, lkI64(1))
	lkCheckCount(t, "replies", e.Replies, lkI64(3))
	lkCheckCount(t, "bookmarks", e.Bookmarks, lkI64(2))
	checkTime(t, "ObservedAt", e.ObservedAt, at(2*time.Second))

	// An older row is ignored; a newer one with nil counts keeps the stored.
	must(t, "PutLatestEngagement older", s.PutLatestEngagement(ctx, []persistence.LatestEngagement{
		{TweetID: "1", Likes: lkI64(1), Retweets: lkI64(1), Replies: lkI64(1), Quotes: lkI64(1), Bookmarks: lkI64(1), ObservedAt: at(time.Second)},
		{TweetID: "2", Likes: nil, Bookmarks: lkI64(4), ObservedAt: at(time.Minute)},
	}))
	e, err = s.LatestEngagement(ctx, "1")
	must(t, "LatestEngagement", err)
	lkCheckCount(t, "likes after an older row", e.Likes, lkI64(9))
	checkTime(t, "ObservedAt after an older row", e.ObservedAt, at(2*time.Second))
	e, err = s.LatestEngagement(ctx, "2")
	must(t, "LatestEngagement 2", err)
	lkCheckCount(t, "likes kept", e.Likes, lkI64(7))
	lkCheckCount(t, "bookmarks", e.Bookmarks, lkI64(4))
	lkCheckCount(t, "retweets never seen", e.Retweets, nil)
	checkTime(t, "ObservedAt 2", e.ObservedAt, at(time.Minute))
}

func testDTBlacklist(t *testing.T, s persistence.Store) {
	ctx := t.Context()
	mustAccount(t, s, "a1")
	mustAccount(t, s, "a2")
	list, err := s.DTBlacklist(ctx, "a1")
	must(t, "DTBlacklist empty", err)
	if len(list) != 0 {
		t.Fatalf("new account's list %v", list)
	}
	for i, h := range []string{"zed", "amy", "zed", "mid"} {
		added, err := s.AddDTBlacklist(ctx, "a1", h, at(time.Duration(i)*time.Second))
		must(t, "AddDTBlacklist", err)
		if want := i != 2; added != want {
			t.Errorf("AddDTBlacklist(%s) #%d added = %v, want %v", h, i, added, want)
		}
	}
	_, err = s.AddDTBlacklist(ctx, "a2", "amy", at(0))
	must(t, "AddDTBlacklist a2", err)
	list, err = s.DTBlacklist(ctx, "a1")
	must(t, "DTBlacklist", err)
	if !slices.Equal(list, []string{"zed", "amy", "mid"}) {
		t.Fatalf("list %v, want [zed amy mid] (order added)", list)
	}
	must(t, "RemoveDTBlacklist", s.RemoveDTBlacklist(ctx, "a1", "amy"))
	checkNotFound(t, "RemoveDTBlacklist again", s.RemoveDTBlacklist(ctx, "a1", "amy"))
	checkNotFound(t, "RemoveDTBlacklist other account's", s.RemoveDTBlacklist(ctx, "a1", "nobody"))
	list, err = s.DTBlacklist(ctx, "a1")
	must(t, "DTBlacklist", err)
	if !slices.Equal(list, []string{"zed", "mid"}) {
		t.Fatalf("after remove %v, want [zed mid]", list)
	}
	list, err = s.DTBlacklist(ctx, "a2")
	must(t, "DTBlacklist a2", err)
	if !slices.Equal(list, []string{"amy"}) {
		t.Fatalf("a2 list %v, want [amy]", list)
	}
}

func testDTWebhook(t *testing.T, s persistence.Store) {
	ctx := t.Context()
	mustAccount(t, s, "a1")
	_, err := s.DTWebhook(ctx, "a1")
	checkNotFound(t, "DTWebhook before any", err)
	must(t, "PutDTWebhook", s.PutDTWebhook(ctx, persistence.DTWebhook{AccountID: "a1", URL: "https://a.example/x", Secret: "s1", UpdatedAt: at(0)}))
	must(t, "PutDTWebhook replace", s.PutDTWebhook(ctx, persistence.DTWebhook{AccountID: "a1", URL: "http://b.example/y", Secret: "s2", UpdatedAt: at(time.Minute)}))
	w, err := s.DTWebhook(ctx, "a1")
	must(t, "DTWebhook", err)
	if w.AccountID != "a1" || w.URL != "http://b.example/y" || w.Secret != "s2" {
		t.Errorf("DTWebhook = %+v, want the replacement", w)
	}
	checkTime(t, "UpdatedAt", w.UpdatedAt, at(time.Minute))
	if err := s.PutDTWebhook(ctx, persistence.DTWebhook{AccountID: "no-such-account", URL: "https://x", Secret: "s", UpdatedAt: at(0)}); err == nil {
		t.Errorf("PutDTWebhook of an unknown account succeeded")
	}
}
