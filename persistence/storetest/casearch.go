package storetest

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/alertd/alertd/persistence"
)

// searchPost saves a post and its terms.
func searchPost(t *testing.T, s persistence.Store, id string, created time.Time, terms ...string) {
	t.Helper()
	must(t, "SavePosts", s.SavePosts(t.Context(), []persistence.Post{post(id, "h"+id, created, created, `{"id":"`+id+`"}`)}))
	must(t, "PutPostTerms", s.PutPostTerms(t.Context(), []persistence.PostTerms{{PostID: id, CreatedAt: created, Terms: terms}}))
}

// searchIDs runs q; posts of one millisecond come back in no set order, so
// they are sorted by id within it.
func searchIDs(t *testing.T, s persistence.Store, q persistence.SearchQuery) []string {
	t.Helper()
	got, err := s.SearchPosts(t.Context(), q)
	must(t, fmt.Sprintf("SearchPosts(%v)", q.Terms), err)
	for i := 1; i < len(got); i++ {
		if got[i].CreatedAt.After(got[i-1].CreatedAt) {
			t.Errorf("SearchPosts(%v): %s (%v) after %s (%v): not newest first", q.Terms, got[i].ID, got[i].CreatedAt, got[i-1].ID, got[i-1].CreatedAt)
		}
	}
	slices.SortStableFunc(got, func(a, b persistence.Post) int {
		if c := b.CreatedAt.Compare(a.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return postIDs(got)
}

func wantIDs(t *testing.T, what string, got []string, want ...string) {
	t.Helper()
	if !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

var caSearchTests = []test{
	{"search posts: every term, newest first, window", func(t *testing.T, s persistence.Store) {
		searchPost(t, s, "1", at(-5*time.Hour), "c:moon", "t:PEPE")
		searchPost(t, s, "2", at(-4*time.Hour), "c:moon")
		searchPost(t, s, "3", at(-3*time.Hour), "c:moon", "t:PEPE", "t:THE")
		searchPost(t, s, "5", at(-2*time.Hour), "t:PEPE", "c:moon")
		searchPost(t, s, "4", at(-2*time.Hour), "c:moon", "t:PEPE") // same millisecond as 5
		searchPost(t, s, "6", at(-time.Hour), "c:other")
		searchPost(t, s, "7", at(-30*time.Minute))
		all := persistence.SearchQuery{Terms: []string{"c:moon"}, Since: at(-24 * time.Hour), Limit: 10}
		wantIDs(t, "one term", searchIDs(t, s, all), "4", "5", "3", "2", "1")
		q := all
		q.Terms = []string{"t:PEPE", "c:moon"}
		wantIDs(t, "two terms", searchIDs(t, s, q), "4", "5", "3", "1")
		q.Terms = []string{"c:moon", "t:PEPE", "t:THE"}
		wantIDs(t, "three terms", searchIDs(t, s, q), "3")
		q.Terms = []string{"c:moon", "c:nothing"}
		wantIDs(t, "a term no post has", searchIDs(t, s, q))
		q = all
		q.Since, q.Through = at(-4*time.Hour), at(-2*time.Hour)
		wantIDs(t, "since and through inclusive", searchIDs(t, s, q), "4", "5", "3", "2")
		q.Through = at(-2*time.Hour - time.Millisecond)
		wantIDs(t, "through a millisecond earlier", searchIDs(t, s, q), "3", "2")
		q = all
		q.Limit = 2
		wantIDs(t, "limit", searchIDs(t, s, q), "4", "5")
		q = persistence.SearchQuery{Since: at(-3 * time.Hour), Limit: 10}
		wantIDs(t, "no terms: every post", searchIDs(t, s, q), "7", "6", "4", "5", "3")
		q.Limit = 0
		wantIDs(t, "limit 0", searchIDs(t, s, q))
		// Terms are matched exactly (case included: contracts are case-sensitive).
		searchPost(t, s, "8", at(-20*time.Minute), "c:So1anaAddr")
		wantIDs(t, "exact", searchIDs(t, s, persistence.SearchQuery{Terms: []string{"c:so1anaaddr"}, Since: at(-time.Hour), Limit: 5}))
		wantIDs(t, "exact", searchIDs(t, s, persistence.SearchQuery{Terms: []string{"c:So1anaAddr"}, Since: at(-time.Hour), Limit: 5}), "8")
	}},
	{"post terms: added, kept, posts without a stored post left out", func(t *testing.T, s persistence.Store) {
		searchPost(t, s, "1", at(-time.Hour), "t:OLD", "t:KEPT")
		must(t, "PutPostTerms", s.PutPostTerms(t.Context(), []persistence.PostTerms{
			{PostID: "1", CreatedAt: at(-time.Hour), Terms: []string{"t:NEW", "t:KEPT"}},
			{PostID: "2", CreatedAt: at(-time.Hour), Terms: []string{"t:KEPT", "t:KEPT"}}, // no post 2 stored
			{PostID: "1", CreatedAt: at(-time.Hour), Terms: []string{"t:NEW", "t:KEPT", "t:NEW"}},
		}))
		q := persistence.SearchQuery{Since: at(-24 * time.Hour), Limit: 10}
		for term, want := range map[string][]string{"t:OLD": {"1"}, "t:NEW": {"1"}, "t:KEPT": {"1"}, "t:NONE": nil} {
			q.Terms = []string{term}
			wantIDs(t, term, searchIDs(t, s, q), want...)
		}
		must(t, "SavePosts", s.SavePosts(t.Context(), []persistence.Post{post("2", "h2", at(-time.Hour), at(0), `{}`)}))
		q.Terms = []string{"t:KEPT"}
		wantIDs(t, "after the post is stored", searchIDs(t, s, q), "1", "2")
		must(t, "PutPostTerms of nothing", s.PutPostTerms(t.Context(), nil))
		must(t, "PutPostTerms without terms", s.PutPostTerms(t.Context(), []persistence.PostTerms{{PostID: "3", CreatedAt: at(0)}}))
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
	{"search usage: per account and day, the larger kept, pruned", func(t *testing.T, s persistence.Store) {
		day := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
		must(t, "PutSearchUsage", s.PutSearchUsage(t.Context(), []persistence.SearchUsage{
			{AccountID: "a", Day: day, Used: 3},
			{AccountID: "b", Day: day, Used: 1},
			{AccountID: "a", Day: day.Add(-24 * time.Hour), Used: 9},
			{AccountID: "a", Day: day, Used: 4}, // the larger of (a, day) wins
			{AccountID: "a", Day: day, Used: 2},
		}))
		must(t, "PutSearchUsage again", s.PutSearchUsage(t.Context(), []persistence.SearchUsage{{AccountID: "b", Day: day, Used: 2}}))
		must(t, "PutSearchUsage smaller", s.PutSearchUsage(t.Context(), []persistence.SearchUsage{{AccountID: "b", Day: day, Used: 1}}))
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
