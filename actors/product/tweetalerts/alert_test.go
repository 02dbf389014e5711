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

func TestWebhookBody(t *testing.T) {
	tw := tweet("100", "Whale", protocol.PostTypeQuote, "hi")
	tw.QuotedTweet = &protocol.QuotedTweet{ID: "50"}
	a := protocol.NewTweetAlert(tw, 1)
	m, k := keysOf(t, WebhookBody(&a, 1234))
	if fmt.Sprint(k) != "[data event timestamp]" || string(m["event"]) != `"tweet"` || string(m["timestamp"]) != "1234" {
		t.Fatalf("body %v", m)
	}
	d, dk := keysOf(t, m["data"])
	want := []string{"author", "created_at", "image_url", "image_urls", "is_quote", "is_reply", "mentions",
		"original_tweet_id", "possibly_sensitive", "text", "tweet_id", "url"}
	if !slices.Equal(dk, want) {
		t.Fatalf("data members %v, want %v", dk, want)
	}
	if string(d["author"]) != `"Whale"` /* the platform's spelling */ || string(d["original_tweet_id"]) != `"50"` || string(d["is_quote"]) != "true" {
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
