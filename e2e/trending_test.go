package e2e

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/alertd/alertd/protocol"
)

// TestTrending: categories, subscriptions and the stream (spec 3).
func TestTrending(t *testing.T) {
	forEachStore(t, func(t *testing.T, m storeMode) {
		s := startServer(t, serverOpts{dbURL: m.DatabaseURL(t), configure: streamsMain})
		subtests{
			{"TrendingCategories", testTrendingCategories},
			{"TrendingStream", testTrendingStream},
		}.run(t, s)
	})
}

// testTrendingCategories: the 24 slugs with subscription status,
// subscriptions replaced by PUT (unknown slugs ignored), status.
func testTrendingCategories(t *testing.T, s *server) {
	key := s.issue(t, map[string]any{"product": "trend"}).key
	check := func(want ...string) {
		t.Helper()
		d := s.call(t, "GET", "/v1/trending/categories", key, nil).wantOK(t, 200)
		d.wantKeys(t, "categories", "categories", "count")
		if d.num(t, "count") != 24 {
			t.Errorf("count %v, want 24", d["count"])
		}
		items := d.array(t, "categories")
		var slugs, on []string
		for _, raw := range items {
			c := decodeObj(t, raw, "category")
			c.wantKeys(t, "category", "slug", "subscribed")
			slugs = append(slugs, c.str(t, "slug"))
			if c.boolean(t, "subscribed") {
				on = append(on, c.str(t, "slug"))
			}
		}
		if fmt.Sprint(slugs) != fmt.Sprint(protocol.TrendingSlugs) {
			t.Errorf("slugs %v, want %v", slugs, protocol.TrendingSlugs)
		}
		for _, must := range []string{"crypto", "news", "sports", "music", "technology"} {
			if !contains(slugs, must) {
				t.Errorf("spec slug %q missing", must)
			}
		}
		if fmt.Sprint(on) != fmt.Sprint(nilIfEmptyS(want)) {
			t.Errorf("subscribed %v, want %v", on, want)
		}
		sub := s.call(t, "GET", "/v1/trending/subscriptions", key, nil).wantOK(t, 200)
		sub.wantKeys(t, "subscriptions", "categories")
		if got := sub.strings(t, "categories"); fmt.Sprint(nilIfEmptyS(got)) != fmt.Sprint(nilIfEmptyS(want)) {
			t.Errorf("subscriptions %v, want %v", got, want)
		}
		st := s.call(t, "GET", "/v1/trending/status", key, nil).wantOK(t, 200)
		st.wantKeys(t, "status", "subscription_status", "plan", "expires_at", "subscribed_categories", "total_categories")
		if st.str(t, "subscription_status") != "active" || st.num(t, "subscribed_categories") != float64(len(want)) ||
			st.num(t, "total_categories") != 24 || !st.isNull("expires_at") {
			t.Errorf("status %v", st)
		}
	}
	check()
	d := s.call(t, "PUT", "/v1/trending/subscriptions", key, `{"categories":["News","crypto","weather","crypto"," Sports "]}`).wantOK(t, 200)
	d.wantKeys(t, "put subscriptions", "categories", "ignored")
	if got := d.strings(t, "categories"); fmt.Sprint(got) != "[crypto news sports]" {
		t.Errorf("put answer categories %v", got)
	}
	if got := d.strings(t, "ignored"); fmt.Sprint(got) != "[weather]" {
		t.Errorf("put answer ignored %v", got)
	}
	check("crypto", "news", "sports")
	s.call(t, "PUT", "/v1/trending/subscriptions", key, map[string]any{"categories": []string{"anime", "AI"}}).wantOK(t, 200)
	check("ai", "anime")
	// Validation and parse failures leave the subscriptions alone.
	s.call(t, "PUT", "/v1/trending/subscriptions", key, `{}`).wantPlain(t, 422)
	s.call(t, "PUT", "/v1/trending/subscriptions", key, `{"categories":`).wantPlain(t, 400)
	for _, bad := range []string{`{"categories":"crypto"}`, `{"categories":null}`, `{"categories":[1,2]}`, `{"categories":{"a":1}}`} {
		s.call(t, "PUT", "/v1/trending/subscriptions", key, bad).wantErr(t, 400, "bad_request")
	}
	check("ai", "anime")
	s.call(t, "PUT", "/v1/trending/subscriptions", key, `{"categories":[]}`).wantOK(t, 200)
	check()
}

func nilIfEmptyS(a []string) []string {
	if len(a) == 0 {
		return nil
	}
	return a
}

// trendingObs is a `trending` observation with a unique post.
func trendingObs(cat string) (jsonMap, jsonMap) {
	id := newTweetID()
	tw := jsonMap{"tweet_id": id, "author_screen_name": "newsdesk", "author_display_name": "News Desk \u2728",
		"full_text": "markets are moving " + id, "created_at": "2026-11-21T08:00:00Z", "retweet_count": 1200,
		"like_count": 5400, "reply_count": 300, "quote_count": 80, "view_count": 910000, "media_count": 2,
		"tweet_url": "https://x.com/newsdesk/status/" + id}
	return jsonMap{"kind": "trending", "category": cat, "tweet": tw}, tw
}

// testTrendingStream: /v1/trending/ws streams every category (whatever the
// subscriptions), once per category and post, {type: trending_tweet, data:
// {category, tweet}} with the tweet as ingested.
func testTrendingStream(t *testing.T, s *server) {
	k1 := s.issue(t, map[string]any{"product": "trend"}).key
	k2 := s.issue(t, map[string]any{"product": "trend"}).key
	s.call(t, "PUT", "/v1/trending/subscriptions", k1, `{"categories":["music"]}`).wantOK(t, 200)
	w1, w2 := s.streamDial(t, "trending", k1), s.streamDial(t, "trending", k2)

	mine := map[string]bool{}
	obs := func(cat string) (jsonMap, jsonMap) {
		o, tw := trendingObs(cat)
		mine[tw["tweet_id"].(string)] = true
		return o, tw
	}
	crypto, cryptoTw := obs("crypto")
	sports, sportsTw := obs("Sports") // upstream spelling: normalized
	weather, _ := obs("weather")      // not one of the 24
	again, _ := trendingObs("crypto")
	again["tweet"] = cryptoTw // the same post observed again, counts climbing
	climbed := jsonMap{}
	for k, v := range cryptoTw {
		climbed[k] = v
	}
	climbed["like_count"] = 9999
	again["tweet"] = climbed
	inNews, _ := trendingObs("news")
	inNews["tweet"] = cryptoTw // the same post trending in another category
	anime, animeTw := obs("anime")
	s.send(t, crypto, sports, weather, again, inNews, anime)

	want := []struct {
		cat string
		tw  jsonMap
	}{{"crypto", cryptoTw}, {"sports", sportsTw}, {"news", cryptoTw}, {"anime", animeTw}}
	for _, w := range []*wsClient{w1, w2} {
		for i, x := range want {
			b := w.NextWhere(t, func(b []byte) bool {
				var f struct {
					Data struct {
						Tweet struct {
							ID string `json:"tweet_id"`
						} `json:"tweet"`
					} `json:"data"`
				}
				_ = json.Unmarshal(b, &f)
				return mine[f.Data.Tweet.ID]
			})
			d := streamFrame(t, b, "trending_tweet")
			d.wantKeys(t, "trending data", "category", "tweet")
			if got := d.str(t, "category"); got != x.cat {
				t.Errorf("frame %d category %q, want %q: %s", i, got, x.cat, b)
			}
			tw := d.object(t, "tweet")
			tw.wantKeys(t, "trending tweet", "tweet_id", "author_screen_name", "author_display_name", "full_text", "created_at",
				"retweet_count", "like_count", "reply_count", "quote_count", "view_count", "media_count", "tweet_url")
			wantJSON(t, fmt.Sprintf("frame %d tweet", i), d["tweet"], x.tw)
		}
	}
}
