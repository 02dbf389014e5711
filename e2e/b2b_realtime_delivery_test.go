package e2e

// Delivery rules end to end (spec 2 "Delivery rules"): the real-time cut,
// late delivery, the replays after READY, target changes while connected,
// the tweet-only sockets, and nothing left behind by closed sessions.

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/alertd/alertd/internal/testkit"
)

func testRTLateDelivery(t *testing.T, s *server) {
	h := newHandle("rt_late")
	late := s.newDT(t, "enterprise", jsonMap{"late_delivery": true}, h)
	def := s.newDT(t, "enterprise", nil, h)
	wl, ready := s.rtLogin(t, late.key)
	wantModules(t, ready, "realtime", "follows", "profile_watch", "followers", "late_delivery")
	wd, _ := s.rtLogin(t, def.key)

	old := postObs(h, "post", "five minutes old")
	old["created_at"] = time.Now().Add(-5 * time.Minute).UnixMilli()
	tooOld := postObs(h, "post", "two days old")
	tooOld["created_at"] = time.Now().Add(-48 * time.Hour).UnixMilli()
	recent := postObs(h, "post", "twenty seconds old")
	recent["created_at"] = time.Now().Add(-20 * time.Second).UnixMilli()
	before := time.Now().UnixMilli()
	s.send(t, old, tooOld, recent)
	after := time.Now().UnixMilli()

	// Late delivery: the 5-minute-old post, delayed, with delay_ms; the
	// 2-day-old one is past 24 hours: dropped; the fresh one as usual.
	e := wl.nextEvent(t)
	wantPostEvent(t, e, "social.post.new", old, true, "delayed", "delay_ms")
	if !e.d.boolean(t, "delayed") {
		t.Errorf("delayed is not true: %s", e)
	}
	created := old["created_at"].(int64)
	if dm := int64(e.d.num(t, "delay_ms")); dm < before-created || dm > after-created+1000 {
		t.Errorf("delay_ms %d, want detection time minus created_at (%d..%d)", dm, before-created, after-created)
	}
	wantPostEvent(t, wl.nextEvent(t), "social.post.new", recent, true)
	// The default stream: posts older than 30 s are dropped.
	wantPostEvent(t, wd.nextEvent(t), "social.post.new", recent, true)
	if got := s.drain(t, wd); len(got) != 0 {
		t.Errorf("default stream got %v after the live post", got)
	}
	if got := s.drain(t, wl); len(got) != 0 {
		t.Errorf("late stream got %v more", got)
	}
}

// testRTPostReplay: right after READY a late_delivery session gets the
// posts of the replay window for its handles, replayed, core fields only,
// with the live event ids, newest 500; other sessions get no post replay.
func testRTPostReplay(t *testing.T, s *server) {
	h1, h2 := newHandle("rt_rep"), newHandle("rt_rep")
	watcher := s.newDT(t, "pro", nil, h1, h2)
	wref, _ := s.rtLogin(t, watcher.key)
	p := []jsonMap{postObs(h1, "reply", "r @parent_user"), postObs(h1, "quote", "q $SOL"), postObs(h2, "post", "p")}
	p[1]["cashtags"] = []string{"SOL"}
	p[1]["ocr_text"] = "CA " + solanaCA
	// A late post (5 minutes old) is not live, but late-delivery sessions
	// get it in the replay too; it goes first, so the live posts after it
	// show it was handled.
	old := postObs(h1, "post", "late one")
	old["created_at"] = time.Now().Add(-5 * time.Minute).UnixMilli()
	s.send(t, append([]any{old}, toAny(p)...)...)
	live := map[string]event{"evt_" + old["id"].(string): {}}
	for _, e := range wref.events(t, 3) {
		live[e.id] = e
	}
	p = append(p, old)

	lateKey := s.newDT(t, "pro", jsonMap{"late_delivery": true}, h1, h2)
	w, _ := s.rtLogin(t, lateKey.key)
	got := w.events(t, 4)
	for _, e := range got {
		e.d.wantKeys(t, "replayed d", "event", "event_id", "task_info", "data", "replayed")
		if !e.d.boolean(t, "replayed") || e.name != "social.post.new" {
			t.Errorf("replayed event %s", e)
		}
		if _, ok := live[e.id]; !ok {
			t.Errorf("replayed event id %q is not a live id %v", e.id, slices.Collect(maps.Keys(live)))
		}
		data := e.data(t)
		data.wantKeys(t, "replayed data (core fields)", "id", "created_at", "type", "text", "cashtags", "media",
			"mentions", "author", "in_reply_to", "possibly_sensitive")
		var orig jsonMap
		for _, x := range p {
			if "evt_"+x["id"].(string) == e.id {
				orig = x
			}
		}
		want := jsonMap{}
		for _, k := range data.keys() {
			want[k] = orig[k]
		}
		if !sameJSON(t, e.d["data"], want) {
			t.Errorf("replayed data %s, want the core fields of %v", e.d["data"], want)
		}
	}
	if extra := s.drain(t, w); len(extra) != 0 {
		t.Errorf("more after the replay: %v", extra)
	}
	// No post replay without late delivery.
	w2, _ := s.rtLogin(t, watcher.key)
	if extra := s.drain(t, w2); len(extra) != 0 {
		t.Errorf("a session without late_delivery got a replay: %v", extra)
	}

	// Newest 500 over all handles: 300 older posts of h1, then 300 of h2.
	var batch1, batch2 []any
	ids2 := map[string]bool{}
	for i := 0; i < 300; i++ {
		batch1 = append(batch1, postObs(h1, "post", "bulk one"))
		q := postObs(h2, "post", "bulk two")
		ids2["evt_"+q["id"].(string)] = true
		batch2 = append(batch2, q)
	}
	s.send(t, batch1...)
	wref.events(t, 300)
	time.Sleep(5 * time.Millisecond) // a later detection time for the second batch
	s.send(t, batch2...)
	wref.events(t, 300)
	wb, _ := s.rtLogin(t, lateKey.key)
	many := wb.events(t, 500)
	if extra := s.drain(t, wb); len(extra) != 0 {
		t.Errorf("replay of more than 500 posts: %d more", len(extra))
	}
	n2 := 0
	for _, e := range many {
		if ids2[e.id] {
			n2++
		}
	}
	if n2 != 300 || len(many) != 500 {
		t.Errorf("the 500 replayed posts hold %d of the 300 newest, want all", n2)
	}
}

// testRTFollowReplay: after every READY a follows session gets the follow
// and unfollow events of the replay window, as they were sent live.
func testRTFollowReplay(t *testing.T, s *server) {
	h := newHandle("rt_frep")
	ent := s.newDT(t, "enterprise", nil, h)
	wref, _ := s.rtLogin(t, ent.key)
	a, b := followUser(newUserID(), "ra_"+testkit.RandomHex(3)), followUser(newUserID(), "rb_"+testkit.RandomHex(3))
	s.send(t, followingObs(h, a), followingObs(h, b))
	live := map[string]string{}
	for _, e := range wref.events(t, 2) {
		live[eventKey(t, e)] = string(e.raw)
	}
	for i := 0; i < 2; i++ { // on every LOGIN
		w, _ := s.rtLogin(t, ent.key)
		got := w.events(t, 2)
		for _, e := range got {
			if live[eventKey(t, e)] != string(e.raw) {
				t.Errorf("replayed %s, want one of the live frames %v", e, live)
			}
		}
		if extra := s.drain(t, w); len(extra) != 0 {
			t.Errorf("more after the follow replay: %v", extra)
		}
	}
	// No replay without the follows module.
	pro := s.newDT(t, "pro", nil, h)
	w, _ := s.rtLogin(t, pro.key)
	if extra := s.drain(t, w); len(extra) != 0 {
		t.Errorf("pro session got %v", extra)
	}
}

// testRTTargetChanges: adding and removing targets while connected changes
// what the realtime and tweet-only sockets receive.
func testRTTargetChanges(t *testing.T, s *server) {
	h1, h2 := newHandle("rt_tgt"), newHandle("rt_tgt")
	ref := s.newDT(t, "pro", nil, h1, h2)
	wref, _ := s.rtLogin(t, ref.key)
	a := s.newDT(t, "pro", nil, h1)
	w, ready := s.rtLogin(t, a.key)
	if ready.num(t, "handles") != 1 {
		t.Errorf("READY handles %v, want 1", ready.num(t, "handles"))
	}
	tw := tweetDial(t, s, "/v1/dt/ws", a.key)

	s.addTarget(t, a.key, h2)
	stream := postObs(h2, "post", "now watched")
	s.send(t, stream)
	wantPostEvent(t, w.nextEvent(t), "social.post.new", stream, false)
	wantTweetFrame(t, tw.Next(t), stream)
	wref.events(t, 1)

	s.removeTarget(t, a.key, h1)
	p1 := postObs(h1, "post", "no longer watched")
	streamb := postObs(h2, "post", "still watched")
	s.send(t, p1, streamb)
	wref.events(t, 2)
	got := w.events(t, 1)
	got = append(got, s.drain(t, w)...)
	if len(got) != 1 || got[0].id != "evt_"+streamb["id"].(string) {
		t.Errorf("after removing %s: got %v, want only the post of %s", h1, got, h2)
	}
	wantTweetFrame(t, tw.Next(t), streamb)
	// Re-adding brings it back.
	s.addTarget(t, a.key, h1)
	p1b := postObs(h1, "post", "watched again")
	s.send(t, p1b)
	wantPostEvent(t, w.nextEvent(t), "social.post.new", p1b, false)
}

// wantTweetFrame asserts {"event_type":"tweet","data":<tweet payload>}.
func wantTweetFrame(t *testing.T, b []byte, p jsonMap) {
	t.Helper()
	o := decodeObj(t, b, "tweet-only frame")
	o.wantKeys(t, "tweet-only frame", "event_type", "data")
	if o.str(t, "event_type") != "tweet" {
		t.Fatalf("frame %s, want event_type tweet", b)
	}
	if !sameJSON(t, o["data"], expectedTweet(p, false)) {
		t.Errorf("tweet-only data %s, want %v", o["data"], expectedTweet(p, false))
	}
}

func testRTTweetOnly(t *testing.T, s *server) {
	h := newHandle("rt_tw")
	a := s.newDT(t, "enterprise", jsonMap{"late_delivery": true}, h)
	w1 := tweetDial(t, s, "/v1/dt/ws", a.key)
	w2 := tweetDial(t, s, "/social/tweet/websocket", a.key)
	bare := postObs(h, "reply", "@parent_user hm")
	bare["quoted_tweet"] = nil
	full := maps.Clone(bare)
	full["quoted_tweet"] = quoted()
	old := postObs(h, "post", "late")
	old["created_at"] = time.Now().Add(-10 * time.Minute).UnixMilli()
	last := postObs(h, "quote", "last")
	last["ocr_text"] = "CA " + solanaCA
	// Only live new posts: no update, deletion, late post or profile event.
	s.send(t, bare, full, deletedObs(h, newTweetID(), "x"), old, last)
	for _, w := range []*wsClient{w1, w2} {
		wantTweetFrame(t, w.Next(t), bare)
		wantTweetFrame(t, w.Next(t), last)
	}

	// Bad keys: plain-text 401 before the upgrade (from one address: these
	// count as failed logins, four stay under the block).
	ip := testkit.FreshIP()
	for _, key := range []string{"", "dt_" + testkit.RandomHex(20), "cw_" + testkit.RandomHex(20), "garbage"} {
		_, r, err := dialFrom(t, s.wsURL("/v1/dt/ws?api_key="+key), ip)
		if err == nil || r == nil {
			t.Fatalf("tweet-only socket with key %q upgraded", key)
		}
		body := testkit.ResponseText(r)
		if r.StatusCode != 401 || !strings.HasPrefix(r.Header.Get("Content-Type"), "text/plain") || strings.Contains(body, "{") {
			t.Errorf("key %q: %s (%s), want a plain-text 401", key, body, r.Header.Get("Content-Type"))
		}
	}
}

// testRTNoLeftovers: after many sessions of every kind open and close, the
// server holds no socket (ws_connections 0) and every account has its five
// slots back.
func testRTNoLeftovers(t *testing.T, s *server) {
	h := newHandle("rt_left")
	var keys []string
	for i := 0; i < 6; i++ {
		keys = append(keys, s.newDT(t, "enterprise", nil, h).key)
	}
	for round := 0; round < 2; round++ {
		var socks []*wsClient
		for _, k := range keys {
			for j := 0; j < 3; j++ {
				w, _ := s.rtLogin(t, jsonMap{"api_key": k, "types": []string{"tweet"}})
				socks = append(socks, w)
			}
			socks = append(socks, tweetDial(t, s, "/v1/dt/ws", k), tweetDial(t, s, "/social/tweet/websocket", k))
		}
		// Some unauthenticated and refused ones too.
		for j := 0; j < 5; j++ {
			w := s.rtDial(t, "")
			w.SendText(t, "nope")
			w.disconnect(t, "login_invalid")
		}
		p := postObs(h, "post", "to everyone")
		s.send(t, p)
		for _, w := range socks {
			w.Next(t)
		}
		for i, w := range socks {
			if i%2 == 0 {
				w.CloseGracefully()
			} else {
				w.Close() // no close frame: the server notices the dropped TCP connection
			}
		}
	}
	testkit.WaitFor(t, 15*time.Second, "ws_connections back to 0", func() (bool, string) {
		n := s.wsConnections(t)
		return n == 0, fmt.Sprintf("ws_connections %v", n)
	})
	for _, k := range keys {
		for j := 0; j < 5; j++ {
			s.rtLogin(t, k)
		}
	}
}
