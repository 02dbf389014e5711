package cw

import (
	"fmt"
	"strings"
	"testing"

	"github.com/alertd/alertd/protocol"
)

func comm(id, name, desc string, members int64) protocol.Community {
	return protocol.Community{ID: id, Name: name, Description: desc, MemberCount: members, CreatorScreenName: "founder"}
}

// describe renders changes compactly: kind:id[:old].
func describe(cs []Change) string {
	var parts []string
	for _, c := range cs {
		s := strings.TrimPrefix(string(c.Kind), "community_") + ":" + c.Community.ID
		switch c.Kind {
		case Renamed:
			s += ":" + c.OldName + "->" + c.Community.Name
		case DescriptionChanged:
			s += ":" + c.OldDescription + "->" + c.Community.Description
		case Joined:
			if c.PrevLeftAt != 0 {
				s += fmt.Sprintf(":prev(%d,%d)", c.PrevJoinedAt, c.PrevLeftAt)
			}
		case Left:
			s += fmt.Sprintf(":since(%d)", c.JoinedAt)
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " ")
}

func TestDiffCommunities(t *testing.T) {
	a, b, c := comm("1", "Alpha", "first", 10), comm("2", "Beta", "second", 20), comm("3", "Gamma", "third", 30)
	synced := func(ms ...Membership) HandleState { return HandleState{Synced: true, SyncedAt: 1, Communities: ms} }
	m := func(c protocol.Community, joined int64) Membership { return Membership{Community: c, JoinedAt: joined} }
	for _, tc := range []struct {
		name       string
		prev       HandleState
		cur        []protocol.Community
		at         int64
		want       string
		wantJoined map[string]int64 // community id -> JoinedAt in next
		wantLeft   string           // next.Left as id@left
	}{
		{name: "first snapshot is the sync: no change", prev: HandleState{}, cur: []protocol.Community{a, b}, at: 100,
			want: "", wantJoined: map[string]int64{"1": 0, "2": 0}},
		{name: "empty sync then a join alerts", prev: synced(), cur: []protocol.Community{a}, at: 200,
			want: "joined:1", wantJoined: map[string]int64{"1": 200}},
		{name: "unchanged", prev: synced(m(a, 0), m(b, 50)), cur: []protocol.Community{a, b}, at: 300,
			want: "", wantJoined: map[string]int64{"1": 0, "2": 50}},
		{name: "member count alone is no change but is kept", prev: synced(m(a, 0)), cur: []protocol.Community{comm("1", "Alpha", "first", 11)}, at: 300,
			want: "", wantJoined: map[string]int64{"1": 0}},
		{name: "rename keeps the join time", prev: synced(m(a, 70)), cur: []protocol.Community{comm("1", "Alpha2", "first", 10)}, at: 300,
			want: "renamed:1:Alpha->Alpha2", wantJoined: map[string]int64{"1": 70}},
		{name: "rename and description together: two changes", prev: synced(m(a, 0)), cur: []protocol.Community{comm("1", "A2", "new", 10)}, at: 300,
			want: "renamed:1:Alpha->A2 description_changed:1:first->new"},
		{name: "description to empty", prev: synced(m(a, 0)), cur: []protocol.Community{comm("1", "Alpha", "", 10)}, at: 300,
			want: "description_changed:1:first->"},
		{name: "leave is a change and is remembered", prev: synced(m(a, 0), m(b, 40)), cur: []protocol.Community{a}, at: 400,
			want: "left:2:since(40)", wantJoined: map[string]int64{"1": 0}, wantLeft: "2@400(40)"},
		{name: "join, leave and rename in one snapshot", prev: synced(m(a, 0), m(b, 0)), cur: []protocol.Community{c, comm("1", "A", "first", 10)}, at: 500,
			want: "joined:3 renamed:1:Alpha->A left:2:since(0)", wantLeft: "2@500(0)"},
		{name: "rejoin carries the last membership", prev: HandleState{Synced: true, Communities: nil, Left: []Leave{{ID: "2", JoinedAt: 40, LeftAt: 400}}},
			cur: []protocol.Community{b}, at: 450, want: "joined:2:prev(40,400)", wantJoined: map[string]int64{"2": 450}, wantLeft: ""},
		{name: "leaves older than the longest cooldown are forgotten",
			prev: HandleState{Synced: true, Left: []Leave{{ID: "2", JoinedAt: 1, LeftAt: 1000}, {ID: "3", JoinedAt: 1, LeftAt: 2000}}},
			cur:  nil, at: 1000 + MaxFlapCooldown.Milliseconds() + 1, want: "", wantLeft: "3@2000(1)"},
		{name: "forgotten leave: a rejoin has no previous membership",
			prev: HandleState{Synced: true, Left: []Leave{{ID: "2", JoinedAt: 1, LeftAt: 1000}}},
			cur:  []protocol.Community{b}, at: 1000 + MaxFlapCooldown.Milliseconds() + 1, want: "joined:2:prev(1,1000)"},
		{name: "a community listed twice counts once", prev: synced(), cur: []protocol.Community{a, comm("1", "Other", "x", 1)}, at: 600,
			want: "joined:1", wantJoined: map[string]int64{"1": 600}},
		{name: "duplicates in the sync count once", prev: HandleState{}, cur: []protocol.Community{a, a}, at: 600,
			want: "", wantJoined: map[string]int64{"1": 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			next, changes := DiffCommunities(tc.prev, tc.cur, tc.at)
			if got := describe(changes); got != tc.want {
				t.Errorf("changes %q, want %q", got, tc.want)
			}
			if !next.Synced {
				t.Errorf("next is not synced")
			}
			for id, want := range tc.wantJoined {
				found := false
				for _, m := range next.Communities {
					if m.ID == id {
						found = true
						if m.JoinedAt != want {
							t.Errorf("community %s JoinedAt %d, want %d", id, m.JoinedAt, want)
						}
					}
				}
				if !found {
					t.Errorf("community %s missing from next", id)
				}
			}
			if tc.wantJoined != nil && len(next.Communities) != len(tc.wantJoined) {
				t.Errorf("next has %d communities, want %d", len(next.Communities), len(tc.wantJoined))
			}
			var left []string
			for _, l := range next.Left {
				left = append(left, fmt.Sprintf("%s@%d(%d)", l.ID, l.LeftAt, l.JoinedAt))
			}
			if got := strings.Join(left, " "); got != tc.wantLeft {
				t.Errorf("next.Left %q, want %q", got, tc.wantLeft)
			}
		})
	}
}

func TestDiffCommunitiesKeepsNewMemberCount(t *testing.T) {
	prev := HandleState{Synced: true, Communities: []Membership{{Community: comm("1", "A", "d", 10), JoinedAt: 5}}}
	next, _ := DiffCommunities(prev, []protocol.Community{comm("1", "A", "d", 99)}, 10)
	if next.Communities[0].MemberCount != 99 {
		t.Errorf("member count %d, want the new 99", next.Communities[0].MemberCount)
	}
	if prev.Communities[0].MemberCount != 10 {
		t.Errorf("DiffCommunities changed prev")
	}
}

func TestDiffFollowing(t *testing.T) {
	u := func(id string) protocol.FollowUser { return protocol.FollowUser{ID: id, Handle: "h" + id} }
	ids := func(us []protocol.FollowUser) string {
		var s []string
		for _, x := range us {
			s = append(s, x.ID)
		}
		return strings.Join(s, ",")
	}
	for _, tc := range []struct {
		name      string
		prev      HandleState
		cur       []protocol.FollowUser
		wantAdded string
		wantNext  string
	}{
		{"first list is the baseline", HandleState{}, []protocol.FollowUser{u("1"), u("2")}, "", "1,2"},
		{"empty baseline, then a follow", HandleState{FollowingSynced: true}, []protocol.FollowUser{u("1")}, "1", "1"},
		{"new follows in list order", HandleState{FollowingSynced: true, Following: []string{"1"}}, []protocol.FollowUser{u("3"), u("1"), u("2")}, "3,2", "3,1,2"},
		{"unfollows give nothing", HandleState{FollowingSynced: true, Following: []string{"1", "2"}}, []protocol.FollowUser{u("2")}, "", "2"},
		{"a user listed twice counts once", HandleState{FollowingSynced: true}, []protocol.FollowUser{u("1"), u("1")}, "1", "1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			next, added := DiffFollowing(tc.prev, tc.cur)
			if got := ids(added); got != tc.wantAdded {
				t.Errorf("added %q, want %q", got, tc.wantAdded)
			}
			if got := strings.Join(next.Following, ","); got != tc.wantNext {
				t.Errorf("next following %q, want %q", got, tc.wantNext)
			}
			if !next.FollowingSynced {
				t.Errorf("next is not following-synced")
			}
		})
	}
}
