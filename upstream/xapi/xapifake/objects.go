package xapifake

import json "github.com/goccy/go-json"

// The objects of the API v2 data dictionary
// (docs.x.com/x-api/fundamentals/data-dictionary) as the fake serves them.
// Field names and nesting follow the documentation; zero fields are left
// out, as the API leaves out fields that do not apply.

// User is the User object.
type User struct {
	ID               string          `json:"id"`
	Name             string          `json:"name"`
	Username         string          `json:"username"`
	CreatedAt        string          `json:"created_at,omitempty"`
	Description      string          `json:"description,omitempty"`
	ProfileImageURL  string          `json:"profile_image_url,omitempty"`
	ProfileBannerURL string          `json:"profile_banner_url,omitempty"`
	Location         string          `json:"location,omitempty"`
	URL              string          `json:"url,omitempty"`
	Entities         *UserEntities   `json:"entities,omitempty"`
	Protected        bool            `json:"protected"`
	Verified         bool            `json:"verified"`
	VerifiedType     string          `json:"verified_type,omitempty"` // blue, business, government, none
	PinnedTweetID    string          `json:"pinned_tweet_id,omitempty"`
	PublicMetrics    UserMetrics     `json:"public_metrics"`
	Affiliation      json.RawMessage `json:"affiliation,omitempty"`

	// FollowingIDs is the account's following list (served by
	// /2/users/:id/following); not part of the object.
	FollowingIDs []string `json:"-"`
}

// UserMetrics are the User object's public_metrics.
type UserMetrics struct {
	FollowersCount int64 `json:"followers_count"`
	FollowingCount int64 `json:"following_count"`
	TweetCount     int64 `json:"tweet_count"`
	ListedCount    int64 `json:"listed_count"`
	LikeCount      int64 `json:"like_count"`
}

// UserEntities expands the t.co link of the profile's url.
type UserEntities struct {
	URL struct {
		URLs []URLEntity `json:"urls"`
	} `json:"url"`
}

// Post is the Post object.
type Post struct {
	ID                  string       `json:"id"`
	Text                string       `json:"text"`
	EditHistoryTweetIDs []string     `json:"edit_history_tweet_ids"`
	CreatedAt           string       `json:"created_at,omitempty"` // RFC 3339 with milliseconds
	AuthorID            string       `json:"author_id,omitempty"`
	ConversationID      string       `json:"conversation_id,omitempty"`
	InReplyToUserID     string       `json:"in_reply_to_user_id,omitempty"`
	ReferencedTweets    []Referenced `json:"referenced_tweets,omitempty"`
	Attachments         *Attachments `json:"attachments,omitempty"`
	Entities            *Entities    `json:"entities,omitempty"`
	PublicMetrics       *PostMetrics `json:"public_metrics,omitempty"`
	PossiblySensitive   bool         `json:"possibly_sensitive"`
	Lang                string       `json:"lang,omitempty"`
	NoteTweet           *NoteTweet   `json:"note_tweet,omitempty"`
}

// Referenced names a replied-to, quoted or retweeted post.
type Referenced struct {
	Type string `json:"type"` // replied_to, quoted, retweeted
	ID   string `json:"id"`
}

// Attachments lists media keys.
type Attachments struct {
	MediaKeys []string `json:"media_keys,omitempty"`
}

// NoteTweet is the whole text of a long post.
type NoteTweet struct {
	Text     string    `json:"text"`
	Entities *Entities `json:"entities,omitempty"`
}

// Entities of a post's text; start and end are offsets into the text.
type Entities struct {
	Hashtags []TagEntity     `json:"hashtags,omitempty"`
	Cashtags []TagEntity     `json:"cashtags,omitempty"`
	Mentions []MentionEntity `json:"mentions,omitempty"`
	URLs     []URLEntity     `json:"urls,omitempty"`
}

// TagEntity is a hashtag or cashtag.
type TagEntity struct {
	Start int    `json:"start"`
	End   int    `json:"end"`
	Tag   string `json:"tag"`
}

// MentionEntity is an @mention.
type MentionEntity struct {
	Start    int    `json:"start"`
	End      int    `json:"end"`
	Username string `json:"username"`
	ID       string `json:"id,omitempty"`
}

// URLEntity is a t.co link with its expansion.
type URLEntity struct {
	Start       int    `json:"start"`
	End         int    `json:"end"`
	URL         string `json:"url"`
	ExpandedURL string `json:"expanded_url"`
	DisplayURL  string `json:"display_url"`
}

// PostMetrics are the Post object's public_metrics.
type PostMetrics struct {
	RetweetCount    int64 `json:"retweet_count"`
	ReplyCount      int64 `json:"reply_count"`
	LikeCount       int64 `json:"like_count"`
	QuoteCount      int64 `json:"quote_count"`
	BookmarkCount   int64 `json:"bookmark_count"`
	ImpressionCount int64 `json:"impression_count"`
}

// Media is the Media object.
type Media struct {
	MediaKey        string `json:"media_key"`
	Type            string `json:"type"` // photo, video, animated_gif
	URL             string `json:"url,omitempty"`
	PreviewImageURL string `json:"preview_image_url,omitempty"`
	Width           int    `json:"width,omitempty"`
	Height          int    `json:"height,omitempty"`
}

// Includes are the objects the expansions name.
type Includes struct {
	Users  []User  `json:"users,omitempty"`
	Tweets []Post  `json:"tweets,omitempty"`
	Media  []Media `json:"media,omitempty"`
}

// MatchingRule names a rule a streamed post matched.
type MatchingRule struct {
	ID  string `json:"id"`
	Tag string `json:"tag,omitempty"`
}

// StreamLine is one line of the filtered stream.
type StreamLine struct {
	Data          *Post          `json:"data,omitempty"`
	Includes      *Includes      `json:"includes,omitempty"`
	MatchingRules []MatchingRule `json:"matching_rules,omitempty"`
	Errors        []Problem      `json:"errors,omitempty"`
}

// Rule is a filtered-stream rule.
type Rule struct {
	ID    string `json:"id"`
	Value string `json:"value"`
	Tag   string `json:"tag,omitempty"`
}

// Problem is an RFC 7807 problem as the API writes it.
type Problem struct {
	Title          string `json:"title"`
	Detail         string `json:"detail,omitempty"`
	Type           string `json:"type"`
	Status         int    `json:"status,omitempty"`
	Value          string `json:"value,omitempty"`
	ID             string `json:"id,omitempty"`
	ResourceType   string `json:"resource_type,omitempty"`
	ResourceID     string `json:"resource_id,omitempty"`
	Parameter      string `json:"parameter,omitempty"`
	DisconnectType string `json:"disconnect_type,omitempty"`
}
