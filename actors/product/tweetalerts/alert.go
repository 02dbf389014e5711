// Package tweetalerts is the domain of the Tweet Alerts consumer API (spec 1):
// tracked lists with their per-handle chat preferences, notification
// settings and webhooks (Registry), the `alert` stream of the Tweet Alerts
// WebSocket (Stream), the post tap that feeds both the stream and the
// webhook engine (Dispatcher), and the web-dashboard session (Sessions,
// Telegram login checks).
package tweetalerts

import (
	"strings"

	"github.com/alertd/alertd/protocol"
	json "github.com/goccy/go-json"
)

// Alert is one post as Tweet Alerts delivers it: the "Tweet alert" of
// spec 1, which the WebSocket sends as is, webhooks wrap in their delivery
// body (with `author` for `handle` and no `received_at`), and the feed
// lists.
type Alert struct {
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

// AlertFrom builds the alert of post t, first detected at receivedAt (epoch ms).
func AlertFrom(t *protocol.Tweet, receivedAt int64) Alert {
	a := Alert{
		TweetID:           t.ID,
		Handle:            protocol.NormalizeHandle(t.Author.Handle),
		Text:              t.Text,
		URL:               PostURL(t.Author.Handle, t.ID),
		ImageURLs:         make([]string, 0, len(t.Media)),
		IsReply:           t.Type == protocol.PostTypeReply,
		IsQuote:           t.Type == protocol.PostTypeQuote,
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
	a.OriginalTweetID = originalID(t)
	return a
}

// originalID is the post a reply answers, or the post a quote or repost
// carries; nil for an original post.
func originalID(t *protocol.Tweet) *string {
	var id string
	switch t.Type {
	case protocol.PostTypeReply:
		if t.InReplyTo != nil {
			id = t.InReplyTo.TweetID
		} else if t.QuotedTweet != nil {
			id = t.QuotedTweet.ID
		}
	case protocol.PostTypeQuote, protocol.PostTypeRepost:
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

// wsAlert is the WebSocket `alert` frame: the alert's fields beside `type`.
type wsAlert struct {
	Type string `json:"type"`
	*Alert
}

// Frame encodes the WebSocket `alert` frame.
func (a *Alert) Frame() []byte {
	b, err := json.Marshal(wsAlert{Type: "alert", Alert: a})
	if err != nil { // plain strings, numbers and slices: cannot fail
		panic("encode alert: " + err.Error())
	}
	return b
}

// webhookData is the `data` of a webhook delivery body.
type webhookData struct {
	TweetID           string   `json:"tweet_id"`
	Author            string   `json:"author"`
	Text              string   `json:"text"`
	URL               string   `json:"url"`
	ImageURL          *string  `json:"image_url"`
	ImageURLs         []string `json:"image_urls"`
	IsReply           bool     `json:"is_reply"`
	IsQuote           bool     `json:"is_quote"`
	CreatedAt         int64    `json:"created_at"`
	OriginalTweetID   *string  `json:"original_tweet_id"`
	PossiblySensitive bool     `json:"possibly_sensitive"`
	Mentions          []string `json:"mentions"`
}

type webhookBody struct {
	Event     string      `json:"event"`
	Timestamp int64       `json:"timestamp"`
	Data      webhookData `json:"data"`
}

// WebhookBody encodes the delivery body of a `tweet` webhook (spec 1
// "Webhook delivery body"); timestamp is epoch ms.
func (a *Alert) WebhookBody(timestamp int64) []byte {
	b, err := json.Marshal(webhookBody{Event: "tweet", Timestamp: timestamp, Data: webhookData{
		TweetID: a.TweetID, Author: a.Handle, Text: a.Text, URL: a.URL, ImageURL: a.ImageURL,
		ImageURLs: a.ImageURLs, IsReply: a.IsReply, IsQuote: a.IsQuote, CreatedAt: a.CreatedAt,
		OriginalTweetID: a.OriginalTweetID, PossiblySensitive: a.PossiblySensitive, Mentions: a.Mentions,
	}})
	if err != nil {
		panic("encode webhook body: " + err.Error())
	}
	return b
}
