// Package b2b keeps what the B2B per-handle endpoints and the /social
// lookups read beyond posts and users: profile count history, follow edges
// with their changes, community memberships and the community catalog, and
// the latest engagement counts of posts. A Recorder actor hears observations
// through the handle taps, batches them and writes them through the store
// writer; this file holds the pure helpers it uses.
package b2b

import (
	"strconv"
	"time"

	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
)

// EdgeSeen is one account named by an observation of a handle's follows.
type EdgeSeen struct {
	ID         string
	ScreenName string
}

// DiffEdges computes what one observation changes in the stored edges of
// (handle, relation). complete says the observation is the whole current
// list (a `following` snapshot): edges it lacks stop being current and the
// others are touched. The first complete list is the baseline and records
// no changes, as the realtime stream sends no events for it; lists that are
// not complete (`followers_new`) record every account that was not a
// current edge as added.
func DiffEdges(handle, relation string, stored persistence.FollowEdgeSet, seen []EdgeSeen, complete bool, at time.Time) persistence.FollowEdgeUpdate {
	u := persistence.FollowEdgeUpdate{Handle: handle, Relation: relation, At: at, Complete: complete}
	record := !complete || stored.Baseline
	byID := make(map[string]int, len(stored.Edges))
	for i, e := range stored.Edges {
		byID[e.TargetID] = i
	}
	listed := make(map[string]bool, len(seen))
	for _, s := range seen {
		if s.ID == "" || listed[s.ID] {
			continue
		}
		listed[s.ID] = true
		i, known := byID[s.ID]
		if !known {
			u.Upserts = append(u.Upserts, persistence.FollowEdge{Handle: handle, Relation: relation, TargetID: s.ID,
				TargetScreenName: s.ScreenName, IsCurrent: true, FirstSeenAt: at, LastSeenAt: at})
			if record {
				u.Changes = append(u.Changes, change(handle, relation, s.ID, s.ScreenName, persistence.ChangeAdded, at))
			}
			continue
		}
		e := stored.Edges[i]
		switch {
		case !e.IsCurrent: // it came back
			e.IsCurrent, e.TargetScreenName, e.LastSeenAt = true, s.ScreenName, at
			u.Upserts = append(u.Upserts, e)
			if record {
				u.Changes = append(u.Changes, change(handle, relation, s.ID, s.ScreenName, persistence.ChangeAdded, at))
			}
		case e.TargetScreenName != s.ScreenName || !complete:
			// A rename, or a partial list (which touches only what it names).
			e.TargetScreenName, e.LastSeenAt = s.ScreenName, later(e.LastSeenAt, at)
			u.Upserts = append(u.Upserts, e)
		}
	}
	if !complete {
		return u
	}
	for _, e := range stored.Edges {
		if !e.IsCurrent || listed[e.TargetID] {
			continue
		}
		e.IsCurrent = false
		u.Upserts = append(u.Upserts, e)
		if record {
			u.Changes = append(u.Changes, change(handle, relation, e.TargetID, e.TargetScreenName, persistence.ChangeRemoved, at))
		}
	}
	return u
}

// AdvanceSet returns set as it is stored once u is applied, so that the next
// observation of the same list in one batch diffs against it.
func AdvanceSet(set persistence.FollowEdgeSet, u persistence.FollowEdgeUpdate) persistence.FollowEdgeSet {
	out := persistence.FollowEdgeSet{Baseline: set.Baseline, ListAt: set.ListAt,
		Edges: make([]persistence.FollowEdge, len(set.Edges), len(set.Edges)+len(u.Upserts))}
	copy(out.Edges, set.Edges)
	at := make(map[string]int, len(out.Edges))
	for i, e := range out.Edges {
		at[e.TargetID] = i
	}
	for _, e := range u.Upserts {
		if i, ok := at[e.TargetID]; ok {
			out.Edges[i] = e
			continue
		}
		at[e.TargetID] = len(out.Edges)
		out.Edges = append(out.Edges, e)
	}
	if u.Complete {
		out.Baseline, out.ListAt = true, later(out.ListAt, u.At)
		for i := range out.Edges {
			if e := &out.Edges[i]; e.IsCurrent {
				e.LastSeenAt = later(e.LastSeenAt, u.At)
			}
		}
	}
	return out
}

func change(handle, relation, id, name, kind string, at time.Time) persistence.SocialChange {
	return persistence.SocialChange{Handle: handle, Relation: relation, TargetID: id, TargetScreenName: name, Change: kind, ChangedAt: at}
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// FollowingSeen lists the accounts of a `following` snapshot.
func FollowingSeen(users []protocol.FollowUser) []EdgeSeen {
	out := make([]EdgeSeen, len(users))
	for i, u := range users {
		out[i] = EdgeSeen{ID: u.ID, ScreenName: u.Handle}
	}
	return out
}

// FollowersSeen lists the accounts of a `followers_new` observation.
func FollowersSeen(users []protocol.NewFollower) []EdgeSeen {
	out := make([]EdgeSeen, len(users))
	for i, u := range users {
		out[i] = EdgeSeen{ID: u.ID, ScreenName: u.Handle}
	}
	return out
}

// ProfileRow is the history row of a user snapshot. The ingest user shape
// carries follower and following counts only; the other counts stay 0.
func ProfileRow(u *protocol.UserObs, at time.Time) persistence.ProfileCounts {
	return persistence.ProfileCounts{UserID: u.ID, Followers: u.Followers, Following: u.Following, ScrapedAt: at}
}

// Memberships converts a `communities` snapshot.
func Memberships(list []protocol.Community) []persistence.HandleCommunity {
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
