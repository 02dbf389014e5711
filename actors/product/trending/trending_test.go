package trending

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"testing"

	"github.com/alertd/alertd/actors/delivery"
	"github.com/alertd/alertd/actors/delivery/deliverytest"
	"github.com/alertd/alertd/protocol"
	"github.com/alertd/alertd/upstream/sim"
)

func TestSlugsMatchSimulator(t *testing.T) {
	if !slices.Equal(protocol.TrendingSlugs, sim.TrendingCategories) {
		t.Fatalf("protocol.TrendingSlugs %v\n differ from sim.TrendingCategories %v", protocol.TrendingSlugs, sim.TrendingCategories)
	}
}

func TestNormalize(t *testing.T) {
	for _, c := range []struct {
		in   []string
		want string
	}{
		{nil, "[]"},
		{[]string{}, "[]"},
		{[]string{"news", "crypto"}, "[crypto news]"},
		{[]string{"Crypto", " NEWS ", "crypto"}, "[crypto news]"},
		{[]string{"weather", "sports", ""}, "[sports]"},
		{[]string{"Technology", "ai", "anime"}, "[technology ai anime]"},
	} {
		got := Normalize(c.in)
		if got == nil || fmt.Sprint(got) != c.want {
			t.Errorf("Normalize(%q) = %v, want %s", c.in, got, c.want)
		}
	}
}

func TestEncodeFrame(t *testing.T) {
	o := &protocol.TrendingObs{Category: "crypto", Tweet: protocol.TrendingTweet{TweetID: "1", AuthorScreenName: "a",
		AuthorDisplayName: "A", FullText: "gm", CreatedAt: "2026-11-21T08:00:00Z", RetweetCount: 2, LikeCount: 3,
		ReplyCount: 4, QuoteCount: 5, ViewCount: 6, MediaCount: 1, TweetURL: "https://x.com/a/status/1"}}
	b, err := encodeFrame(o)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"trending_tweet","data":{"category":"crypto","tweet":{"tweet_id":"1","author_screen_name":"a",` +
		`"author_display_name":"A","full_text":"gm","created_at":"2026-11-21T08:00:00Z","retweet_count":2,"like_count":3,` +
		`"reply_count":4,"quote_count":5,"view_count":6,"media_count":1,"tweet_url":"https://x.com/a/status/1"}}}`
	if string(b) != want {
		t.Fatalf("frame\n got %s\nwant %s", b, want)
	}
}

func TestRecentSet(t *testing.T) {
	r := newRecentSet(3)
	steps := []struct {
		key  string
		want bool
	}{{"a", true}, {"b", true}, {"a", false}, {"c", true}, {"d", true}, {"a", true}, {"c", false}, {"b", true}}
	for i, s := range steps {
		if got := r.Add(s.key); got != s.want {
			t.Fatalf("step %d: Add(%q) = %v, want %v", i, s.key, got, s.want)
		}
	}
	if len(r.m) != 3 {
		t.Fatalf("set holds %d keys, want 3", len(r.m))
	}
}

func obs(cat, id string) *protocol.Observation {
	return &protocol.Observation{Kind: protocol.KindTrending, Trending: &protocol.TrendingObs{Category: cat,
		Tweet: protocol.TrendingTweet{TweetID: id}}}
}

func frameKey(t *testing.T, f string) string {
	t.Helper()
	var v struct {
		Type string `json:"type"`
		Data struct {
			Category string `json:"category"`
			Tweet    struct {
				TweetID string `json:"tweet_id"`
			} `json:"tweet"`
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(f), &v); err != nil || v.Type != FrameType {
		t.Fatalf("frame %s: %v", f, err)
	}
	return v.Data.Category + "/" + v.Data.Tweet.TweetID
}

func TestStream(t *testing.T) {
	hub := delivery.NewHub()
	s, err := New(t.Context(), quietKit(t), hub, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	topic := delivery.ProductTopic(protocol.ProductTrending)
	a, b := deliverytest.Subscribe(t, hub, topic), deliverytest.Subscribe(t, hub, topic)
	s.Observe(obs("crypto", "1"))
	s.Observe(obs("weather", "2")) // not a category: dropped
	s.Observe(obs("crypto", "1"))  // seen: dropped
	s.Observe(obs("news", "1"))    // same post, another category: sent
	s.Observe(&protocol.Observation{Kind: protocol.KindTrending})
	got := a.WaitFrames(t, 2)
	b.Wait(t, 2)
	var keys []string
	for _, f := range got {
		keys = append(keys, frameKey(t, f))
	}
	if fmt.Sprint(keys) != "[crypto/1 news/1]" {
		t.Fatalf("frames %v, want [crypto/1 news/1]", keys)
	}
	hub.Unsubscribe(topic, b)
	s.Observe(obs("sports", "3"))
	got = a.WaitFrames(t, 3) // the actor has published frame 3: b would have it by now
	if k := frameKey(t, got[2]); k != "sports/3" {
		t.Fatalf("third frame %s", k)
	}
	if n := len(b.Events()); n != 2 {
		t.Fatalf("unsubscribed socket got %d frames, want 2", n)
	}
	if n := len(got); n != 3 {
		t.Fatalf("socket got %d frames, want 3", n)
	}
}
