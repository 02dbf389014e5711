package protocol

import (
	"errors"
	"strings"
	"unicode/utf8"

	json "github.com/goccy/go-json"
)

// The Tweet Alerts WebSocket GET /v1/ws (spec 1): the alert record, the
// client frames and the server frames.

// TweetAlert is one post as Tweet Alerts delivers it: the "Tweet alert" of
// spec 1, which the WebSocket sends as is, webhooks wrap in their delivery
// body (with `author` for `handle` and no `received_at`), and the feed lists.
type TweetAlert struct {
	TweetID           string   `json:"tweet_id"`
	Handle            string   `json:"handle"`
	Text              string   `json:"text"`
	URL               string   `json:"url"`
	ImageURL          *string  `json:"image_url"`
	ImageURLs         []string `json:"image_urls"`
	IsReply           bool     `json:"is_reply"`
	IsQuote           bool     `json:"is_quote"`
	ReceivedAt        int64    `json:"received_at"`
	CreatedAt         int64    `json:"created_at"`
	OriginalTweetID   *string  `json:"original_tweet_id"`
	PossiblySensitive bool     `json:"possibly_sensitive"`
	Mentions          []string `json:"mentions"`
}

// NewTweetAlert builds the alert of post t, first detected at receivedAt
// (epoch ms).
func NewTweetAlert(t *Tweet, receivedAt int64) TweetAlert {
	a := TweetAlert{
		TweetID:           t.ID,
		Handle:            HandleSpelling(t.Author.Handle), // the platform's spelling; subscriptions match the key
		Text:              t.Text,
		URL:               PostURL(t.Author.Handle, t.ID),
		ImageURLs:         make([]string, 0, len(t.Media)),
		IsReply:           t.Type == PostTypeReply,
		IsQuote:           t.Type == PostTypeQuote,
		ReceivedAt:        receivedAt,
		CreatedAt:         t.CreatedAt,
		PossiblySensitive: t.PossiblySensitive,
		Mentions:          t.Mentions,
	}
	for _, m := range t.Media {
		if m.URL != "" {
			a.ImageURLs = append(a.ImageURLs, m.URL)
		}
	}
	if len(a.ImageURLs) > 0 {
		u := a.ImageURLs[0]
		a.ImageURL = &u
	}
	if a.Mentions == nil {
		a.Mentions = []string{}
	}
	a.OriginalTweetID = originalTweetID(t)
	return a
}

// originalTweetID is the post a reply answers, or the post a quote or
// repost carries; nil for an original post.
func originalTweetID(t *Tweet) *string {
	var id string
	switch t.Type {
	case PostTypeReply:
		if t.InReplyTo != nil {
			id = t.InReplyTo.TweetID
		} else if t.QuotedTweet != nil {
			id = t.QuotedTweet.ID
		}
	case PostTypeQuote, PostTypeRepost:
		if t.QuotedTweet != nil {
			id = t.QuotedTweet.ID
		}
	}
	if id == "" {
		return nil
	}
	return &id
}

// PostURL is the public address of a post.
func PostURL(handle, id string) string {
	return "https://x.com/" + strings.TrimPrefix(strings.TrimSpace(handle), "@") + "/status/" + id
}

// Client frame types of the Tweet Alerts WebSocket.
const (
	TweetAlertsSubscribe   = "subscribe"
	TweetAlertsUnsubscribe = "unsubscribe"
	TweetAlertsPing        = "ping"
)

// TweetAlertsRequest is one decoded client frame.
type TweetAlertsRequest struct {
	Type string
	// Handles of a subscribe or unsubscribe, normalized (lowercase, no @),
	// deduplicated, in the order sent.
	Handles []string
	// Invalid are the entries that are not handles (not strings, or not 1 to
	// 50 letters, digits or underscores), as sent.
	Invalid []string
}

// MaxTweetAlertsFrameHandles bounds the handles one client frame may name:
// the largest plan's list (Ultra, 1,000).
const MaxTweetAlertsFrameHandles = 1000

// MaxTweetAlertsFrameBytes is the read limit of /v1/ws: the largest valid
// client frame, a subscribe naming MaxTweetAlertsFrameHandles handles of 50
// characters written "@Handle" and indented as JSON.stringify(v, null, 4)
// writes it, is about 61 KB; 64 KiB fits it with a little slack and no
// more, since a frame is held whole in memory before it is decoded.
const MaxTweetAlertsFrameBytes = 64 << 10

// Decode errors of client frames; their text goes to the client in an
// `error` frame.
var (
	ErrTweetAlertsJSON     = errors.New("frame is not a JSON object")
	ErrTweetAlertsType     = errors.New("unknown or missing type: send subscribe, unsubscribe or ping")
	ErrTweetAlertsHandles  = errors.New("handles must be a non-empty array of handles")
	ErrTweetAlertsTooLarge = errors.New("too many handles in one frame")
)

// DecodeTweetAlertsRequest decodes one client frame.
func DecodeTweetAlertsRequest(payload []byte) (TweetAlertsRequest, error) {
	var raw struct {
		Type    *string           `json:"type"`
		Handles []json.RawMessage `json:"handles"`
	}
	if !utf8.Valid(payload) || json.Unmarshal(payload, &raw) != nil {
		return TweetAlertsRequest{}, ErrTweetAlertsJSON
	}
	if raw.Type == nil {
		return TweetAlertsRequest{}, ErrTweetAlertsType
	}
	r := TweetAlertsRequest{Type: *raw.Type}
	switch r.Type {
	case TweetAlertsPing:
		return r, nil
	case TweetAlertsSubscribe, TweetAlertsUnsubscribe:
	default:
		return TweetAlertsRequest{}, ErrTweetAlertsType
	}
	if len(raw.Handles) == 0 {
		return TweetAlertsRequest{}, ErrTweetAlertsHandles
	}
	if len(raw.Handles) > MaxTweetAlertsFrameHandles {
		return TweetAlertsRequest{}, ErrTweetAlertsTooLarge
	}
	seen := make(map[string]bool, len(raw.Handles))
	for _, m := range raw.Handles {
		var s string
		if json.Unmarshal(m, &s) != nil {
			r.Invalid = append(r.Invalid, string(m))
			continue
		}
		h := NormalizeHandle(s)
		if !ValidHandle(h) {
			r.Invalid = append(r.Invalid, s)
			continue
		}
		if !seen[h] {
			seen[h] = true
			r.Handles = append(r.Handles, h)
		}
	}
	return r, nil
}

// TweetAlertsPong answers a client ping.
var TweetAlertsPong = []byte(`{"type":"pong"}`)

type tweetAlertsAck struct {
	Type    string   `json:"type"`
	Action  string   `json:"action"`
	Handles []string `json:"handles"`
	Active  int      `json:"active"`
	Max     int      `json:"max"`
}

// TweetAlertsAckFrame encodes an `ack`.
func TweetAlertsAckFrame(action string, handles []string, active, max int) []byte {
	if handles == nil {
		handles = []string{}
	}
	b, _ := json.Marshal(tweetAlertsAck{Type: "ack", Action: action, Handles: handles, Active: active, Max: max})
	return b
}

type tweetAlertsError struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

// TweetAlertsErrorFrame encodes an `error` frame.
func TweetAlertsErrorFrame(msg string) []byte {
	b, _ := json.Marshal(tweetAlertsError{Type: "error", Message: msg})
	return b
}

// tweetAlertFrame is the `alert` frame: the alert's fields beside `type`.
type tweetAlertFrame struct {
	Type string `json:"type"`
	*TweetAlert
}

// TweetAlertFrame encodes the `alert` frame of a.
func TweetAlertFrame(a *TweetAlert) []byte {
	b, err := json.Marshal(tweetAlertFrame{Type: "alert", TweetAlert: a})
	if err != nil { // plain strings, numbers and slices: cannot fail
		panic("encode alert: " + err.Error())
	}
	return b
}
