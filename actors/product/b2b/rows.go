// Package b2b keeps what the B2B per-handle endpoints and the /social
// lookups read beyond posts and users: profile count history, follow edges
// with their changes, community memberships and the community catalog, and
// the latest engagement counts of posts. A Recorder actor hears the handle
// actors' changes (handle.FollowsChanged, MembershipsChanged, ...), turns
// them into rows, batches them and writes them through the store writer; it
// reads nothing back: the handle actors own the baselines. This file holds
// the pure conversions.
package b2b

import (
	"cmp"
	"slices"
	"strconv"
	"time"

	"github.com/alertd/alertd/actors/handle"
	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
)

// FollowingUpdate is what a following change writes in the stored edges.
// The first list under a handle is its baseline: every listed account
// becomes a current edge and no change is recorded, as the realtime stream
// sends no events for it. After it: the added accounts become current edges
// (an edge that comes back keeps its first sighting) with an added change,
// in list order; renamed ones take their new handle; the removed ones stop
// being current, last seen with the previous list, with a removed change,
// by target id. The list's time touches every edge still current.
func FollowingUpdate(c *handle.FollowsChanged) persistence.FollowEdgeUpdate {
	at := time.UnixMilli(c.At).UTC()
	rel := persistence.RelationFollowing
	u := persistence.FollowEdgeUpdate{Handle: c.Handle, Relation: rel, At: at, Complete: true}
	listed := map[string]bool{}
	upsert := func(f protocol.FollowUser, current bool, last time.Time) bool {
		if f.ID == "" || listed[f.ID] {
			return false
		}
		listed[f.ID] = true
		u.Upserts = append(u.Upserts, persistence.FollowEdge{Handle: c.Handle, Relation: rel, TargetID: f.ID,
			TargetScreenName: f.Handle, IsCurrent: current, FirstSeenAt: at, LastSeenAt: last})
		return true
	}
	record := func(f protocol.FollowUser, kind string) {
		u.Changes = append(u.Changes, change(c.Handle, rel, f.ID, f.Handle, kind, at))
	}
	if c.First {
		for _, f := range c.Following {
			upsert(f, true, at)
		}
		return u
	}
	for _, f := range c.Added {
		if upsert(f, true, at) {
			record(f, persistence.ChangeAdded)
		}
	}
	for _, f := range c.Renamed {
		upsert(f, true, at)
	}
	removed := slices.SortedFunc(slices.Values(c.Removed), func(a, b protocol.FollowUser) int { return cmp.Compare(a.ID, b.ID) })
	prev := time.UnixMilli(c.PrevAt).UTC()
	for _, f := range removed {
		if upsert(f, false, prev) {
			record(f, persistence.ChangeRemoved)
		}
	}
	return u
}

// FollowersSeen is what a followers change writes: the store says which of
// them are new (persistence.LookupStore.AddFollowers).
func FollowersSeen(c *handle.FollowersAdded) persistence.FollowersSeen {
	f := persistence.FollowersSeen{Handle: c.Handle, At: time.UnixMilli(c.At).UTC(), Accounts: make([]persistence.FollowTarget, len(c.Users))}
	for i, u := range c.Users {
		f.Accounts[i] = persistence.FollowTarget{ID: u.ID, ScreenName: u.Handle}
	}
	return f
}

func change(handle, relation, id, name, kind string, at time.Time) persistence.SocialChange {
	return persistence.SocialChange{Handle: handle, Relation: relation, TargetID: id, TargetScreenName: name, Change: kind, ChangedAt: at}
}

// ProfileRow is the history row of a user snapshot. The ingest user shape
// carries follower and following counts only; the other counts stay 0.
func ProfileRow(u *protocol.UserObs, at time.Time) persistence.ProfileCounts {
	return persistence.ProfileCounts{UserID: u.ID, Followers: u.Followers, Following: u.Following, ScrapedAt: at}
}

// Memberships converts a handle's complete membership.
func Memberships(list []handle.Membership) []persistence.HandleCommunity {
	out := make([]persistence.HandleCommunity, len(list))
	for i, c := range list {
		out[i] = persistence.HandleCommunity{CommunityID: c.ID, CommunityName: c.Name, Description: c.Description,
			MemberCount: c.MemberCount, CreatorScreenName: c.CreatorScreenName, IsCurrent: true}
	}
	return out
}

// EngagementRow is the counts of an `engagement` observation.
func EngagementRow(e *protocol.EngagementObs, at time.Time) persistence.LatestEngagement {
	return persistence.LatestEngagement{TweetID: e.TweetID, Likes: ptr(e.FavoriteCount), Retweets: ptr(e.RetweetCount),
		Replies: ptr(e.ReplyCount), Quotes: ptr(e.QuoteCount), Bookmarks: ptr(e.BookmarkCount), ObservedAt: at}
}

// PostMetricsRow is the counts a re-observed post carries, so that a later
// post observation wins over an older engagement one; ok is false when it
// carries none.
func PostMetricsRow(t *protocol.Tweet, at time.Time) (row persistence.LatestEngagement, ok bool) {
	m := t.Metrics
	if m.Likes == nil && m.Retweets == nil && m.Replies == nil && m.Quotes == nil {
		return row, false
	}
	return persistence.LatestEngagement{TweetID: t.ID, Likes: m.Likes, Retweets: m.Retweets, Replies: m.Replies,
		Quotes: m.Quotes, ObservedAt: at}, true
}

// ViewCount reads the string view count of a post; nil when absent or not a
// number.
func ViewCount(v *string) *int64 {
	if v == nil {
		return nil
	}
	n, err := strconv.ParseInt(*v, 10, 64)
	if err != nil || n < 0 {
		return nil
	}
	return &n
}

func ptr(v int64) *int64 { return &v }
