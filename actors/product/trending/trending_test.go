package trending

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/alertd/alertd/internal/testkit"
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
	b, err := EncodeFrame(o)
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

// fakeSink collects frames.
type fakeSink struct {
	mu     sync.Mutex
	frames []string
}

func (f *fakeSink) Send(b []byte) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.frames = append(f.frames, string(b))
	return true
}

func (f *fakeSink) snapshot() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.frames)
}

// waitFrames polls until the sink holds n frames.
func waitFrames(t *testing.T, f *fakeSink, n int) []string {
	t.Helper()
	var got []string
	testkit.WaitFor(t, 5*time.Second, fmt.Sprintf("%d frames", n), func() (bool, string) {
		got = f.snapshot()
		return len(got) >= n, fmt.Sprint(got)
	})
	return got
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
	system := quietSystem()
	s := New(system, slog.New(slog.NewTextHandler(io.Discard, nil)))
	defer s.Stop()
	a, b := &fakeSink{}, &fakeSink{}
	s.Subscribe(a)
	s.Subscribe(b)
	s.Observe(obs("crypto", "1"))
	s.Observe(obs("weather", "2")) // not a category: dropped
	s.Observe(obs("crypto", "1"))  // seen: dropped
	s.Observe(obs("news", "1"))    // same post, another category: sent
	s.Observe(&protocol.Observation{Kind: protocol.KindTrending})
	got := waitFrames(t, a, 2)
	waitFrames(t, b, 2)
	var keys []string
	for _, f := range got {
		keys = append(keys, frameKey(t, f))
	}
	if fmt.Sprint(keys) != "[crypto/1 news/1]" {
		t.Fatalf("frames %v, want [crypto/1 news/1]", keys)
	}
	s.Unsubscribe(b)
	s.Observe(obs("sports", "3"))
	got = waitFrames(t, a, 3)
	if k := frameKey(t, got[2]); k != "sports/3" {
		t.Fatalf("third frame %s", k)
	}
	if n := len(b.snapshot()); n != 2 {
		t.Fatalf("unsubscribed sink got %d frames, want 2", n)
	}
	if n := len(got); n != 3 {
		t.Fatalf("sink got %d frames, want 3", n)
	}
}
