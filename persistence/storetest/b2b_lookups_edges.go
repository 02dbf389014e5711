package storetest

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/alertd/alertd/persistence"
)

func lkEdge(target, name string, current bool, first, last time.Duration) persistence.FollowEdge {
	return persistence.FollowEdge{TargetID: target, TargetScreenName: name, IsCurrent: current, FirstSeenAt: at(first), LastSeenAt: at(last)}
}

func lkChange(target, name, change string, d time.Duration) persistence.SocialChange {
	return persistence.SocialChange{TargetID: target, TargetScreenName: name, Change: change, ChangedAt: at(d)}
}

// lkEdgeLine renders an edge for comparisons.
func lkEdgeLine(e persistence.FollowEdge) string {
	return fmt.Sprintf("%s/%s/%s %s cur=%v first=%v last=%v", e.Handle, e.Relation, e.TargetID, e.TargetScreenName,
		e.IsCurrent, e.FirstSeenAt.Sub(base), e.LastSeenAt.Sub(base))
}

func lkEdgeLines(es []persistence.FollowEdge) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = lkEdgeLine(e)
	}
	return out
}

func testFollowEdges(t *testing.T, s persistence.Store) {
	ctx := t.Context()
	set, err := s.FollowEdges(ctx, "whale", persistence.RelationFollowing, nil)
	must(t, "FollowEdges before any", err)
	if set.Baseline || len(set.Edges) != 0 {
		t.Fatalf("empty set = %+v", set)
	}
	// The baseline: a complete list, no changes.
	must(t, "ApplyFollowEdges baseline", s.ApplyFollowEdges(ctx, []persistence.FollowEdgeUpdate{{
		Handle: "whale", Relation: persistence.RelationFollowing, At: at(0), Complete: true,
		Upserts: []persistence.FollowEdge{lkEdge("1", "one", true, 0, 0), lkEdge("2", "two", true, 0, 0)},
	}}))
	// Followers are another relation of the same handle.
	must(t, "ApplyFollowEdges followers", s.ApplyFollowEdges(ctx, []persistence.FollowEdgeUpdate{{
		Handle: "whale", Relation: persistence.RelationFollower, At: at(0),
		Upserts: []persistence.FollowEdge{lkEdge("9", "nine", true, 0, 0)},
		Changes: []persistence.SocialChange{lkChange("9", "nine", persistence.ChangeAdded, 0)},
	}}))
	set, err = s.FollowEdges(ctx, "whale", persistence.RelationFollowing, nil)
	must(t, "FollowEdges", err)
	if !set.Baseline {
		t.Errorf("Baseline false after a complete list")
	}
	want := []string{
		"whale/following/1 one cur=true first=0s last=0s",
		"whale/following/2 two cur=true first=0s last=0s",
	}
	if got := lkEdgeLines(set.Edges); !slices.Equal(got, want) {
		t.Fatalf("edges\n%v\nwant\n%v", got, want)
	}
	set, err = s.FollowEdges(ctx, "whale", persistence.RelationFollower, nil)
	must(t, "FollowEdges followers", err)
	if set.Baseline || len(set.Edges) != 1 {
		t.Errorf("follower set = %+v, want one edge and no baseline (never a complete list)", set)
	}

	// A later complete list: 2 goes, 3 comes, 1 stays and is touched.
	must(t, "ApplyFollowEdges", s.ApplyFollowEdges(ctx, []persistence.FollowEdgeUpdate{{
		Handle: "whale", Relation: persistence.RelationFollowing, At: at(time.Minute), Complete: true,
		Upserts: []persistence.FollowEdge{lkEdge("2", "two", false, 0, 0), lkEdge("3", "three", true, time.Minute, time.Minute)},
		Changes: []persistence.SocialChange{
			lkChange("3", "three", persistence.ChangeAdded, time.Minute),
			lkChange("2", "two", persistence.ChangeRemoved, time.Minute),
		},
	}}))
	set, err = s.FollowEdges(ctx, "whale", persistence.RelationFollowing, nil)
	must(t, "FollowEdges", err)
	want = []string{
		"whale/following/1 one cur=true first=0s last=1m0s",
		"whale/following/2 two cur=false first=0s last=0s",
		"whale/following/3 three cur=true first=1m0s last=1m0s",
	}
	if got := lkEdgeLines(set.Edges); !slices.Equal(got, want) {
		t.Fatalf("edges after the second list\n%v\nwant\n%v", got, want)
	}
	n, err := s.CountFollowEdges(ctx, "whale", persistence.RelationFollowing)
	must(t, "CountFollowEdges", err)
	if n != 2 {
		t.Errorf("CountFollowEdges = %d, want 2", n)
	}
	set, err = s.FollowEdges(ctx, "other", persistence.RelationFollowing, nil)
	must(t, "FollowEdges other", err)
	if set.Baseline || len(set.Edges) != 0 {
		t.Errorf("another handle's set = %+v", set)
	}
}

func testFollowEdgePages(t *testing.T, s persistence.Store) {
	ctx := t.Context()
	ups := []persistence.FollowEdge{
		lkEdge("a", "old", false, 0, time.Second),
		lkEdge("b", "b", true, 2*time.Second, 9*time.Second),
		lkEdge("c", "c", true, 3*time.Second, 9*time.Second),
		lkEdge("d", "d", true, 3*time.Second, 9*time.Second),
		lkEdge("e", "gone", false, 8*time.Second, 8*time.Second),
		lkEdge("c", "c2", true, 3*time.Second, 9*time.Second), // the last of a target wins
	}
	must(t, "ApplyFollowEdges", s.ApplyFollowEdges(ctx, []persistence.FollowEdgeUpdate{{
		Handle: "h", Relation: persistence.RelationFollowing, At: at(9 * time.Second), Upserts: ups,
	}}))
	all, err := s.ListFollowEdges(ctx, "h", persistence.RelationFollowing, 0, 0)
	must(t, "ListFollowEdges", err)
	var order []string
	for _, e := range all {
		order = append(order, e.TargetID+":"+e.TargetScreenName)
	}
	// Current first, then newest first seen, ties by target id.
	if want := []string{"c:c2", "d:d", "b:b", "e:gone", "a:old"}; !slices.Equal(order, want) {
		t.Fatalf("order %v, want %v", order, want)
	}
	page, err := s.ListFollowEdges(ctx, "h", persistence.RelationFollowing, 2, 1)
	must(t, "ListFollowEdges page", err)
	if got := lkEdgeLines(page); !slices.Equal(got, lkEdgeLines(all[1:3])) {
		t.Errorf("page (2, 1) = %v, want %v", got, lkEdgeLines(all[1:3]))
	}
	n, err := s.CountFollowEdges(ctx, "h", persistence.RelationFollowing)
	must(t, "CountFollowEdges", err)
	if n != 3 {
		t.Errorf("CountFollowEdges = %d, want 3", n)
	}
	n, err = s.CountFollowEdges(ctx, "h", persistence.RelationFollower)
	must(t, "CountFollowEdges followers", err)
	if n != 0 {
		t.Errorf("CountFollowEdges of followers = %d, want 0", n)
	}
	none, err := s.ListFollowEdges(ctx, "h", persistence.RelationFollowing, 10, 10)
	must(t, "ListFollowEdges past the end", err)
	if len(none) != 0 {
		t.Errorf("page past the end has %d edges", len(none))
	}
}

func testFollowEdgeBatches(t *testing.T, s persistence.Store) {
	ctx := t.Context()
	rel := persistence.RelationFollowing
	// Two complete lists in one batch: the later list time wins, the last
	// upsert of an edge wins, every change is kept.
	must(t, "ApplyFollowEdges batch", s.ApplyFollowEdges(ctx, []persistence.FollowEdgeUpdate{
		{Handle: "h", Relation: rel, At: at(time.Minute), Complete: true,
			Upserts: []persistence.FollowEdge{lkEdge("1", "one", true, 0, time.Minute), lkEdge("2", "two", true, 0, time.Minute)}},
		{Handle: "h", Relation: rel, At: at(2 * time.Minute), Complete: true,
			Upserts: []persistence.FollowEdge{lkEdge("2", "two", false, 0, time.Minute)},
			Changes: []persistence.SocialChange{lkChange("2", "two", persistence.ChangeRemoved, 2*time.Minute)}},
		{Handle: "g", Relation: rel, At: at(time.Minute), Complete: true,
			Upserts: []persistence.FollowEdge{lkEdge("9", "nine", true, 0, 0)}},
		{Handle: "h", Relation: rel, At: at(30 * time.Second), Complete: true}, // an older list time is ignored
	}))
	set, err := s.FollowEdges(ctx, "h", rel, nil)
	must(t, "FollowEdges", err)
	want := []string{
		"h/following/1 one cur=true first=0s last=2m0s", // a current edge was seen by the last list
		"h/following/2 two cur=false first=0s last=1m0s",
	}
	if got := lkEdgeLines(set.Edges); !slices.Equal(got, want) {
		t.Fatalf("edges\n%v\nwant\n%v", got, want)
	}
	if !set.Baseline {
		t.Errorf("no baseline")
	}
	checkTime(t, "ListAt", set.ListAt, at(2*time.Minute))
	set, err = s.FollowEdges(ctx, "h", rel, []string{"2", "7", "2"})
	must(t, "FollowEdges some", err)
	if got := lkEdgeLines(set.Edges); !slices.Equal(got, want[1:]) || !set.Baseline {
		t.Errorf("only [2 7 2]: %v (baseline %v), want %v", got, set.Baseline, want[1:])
	}
	set, err = s.FollowEdges(ctx, "h", rel, []string{})
	must(t, "FollowEdges none", err)
	if len(set.Edges) != 0 {
		t.Errorf("only []: %v", lkEdgeLines(set.Edges))
	}
	many := make([]string, 1200) // more than one query's worth of ids
	for i := range many {
		many[i] = fmt.Sprint(i)
	}
	set, err = s.FollowEdges(ctx, "h", rel, many)
	must(t, "FollowEdges many", err)
	if got := lkEdgeLines(set.Edges); !slices.Equal(got, want) {
		t.Errorf("only 1200 ids: %v", got)
	}
	page, err := s.ListFollowEdges(ctx, "h", rel, 10, 0)
	must(t, "ListFollowEdges", err)
	if got := lkEdgeLines(page); !slices.Equal(got, want) {
		t.Errorf("ListFollowEdges %v, want %v (the same effective last sightings)", got, want)
	}
	diff, err := s.SocialDiff(ctx, "h", []string{rel}, persistence.ChangeRemoved, at(0), 10)
	must(t, "SocialDiff", err)
	if len(diff) != 1 || diff[0].TargetID != "2" || diff[0].Handle != "h" || diff[0].Relation != rel {
		t.Errorf("changes %+v", diff)
	}
	must(t, "ApplyFollowEdges empty", s.ApplyFollowEdges(ctx, nil))
}

func testSocialDiff(t *testing.T, s persistence.Store) {
	ctx := t.Context()
	apply := func(rel string, changes ...persistence.SocialChange) {
		must(t, "ApplyFollowEdges", s.ApplyFollowEdges(ctx, []persistence.FollowEdgeUpdate{{
			Handle: "h", Relation: rel, At: at(0), Changes: changes}}))
	}
	apply(persistence.RelationFollowing,
		lkChange("1", "one", persistence.ChangeAdded, time.Second),
		lkChange("2", "two", persistence.ChangeAdded, 3*time.Second),
		lkChange("3", "three", persistence.ChangeRemoved, 2*time.Second),
		lkChange("0", "zero", persistence.ChangeAdded, -time.Hour))
	apply(persistence.RelationFollower, lkChange("9", "nine", persistence.ChangeAdded, 2*time.Second))
	must(t, "ApplyFollowEdges other handle", s.ApplyFollowEdges(ctx, []persistence.FollowEdgeUpdate{{
		Handle: "x", Relation: persistence.RelationFollowing, At: at(0),
		Changes: []persistence.SocialChange{lkChange("5", "five", persistence.ChangeAdded, 2*time.Second)}}}))

	ids := func(cs []persistence.SocialChange) []string {
		var out []string
		for _, c := range cs {
			out = append(out, c.Relation+":"+c.TargetID)
		}
		return out
	}
	both := []string{persistence.RelationFollowing, persistence.RelationFollower}
	for _, c := range []struct {
		rels   []string
		change string
		since  time.Duration
		limit  int
		want   []string
	}{
		{both, persistence.ChangeAdded, 0, 100, []string{"following:2", "follower:9", "following:1"}},
		{both, persistence.ChangeAdded, -2 * time.Hour, 100, []string{"following:2", "follower:9", "following:1", "following:0"}},
		{both, persistence.ChangeAdded, 0, 2, []string{"following:2", "follower:9"}},
		{both[:1], persistence.ChangeAdded, 0, 100, []string{"following:2", "following:1"}},
		{both, persistence.ChangeRemoved, 0, 100, []string{"following:3"}},
		{both, persistence.ChangeRemoved, 2*time.Second + time.Millisecond, 100, nil},
		{nil, persistence.ChangeAdded, 0, 100, nil},
	} {
		got, err := s.SocialDiff(ctx, "h", c.rels, c.change, at(c.since), c.limit)
		must(t, "SocialDiff", err)
		if !slices.Equal(ids(got), c.want) {
			t.Errorf("SocialDiff(%v, %s, since %v, %d) = %v, want %v", c.rels, c.change, c.since, c.limit, ids(got), c.want)
		}
	}
	got, err := s.SocialDiff(ctx, "h", both, persistence.ChangeRemoved, at(0), 10)
	must(t, "SocialDiff", err)
	if len(got) == 1 {
		c := got[0]
		if c.Handle != "h" || c.TargetScreenName != "three" || c.Change != persistence.ChangeRemoved {
			t.Errorf("change %+v", c)
		}
		checkTime(t, "ChangedAt", c.ChangedAt, at(2*time.Second))
	}
}

func lkCommunity(id, name, desc string, members int64, creator string) persistence.HandleCommunity {
	return persistence.HandleCommunity{CommunityID: id, CommunityName: name, Description: desc, MemberCount: members, CreatorScreenName: creator}
}

func testHandleCommunities(t *testing.T, s persistence.Store) {
	ctx := t.Context()
	must(t, "ApplyHandleCommunities", lkApplyCommunities(ctx, s, "h", []persistence.HandleCommunity{
		lkCommunity("c1", "Solana Builders", "ship it", 100, "sol"),
		lkCommunity("c2", "Degens", "gm", 50, "deg"),
	}, at(0)))
	must(t, "ApplyHandleCommunities other", lkApplyCommunities(ctx, s, "o", []persistence.HandleCommunity{
		lkCommunity("c2", "Degens", "gm", 50, "deg"),
	}, at(0)))
	// c1 goes, c3 comes, c2 stays with new details.
	must(t, "ApplyHandleCommunities again", lkApplyCommunities(ctx, s, "h", []persistence.HandleCommunity{
		lkCommunity("c3", "New One", "fresh", 10, "neo"),
		lkCommunity("c2", "Degens Two", "gn", 60, "deg"),
	}, at(time.Minute)))
	got, err := s.HandleCommunities(ctx, "h")
	must(t, "HandleCommunities", err)
	var lines []string
	for _, c := range got {
		lines = append(lines, fmt.Sprintf("%s %s %q %d %s cur=%v first=%v last=%v", c.CommunityID, c.CommunityName, c.Description,
			c.MemberCount, c.CreatorScreenName, c.IsCurrent, c.FirstSeenAt.Sub(base), c.LastSeenAt.Sub(base)))
	}
	want := []string{
		`c3 New One "fresh" 10 neo cur=true first=1m0s last=1m0s`,
		`c2 Degens Two "gn" 60 deg cur=true first=0s last=1m0s`,
		`c1 Solana Builders "ship it" 100 sol cur=false first=0s last=0s`,
	}
	if !slices.Equal(lines, want) {
		t.Fatalf("memberships\n%v\nwant\n%v", lines, want)
	}
	// An older list of another handle does not roll the catalog back.
	must(t, "ApplyHandleCommunities older", lkApplyCommunities(ctx, s, "o", []persistence.HandleCommunity{
		lkCommunity("c2", "Degens", "gm", 50, "deg"),
	}, at(time.Second)))
	cat, err := s.CommunityCatalog(ctx, "degens", 10, 0)
	must(t, "CommunityCatalog", err)
	if len(cat) != 1 || cat[0].Name != "Degens Two" || cat[0].Description != "gn" || cat[0].MemberCount != 60 {
		t.Fatalf("catalog entry %+v, want the newest details of c2", cat)
	}
	checkTime(t, "UpdatedAt", cat[0].UpdatedAt, at(time.Minute))
	none, err := s.HandleCommunities(ctx, "nobody")
	must(t, "HandleCommunities nobody", err)
	if len(none) != 0 {
		t.Errorf("unknown handle has %d memberships", len(none))
	}
	// An empty list ends every membership.
	must(t, "ApplyHandleCommunities empty", lkApplyCommunities(ctx, s, "h", nil, at(2*time.Minute)))
	got, err = s.HandleCommunities(ctx, "h")
	must(t, "HandleCommunities", err)
	for _, c := range got {
		if c.IsCurrent {
			t.Errorf("%s still current after an empty list", c.CommunityID)
		}
	}
}

func testCommunityCatalog(t *testing.T, s persistence.Store) {
	ctx := t.Context()
	must(t, "ApplyHandleCommunities", lkApplyCommunities(ctx, s, "h", []persistence.HandleCommunity{
		lkCommunity("1", "Solana Builders", "", 500, "a"),
		lkCommunity("2", "BUILDERS of EVM", "", 900, "b"),
		lkCommunity("3", "100% Degen", "", 10, "c"),
		lkCommunity("4", "degen_club", "", 10, "d"),
		lkCommunity("5", "Zürich Builders", "", 700, "e"),
	}, at(0)))
	names := func(cs []persistence.CatalogCommunity) []string {
		var out []string
		for _, c := range cs {
			out = append(out, c.ID)
		}
		return out
	}
	for _, c := range []struct {
		search        string
		limit, offset int
		want          []string
	}{
		{"", 0, 0, []string{"2", "5", "1", "3", "4"}},
		{"builders", 0, 0, []string{"2", "5", "1"}},
		{"BUILDERS", 2, 1, []string{"5", "1"}},
		{"zürich", 0, 0, []string{"5"}},
		{"%", 0, 0, []string{"3"}},
		{"_", 0, 0, []string{"4"}},
		{"n_c", 0, 0, []string{"4"}},
		{"degen", 1, 0, []string{"3"}},
		{"nothing", 0, 0, nil},
	} {
		got, err := s.CommunityCatalog(ctx, c.search, c.limit, c.offset)
		must(t, "CommunityCatalog", err)
		if !slices.Equal(names(got), c.want) {
			t.Errorf("CommunityCatalog(%q, %d, %d) = %v, want %v", c.search, c.limit, c.offset, names(got), c.want)
		}
	}
}

func lkApplyCommunities(ctx context.Context, s persistence.Store, handle string, list []persistence.HandleCommunity, at time.Time) error {
	return s.ApplyHandleCommunities(ctx, []persistence.HandleCommunityList{{Handle: handle, List: list, At: at}})
}

func testAddFollowers(t *testing.T, s persistence.Store) {
	ctx := t.Context()
	rel := persistence.RelationFollower
	seen := func(h string, d time.Duration, ids ...string) persistence.FollowersSeen {
		f := persistence.FollowersSeen{Handle: h, At: at(d)}
		for _, id := range ids {
			f.Accounts = append(f.Accounts, persistence.FollowTarget{ID: id, ScreenName: "fan" + id})
		}
		return f
	}
	// A follower that went away (not current) comes back: an added change,
	// its first sighting kept.
	must(t, "ApplyFollowEdges", s.ApplyFollowEdges(ctx, []persistence.FollowEdgeUpdate{{Handle: "h", Relation: rel, At: at(0),
		Upserts: []persistence.FollowEdge{lkEdge("3", "old3", false, 0, 0)}}}))
	must(t, "AddFollowers", s.AddFollowers(ctx, []persistence.FollowersSeen{
		seen("h", time.Minute, "1", "2", "1", "", "3"),
		seen("h", 2*time.Minute, "2", "4"), // 2 is current by now: touched, no change
		seen("g", time.Minute, "1"),
	}))
	must(t, "AddFollowers empty", s.AddFollowers(ctx, nil))
	set, err := s.FollowEdges(ctx, "h", rel, nil)
	must(t, "FollowEdges", err)
	want := []string{
		"h/follower/1 fan1 cur=true first=1m0s last=1m0s",
		"h/follower/2 fan2 cur=true first=1m0s last=2m0s",
		"h/follower/3 fan3 cur=true first=0s last=1m0s",
		"h/follower/4 fan4 cur=true first=2m0s last=2m0s",
	}
	if got := lkEdgeLines(set.Edges); !slices.Equal(got, want) {
		t.Fatalf("followers\n%v\nwant\n%v", got, want)
	}
	diff, err := s.SocialDiff(ctx, "h", []string{rel}, persistence.ChangeAdded, at(0), 10)
	must(t, "SocialDiff", err)
	var got []string
	for _, c := range diff {
		got = append(got, c.TargetID+":"+c.TargetScreenName)
	}
	if want := []string{"4:fan4", "3:fan3", "2:fan2", "1:fan1"}; !slices.Equal(got, want) {
		t.Errorf("added changes %v, want %v (newest first, each once)", got, want)
	}
	// An older sighting does not move last_seen_at back.
	must(t, "AddFollowers older", s.AddFollowers(ctx, []persistence.FollowersSeen{seen("h", 30*time.Second, "4")}))
	set, err = s.FollowEdges(ctx, "h", rel, []string{"4"})
	must(t, "FollowEdges", err)
	if got := lkEdgeLines(set.Edges); !slices.Equal(got, want[3:]) {
		t.Errorf("after an older sighting %v, want %v", got, want[3:])
	}
}

// testFollowEdgeFirstSeenKept: an upsert never moves an edge's first
// sighting, whether the edge is stored or upserted earlier in the batch.
func testFollowEdgeFirstSeenKept(t *testing.T, s persistence.Store) {
	ctx := t.Context()
	rel := persistence.RelationFollowing
	must(t, "ApplyFollowEdges", s.ApplyFollowEdges(ctx, []persistence.FollowEdgeUpdate{
		{Handle: "k", Relation: rel, At: at(0), Complete: true, Upserts: []persistence.FollowEdge{lkEdge("1", "one", true, 0, 0)}},
	}))
	must(t, "ApplyFollowEdges", s.ApplyFollowEdges(ctx, []persistence.FollowEdgeUpdate{
		{Handle: "k", Relation: rel, At: at(time.Minute), Complete: true, Upserts: []persistence.FollowEdge{
			lkEdge("1", "uno", false, time.Minute, 0), lkEdge("2", "two", true, time.Minute, time.Minute)}},
		{Handle: "k", Relation: rel, At: at(2 * time.Minute), Complete: true, Upserts: []persistence.FollowEdge{
			lkEdge("2", "two", false, 2*time.Minute, time.Minute)}},
	}))
	set, err := s.FollowEdges(ctx, "k", rel, nil)
	must(t, "FollowEdges", err)
	want := []string{"k/following/1 uno cur=false first=0s last=0s", "k/following/2 two cur=false first=1m0s last=1m0s"}
	if got := lkEdgeLines(set.Edges); !slices.Equal(got, want) {
		t.Errorf("edges\n%v\nwant\n%v", got, want)
	}
}
