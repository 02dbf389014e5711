package handle

import "github.com/alertd/alertd/protocol"

// The changes below are what the entity actors tell the products that
// subscribe to them (Subscriptions; the engine's table of who hears what is
// engine/changes.go). They are plain structs, sent as pointers, and never
// changed once sent: every subscriber reads the same value, on its own
// goroutine. Slices in them are shared, read-only.
//
// Each has Subject: the handle (or, for engagement, the tweet id) it is
// about, so that a subscriber can drop what it does not watch before it
// queues it.

// PostSeen: a post observation, handled by its author's handle actor.
type PostSeen struct {
	Handle string
	// Obs is the observation; Obs.Post the post as now observed.
	Obs *protocol.Observation
	// FirstSeen is when the post was first detected (epoch ms).
	FirstSeen int64
	// New is true the first time the actor sees the id (a re-observation
	// of a post forgotten since is new again). It is also true, with
	// Replayed, when the ingest log replays a post the store had but no
	// activation of this process had seen: the crash may have come between
	// the post's row and the products' effects, so the products hear it
	// again (social.post.new is not published again).
	New bool
	// Replayed: see New. Products whose effects are not idempotent in the
	// store skip a replayed New.
	Replayed bool
	// Update says why a re-observation deserves social.post.update (0: it
	// adds nothing).
	Update UpdateReason
}

// PostDeleted: a deletion of one of the handle's posts was observed.
type PostDeleted struct {
	Handle string
	Obs    *protocol.Observation
}

// FollowsChanged: a complete following list of the handle was observed.
type FollowsChanged struct {
	Handle string
	// Added and Removed are the accounts followed and unfollowed since the
	// previous list, in list order (Removed: as last seen). Renamed are
	// accounts still followed whose handle changed.
	Added, Removed, Renamed []protocol.FollowUser
	// Following is the complete list now (as observed; ids may repeat).
	Following []protocol.FollowUser
	// First: the first list under this handle. The stores keyed by handle
	// hold no baseline for it: the list is the baseline. Added and Removed
	// are empty, unless a rename brought the previous handle's list (they
	// are then relative to it, and the realtime events say so).
	First bool
	// At is the list's detection time, PrevAt the previous list's (epoch
	// ms; 0 with First).
	At, PrevAt int64
}

// FollowersAdded: new followers of the handle were observed.
type FollowersAdded struct {
	Handle string
	Users  []protocol.NewFollower
	At     int64
}

// MembershipsChanged: a complete community membership of the handle was
// observed. It is sent for every observation, changed or not: a product
// that starts watching a handle syncs on the first one it hears.
type MembershipsChanged struct {
	Handle string
	// Changes are the differences with the previous list: joins, renames
	// and description changes in list order, then leaves in the previous
	// list's order.
	Changes []MembershipChange
	// Memberships is the complete membership now, one per community, with
	// join times.
	Memberships []Membership
	// First: the handle's first list (or the first under this handle): the
	// baseline. No changes; the join times of its memberships are unknown
	// (0), unless a rename brought them.
	First bool
	At    int64 // detection time (epoch ms)
}

// ProfileChanged: a user snapshot was observed (by the user actor, keyed by
// user id). It is sent for every snapshot: Changes may be empty (counts
// moved, or nothing did).
type ProfileChanged struct {
	UserID string
	// Old is the previous snapshot of the id (nil: the first one seen), New
	// this one. On a rename Old.Handle and New.Handle differ.
	Old, New *protocol.UserObs
	// Changes are the social.profile.update fields, in spec order.
	Changes []protocol.ProfileChange
	At      int64 // detection time (epoch ms)
}

// Renamed reports whether the snapshot renamed the user, and from what.
func (c *ProfileChanged) Renamed() (from string, ok bool) {
	if c.Old == nil || c.Old.Handle == c.New.Handle {
		return "", false
	}
	return c.Old.Handle, true
}

// EngagementChanged: engagement counts of a post were observed (by the
// engagement feed actor). The counts are as observed: the baseline that a
// change is judged against belongs to the product that needs one (et, for
// the posts it tracks; see the package doc, "Engagement").
type EngagementChanged struct {
	Counts *protocol.EngagementObs
	At     int64 // detection time (epoch ms)
}

// Observed carries a feed observation that no entity owns state of
// (trending, launchpad, callout, market_cap) to its products, in order per
// feed.
type Observed struct {
	Obs *protocol.Observation
}

// MembershipChangeKind names one difference between two memberships.
type MembershipChangeKind uint8

const (
	Joined MembershipChangeKind = iota + 1
	Left
	CommunityRenamed
	DescriptionChanged
)

// MembershipChange is one difference between two complete memberships.
type MembershipChange struct {
	Kind MembershipChangeKind
	// Community is as now (Left: as last seen).
	Community      protocol.Community
	OldName        string // CommunityRenamed
	OldDescription string // DescriptionChanged
	// JoinedAt is when the membership began: the list's time for a join,
	// the kept join time otherwise (0: unknown, it predates the first list).
	JoinedAt int64
}

// Membership is a handle's membership of one community.
type Membership struct {
	protocol.Community
	// JoinedAt is when the join was detected (epoch ms); 0 for memberships
	// the handle already had in its first list, whose join time is unknown.
	JoinedAt int64 `json:"joined_at"`
}

// Subject implementations: the handle a change is about (the tweet id for
// engagement, the user's current handle for a profile).
func (c *PostSeen) Subject() string           { return c.Handle }
func (c *PostDeleted) Subject() string        { return c.Handle }
func (c *FollowsChanged) Subject() string     { return c.Handle }
func (c *FollowersAdded) Subject() string     { return c.Handle }
func (c *MembershipsChanged) Subject() string { return c.Handle }
func (c *ProfileChanged) Subject() string     { return c.New.Handle }
func (c *EngagementChanged) Subject() string  { return c.Counts.TweetID }
func (c *Observed) Subject() string           { return c.Obs.Key }
