package b2b

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/alertd/alertd/actors/handle"
	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
)

var t0 = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

func tm(sec int) time.Time { return t0.Add(time.Duration(sec) * time.Second) }

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

func users(pairs ...string) []protocol.FollowUser {
	var out []protocol.FollowUser
	for i := 0; i+1 < len(pairs); i += 2 {
		out = append(out, protocol.FollowUser{ID: pairs[i], Handle: pairs[i+1]})
	}
	return out
}

func TestFollowingUpdate(t *testing.T) {
	at, prev := tm(10).UnixMilli(), tm(5).UnixMilli()
	for _, c := range []struct {
		name        string
		change      handle.FollowsChanged
		wantUpserts []string
		wantChanges []string
	}{
		{
			name:        "the first list is the baseline: every account, no change",
			change:      handle.FollowsChanged{First: true, Following: users("1", "one", "2", "two", "1", "again", "", "nobody")},
			wantUpserts: []string{"1:one cur=true 10-10", "2:two cur=true 10-10"},
		},
		{
			name:        "a renamed user's first list under the new handle is a baseline too",
			change:      handle.FollowsChanged{First: true, Following: users("1", "one"), Added: users("1", "one"), Removed: users("9", "nine")},
			wantUpserts: []string{"1:one cur=true 10-10"},
		},
		{name: "an empty first list", change: handle.FollowsChanged{First: true}},
		{name: "unchanged: nothing but the list's touch", change: handle.FollowsChanged{Following: users("1", "one")}},
		{
			name: "added in list order, removed by id, last seen with the previous list",
			change: handle.FollowsChanged{Following: users("4", "four", "1", "one", "3", "three"),
				Added: users("4", "four", "3", "three", "4", "four"), Removed: users("7", "seven", "2", "two")},
			wantUpserts: []string{"4:four cur=true 10-10", "3:three cur=true 10-10", "2:two cur=false 10-5", "7:seven cur=false 10-5"},
			wantChanges: []string{"added 4:four @10", "added 3:three @10", "removed 2:two @10", "removed 7:seven @10"},
		},
		{
			name:        "a rename is stored without a change",
			change:      handle.FollowsChanged{Following: users("1", "uno"), Renamed: users("1", "uno")},
			wantUpserts: []string{"1:uno cur=true 10-10"},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			ch := c.change
			ch.Handle, ch.At = "h", at
			if !ch.First {
				ch.PrevAt = prev
			}
			u := FollowingUpdate(&ch)
			if u.Handle != "h" || u.Relation != persistence.RelationFollowing || !u.Complete || !u.At.Equal(tm(10)) {
				t.Errorf("update %+v", u)
			}
			if got := upsertLines(u); !slices.Equal(got, c.wantUpserts) {
				t.Errorf("upserts %v, want %v", got, c.wantUpserts)
			}
			if got := changeLines(u); !slices.Equal(got, c.wantChanges) {
				t.Errorf("changes %v, want %v", got, c.wantChanges)
			}
		})
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
	m := Memberships([]handle.Membership{{Community: protocol.Community{ID: "c", Name: "N", Description: "d", MemberCount: 5, CreatorScreenName: "x"}, JoinedAt: 9}})
	if len(m) != 1 || m[0].CommunityID != "c" || m[0].CommunityName != "N" || m[0].Description != "d" || m[0].MemberCount != 5 || m[0].CreatorScreenName != "x" {
		t.Errorf("Memberships = %+v", m)
	}
	f := FollowersSeen(&handle.FollowersAdded{Handle: "h", At: tm(4).UnixMilli(), Users: []protocol.NewFollower{{ID: "2", Handle: "b"}}})
	if f.Handle != "h" || !f.At.Equal(tm(4)) || len(f.Accounts) != 1 || f.Accounts[0] != (persistence.FollowTarget{ID: "2", ScreenName: "b"}) {
		t.Errorf("followers seen %+v", f)
	}
}
