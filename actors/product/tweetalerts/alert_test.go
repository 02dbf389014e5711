package tweetalerts

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"testing"

	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
)

func tweet(id, handle, typ, text string) *protocol.Tweet {
	return &protocol.Tweet{ID: id, CreatedAt: 1_700_000_000_000, Type: typ, Text: text,
		Author: protocol.TweetAuthor{ID: "1", Handle: handle}}
}

func keysOf(t *testing.T, b []byte) (map[string]json.RawMessage, []string) {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("not JSON: %s", b)
	}
	var k []string
	for n := range m {
		k = append(k, n)
	}
	sort.Strings(k)
	return m, k
}

func TestAlertFrameFields(t *testing.T) {
	tw := tweet("100", "Whale_Alert", protocol.PostTypePost, "gm $SOL")
	a := AlertFrom(tw, 1_700_000_000_250)
	m, k := keysOf(t, a.Frame())
	want := []string{"created_at", "handle", "image_url", "image_urls", "is_quote", "is_reply", "mentions",
		"original_tweet_id", "possibly_sensitive", "received_at", "text", "tweet_id", "type", "url"}
	if !slices.Equal(k, want) {
		t.Fatalf("alert frame members %v, want %v", k, want)
	}
	for name, v := range map[string]string{
		"type": `"alert"`, "tweet_id": `"100"`, "handle": `"whale_alert"`, "text": `"gm $SOL"`,
		"url": `"https://x.com/Whale_Alert/status/100"`, "image_url": `null`, "image_urls": `[]`,
		"is_reply": `false`, "is_quote": `false`, "received_at": `1700000000250`, "created_at": `1700000000000`,
		"original_tweet_id": `null`, "possibly_sensitive": `false`, "mentions": `[]`,
	} {
		if string(m[name]) != v {
			t.Errorf("%s = %s, want %s", name, m[name], v)
		}
	}
}

func TestAlertKinds(t *testing.T) {
	reply := tweet("2", "a", protocol.PostTypeReply, "x")
	reply.InReplyTo = &protocol.InReplyTo{TweetID: "1", User: "b"}
	replyQuoted := tweet("3", "a", protocol.PostTypeReply, "x")
	replyQuoted.QuotedTweet = &protocol.QuotedTweet{ID: "9"}
	quote := tweet("4", "a", protocol.PostTypeQuote, "x")
	quote.QuotedTweet = &protocol.QuotedTweet{ID: "8"}
	repost := tweet("5", "a", protocol.PostTypeRepost, "x")
	repost.QuotedTweet = &protocol.QuotedTweet{ID: "7"}
	media := tweet("6", "a", protocol.PostTypePost, "x")
	media.Media = []protocol.Media{{Type: "photo", URL: "https://img/1"}, {Type: "photo", URL: ""}, {Type: "photo", URL: "https://img/2"}}
	media.Mentions = []string{"bob"}
	media.PossiblySensitive = true
	for _, c := range []struct {
		t              *protocol.Tweet
		reply, quote   bool
		original       string
		image          string
		images, mentio int
	}{
		{reply, true, false, "1", "", 0, 0},
		{replyQuoted, true, false, "9", "", 0, 0},
		{quote, false, true, "8", "", 0, 0},
		{repost, false, false, "7", "", 0, 0},
		{media, false, false, "", "https://img/1", 2, 1},
	} {
		a := AlertFrom(c.t, 0)
		orig := ""
		if a.OriginalTweetID != nil {
			orig = *a.OriginalTweetID
		}
		img := ""
		if a.ImageURL != nil {
			img = *a.ImageURL
		}
		if a.IsReply != c.reply || a.IsQuote != c.quote || orig != c.original || img != c.image ||
			len(a.ImageURLs) != c.images || len(a.Mentions) != c.mentio {
			t.Errorf("post %s: %+v", c.t.ID, a)
		}
	}
	if !AlertFrom(media, 0).PossiblySensitive {
		t.Errorf("possibly_sensitive lost")
	}
}

func TestWebhookBody(t *testing.T) {
	tw := tweet("100", "Whale", protocol.PostTypeQuote, "hi")
	tw.QuotedTweet = &protocol.QuotedTweet{ID: "50"}
	a := AlertFrom(tw, 1)
	m, k := keysOf(t, a.WebhookBody(1234))
	if fmt.Sprint(k) != "[data event timestamp]" || string(m["event"]) != `"tweet"` || string(m["timestamp"]) != "1234" {
		t.Fatalf("body %v", m)
	}
	d, dk := keysOf(t, m["data"])
	want := []string{"author", "created_at", "image_url", "image_urls", "is_quote", "is_reply", "mentions",
		"original_tweet_id", "possibly_sensitive", "text", "tweet_id", "url"}
	if !slices.Equal(dk, want) {
		t.Fatalf("data members %v, want %v", dk, want)
	}
	if string(d["author"]) != `"whale"` || string(d["original_tweet_id"]) != `"50"` || string(d["is_quote"]) != "true" {
		t.Errorf("data %v", d)
	}
}

func TestMatchesWebhook(t *testing.T) {
	for _, c := range []struct {
		handles, keywords []string
		handle, text      string
		want              bool
	}{
		{nil, nil, "whale", "anything", true},
		{[]string{"whale"}, nil, "whale", "x", true},
		{[]string{"whale"}, nil, "other", "x", false},
		{nil, []string{"SOL"}, "whale", "buying sol now", true},
		{nil, []string{"sol"}, "whale", "Buying SOLANA", true}, // substring, any case
		{nil, []string{"eth", "btc"}, "whale", "no coins", false},
		{nil, []string{"eth", "btc"}, "whale", "BTC up", true},
		{[]string{"whale"}, []string{"btc"}, "whale", "eth up", false},
		{[]string{"whale", "degen"}, []string{"btc"}, "degen", "btc!", true},
		{nil, []string{"  "}, "whale", "x", true}, // blank keywords filter nothing
	} {
		w := &persistence.Webhook{FilterHandles: c.handles, FilterKeywords: c.keywords}
		if got := MatchesWebhook(w, c.handle, c.text); got != c.want {
			t.Errorf("handles %v keywords %v, post of %s %q: %v, want %v", c.handles, c.keywords, c.handle, c.text, got, c.want)
		}
	}
}
