package xapi

import (
	"errors"
	"strings"
	"testing"

	"github.com/alertd/alertd/protocol"
	"github.com/alertd/alertd/upstream/xapi/xapifake"
	json "github.com/goccy/go-json"
)

// decodeTweet maps a stream line and reads it back as ingest would.
func decodeTweet(t *testing.T, line []byte) *protocol.Tweet {
	t.Helper()
	obs, created, err := DecodePost(line)
	if err != nil {
		t.Fatalf("DecodePost: %v\n%s", err, line)
	}
	o, err := protocol.DecodeObservation(obs, 1)
	if err != nil {
		t.Fatalf("ingest rejects %s: %v", obs, err)
	}
	if o.Post.CreatedAt != created {
		t.Fatalf("created %d vs payload %d", created, o.Post.CreatedAt)
	}
	return o.Post
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestPostEveryField(t *testing.T) {
	f := xapifake.New(xapifake.Options{})
	seed(f)
	tw := decodeTweet(t, f.Line(original()))
	checks := []struct{ name, got, want string }{
		{"id", tw.ID, "1860000000000000001"},
		{"created_at", jsonOf(tw.CreatedAt), "1795248000123"},
		{"type", tw.Type, "post"},
		{"text", tw.Text, original().Text},
		{"cashtags", jsonOf(tw.Cashtags), `["WIF2"]`},
		{"media", jsonOf(tw.Media), `[{"type":"photo","url":"https://pbs.twimg.com/media/a.jpg"},{"type":"photo","url":"https://pbs.twimg.com/ext_tw_video_thumb/2/pu/img/b.jpg"}]`},
		{"mentions", jsonOf(tw.Mentions), `["chartqueen"]`},
		{"author", jsonOf(tw.Author), `{"id":"744628103955443712","handle":"SolWhale","name":"Sol Whale","avatar":"https://pbs.twimg.com/profile_images/1/whale_normal.jpg",` +
			`"description":"on-chain since 2017","verification":{"is_verified":true,"type":"blue"},` +
			`"affiliation":{"description":"Solana Labs","url":"https://x.com/solanalabs","badge_url":"https://pbs.twimg.com/b.jpg","user_id":["1"]},` +
			`"stats":{"followers":48210,"following":311}}`},
		{"in_reply_to", jsonOf(tw.InReplyTo), "null"},
		{"quoted_tweet", jsonOf(tw.QuotedTweet), "null"},
		{"possibly_sensitive", jsonOf(tw.PossiblySensitive), "true"},
		{"conversation_id", tw.ConversationID, "1860000000000000001"},
		{"entities", jsonOf(tw.Entities), `{"hashtags":[{"text":"memes","indices":[66,72]}],` +
			`"urls":[{"url":"https://t.co/xyz","expanded_url":"https://pump.fun/coin/7xKX","display_url":"pump.fun/coin/7xKX","indices":[85,101]}],` +
			`"symbols":[{"text":"WIF2","indices":[11,16]}]}`},
		{"metrics", jsonOf(tw.Metrics), `{"likes":3,"retweets":1,"replies":2,"quotes":4,"views":"60"}`},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, c.got, c.want)
		}
	}
}

func TestReplyQuoteRepostTyped(t *testing.T) {
	f := xapifake.New(xapifake.Options{})
	seed(f)
	parentQuoted := `{"id":"1859999999999999000","text":"charts look good $SOL #solana","author":{"handle":"degenmike","name":"Degen Mike",` +
		`"avatar":"https://pbs.twimg.com/profile_images/2/mike_normal.jpg"},"media":[{"type":"photo","url":"https://pbs.twimg.com/ext_tw_video_thumb/2/pu/img/b.jpg"}]}`

	reply := original()
	reply.ID, reply.Text, reply.Entities, reply.Attachments = "1860000000000000002", "@degenmike agreed", &xapifake.Entities{
		Mentions: []xapifake.MentionEntity{{Start: 0, End: 10, Username: "degenmike", ID: mike.ID}}}, nil
	reply.InReplyToUserID, reply.ConversationID = mike.ID, parent.ID
	reply.ReferencedTweets = []xapifake.Referenced{{Type: "replied_to", ID: parent.ID}}
	tw := decodeTweet(t, f.Line(reply))
	if tw.Type != "reply" || jsonOf(tw.InReplyTo) != `{"tweet_id":"1859999999999999000","user":"degenmike"}` ||
		jsonOf(tw.QuotedTweet) != parentQuoted || tw.ConversationID != parent.ID || jsonOf(tw.Mentions) != `["degenmike"]` {
		t.Errorf("reply: type %s in_reply_to %s quoted %s conv %s", tw.Type, jsonOf(tw.InReplyTo), jsonOf(tw.QuotedTweet), tw.ConversationID)
	}

	quote := original()
	quote.ID, quote.Text, quote.Entities, quote.Attachments = "1860000000000000003", "this", nil, nil
	quote.ReferencedTweets = []xapifake.Referenced{{Type: "quoted", ID: parent.ID}}
	tw = decodeTweet(t, f.Line(quote))
	if tw.Type != "quote" || tw.InReplyTo != nil || jsonOf(tw.QuotedTweet) != parentQuoted || string(tw.Entities.Hashtags) != "[]" {
		t.Errorf("quote: type %s in_reply_to %v quoted %s", tw.Type, tw.InReplyTo, jsonOf(tw.QuotedTweet))
	}

	// A repost carries the original's whole text after "RT @author: ", its
	// entities shifted by that prefix, its media, and the original as quoted_tweet.
	repost := original()
	repost.ID, repost.Text, repost.Attachments = "1860000000000000004", "RT @degenmike: charts look good $SOL #sol…", nil
	repost.Entities = &xapifake.Entities{Mentions: []xapifake.MentionEntity{{Start: 3, End: 13, Username: "degenmike", ID: mike.ID}}}
	repost.ReferencedTweets = []xapifake.Referenced{{Type: "retweeted", ID: parent.ID}}
	tw = decodeTweet(t, f.Line(repost))
	const prefix = "RT @degenmike: "
	if tw.Type != "repost" || tw.Text != prefix+parent.Text || jsonOf(tw.Cashtags) != `["SOL"]` ||
		jsonOf(tw.Entities.Symbols) != `[{"text":"SOL","indices":[32,36]}]` || string(tw.Entities.Hashtags) != `[{"text":"solana","indices":[37,44]}]` ||
		jsonOf(tw.Mentions) != `["degenmike"]` || jsonOf(tw.QuotedTweet) != parentQuoted || len(tw.Media) != 1 {
		t.Errorf("repost: %s", jsonOf(tw))
	}
	if got := tw.Text[32:36]; got != "$SOL" {
		t.Errorf("shifted cashtag points at %q", got)
	}
}

func TestQuoteWithoutIncludesShipsWithoutContext(t *testing.T) {
	f := xapifake.New(xapifake.Options{})
	seed(f)
	q := original()
	q.ReferencedTweets = []xapifake.Referenced{{Type: "quoted", ID: "1700000000000000000"}} // not in includes (deleted, protected)
	tw := decodeTweet(t, f.Line(q))
	if tw.Type != "quote" || tw.QuotedTweet == nil || tw.QuotedTweet.ID != "1700000000000000000" || tw.QuotedTweet.Text != "" {
		t.Fatalf("quote %s", jsonOf(tw.QuotedTweet))
	}
}

func TestLongPostUsesNoteTweet(t *testing.T) {
	f := xapifake.New(xapifake.Options{})
	seed(f)
	p := original()
	long := strings.Repeat("gm ", 100) + "$BONK"
	p.Text = long[:277] + "…"
	p.NoteTweet = &xapifake.NoteTweet{Text: long, Entities: &xapifake.Entities{Cashtags: []xapifake.TagEntity{{Start: 300, End: 305, Tag: "BONK"}}}}
	tw := decodeTweet(t, f.Line(p))
	if tw.Text != long || jsonOf(tw.Cashtags) != `["BONK"]` {
		t.Fatalf("text %q cashtags %v", tw.Text, tw.Cashtags)
	}
}

func TestMissingMetricsAreNull(t *testing.T) {
	f := xapifake.New(xapifake.Options{})
	seed(f)
	p := original()
	p.PublicMetrics = nil
	tw := decodeTweet(t, f.Line(p))
	if jsonOf(tw.Metrics) != `{"likes":null,"retweets":null,"replies":null,"quotes":null,"views":null}` {
		t.Fatalf("metrics %s", jsonOf(tw.Metrics))
	}
	if v := verification(&apiUser{VerifiedType: "none"}); v.IsVerified || v.Type != nil {
		t.Fatalf("none verification %+v", v)
	}
}

func TestNonPostLines(t *testing.T) {
	for _, l := range []string{"", "\r\n", `{"errors":[{"title":"operational-disconnect","disconnect_type":"UpstreamOperationalDisconnect","detail":"This stream has been disconnected upstream for operational reasons.","type":"https://api.twitter.com/2/problems/operational-disconnect"}]}`} {
		if _, _, err := DecodePost([]byte(l)); !errors.Is(err, ErrNoPost) {
			t.Errorf("%q: %v", l, err)
		}
	}
	for _, l := range []string{"{", "garbage", `{"data":{"id":"x"}}`, `{"data":{"id":"1","created_at":"2026-11-21T08:00:00Z","author_id":"9"}}`,
		`{"data":{"id":"1","created_at":"yesterday","author_id":"9"},"includes":{"users":[{"id":"9","username":"a"}]}}`} {
		if _, _, err := DecodePost([]byte(l)); err == nil || errors.Is(err, ErrNoPost) {
			t.Errorf("%q: %v", l, err)
		}
	}
}
