package protocol

import json "github.com/goccy/go-json"

// Tweet is the tweet payload `data` of spec 2 "Events", which is also the body
// of a `post` observation (CONTRACT.md section 3). Field order and names are
// the wire contract.
type Tweet struct {
	ID                string        `json:"id"`
	CreatedAt         int64         `json:"created_at"`
	Type              string        `json:"type"`
	Text              string        `json:"text"`
	Cashtags          []string      `json:"cashtags"`
	Media             []Media       `json:"media"`
	Mentions          []string      `json:"mentions"`
	Author            TweetAuthor   `json:"author"`
	InReplyTo         *InReplyTo    `json:"in_reply_to"`
	QuotedTweet       *QuotedTweet  `json:"quoted_tweet"`
	PossiblySensitive bool          `json:"possibly_sensitive"`
	ConversationID    string        `json:"conversation_id"`
	Entities          TweetEntities `json:"entities"`
	Metrics           TweetMetrics  `json:"metrics"`
	OCRText           *string       `json:"ocr_text,omitempty"`
}

// Post types of the tweet payload.
const (
	PostTypePost   = "post"
	PostTypeReply  = "reply"
	PostTypeQuote  = "quote"
	PostTypeRepost = "repost"
)

// MediaPhoto is the only media `type` on the wire.
const MediaPhoto = "photo"

// Media is one picture of a post; `type` is always photo on the wire.
type Media struct {
	Type string `json:"type"`
	URL  string `json:"url"`
}

// TweetAuthor is the author block of the tweet payload.
type TweetAuthor struct {
	ID           string          `json:"id"`
	Handle       string          `json:"handle"`
	Name         string          `json:"name"`
	Avatar       string          `json:"avatar"`
	Description  string          `json:"description"`
	Verification Verification    `json:"verification"`
	Affiliation  json.RawMessage `json:"affiliation"`
	Stats        AuthorStats     `json:"stats"`
}

// Verification of an author; Type is blue, business, government or null.
type Verification struct {
	IsVerified bool    `json:"is_verified"`
	Type       *string `json:"type"`
}

// AuthorStats are follower counts.
type AuthorStats struct {
	Followers int64 `json:"followers"`
	Following int64 `json:"following"`
}

// InReplyTo names the parent of a reply.
type InReplyTo struct {
	TweetID string `json:"tweet_id"`
	User    string `json:"user"`
}

// QuotedTweet is the quoted post (or a reply's parent).
type QuotedTweet struct {
	ID     string       `json:"id"`
	Text   string       `json:"text"`
	Author QuotedAuthor `json:"author"`
	Media  []Media      `json:"media,omitempty"`
}

// QuotedAuthor is the short author of a quoted post; Name may be null in an update.
type QuotedAuthor struct {
	Handle string  `json:"handle"`
	Name   *string `json:"name"`
	Avatar string  `json:"avatar"`
}

// TweetEntities of the payload; hashtags and urls are passed through as sent.
type TweetEntities struct {
	Hashtags json.RawMessage `json:"hashtags"`
	URLs     json.RawMessage `json:"urls"`
	Symbols  []Symbol        `json:"symbols"`
}

// Symbol is a cashtag entity.
type Symbol struct {
	Text    string `json:"text"`
	Indices []int  `json:"indices"`
}

// TweetMetrics may each be null; views is a string.
type TweetMetrics struct {
	Likes    *int64  `json:"likes"`
	Retweets *int64  `json:"retweets"`
	Replies  *int64  `json:"replies"`
	Quotes   *int64  `json:"quotes"`
	Views    *string `json:"views"`
}
