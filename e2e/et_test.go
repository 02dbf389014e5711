package e2e

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestET runs the Engagement Tracker suite against one server per store.
func TestET(t *testing.T) {
	forEachStore(t, func(t *testing.T, m storeMode) {
		s := startServer(t, serverOpts{dbURL: m.DatabaseURL(t), configure: watchConfig})
		subtests{
			{"ETTargets", testETTargets},
			{"ETUpdates", testETUpdates},
		}.run(t, s)
	})
}

func testETTargets(t *testing.T, s *server) {
	k := s.watchIssue(t, "et", nil) // 25 posts
	l := s.call(t, "GET", "/v1/et/targets", k.key, nil).wantOK(t, 200)
	l.wantKeys(t, "et targets", "tweet_ids", "targets", "count", "max_tweets")
	if len(l.strings(t, "tweet_ids")) != 0 || l.num(t, "max_tweets") != 25 {
		t.Errorf("empty et targets %v", l)
	}
	id1, id2, id3 := watchTweetID(), watchTweetID(), watchTweetID()
	d := s.call(t, "POST", "/v1/et/targets", k.key, map[string]any{"tweet_ids": []string{id1, id2, id1}}).wantOK(t, 201)
	d.wantKeys(t, "et add", "added", "already_tracked", "count", "max_tweets")
	if !slices.Equal(d.strings(t, "added"), []string{id1, id2}) || len(d.strings(t, "already_tracked")) != 0 || d.num(t, "count") != 2 {
		t.Errorf("first add %v", d)
	}
	d = s.call(t, "POST", "/v1/et/targets", k.key, map[string]any{"tweet_ids": []string{id2, id3}}).wantOK(t, 201)
	if !slices.Equal(d.strings(t, "added"), []string{id3}) || !slices.Equal(d.strings(t, "already_tracked"), []string{id2}) || d.num(t, "count") != 3 {
		t.Errorf("second add %v", d)
	}
	s.call(t, "POST", "/v1/et/targets", k.key, map[string]any{}).wantPlain(t, 422)
	for _, bad := range []any{"123", []string{}, []string{"abc"}, []any{123}, nil, []string{"1", "x"}, []string{strings.Repeat("9", 21)}} {
		s.call(t, "POST", "/v1/et/targets", k.key, map[string]any{"tweet_ids": bad}).wantErr(t, 400, "bad_request")
	}
	many := func(n int) []string {
		var out []string
		for range n {
			out = append(out, watchTweetID())
		}
		return out
	}
	s.call(t, "POST", "/v1/et/targets", k.key, map[string]any{"tweet_ids": many(23)}).wantErr(t, 403, "forbidden")
	if l := s.call(t, "GET", "/v1/et/targets", k.key, nil).wantOK(t, 200); l.num(t, "count") != 3 {
		t.Fatalf("a refused add changed the list: %v", l)
	}
	s.call(t, "POST", "/v1/et/targets", k.key, map[string]any{"tweet_ids": many(22)}).wantOK(t, 201)
	s.call(t, "POST", "/v1/et/targets", k.key, map[string]any{"tweet_ids": many(1)}).wantErr(t, 403, "forbidden")
	s.patch(t, k.account, "et", map[string]any{"max_tweets": 50}).wantOK(t, 200)
	if d := s.call(t, "POST", "/v1/et/targets", k.key, map[string]any{"tweet_ids": many(25)}).wantOK(t, 201); d.num(t, "count") != 50 || d.num(t, "max_tweets") != 50 {
		t.Errorf("on the 50 plan %v", d)
	}
	s.call(t, "DELETE", "/v1/et/targets/"+watchTweetID(), k.key, nil).wantErr(t, 404, "not_found")
	rm := s.call(t, "DELETE", "/v1/et/targets/"+id1, k.key, nil).wantOK(t, 200)
	rm.wantKeys(t, "et removed", "removed", "count", "max_tweets")
	if rm.str(t, "removed") != id1 || rm.num(t, "count") != 49 {
		t.Errorf("removed %v", rm)
	}
	s.call(t, "GET", "/v1/et/engagement/"+id1, k.key, nil).wantErr(t, 404, "not_found")
	e := s.call(t, "GET", "/v1/et/engagement/"+id2, k.key, nil).wantOK(t, 200)
	e.wantKeys(t, "engagement", "tweet_id", "favorite_count", "retweet_count", "reply_count", "quote_count", "bookmark_count", "last_updated")
	if e.str(t, "tweet_id") != id2 || e.num(t, "favorite_count") != 0 || !e.isNull("last_updated") {
		t.Errorf("engagement before any observation %v", e)
	}
	st := s.call(t, "GET", "/v1/et/status", k.key, nil).wantOK(t, 200)
	st.wantKeys(t, "et status", "tweets_tracked", "tweet_limit", "webhook_configured")
	if st.num(t, "tweets_tracked") != 49 || st.num(t, "tweet_limit") != 50 || st.boolean(t, "webhook_configured") {
		t.Errorf("et status %v", st)
	}
}

func testETUpdates(t *testing.T, s *server) {
	k := s.watchIssue(t, "et", nil)
	id, other := watchTweetID(), watchTweetID()
	s.call(t, "POST", "/v1/et/targets", k.key, map[string]any{"tweet_ids": []string{id}}).wantOK(t, 201)
	hook := watchNewHook(t, 500) // a single attempt, whatever the answer
	secret := s.watchPutWebhook(t, "et", k.key, hook)
	w := s.watchDial(t, "et", k.key)
	s.call(t, "POST", "/v1/et/targets", k.key, map[string]any{"tweet_ids": []string{other}}).wantOK(t, 201)

	s.send(t, watchEngagement(id, 5, 1, 0, 0, 0)) // the baseline
	var e obj
	s.afterSync(t, "the baseline counts", func() (bool, string) {
		e = s.call(t, "GET", "/v1/et/engagement/"+id, k.key, nil).wantOK(t, 200)
		return !e.isNull("last_updated"), fmt.Sprint(e)
	})
	if e.num(t, "favorite_count") != 5 || e.num(t, "retweet_count") != 1 {
		t.Errorf("baseline %v", e)
	}
	base := watchISO(t, e, "last_updated")
	s.send(t, watchEngagement(id, 5, 1, 0, 0, 0))    // unchanged: nothing
	s.send(t, watchEngagement(other, 1, 1, 1, 1, 1)) // not on this socket's list
	s.send(t, watchEngagement(other, 2, 1, 1, 1, 1)) // a change, still not on it
	s.send(t, watchEngagement(id, 6, 1, 2, 0, 3))    // a change
	b := w.Next(t)
	want := `{"type":"engagement_update","data":{"tweet_id":"` + id + `","old":{"favorite_count":5,"retweet_count":1,"reply_count":0,"quote_count":0,"bookmark_count":0},"new":{"favorite_count":6,"retweet_count":1,"reply_count":2,"quote_count":0,"bookmark_count":3}}}`
	if string(b) != want {
		t.Errorf("frame\n%s\nwant\n%s", b, want)
	}
	got := hook.wait(t, 2) // other's change and id's change
	var mine watchDelivery
	for _, x := range got {
		if strings.Contains(string(x.body), `"tweet_id":"`+id+`"`) {
			mine = x
		}
		if x.header.Get("X-Webhook-Secret") != secret {
			t.Errorf("X-Webhook-Secret %q, want the stored secret", x.header.Get("X-Webhook-Secret"))
		}
		if x.header.Get("X-Signature") != "" {
			t.Errorf("an et delivery is signed: %v", x.header)
		}
	}
	wantBody := `{"type":"engagement_update","tweet_id":"` + id + `","old":{"favorite_count":5,"retweet_count":1,"reply_count":0,"quote_count":0,"bookmark_count":0},"new":{"favorite_count":6,"retweet_count":1,"reply_count":2,"quote_count":0,"bookmark_count":3}}`
	if string(mine.body) != wantBody {
		t.Errorf("webhook body\n%s\nwant\n%s", mine.body, wantBody)
	}
	e = s.call(t, "GET", "/v1/et/engagement/"+id, k.key, nil).wantOK(t, 200)
	if e.num(t, "favorite_count") != 6 || e.num(t, "bookmark_count") != 3 || !watchISO(t, e, "last_updated").After(base) {
		t.Errorf("engagement after the change %v (last_updated must move past %v)", e, base)
	}
	s.webhooksDone(t, "et")
	if n := len(hook.all()); n != 2 {
		t.Errorf("%d deliveries after two 500s, want 2 (et makes one attempt)", n)
	}
	w2 := s.watchDial(t, "et", k.key) // reconnected: both posts
	s.send(t, watchEngagement(other, 3, 1, 1, 1, 1))
	if d := watchNextFrame(t, w2, "engagement_update"); d.str(t, "tweet_id") != other {
		t.Errorf("reconnected socket frame %v", d)
	}
}
