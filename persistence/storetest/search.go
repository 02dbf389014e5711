package storetest

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/alertd/alertd/persistence"
)

// searchPost saves a post and its terms; tie is the post's tie-breaker.
func searchPost(t *testing.T, s persistence.Store, id string, created time.Time, tie int64, terms ...string) {
	t.Helper()
	must(t, "SavePosts", s.SavePosts(t.Context(), []persistence.Post{post(id, "h"+id, created, created, `{"id":"`+id+`"}`)}))
	must(t, "PutPostTerms", s.PutPostTerms(t.Context(), []persistence.PostTerms{{PostID: id, CreatedAt: created, Tie: tie, Terms: terms}}))
}

func searchIDs(t *testing.T, s persistence.Store, q persistence.SearchQuery) []string {
	t.Helper()
	got, err := s.SearchPosts(t.Context(), q)
	must(t, fmt.Sprintf("SearchPosts(%v)", q.Terms), err)
	return postIDs(got)
}

func wantIDs(t *testing.T, what string, got []string, want ...string) {
	t.Helper()
	if !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

var searchTests = []test{
	{"search posts: every term, newest first, window, cursor", func(t *testing.T, s persistence.Store) {
		searchPost(t, s, "1", at(-5*time.Hour), 1, "w:moon", "t:PEPE")
		searchPost(t, s, "2", at(-4*time.Hour), 2, "w:moon")
		searchPost(t, s, "3", at(-3*time.Hour), 3, "w:moon", "t:PEPE", "w:the")
		searchPost(t, s, "5", at(-2*time.Hour), 5, "t:PEPE", "w:moon")
		searchPost(t, s, "4", at(-2*time.Hour), 4, "w:moon", "t:PEPE") // same millisecond as 5: tie orders
		searchPost(t, s, "6", at(-time.Hour), 6, "w:other")
		all := persistence.SearchQuery{Terms: []string{"w:moon"}, Since: at(-24 * time.Hour), Limit: 10}
		wantIDs(t, "one term", searchIDs(t, s, all), "5", "4", "3", "2", "1")
		q := all
		q.Terms = []string{"t:PEPE", "w:moon"}
		wantIDs(t, "two terms", searchIDs(t, s, q), "5", "4", "3", "1")
		q.Terms = []string{"w:moon", "t:PEPE", "w:the"}
		wantIDs(t, "three terms", searchIDs(t, s, q), "3")
		q.Terms = []string{"w:moon", "w:nothing"}
		wantIDs(t, "a term no post has", searchIDs(t, s, q))
		q = all
		q.Since, q.Until = at(-4*time.Hour), at(-2*time.Hour)
		wantIDs(t, "since inclusive, until exclusive", searchIDs(t, s, q), "3", "2")
		q = all
		q.Limit = 2
		wantIDs(t, "limit", searchIDs(t, s, q), "5", "4")
		q.Before = &persistence.SearchPosition{At: at(-2 * time.Hour), Tie: 4}
		wantIDs(t, "after a cursor", searchIDs(t, s, q), "3", "2")
		q.Before = &persistence.SearchPosition{At: at(-2 * time.Hour), Tie: 5}
		wantIDs(t, "inside a millisecond", searchIDs(t, s, q), "4", "3")
		wantIDs(t, "no terms", searchIDs(t, s, persistence.SearchQuery{Since: at(-time.Hour), Limit: 5}))
		// Terms are matched exactly (case included: contracts are case-sensitive).
		searchPost(t, s, "7", at(-30*time.Minute), 7, "c:So1anaAddr")
		wantIDs(t, "exact", searchIDs(t, s, persistence.SearchQuery{Terms: []string{"c:so1anaaddr"}, Since: at(-time.Hour), Limit: 5}))
		wantIDs(t, "exact", searchIDs(t, s, persistence.SearchQuery{Terms: []string{"c:So1anaAddr"}, Since: at(-time.Hour), Limit: 5}), "7")
	}},
	{"post terms: replaced per post, posts without a stored post left out", func(t *testing.T, s persistence.Store) {
		searchPost(t, s, "1", at(-time.Hour), 1, "w:old", "w:kept")
		must(t, "PutPostTerms", s.PutPostTerms(t.Context(), []persistence.PostTerms{
			{PostID: "1", CreatedAt: at(-time.Hour), Tie: 1, Terms: []string{"w:first", "w:kept"}},
			{PostID: "2", CreatedAt: at(-time.Hour), Tie: 2, Terms: []string{"w:kept", "w:kept"}}, // no post 2 stored
			{PostID: "1", CreatedAt: at(-time.Hour), Tie: 1, Terms: []string{"w:new", "w:kept", "w:new"}},
		}))
		q := persistence.SearchQuery{Since: at(-24 * time.Hour), Limit: 10}
		for term, want := range map[string][]string{"w:old": nil, "w:first": nil, "w:new": {"1"}, "w:kept": {"1"}} {
			q.Terms = []string{term}
			wantIDs(t, term, searchIDs(t, s, q), want...)
		}
		must(t, "SavePosts", s.SavePosts(t.Context(), []persistence.Post{post("2", "h2", at(-time.Hour), at(0), `{}`)}))
		q.Terms = []string{"w:kept"}
		wantIDs(t, "after the post is stored", searchIDs(t, s, q), "2", "1")
		must(t, "PutPostTerms of nothing", s.PutPostTerms(t.Context(), nil))
	}},
	{"posts by ids and created since", func(t *testing.T, s persistence.Store) {
		var posts []persistence.Post
		for i, d := range []time.Duration{-3 * time.Hour, -2 * time.Hour, -2 * time.Hour, -time.Hour, 0} {
			posts = append(posts, post(fmt.Sprintf("p%d", i), "alice", at(d), at(d), `{}`))
		}
		must(t, "SavePosts", s.SavePosts(t.Context(), posts))
		got, err := s.PostsByIDs(t.Context(), []string{"p3", "p0", "zz", "p3"})
		must(t, "PostsByIDs", err)
		ids := postIDs(got)
		slices.Sort(ids)
		wantIDs(t, "PostsByIDs", ids, "p0", "p3")
		got, err = s.PostsByIDs(t.Context(), nil)
		must(t, "PostsByIDs(nil)", err)
		wantIDs(t, "PostsByIDs(nil)", postIDs(got))
		var pages [][]string
		afterAt, afterID := at(-2*time.Hour).Add(-time.Millisecond), ""
		for {
			page, err := s.PostsCreatedSince(t.Context(), at(-2*time.Hour), afterAt, afterID, 2)
			must(t, "PostsCreatedSince", err)
			if len(page) == 0 {
				break
			}
			pages = append(pages, postIDs(page))
			last := page[len(page)-1]
			afterAt, afterID = last.CreatedAt, last.ID
			checkPost(t, "page post", last, posts[slices.IndexFunc(posts, func(p persistence.Post) bool { return p.ID == last.ID })])
		}
		if fmt.Sprint(pages) != "[[p1 p2] [p3 p4]]" {
			t.Errorf("pages %v, want [[p1 p2] [p3 p4]]", pages)
		}
	}},
	{"search usage: per account and day, replaced, pruned", func(t *testing.T, s persistence.Store) {
		day := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
		must(t, "PutSearchUsage", s.PutSearchUsage(t.Context(), []persistence.SearchUsage{
			{AccountID: "a", Day: day, Used: 3},
			{AccountID: "b", Day: day, Used: 1},
			{AccountID: "a", Day: day.Add(-24 * time.Hour), Used: 9},
			{AccountID: "a", Day: day, Used: 4}, // the last of (a, day) wins
		}))
		must(t, "PutSearchUsage again", s.PutSearchUsage(t.Context(), []persistence.SearchUsage{{AccountID: "b", Day: day, Used: 2}}))
		got, err := s.SearchUsageOn(t.Context(), day)
		must(t, "SearchUsageOn", err)
		if fmt.Sprint(got) != fmt.Sprint([]persistence.SearchUsage{{AccountID: "a", Day: day, Used: 4}, {AccountID: "b", Day: day, Used: 2}}) {
			t.Errorf("SearchUsageOn = %v", got)
		}
		for _, u := range got {
			checkTime(t, "Day", u.Day, day)
		}
		must(t, "PruneSearchUsage", s.PruneSearchUsage(t.Context(), day))
		got, err = s.SearchUsageOn(t.Context(), day.Add(-24*time.Hour))
		must(t, "SearchUsageOn yesterday", err)
		if len(got) != 0 {
			t.Errorf("pruned day still has %v", got)
		}
		got, err = s.SearchUsageOn(t.Context(), day)
		must(t, "SearchUsageOn after prune", err)
		if len(got) != 2 {
			t.Errorf("prune removed today's counts: %v", got)
		}
	}},
}
