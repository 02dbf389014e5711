package cw

import (
	"fmt"
	"strings"
	"testing"

	"github.com/alertd/alertd/actors/handle"
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

// reported is what a handle actor reports for the list cur at at, after
// prev (known: a previous list).
func reported(prev []Membership, known bool, at int64, cur ...protocol.Community) *handle.MembershipsChanged {
	next, changes := handle.DiffMemberships(prev, known, cur, at)
	return &handle.MembershipsChanged{Handle: "h", Changes: changes, Memberships: next, First: !known, At: at}
}

func m(c protocol.Community, joined int64) Membership {
	return Membership{Community: c, JoinedAt: joined}
}

func TestApply(t *testing.T) {
	a, b, c := comm("1", "Alpha", "first", 10), comm("2", "Beta", "second", 20), comm("3", "Gamma", "third", 30)
	synced := func(predating ...string) HandleState {
		return HandleState{Synced: true, SyncedAt: 1, Predating: predating}
	}
	for _, tc := range []struct {
		name          string
		prev          HandleState
		report        *handle.MembershipsChanged
		want          string
		wantPredating string
		wantLeft      string // next.Left as id@left(joined)
	}{
		{name: "the first report is the sync: no change, its memberships predate it", prev: HandleState{},
			report: reported(nil, false, 100, a, b), want: "", wantPredating: "1,2"},
		{name: "a handle known before the sync: its join times still predate it", prev: HandleState{},
			report: reported([]Membership{m(a, 50)}, true, 100, a, b), want: "", wantPredating: "1,2"},
		{name: "empty sync then a join alerts", prev: synced(), report: reported(nil, true, 200, a), want: "joined:1"},
		{name: "unchanged", prev: synced("1"), report: reported([]Membership{m(a, 0), m(b, 50)}, true, 300, a, b), want: "", wantPredating: "1"},
		{name: "rename and description together: two changes", prev: synced("1"),
			report: reported([]Membership{m(a, 0)}, true, 300, comm("1", "A2", "new", 10)),
			want:   "renamed:1:Alpha->A2 description_changed:1:first->new", wantPredating: "1"},
		{name: "a leave is remembered with the join time the clients know", prev: synced(),
			report: reported([]Membership{m(a, 20), m(b, 40)}, true, 400, a), want: "left:2:since(40)", wantLeft: "2@400(40)"},
		{name: "a membership that predates the sync leaves with an unknown join time", prev: synced("1", "2"),
			report: reported([]Membership{m(a, 20), m(b, 40)}, true, 400, a), want: "left:2:since(0)", wantPredating: "1", wantLeft: "2@400(0)"},
		{name: "join, leave and rename in one list", prev: synced("1", "2"),
			report: reported([]Membership{m(a, 0), m(b, 0)}, true, 500, c, comm("1", "A", "first", 10)),
			want:   "joined:3 renamed:1:Alpha->A left:2:since(0)", wantPredating: "1", wantLeft: "2@500(0)"},
		{name: "a rejoin carries the last membership", prev: HandleState{Synced: true, Left: []Leave{{ID: "2", JoinedAt: 40, LeftAt: 400}}},
			report: reported(nil, true, 450, b), want: "joined:2:prev(40,400)"},
		{name: "leaves older than the longest cooldown are forgotten, even by an unchanged list",
			prev:   HandleState{Synced: true, Left: []Leave{{ID: "2", JoinedAt: 1, LeftAt: 1000}, {ID: "3", JoinedAt: 1, LeftAt: 2000}}},
			report: reported(nil, true, 1000+MaxFlapCooldown.Milliseconds()+1), want: "", wantLeft: "3@2000(1)"},
		{name: "a rejoin past the cooldown still carries the leave it forgets",
			prev:   HandleState{Synced: true, Left: []Leave{{ID: "2", JoinedAt: 1, LeftAt: 1000}}},
			report: reported(nil, true, 1000+MaxFlapCooldown.Milliseconds()+1, b), want: "joined:2:prev(1,1000)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			prevPredating := strings.Join(tc.prev.Predating, ",")
			next, changes := Apply(tc.prev, tc.report)
			if got := describe(changes); got != tc.want {
				t.Errorf("changes %q, want %q", got, tc.want)
			}
			if !next.Synced {
				t.Errorf("next is not synced")
			}
			if got := strings.Join(next.Predating, ","); got != tc.wantPredating {
				t.Errorf("predating %q, want %q", got, tc.wantPredating)
			}
			if strings.Join(tc.prev.Predating, ",") != prevPredating {
				t.Errorf("Apply changed prev")
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

func TestView(t *testing.T) {
	st := HandleState{Synced: true, Predating: []string{"1"}}
	ms := []Membership{m(comm("1", "A", "", 1), 10), m(comm("2", "B", "", 1), 20)}
	v := st.view(ms)
	if v[0].JoinedAt != 0 || v[1].JoinedAt != 20 || ms[0].JoinedAt != 10 {
		t.Errorf("view %+v of %+v", v, ms)
	}
}

func TestDecodeLegacyState(t *testing.T) {
	st, err := decodeState([]byte(`{"synced":true,"synced_at":5,"communities":[{"id":"1","joined_at":0},{"id":"2","joined_at":9}],"following_synced":true,"following":["7"]}`))
	if err != nil || !st.Synced || st.SyncedAt != 5 || strings.Join(st.Predating, ",") != "1" || !st.FollowingSynced {
		t.Errorf("legacy state %+v %v", st, err)
	}
	st, err = decodeState([]byte(`{"synced":true,"predating":["3"]}`))
	if err != nil || strings.Join(st.Predating, ",") != "3" {
		t.Errorf("state %+v %v", st, err)
	}
}

func TestNewFollows(t *testing.T) {
	u := func(id string) protocol.FollowUser { return protocol.FollowUser{ID: id, Handle: "h" + id} }
	ids := func(us []protocol.FollowUser) string {
		var s []string
		for _, x := range us {
			s = append(s, x.ID)
		}
		return strings.Join(s, ",")
	}
	c := &handle.FollowsChanged{Added: []protocol.FollowUser{u("3"), u("2"), u("3")}, Removed: []protocol.FollowUser{u("1")}}
	if got := ids(NewFollows(true, c)); got != "3,2" {
		t.Errorf("new follows %q, want 3,2 (once each, in list order)", got)
	}
	if got := NewFollows(false, c); got != nil {
		t.Errorf("the first list heard alerted %v", got)
	}
}
