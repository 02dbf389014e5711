package protocol

import json "github.com/goccy/go-json"

// Observation kinds of the ingest API (CONTRACT.md section 3).
const (
	KindUser         = "user"
	KindPost         = "post"
	KindPostDeleted  = "post_deleted"
	KindFollowing    = "following"
	KindFollowersNew = "followers_new"
	KindCommunities  = "communities"
	KindEngagement   = "engagement"
	KindTrending     = "trending"
	KindLaunchpad    = "launchpad"
	KindCallout      = "callout"
	KindMarketCap    = "market_cap"
)

// Kinds lists every observation kind.
var Kinds = []string{KindUser, KindPost, KindPostDeleted, KindFollowing, KindFollowersNew,
	KindCommunities, KindEngagement, KindTrending, KindLaunchpad, KindCallout, KindMarketCap}

// Observation is one decoded, validated ingest line. Exactly one of the
// pointers matching Kind is set. Key is the routing key: the lowercase handle
// for handle-bound kinds, otherwise a per-kind key (tweet id, mint, category)
// so that observations of one subject stay in order.
type Observation struct {
	Kind string
	Key  string
	// DetectedAt is the epoch-ms time the engine accepted the observation.
	DetectedAt int64
	// IngestedAt stamps the same moment for the delivery latency, on the
	// process's monotonic clock (internal/latency.Now; 0 when the
	// observation did not come through ingest).
	IngestedAt int64
	// Replayed marks an observation routed again from the ingest log after
	// a crash (edge/api/ingest.Durable.Replay): its effects may be partly in
	// the store already.
	Replayed bool
	// Raw is the observation line as received (without surrounding space).
	Raw json.RawMessage

	User         *UserObs
	Post         *Tweet
	PostDeleted  *PostDeletedObs
	Following    *FollowingObs
	FollowersNew *FollowersNewObs
	Communities  *CommunitiesObs
	Engagement   *EngagementObs
	Trending     *TrendingObs
	Launchpad    *LaunchpadObs
	Callout      *CalloutObs
	MarketCap    *MarketCapObs
}

// HandleBound reports whether the observation belongs to one handle's actor.
func (o *Observation) HandleBound() bool {
	switch o.Kind {
	case KindUser, KindPost, KindPostDeleted, KindFollowing, KindFollowersNew, KindCommunities:
		return true
	}
	return false
}

// UserObs is a user snapshot.
type UserObs struct {
	ID               string   `json:"id"`
	Handle           string   `json:"handle"`
	Name             string   `json:"name"`
	Bio              string   `json:"bio"`
	Avatar           string   `json:"avatar"`
	BannerURL        *string  `json:"banner_url"`
	Location         *string  `json:"location"`
	Website          *string  `json:"website"`
	Followers        int64    `json:"followers"`
	Following        int64    `json:"following"`
	Verified         bool     `json:"verified"`
	VerificationType *string  `json:"verification_type"`
	PinnedPost       []string `json:"pinned_post"`
	Categories       []string `json:"categories"`
	Suspended        bool     `json:"suspended"`
	// Spelling is Handle as the platform sent it (Handle is its key,
	// lowercase): what payloads carry. Set by validation.
	Spelling string `json:"-"`
}

// Display is the handle as payloads show it: the platform's spelling, or the
// key for a snapshot that was not validated.
func (u *UserObs) Display() string {
	if u.Spelling != "" {
		return u.Spelling
	}
	return u.Handle
}

// PostDeletedObs reports a deletion; the id and text may be unknown.
type PostDeletedObs struct {
	Handle  string  `json:"handle"`
	TweetID *string `json:"tweet_id"`
	Text    *string `json:"text"`
}

// FollowUser is one account of a following list.
type FollowUser struct {
	ID        string  `json:"id"`
	Handle    string  `json:"handle"`
	Name      *string `json:"name"`
	Bio       *string `json:"bio"`
	Followers *int64  `json:"followers"`
	Following *int64  `json:"following"`
	Protected *bool   `json:"protected"`
}

// FollowingObs is the complete current following list of a handle.
type FollowingObs struct {
	Handle string       `json:"handle"`
	Users  []FollowUser `json:"users"`
}

// NewFollower is one new follower.
type NewFollower struct {
	ID     string  `json:"id"`
	Handle string  `json:"handle"`
	Name   *string `json:"name"`
}

// FollowersNewObs lists new followers of a handle.
type FollowersNewObs struct {
	Handle string        `json:"handle"`
	Users  []NewFollower `json:"users"`
}

// Community is one community membership.
type Community struct {
	ID                string `json:"id"`
	Name              string `json:"name"`
	Description       string `json:"description"`
	MemberCount       int64  `json:"member_count"`
	CreatorScreenName string `json:"creator_screen_name"`
}

// CommunitiesObs is the complete current membership of a handle.
type CommunitiesObs struct {
	Handle      string      `json:"handle"`
	Communities []Community `json:"communities"`
}

// EngagementObs carries current counts of one post.
type EngagementObs struct {
	TweetID       string `json:"tweet_id"`
	FavoriteCount int64  `json:"favorite_count"`
	RetweetCount  int64  `json:"retweet_count"`
	ReplyCount    int64  `json:"reply_count"`
	QuoteCount    int64  `json:"quote_count"`
	BookmarkCount int64  `json:"bookmark_count"`
}

// TrendingTweet is spec 3's trending tweet shape.
type TrendingTweet struct {
	TweetID           string `json:"tweet_id"`
	AuthorScreenName  string `json:"author_screen_name"`
	AuthorDisplayName string `json:"author_display_name"`
	FullText          string `json:"full_text"`
	CreatedAt         string `json:"created_at"`
	RetweetCount      int64  `json:"retweet_count"`
	LikeCount         int64  `json:"like_count"`
	ReplyCount        int64  `json:"reply_count"`
	QuoteCount        int64  `json:"quote_count"`
	ViewCount         int64  `json:"view_count"`
	MediaCount        int64  `json:"media_count"`
	TweetURL          string `json:"tweet_url"`
}

// TrendingObs is one trending post in a category.
type TrendingObs struct {
	Category string        `json:"category"`
	Tweet    TrendingTweet `json:"tweet"`
}

// Launchpad event types.
const (
	LaunchTokenLaunched     = "token_launched"
	LaunchLivestreamStarted = "livestream_started"
	LaunchLivestreamEnded   = "livestream_ended"
	LaunchGraduated         = "graduated"
)

// LaunchpadObs is a token-launchpad event.
type LaunchpadObs struct {
	EventType     string  `json:"event_type"`
	WalletAddress string  `json:"wallet_address"`
	Mint          string  `json:"mint"`
	TokenName     string  `json:"token_name"`
	TokenSymbol   string  `json:"token_symbol"`
	Creator       string  `json:"creator"`
	BondingCurve  string  `json:"bonding_curve"`
	URI           string  `json:"uri"`
	Signature     string  `json:"signature"`
	MarketCap     float64 `json:"market_cap"`
}

// CalloutObs is a caller's callout of a token.
type CalloutObs struct {
	CallerWallet   string  `json:"caller_wallet"`
	CallerUsername string  `json:"caller_username"`
	Mint           string  `json:"mint"`
	Creator        string  `json:"creator"`
	TokenName      string  `json:"token_name"`
	TokenSymbol    string  `json:"token_symbol"`
	CalloutMcap    float64 `json:"callout_mcap"`
	MarketCap      float64 `json:"market_cap"`
	AmountHeld     float64 `json:"amount_held"`
	CostBasisSOL   float64 `json:"cost_basis_sol"`
	Thesis         string  `json:"thesis"`
}

// MarketCapObs is a market-cap update of a mint.
type MarketCapObs struct {
	Mint      string  `json:"mint"`
	MarketCap float64 `json:"market_cap"`
}
