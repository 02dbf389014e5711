package b2b

import (
	"time"

	"github.com/alertd/alertd/persistence"
)

// UserSeen carries the history row of a user snapshot.
type UserSeen struct{ Row persistence.ProfileCounts }

// EdgesSeen carries the accounts an observation names for (Handle, Relation);
// Complete when it is the whole current list.
type EdgesSeen struct {
	Handle   string
	Relation string
	Seen     []EdgeSeen
	Complete bool
	At       time.Time
}

// CommunitiesSeen carries a handle's complete current membership.
type CommunitiesSeen struct {
	Handle string
	List   []persistence.HandleCommunity
	At     time.Time
}

// EngagementSeen carries counts of one post.
type EngagementSeen struct{ Row persistence.LatestEngagement }

// Flush asks the recorder to hand everything waiting to the writer; it
// answers *Flushed once it has.
type Flush struct{}

// Flushed answers Flush.
type Flushed struct{}

// tick is the recorder's periodic flush.
type tick struct{}
