package protocol

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
)

func testTweet(id, handle, typ, text string) *Tweet {
	return &Tweet{ID: id, CreatedAt: 1_700_000_000_000, Type: typ, Text: text, Author: TweetAuthor{ID: "1", Handle: handle}}
}

func TestTweetAlertFrameFields(t *testing.T) {
	a := NewTweetAlert(testTweet("100", "Whale_Alert", PostTypePost, "gm $SOL"), 1_700_000_000_250)
	var m map[string]json.RawMessage
	if err := json.Unmarshal(TweetAlertFrame(&a), &m); err != nil {
		t.Fatal(err)
	}
	k := slices.Sorted(maps.Keys(m))
	want := []string{"created_at", "handle", "image_url", "image_urls", "is_quote", "is_reply", "mentions",
		"original_tweet_id", "possibly_sensitive", "received_at", "text", "tweet_id", "type", "url"}
	if !slices.Equal(k, want) {
		t.Fatalf("alert frame members %v, want %v", k, want)
	}
	for name, v := range map[string]string{
		"type": `"alert"`, "tweet_id": `"100"`, "handle": `"Whale_Alert"`, "text": `"gm $SOL"`,
		"url": `"https://x.com/Whale_Alert/status/100"`, "image_url": `null`, "image_urls": `[]`,
		"is_reply": `false`, "is_quote": `false`, "received_at": `1700000000250`, "created_at": `1700000000000`,
		"original_tweet_id": `null`, "possibly_sensitive": `false`, "mentions": `[]`,
	} {
		if string(m[name]) != v {
			t.Errorf("%s = %s, want %s", name, m[name], v)
		}
	}
}

func TestTweetAlertKinds(t *testing.T) {
	reply := testTweet("2", "a", PostTypeReply, "x")
	reply.InReplyTo = &InReplyTo{TweetID: "1", User: "b"}
	replyQuoted := testTweet("3", "a", PostTypeReply, "x")
	replyQuoted.QuotedTweet = &QuotedTweet{ID: "9"}
	quote := testTweet("4", "a", PostTypeQuote, "x")
	quote.QuotedTweet = &QuotedTweet{ID: "8"}
	repost := testTweet("5", "a", PostTypeRepost, "x")
	repost.QuotedTweet = &QuotedTweet{ID: "7"}
	media := testTweet("6", "a", PostTypePost, "x")
	media.Media = []Media{{Type: "photo", URL: "https://img/1"}, {Type: "photo", URL: ""}, {Type: "photo", URL: "https://img/2"}}
	media.Mentions = []string{"bob"}
	media.PossiblySensitive = true
	for _, c := range []struct {
		t              *Tweet
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
		a := NewTweetAlert(c.t, 0)
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
	if !NewTweetAlert(media, 0).PossiblySensitive {
		t.Errorf("possibly_sensitive lost")
	}
}

func TestDecodeTweetAlertsRequest(t *testing.T) {
	for _, c := range []struct {
		in      string
		typ     string
		handles string
		invalid string
		err     error
	}{
		{`{"type":"ping"}`, "ping", "[]", "[]", nil},
		{`{"type":"subscribe","handles":["Whale","@degen","whale"]}`, "subscribe", "[whale degen]", "[]", nil},
		{`{"type":"unsubscribe","handles":["a",5,"bad handle!"]}`, "unsubscribe", "[a]", "[5 bad handle!]", nil},
		{`{"type":"subscribe","handles":[]}`, "", "[]", "[]", ErrTweetAlertsHandles},
		{`{"type":"subscribe"}`, "", "[]", "[]", ErrTweetAlertsHandles},
		{`{"type":"subscribe","handles":"whale"}`, "", "[]", "[]", ErrTweetAlertsJSON},
		{`{"type":"hello"}`, "", "[]", "[]", ErrTweetAlertsType},
		{`{"handles":["a"]}`, "", "[]", "[]", ErrTweetAlertsType},
		{`{"type":7}`, "", "[]", "[]", ErrTweetAlertsJSON},
		{`[1]`, "", "[]", "[]", ErrTweetAlertsJSON},
		{`ping`, "", "[]", "[]", ErrTweetAlertsJSON},
		{"{\"type\":\"ping\",\"x\":\"\xff\"}", "", "[]", "[]", ErrTweetAlertsJSON},
	} {
		r, err := DecodeTweetAlertsRequest([]byte(c.in))
		if err != c.err {
			t.Errorf("%s: err %v, want %v", c.in, err, c.err)
			continue
		}
		if r.Type != c.typ || fmt.Sprint(nonNil(r.Handles)) != c.handles || fmt.Sprint(nonNil(r.Invalid)) != c.invalid {
			t.Errorf("%s: %+v", c.in, r)
		}
	}
	many := `{"type":"subscribe","handles":[` + strings.Repeat(`"a",`, MaxTweetAlertsFrameHandles) + `"a"]}`
	if _, err := DecodeTweetAlertsRequest([]byte(many)); err != ErrTweetAlertsTooLarge {
		t.Errorf("too many handles: %v", err)
	}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func TestTweetAlertsServerFrames(t *testing.T) {
	if got := TweetAlertsAckFrame(TweetAlertsSubscribe, nil, 0, 5); string(got) != `{"type":"ack","action":"subscribe","handles":[],"active":0,"max":5}` {
		t.Errorf("ack %s", got)
	}
	if got := TweetAlertsErrorFrame(`"x" <y>`); string(got) != `{"type":"error","message":"\"x\" \u003cy\u003e"}` {
		t.Errorf("error %s", got)
	}
}

// TestTweetAlertsFrameLimitFitsWholePlan: the largest valid subscribe (the
// Ultra list of 50-character handles, "@"-prefixed, 4-space indented) fits
// MaxTweetAlertsFrameBytes and decodes whole; the limit is not more than
// 10% above it.
func TestTweetAlertsFrameLimitFitsWholePlan(t *testing.T) {
	var hs []string
	for i := range MaxTweetAlertsFrameHandles {
		hs = append(hs, fmt.Sprintf("@H%049d", i))
	}
	b, err := json.MarshalIndent(map[string]any{"type": TweetAlertsUnsubscribe, "handles": hs}, "", "    ")
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > MaxTweetAlertsFrameBytes || float64(MaxTweetAlertsFrameBytes) > 1.1*float64(len(b)) {
		t.Fatalf("largest valid frame %d bytes, limit %d", len(b), MaxTweetAlertsFrameBytes)
	}
	r, err := DecodeTweetAlertsRequest(b)
	if err != nil || len(r.Handles) != MaxTweetAlertsFrameHandles || len(r.Invalid) != 0 {
		t.Fatalf("decode: %v, %d handles, invalid %v", err, len(r.Handles), r.Invalid)
	}
}
