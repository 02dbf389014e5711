package xapi

import json "github.com/goccy/go-json"

// The shapes below are the subset of the API v2 data dictionary
// (docs.x.com/x-api/fundamentals/data-dictionary) that the connector reads:
// the Post, User and Media objects, the expansions envelope and the Problem
// object. Fields the tweet payload of spec 2 does not need are left out, so
// the decoder skips them without allocating.

// streamLine is one line of GET /2/tweets/search/stream: a Post with the
// objects its expansions name, or a list of problems (an operational
// disconnect is announced this way before the server closes the stream).
type streamLine struct {
	Data          *apiTweet      `json:"data"`
	Includes      apiIncludes    `json:"includes"`
	MatchingRules []matchingRule `json:"matching_rules"`
	Errors        []apiProblem   `json:"errors"`
}

type matchingRule struct {
	ID  string `json:"id"`
	Tag string `json:"tag"`
}

// apiIncludes holds the objects named by the request's expansions.
type apiIncludes struct {
	Users  []apiUser  `json:"users"`
	Tweets []apiTweet `json:"tweets"`
	Media  []apiMedia `json:"media"`
}

// apiTweet is the Post object.
type apiTweet struct {
	ID                string           `json:"id"`
	Text              string           `json:"text"`
	CreatedAt         string           `json:"created_at"` // RFC 3339, e.g. 2021-01-06T18:40:40.000Z
	AuthorID          string           `json:"author_id"`
	ConversationID    string           `json:"conversation_id"`
	InReplyToUserID   string           `json:"in_reply_to_user_id"`
	ReferencedTweets  []referenced     `json:"referenced_tweets"`
	Attachments       apiAttachments   `json:"attachments"`
	Entities          apiEntities      `json:"entities"`
	PublicMetrics     *apiTweetMetrics `json:"public_metrics"`
	PossiblySensitive bool             `json:"possibly_sensitive"`
	// NoteTweet carries the full text of a post longer than 280 characters;
	// Text is then truncated.
	NoteTweet *apiNoteTweet `json:"note_tweet"`
}

// Referenced post types.
const (
	refRepliedTo = "replied_to"
	refQuoted    = "quoted"
	refRetweeted = "retweeted"
)

type referenced struct {
	Type string `json:"type"`
	ID   string `json:"id"`
}

type apiAttachments struct {
	MediaKeys []string `json:"media_keys"`
}

type apiNoteTweet struct {
	Text     string      `json:"text"`
	Entities apiEntities `json:"entities"`
}

type apiEntities struct {
	Hashtags []apiTag     `json:"hashtags"`
	Cashtags []apiTag     `json:"cashtags"`
	Mentions []apiMention `json:"mentions"`
	URLs     []apiURL     `json:"urls"`
}

type apiTag struct {
	Start int    `json:"start"`
	End   int    `json:"end"`
	Tag   string `json:"tag"`
}

type apiMention struct {
	Start    int    `json:"start"`
	End      int    `json:"end"`
	Username string `json:"username"`
	ID       string `json:"id"`
}

type apiURL struct {
	Start       int    `json:"start"`
	End         int    `json:"end"`
	URL         string `json:"url"`
	ExpandedURL string `json:"expanded_url"`
	DisplayURL  string `json:"display_url"`
}

type apiTweetMetrics struct {
	RetweetCount    int64  `json:"retweet_count"`
	ReplyCount      int64  `json:"reply_count"`
	LikeCount       int64  `json:"like_count"`
	QuoteCount      int64  `json:"quote_count"`
	BookmarkCount   int64  `json:"bookmark_count"`
	ImpressionCount *int64 `json:"impression_count"`
}

// apiUser is the User object.
type apiUser struct {
	ID               string          `json:"id"`
	Name             string          `json:"name"`
	Username         string          `json:"username"`
	Description      string          `json:"description"`
	ProfileImageURL  string          `json:"profile_image_url"`
	ProfileBannerURL string          `json:"profile_banner_url"`
	Location         string          `json:"location"`
	URL              string          `json:"url"`
	Verified         bool            `json:"verified"`
	VerifiedType     string          `json:"verified_type"` // blue, business, government or none
	Protected        bool            `json:"protected"`
	PinnedTweetID    string          `json:"pinned_tweet_id"`
	PublicMetrics    apiUserMetrics  `json:"public_metrics"`
	Affiliation      json.RawMessage `json:"affiliation"`
	Entities         apiUserEntities `json:"entities"`
}

type apiUserMetrics struct {
	FollowersCount int64 `json:"followers_count"`
	FollowingCount int64 `json:"following_count"`
	TweetCount     int64 `json:"tweet_count"`
	ListedCount    int64 `json:"listed_count"`
}

// apiUserEntities expands the profile's t.co links (url and description).
type apiUserEntities struct {
	URL struct {
		URLs []apiURL `json:"urls"`
	} `json:"url"`
}

// apiMedia is the Media object; photos carry url, videos and GIFs a
// preview_image_url.
type apiMedia struct {
	MediaKey        string `json:"media_key"`
	Type            string `json:"type"`
	URL             string `json:"url"`
	PreviewImageURL string `json:"preview_image_url"`
}

// apiProblem is an RFC 7807 problem as the API returns it, in `errors`
// arrays (partial errors) or as a whole error response.
type apiProblem struct {
	Title          string `json:"title"`
	Detail         string `json:"detail"`
	Type           string `json:"type"`
	Status         int    `json:"status"`
	Value          string `json:"value"`
	ResourceType   string `json:"resource_type"`
	Parameter      string `json:"parameter"`
	ID             string `json:"id"` // a duplicate rule's id
	DisconnectType string `json:"disconnect_type"`
}

// Problem types the connector acts on, matched on the end of the type URI
// (the documentation shows both api.twitter.com and api.x.com hosts).
const (
	problemNotFound              = "/2/problems/resource-not-found"
	problemOperationalDisconnect = "/2/problems/operational-disconnect"
)

// usersResponse answers GET /2/users/by and GET /2/users/:id/following.
type usersResponse struct {
	Data   []apiUser    `json:"data"`
	Errors []apiProblem `json:"errors"`
	Meta   struct {
		ResultCount int    `json:"result_count"`
		NextToken   string `json:"next_token"`
	} `json:"meta"`
}

// apiRule is one filtered-stream rule.
type apiRule struct {
	ID    string `json:"id,omitempty"`
	Value string `json:"value"`
	Tag   string `json:"tag,omitempty"`
}

// rulesResponse answers GET and POST /2/tweets/search/stream/rules.
type rulesResponse struct {
	Data   []apiRule    `json:"data"`
	Errors []apiProblem `json:"errors"`
	Meta   struct {
		Sent        string `json:"sent"`
		ResultCount int    `json:"result_count"`
		NextToken   string `json:"next_token"`
		Summary     struct {
			Created    int `json:"created"`
			NotCreated int `json:"not_created"`
			Deleted    int `json:"deleted"`
			NotDeleted int `json:"not_deleted"`
			Valid      int `json:"valid"`
			Invalid    int `json:"invalid"`
		} `json:"summary"`
	} `json:"meta"`
}

// rulesRequest is the body of POST /2/tweets/search/stream/rules: either add
// or delete.
type rulesRequest struct {
	Add    []apiRule    `json:"add,omitempty"`
	Delete *ruleDeletes `json:"delete,omitempty"`
}

type ruleDeletes struct {
	IDs []string `json:"ids"`
}
