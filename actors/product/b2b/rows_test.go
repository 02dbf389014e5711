package b2b

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
)

var t0 = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

func tm(sec int) time.Time { return t0.Add(time.Duration(sec) * time.Second) }

func edge(id, name string, current bool, first, last int) persistence.FollowEdge {
	return persistence.FollowEdge{Handle: "h", Relation: persistence.RelationFollowing, TargetID: id, TargetScreenName: name,
		IsCurrent: current, FirstSeenAt: tm(first), LastSeenAt: tm(last)}
}

func seen(pairs ...string) []EdgeSeen {
	var out []EdgeSeen
	for i := 0; i+1 < len(pairs); i += 2 {
		out = append(out, EdgeSeen{ID: pairs[i], ScreenName: pairs[i+1]})
	}
	return out
}

func upsertLines(u persistence.FollowEdgeUpdate) []string {
	var out []string
	for _, e := range u.Upserts {
		out = append(out, fmt.Sprintf("%s:%s cur=%v %d-%d", e.TargetID, e.TargetScreenName, e.IsCurrent,
			int(e.FirstSeenAt.Sub(t0)/time.Second), int(e.LastSeenAt.Sub(t0)/time.Second)))
	}
	return out
}

func changeLines(u persistence.FollowEdgeUpdate) []string {
	var out []string
	for _, c := range u.Changes {
		out = append(out, fmt.Sprintf("%s %s:%s @%d", c.Change, c.TargetID, c.TargetScreenName, int(c.ChangedAt.Sub(t0)/time.Second)))
	}
	return out
}

func TestDiffEdges(t *testing.T) {
	stored := persistence.FollowEdgeSet{Baseline: true, Edges: []persistence.FollowEdge{
		edge("1", "one", true, 0, 5),
		edge("2", "two", true, 0, 5),
		edge("3", "three", false, 0, 2),
	}}
	for _, c := range []struct {
		name        string
		stored      persistence.FollowEdgeSet
		seen        []EdgeSeen
		complete    bool
		wantUpserts []string
		wantChanges []string
	}{
		{
			name: "first complete list is the baseline", complete: true,
			seen:        seen("1", "one", "2", "two"),
			wantUpserts: []string{"1:one cur=true 10-10", "2:two cur=true 10-10"},
		},
		{
			name: "first complete empty list is a baseline too", complete: true,
		},
		{
			name: "unchanged complete list: nothing but the touch", complete: true, stored: stored,
			seen: seen("1", "one", "2", "two"),
		},
		{
			name: "added, removed, came back", complete: true, stored: stored,
			seen:        seen("4", "four", "1", "one", "3", "three"),
			wantUpserts: []string{"4:four cur=true 10-10", "3:three cur=true 0-10", "2:two cur=false 0-5"},
			wantChanges: []string{"added 4:four @10", "added 3:three @10", "removed 2:two @10"},
		},
		{
			name: "a rename is stored without a change", complete: true, stored: stored,
			seen:        seen("1", "uno", "2", "two"),
			wantUpserts: []string{"1:uno cur=true 0-10"},
		},
		{
			name: "duplicates and empty ids are ignored", complete: true, stored: stored,
			seen:        seen("1", "one", "1", "one", "", "x", "2", "two"),
			wantUpserts: nil,
		},
		{
			name: "empty list after the baseline removes everything", complete: true, stored: stored,
			wantUpserts: []string{"1:one cur=false 0-5", "2:two cur=false 0-5"},
			wantChanges: []string{"removed 1:one @10", "removed 2:two @10"},
		},
		{
			name: "partial list without a baseline records additions", complete: false,
			seen:        seen("7", "seven"),
			wantUpserts: []string{"7:seven cur=true 10-10"},
			wantChanges: []string{"added 7:seven @10"},
		},
		{
			name: "partial list touches what it names and removes nothing", complete: false, stored: stored,
			seen:        seen("1", "one", "3", "three"),
			wantUpserts: []string{"1:one cur=true 0-10", "3:three cur=true 0-10"},
			wantChanges: []string{"added 3:three @10"},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			u := DiffEdges("h", persistence.RelationFollowing, c.stored, c.seen, c.complete, tm(10))
			if u.Handle != "h" || u.Relation != persistence.RelationFollowing || u.Complete != c.complete || !u.At.Equal(tm(10)) {
				t.Errorf("header %+v", u)
			}
			if got := upsertLines(u); !slices.Equal(got, c.wantUpserts) {
				t.Errorf("upserts\n%v\nwant\n%v", got, c.wantUpserts)
			}
			if got := changeLines(u); !slices.Equal(got, c.wantChanges) {
				t.Errorf("changes\n%v\nwant\n%v", got, c.wantChanges)
			}
			for _, ch := range u.Changes {
				if ch.Handle != "h" || ch.Relation != persistence.RelationFollowing {
					t.Errorf("change %+v lacks handle or relation", ch)
				}
			}
		})
	}
}

func TestDiffEdgesKeepsLastSeenOnOlderPartialList(t *testing.T) {
	stored := persistence.FollowEdgeSet{Edges: []persistence.FollowEdge{edge("1", "one", true, 0, 20)}}
	u := DiffEdges("h", persistence.RelationFollower, stored, seen("1", "one"), false, tm(10))
	if got := upsertLines(u); !slices.Equal(got, []string{"1:one cur=true 0-20"}) {
		t.Errorf("upserts %v: LastSeenAt must not go back", got)
	}
}

func TestAdvanceSet(t *testing.T) {
	set := persistence.FollowEdgeSet{Edges: []persistence.FollowEdge{edge("1", "one", true, 0, 5), edge("3", "three", false, 0, 2)}}
	// A complete list: 2 comes, 1 goes; the list time touches what stays current.
	u := DiffEdges("h", persistence.RelationFollowing, persistence.FollowEdgeSet{Baseline: true, Edges: set.Edges},
		seen("2", "two", "3", "three"), true, tm(10))
	got := AdvanceSet(set, u)
	if !got.Baseline || !got.ListAt.Equal(tm(10)) {
		t.Errorf("baseline %v at %v", got.Baseline, got.ListAt)
	}
	if lines := upsertLines(persistence.FollowEdgeUpdate{Upserts: got.Edges}); !slices.Equal(lines,
		[]string{"1:one cur=false 0-5", "3:three cur=true 0-10", "2:two cur=true 10-10"}) {
		t.Errorf("edges %v", lines)
	}
	if len(set.Edges) != 2 || !set.Edges[0].IsCurrent {
		t.Errorf("AdvanceSet changed its input: %+v", set.Edges)
	}
	// The next list of the same batch diffs against the advanced set.
	u2 := DiffEdges("h", persistence.RelationFollowing, got, seen("2", "two"), true, tm(20))
	if lines := changeLines(u2); !slices.Equal(lines, []string{"removed 3:three @20"}) {
		t.Errorf("second diff %v", lines)
	}
	// A partial list leaves the list time alone.
	p := AdvanceSet(got, persistence.FollowEdgeUpdate{Upserts: []persistence.FollowEdge{edge("4", "four", true, 30, 30)}, At: tm(30)})
	if !p.ListAt.Equal(tm(10)) || len(p.Edges) != 4 || !p.Edges[1].LastSeenAt.Equal(tm(10)) {
		t.Errorf("after a partial update: at %v, %v", p.ListAt, upsertLines(persistence.FollowEdgeUpdate{Upserts: p.Edges}))
	}
}

func i64(v int64) *int64   { return &v }
func str(s string) *string { return &s }

func fmtCounts(c Counts) string {
	f := func(p *int64) string {
		if p == nil {
			return "-"
		}
		return fmt.Sprint(*p)
	}
	return fmt.Sprintf("likes=%s rts=%s replies=%s quotes=%s views=%s bookmarks=%s",
		f(c.Likes), f(c.Retweets), f(c.Replies), f(c.Quotes), f(c.Views), f(c.Bookmarks))
}

func TestCurrentCounts(t *testing.T) {
	post := &protocol.Tweet{ID: "1", Metrics: protocol.TweetMetrics{Likes: i64(1), Retweets: i64(2), Replies: nil, Quotes: i64(4), Views: str("100")}}
	for _, c := range []struct {
		name string
		post *protocol.Tweet
		eng  *persistence.LatestEngagement
		want string
	}{
		{"post only", post, nil, "likes=1 rts=2 replies=- quotes=4 views=100 bookmarks=-"},
		{"newer engagement wins", post,
			&persistence.LatestEngagement{Likes: i64(10), Retweets: i64(20), Replies: i64(30), Quotes: i64(40), Bookmarks: i64(5), ObservedAt: tm(1)},
			"likes=10 rts=20 replies=30 quotes=40 views=100 bookmarks=5"},
		{"engagement at the same instant wins", post,
			&persistence.LatestEngagement{Likes: i64(10), ObservedAt: tm(0)},
			"likes=10 rts=2 replies=- quotes=4 views=100 bookmarks=-"},
		{"older engagement only fills gaps", post,
			&persistence.LatestEngagement{Likes: i64(10), Replies: i64(30), Bookmarks: i64(5), ObservedAt: tm(-1)},
			"likes=1 rts=2 replies=30 quotes=4 views=100 bookmarks=5"},
		{"views not a number", &protocol.Tweet{Metrics: protocol.TweetMetrics{Views: str("1.2K")}}, nil,
			"likes=- rts=- replies=- quotes=- views=- bookmarks=-"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := fmtCounts(CurrentCounts(c.post, tm(0), c.eng)); got != c.want {
				t.Errorf("CurrentCounts = %s, want %s", got, c.want)
			}
		})
	}
}

func TestRows(t *testing.T) {
	u := &protocol.UserObs{ID: "42", Followers: 7, Following: 3}
	if r := ProfileRow(u, tm(1)); r.UserID != "42" || r.Followers != 7 || r.Following != 3 || r.TweetCount != 0 || !r.ScrapedAt.Equal(tm(1)) {
		t.Errorf("ProfileRow = %+v", r)
	}
	e := EngagementRow(&protocol.EngagementObs{TweetID: "9", FavoriteCount: 1, RetweetCount: 2, ReplyCount: 3, QuoteCount: 4, BookmarkCount: 5}, tm(2))
	if e.TweetID != "9" || *e.Likes != 1 || *e.Retweets != 2 || *e.Replies != 3 || *e.Quotes != 4 || *e.Bookmarks != 5 || !e.ObservedAt.Equal(tm(2)) {
		t.Errorf("EngagementRow = %+v", e)
	}
	if _, ok := PostMetricsRow(&protocol.Tweet{ID: "9"}, tm(3)); ok {
		t.Errorf("PostMetricsRow of a post without counts: ok")
	}
	r, ok := PostMetricsRow(&protocol.Tweet{ID: "9", Metrics: protocol.TweetMetrics{Replies: i64(8)}}, tm(3))
	if !ok || r.TweetID != "9" || r.Replies == nil || *r.Replies != 8 || r.Likes != nil || r.Bookmarks != nil {
		t.Errorf("PostMetricsRow = %+v, %v", r, ok)
	}
	m := Memberships([]protocol.Community{{ID: "c", Name: "N", Description: "d", MemberCount: 5, CreatorScreenName: "x"}})
	if len(m) != 1 || m[0].CommunityID != "c" || m[0].CommunityName != "N" || m[0].Description != "d" || m[0].MemberCount != 5 || m[0].CreatorScreenName != "x" {
		t.Errorf("Memberships = %+v", m)
	}
	s := FollowingSeen([]protocol.FollowUser{{ID: "1", Handle: "a"}})
	f := FollowersSeen([]protocol.NewFollower{{ID: "2", Handle: "b"}})
	if len(s) != 1 || s[0] != (EdgeSeen{"1", "a"}) || len(f) != 1 || f[0] != (EdgeSeen{"2", "b"}) {
		t.Errorf("seen lists %v %v", s, f)
	}
}
