package persistence

import (
	"context"
	"time"
)

// LookupStore holds what the /v1/dt per-handle data and /social lookups (profile history, follow edges, community memberships, social diff, blacklist, webhook settings) keep.
type LookupStore interface {
	// AppendProfileHistory appends rows in order, skipping each row whose
	// counts equal those of the latest row of its user (stored, or earlier
	// in rows): history keeps one row per change of counts.
	AppendProfileHistory(ctx context.Context, rows []ProfileCounts) error
	// ProfileHistory returns a user's rows, newest ScrapedAt first.
	ProfileHistory(ctx context.Context, userID string, limit, offset int) ([]ProfileCounts, error)

	// FollowEdges returns the stored edges of (handle, relation), current or
	// not, by target id: all of them when only is nil, else those of the
	// targets in only; and whether (and when last) a complete list was
	// applied. A current edge's LastSeenAt is the later of its own and the
	// last complete list's time.
	FollowEdges(ctx context.Context, handle, relation string, only []string) (FollowEdgeSet, error)
	// ApplyFollowEdges writes updates in one transaction, as if one after
	// the other: their upserts (the last of an edge wins; an edge already
	// stored, or upserted earlier in updates, keeps its FirstSeenAt), their
	// change rows, and for complete ones the time of the list, which
	// touches every edge still current.
	ApplyFollowEdges(ctx context.Context, updates []FollowEdgeUpdate) error
	// AddFollowers records new followers, in order, in one transaction:
	// each listed account (once, empty ids skipped) that was not a current
	// follower of the handle gets an added change, in list order; each
	// becomes a current follower edge (FirstSeenAt kept when stored), seen
	// at At. Followers lists are open-ended, so which of them are new is
	// the store's to say.
	AddFollowers(ctx context.Context, batch []FollowersSeen) error
	// ListFollowEdges returns a page of edges: current first, then the
	// newest FirstSeenAt first.
	ListFollowEdges(ctx context.Context, handle, relation string, limit, offset int) ([]FollowEdge, error)
	// CountFollowEdges counts the current edges of (handle, relation).
	CountFollowEdges(ctx context.Context, handle, relation string) (int, error)
	// SocialDiff returns up to limit changes of kind change (ChangeAdded or
	// ChangeRemoved) of handle in relations, ChangedAt >= since, newest first.
	SocialDiff(ctx context.Context, handle string, relations []string, change string, since time.Time, limit int) ([]SocialChange, error)

	// ApplyHandleCommunities stores complete current memberships, in order,
	// in one transaction: for each, the listed communities of its handle
	// become current (FirstSeenAt kept), the others stop being current; the
	// catalog takes the listed details unless it holds newer ones.
	ApplyHandleCommunities(ctx context.Context, lists []HandleCommunityList) error
	// HandleCommunities returns handle's memberships, current first, then
	// the newest FirstSeenAt first.
	HandleCommunities(ctx context.Context, handle string) ([]HandleCommunity, error)
	// CommunityCatalog returns communities whose name contains search
	// (case-insensitive; "" matches all), by member count, largest first.
	CommunityCatalog(ctx context.Context, search string, limit, offset int) ([]CatalogCommunity, error)

	// PutLatestEngagement keeps, per tweet, the newest counts: a row older
	// than the stored one is ignored; a nil count keeps the stored value.
	PutLatestEngagement(ctx context.Context, rows []LatestEngagement) error
	// LatestEngagement returns the counts kept for tweet id.
	LatestEngagement(ctx context.Context, tweetID string) (LatestEngagement, error)

	// AddDTBlacklist puts handle on account's exclusion list; added is false
	// when it was there already.
	AddDTBlacklist(ctx context.Context, account, handle string, at time.Time) (added bool, err error)
	// RemoveDTBlacklist takes handle off the list; ErrNotFound if absent.
	RemoveDTBlacklist(ctx context.Context, account, handle string) error
	// DTBlacklist returns account's list in the order handles were added.
	DTBlacklist(ctx context.Context, account string) ([]string, error)

	// PutDTWebhook stores or replaces account's B2B webhook setting.
	PutDTWebhook(ctx context.Context, w DTWebhook) error
	// DTWebhook returns account's setting; ErrNotFound if none.
	DTWebhook(ctx context.Context, account string) (DTWebhook, error)
}

// ProfileCounts is one profile history row of a platform user.
type ProfileCounts struct {
	UserID      string
	Followers   int64
	Following   int64
	TweetCount  int64
	LikesCount  int64
	ListedCount int64
	ScrapedAt   time.Time
}

// SameCounts reports whether p and q hold the same counts.
func (p ProfileCounts) SameCounts(q ProfileCounts) bool {
	return p.Followers == q.Followers && p.Following == q.Following && p.TweetCount == q.TweetCount &&
		p.LikesCount == q.LikesCount && p.ListedCount == q.ListedCount
}

// Relations of a follow edge and kinds of a social change.
const (
	RelationFollowing = "following" // the handle follows the target
	RelationFollower  = "follower"  // the target follows the handle
	ChangeAdded       = "added"
	ChangeRemoved     = "removed"
)

// FollowEdge is one account a handle follows (or that follows it).
type FollowEdge struct {
	Handle           string // lowercase
	Relation         string
	TargetID         string
	TargetScreenName string
	IsCurrent        bool
	FirstSeenAt      time.Time
	LastSeenAt       time.Time
}

// FollowEdgeSet is what is stored of one (handle, relation).
type FollowEdgeSet struct {
	Edges []FollowEdge
	// Baseline is true once a complete list was applied; ListAt is the time
	// of the last one.
	Baseline bool
	ListAt   time.Time
}

// FollowEdgeUpdate is what one observation changes in one (handle, relation).
type FollowEdgeUpdate struct {
	Handle   string
	Relation string
	At       time.Time
	// Complete: the observation was the complete current list.
	Complete bool
	Upserts  []FollowEdge
	Changes  []SocialChange
}

// FollowersSeen is one observation of new followers of a handle.
type FollowersSeen struct {
	Handle   string
	Accounts []FollowTarget
	At       time.Time
}

// FollowTarget is an account at the other end of a follow edge.
type FollowTarget struct {
	ID         string
	ScreenName string
}

// SocialChange is one follow edge that appeared or went away.
type SocialChange struct {
	Handle           string
	Relation         string
	TargetID         string
	TargetScreenName string
	Change           string
	ChangedAt        time.Time
}

// HandleCommunity is one community membership of a handle.
type HandleCommunity struct {
	CommunityID       string
	CommunityName     string
	Description       string // kept for the catalog
	MemberCount       int64
	CreatorScreenName string
	IsCurrent         bool
	FirstSeenAt       time.Time
	LastSeenAt        time.Time
}

// HandleCommunityList is the complete membership of a handle at a time.
type HandleCommunityList struct {
	Handle string
	List   []HandleCommunity
	At     time.Time
}

// CatalogCommunity is one community as last seen in any membership list.
type CatalogCommunity struct {
	ID          string
	Name        string
	Description string
	MemberCount int64
	UpdatedAt   time.Time
}

// LatestEngagement holds the newest known counts of one post; nil where no
// observation carried the count.
type LatestEngagement struct {
	TweetID    string
	Likes      *int64
	Retweets   *int64
	Replies    *int64
	Quotes     *int64
	Bookmarks  *int64
	ObservedAt time.Time
}

// DTWebhook is a B2B account's webhook setting. Nothing is delivered to it;
// the secret is kept as issued so that deliveries could be signed with it.
type DTWebhook struct {
	AccountID string
	URL       string
	Secret    string
	UpdatedAt time.Time
}
