// Package tweetalerts is the domain of the Tweet Alerts consumer API (spec 1):
// tracked lists with their per-handle chat preferences, notification
// settings and webhooks (Registry), the post tap that queues webhook
// deliveries (Dispatcher), and the web-dashboard session (Sessions, Telegram
// login checks). The alert record and the WebSocket frames are in protocol
// (tweetalerts_ws.go); the WebSocket session is in actors/session.
package tweetalerts

import (
	"github.com/alertd/alertd/protocol"
	json "github.com/goccy/go-json"
)

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

// WebhookBody encodes the delivery body of a `tweet` webhook of alert a
// (spec 1 "Webhook delivery body"); timestamp is epoch ms.
func WebhookBody(a *protocol.TweetAlert, timestamp int64) []byte {
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
