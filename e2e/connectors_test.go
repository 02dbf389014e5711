package e2e

// End-to-end tests of the real upstream connectors (CONTRACT.md section 8)
// against their fakes on loopback: the engine runs in process through
// engine.Start with --x-bearer-token / --x-api-url or --solana-rpc-ws-url
// pointing at the fakes. The small helper at the bottom stands in until the
// shared in-process harness lands.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/alertd/alertd/engine"
	"github.com/alertd/alertd/upstream/launchpad"
	"github.com/alertd/alertd/upstream/launchpad/launchpadfake"
	"github.com/alertd/alertd/upstream/xapi/xapifake"
	"github.com/gorilla/websocket"
)

var (
	whale = xapifake.User{ID: "744628103955443712", Username: "SolWhale", Name: "Sol Whale", Description: "on-chain since 2017",
		ProfileImageURL: "https://pbs.twimg.com/profile_images/1/whale_normal.jpg", Verified: true, VerifiedType: "blue",
		PublicMetrics: xapifake.UserMetrics{FollowersCount: 48210, FollowingCount: 311}}
	mike = xapifake.User{ID: "1111", Username: "degenmike", Name: "Degen Mike", VerifiedType: "none",
		ProfileImageURL: "https://pbs.twimg.com/profile_images/2/mike_normal.jpg", PublicMetrics: xapifake.UserMetrics{FollowersCount: 900, FollowingCount: 120}}
	photo = xapifake.Media{MediaKey: "3_1", Type: "photo", URL: "https://pbs.twimg.com/media/a.jpg"}
)

// post is a post of whale created now (the realtime stream drops posts
// older than 30 s).
func post(id, text string) xapifake.Post {
	return xapifake.Post{ID: id, Text: text, AuthorID: whale.ID, ConversationID: id, EditHistoryTweetIDs: []string{id},
		CreatedAt: time.Now().UTC().Format("2006-01-02T15:04:05.000Z")}
}

func TestXConnector(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	fake := xapifake.New(xapifake.Options{KeepAlive: 200 * time.Millisecond})
	base := fake.Start()
	t.Cleanup(fake.Close)
	for _, u := range []xapifake.User{whale, mike} {
		fake.AddUser(u)
	}
	fake.AddMedia(photo)
	parent := xapifake.Post{ID: "1859999999999999000", Text: "charts look good $SOL", AuthorID: mike.ID,
		CreatedAt: "2026-11-21T07:59:00.000Z", ConversationID: "1859999999999999000", EditHistoryTweetIDs: []string{"1859999999999999000"},
		Entities: &xapifake.Entities{Cashtags: []xapifake.TagEntity{{Start: 17, End: 21, Tag: "SOL"}}}}
	fake.AddPost(parent)

	h := startEngine(t, func(c *engine.Config) {
		c.Upstream.XBearerToken, c.Upstream.XAPIURL = fake.Token(), base
	})
	key := h.issue(t, map[string]any{"product": "dt", "plan": "pro"})
	for _, handle := range []string{"solwhale", "degenmike"} {
		if st, body := h.call(t, "POST", "/v1/dt/targets", key, map[string]any{"handle": handle}); st != 201 {
			t.Fatalf("add target %s: %d %s", handle, st, body)
		}
	}

	// Rules follow the targets, packed into one rule.
	rules := func() []string {
		var out []string
		for _, r := range fake.Rules() {
			out = append(out, r.Value+"|"+r.Tag)
		}
		return out
	}
	eventually(t, "rules on the targets", func() bool {
		return slices.Equal(rules(), []string{"from:degenmike OR from:solwhale|alertd"})
	})

	// The pending targets are resolved through /2/users/by.
	eventually(t, "targets resolved", func() bool {
		_, body := h.call(t, "GET", "/v1/dt/targets", key, nil)
		return strings.Contains(string(body), `"social_user_id":"744628103955443712"`) && strings.Contains(string(body), `"social_user_id":"1111"`)
	})

	// A streamed post reaches the realtime socket with every payload field
	// filled from the line's includes.
	ws := h.realtime(t, key)
	p := post("1860000000000000101", "new launch $WIF2 #memes https://t.co/xyz")
	p.Attachments = &xapifake.Attachments{MediaKeys: []string{photo.MediaKey}}
	p.PossiblySensitive = true
	p.Entities = &xapifake.Entities{Cashtags: []xapifake.TagEntity{{Start: 11, End: 16, Tag: "WIF2"}},
		Hashtags: []xapifake.TagEntity{{Start: 17, End: 23, Tag: "memes"}},
		URLs:     []xapifake.URLEntity{{Start: 24, End: 40, URL: "https://t.co/xyz", ExpandedURL: "https://pump.fun/coin/x", DisplayURL: "pump.fun/coin/x"}}}
	p.PublicMetrics = &xapifake.PostMetrics{LikeCount: 3, RetweetCount: 1, ReplyCount: 2, QuoteCount: 4, ImpressionCount: 60}
	if _, ok := fake.Publish(p); !ok {
		t.Fatal("no rule matched the post")
	}
	ev := ws.event(t, "social.post.new")
	created, _ := time.Parse(time.RFC3339Nano, p.CreatedAt)
	want := `{"id":"1860000000000000101","created_at":` + fmt.Sprint(created.UnixMilli()) + `,"type":"post","text":"new launch $WIF2 #memes https://t.co/xyz",` +
		`"cashtags":["WIF2"],"media":[{"type":"photo","url":"https://pbs.twimg.com/media/a.jpg"}],"mentions":[],` +
		`"author":{"id":"744628103955443712","handle":"solwhale","name":"Sol Whale","avatar":"https://pbs.twimg.com/profile_images/1/whale_normal.jpg",` +
		`"description":"on-chain since 2017","verification":{"is_verified":true,"type":"blue"},"affiliation":null,"stats":{"followers":48210,"following":311}},` +
		`"in_reply_to":null,"quoted_tweet":null,"possibly_sensitive":true,"conversation_id":"1860000000000000101",` +
		`"entities":{"hashtags":[{"text":"memes","indices":[17,23]}],"urls":[{"url":"https://t.co/xyz","expanded_url":"https://pump.fun/coin/x","display_url":"pump.fun/coin/x","indices":[24,40]}],` +
		`"symbols":[{"text":"WIF2","indices":[11,16]}]},"metrics":{"likes":3,"retweets":1,"replies":2,"quotes":4,"views":"60"}}`
	sameJSONText(t, "post payload", ev.Data, want)

	// Replies, quotes and reposts are typed right.
	reply := post("1860000000000000102", "@degenmike agreed")
	reply.InReplyToUserID, reply.ConversationID = mike.ID, parent.ID
	reply.ReferencedTweets = []xapifake.Referenced{{Type: "replied_to", ID: parent.ID}}
	quote := post("1860000000000000103", "this")
	quote.ReferencedTweets = []xapifake.Referenced{{Type: "quoted", ID: parent.ID}}
	repost := post("1860000000000000104", "RT @degenmike: charts look good $SOL")
	repost.ReferencedTweets = []xapifake.Referenced{{Type: "retweeted", ID: parent.ID}}
	quoted := `{"id":"1859999999999999000","text":"charts look good $SOL","author":{"handle":"degenmike","name":"Degen Mike","avatar":"https://pbs.twimg.com/profile_images/2/mike_normal.jpg"}}`
	for _, c := range []struct {
		p                  xapifake.Post
		typ, inReplyTo, qt string
	}{
		{reply, "reply", `{"tweet_id":"1859999999999999000","user":"degenmike"}`, quoted},
		{quote, "quote", "null", quoted},
		{repost, "repost", "null", quoted},
	} {
		fake.Publish(c.p)
		ev := ws.event(t, "social.post.new")
		var d struct {
			Type        string          `json:"type"`
			InReplyTo   json.RawMessage `json:"in_reply_to"`
			QuotedTweet json.RawMessage `json:"quoted_tweet"`
		}
		_ = json.Unmarshal(ev.Data, &d)
		if d.Type != c.typ {
			t.Errorf("%s typed %q", c.typ, d.Type)
		}
		sameJSONText(t, c.typ+" in_reply_to", d.InReplyTo, c.inReplyTo)
		sameJSONText(t, c.typ+" quoted_tweet", d.QuotedTweet, c.qt)
	}

	// A dropped stream is reconnected, garbage is skipped, the server stays healthy.
	fake.Drop()
	eventually(t, "stream reconnected", func() bool {
		return len(fake.Calls(xapifake.EpStream)) >= 2 && fake.WaitStreams(context.Background(), 1) == nil
	})
	fake.PushRaw([]byte("{garbage"))
	fake.PushRaw([]byte(`{"data":{"id":"x"}}`))
	fake.Publish(post("1860000000000000105", "still here"))
	if ev := ws.event(t, "social.post.new"); !strings.Contains(string(ev.Data), `"id":"1860000000000000105"`) {
		t.Fatalf("after the reconnect: %s", ev.Data)
	}
	h.healthy(t)
	eventually(t, "counters", func() bool { return h.e.UpstreamStats().X.Posts >= 5 })
	s := h.e.UpstreamStats().X
	if s.Reconnects < 1 || s.Malformed < 2 || s.Posts < 5 || h.e.UpstreamStats().Rejected != 0 {
		t.Errorf("stats %+v, %d rejected", *s, h.e.UpstreamStats().Rejected)
	}

	// A 429 on the users lookup: the next call waits for the announced reset.
	fake.AddUser(xapifake.User{ID: "3333", Username: "newfan01", Name: "New Fan"})
	fake.SpendBudget(xapifake.EpUsersBy, 2*time.Second)
	if st, body := h.call(t, "POST", "/v1/dt/targets", key, map[string]any{"handle": "newfan01"}); st != 201 {
		t.Fatalf("add target: %d %s", st, body)
	}
	eventually(t, "newfan01 resolved after the reset", func() bool {
		_, body := h.call(t, "GET", "/v1/dt/targets", key, nil)
		return strings.Contains(string(body), `"social_user_id":"3333"`)
	})
	var reset time.Time
	for _, c := range fake.Calls(xapifake.EpUsersBy) {
		switch {
		case c.Status == 429 && reset.IsZero():
			reset = c.At.Add(2 * time.Second).Truncate(time.Second)
		case c.Status == 200 && !reset.IsZero() && c.At.Before(reset):
			t.Errorf("users lookup at %v, before the reset %v", c.At, reset)
		}
	}
	if reset.IsZero() {
		t.Error("no 429 seen")
	}

	// A Community Watch target joins the rules, and its following list is read.
	fake.AddUser(xapifake.User{ID: "2222", Username: "chartqueen", Name: "Chart Queen", FollowingIDs: []string{mike.ID, whale.ID}})
	cw := h.issue(t, map[string]any{"product": "cw"})
	if st, body := h.call(t, "POST", "/v1/cw/targets", cw, map[string]any{"handle": "chartqueen"}); st != 201 {
		t.Fatalf("cw target: %d %s", st, body)
	}
	eventually(t, "rules with the cw target", func() bool { return strings.Contains(strings.Join(rules(), ";"), "from:chartqueen") })
	eventually(t, "the cw target's following list", func() bool {
		for _, c := range fake.Calls(xapifake.EpFollowing) {
			if strings.HasPrefix(c.Path, "/2/users/2222/following") && c.Status == 200 {
				return h.e.UpstreamStats().X.Followings >= 1
			}
		}
		return false
	})

	// A removed target leaves the rules.
	if st, body := h.call(t, "DELETE", "/v1/dt/targets/degenmike", key, nil); st != 200 {
		t.Fatalf("remove target: %d %s", st, body)
	}
	eventually(t, "rules without degenmike", func() bool {
		r := strings.Join(rules(), ";")
		return strings.Contains(r, "from:solwhale") && strings.Contains(r, "from:newfan01") && !strings.Contains(r, "degenmike")
	})
}

func TestLaunchpadConnector(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	fake := launchpadfake.New()
	url := fake.Start()
	t.Cleanup(fake.Close)
	h := startEngine(t, func(c *engine.Config) { c.Upstream.SolanaRPCWSURL = url })

	dev, mint, curve := launchpadfake.Address("dev wallet"), launchpadfake.Address("mint"), launchpadfake.Address("curve")
	eca := h.issue(t, map[string]any{"product": "eca"})
	if st, body := h.call(t, "POST", "/v1/eca/watchlist", eca, map[string]any{"creator_address": dev}); st != 201 {
		t.Fatalf("eca watchlist: %d %s", st, body)
	}
	pf := h.issue(t, map[string]any{"product": "pf"})
	if st, body := h.call(t, "POST", "/v1/pf/targets", pf, map[string]any{"wallet_address": dev}); st != 201 {
		t.Fatalf("pf target: %d %s", st, body)
	}
	ecaWS, pfWS := h.dial(t, "/v1/eca/ws?api_key="+eca), h.dial(t, "/v1/pf/ws?api_key="+pf)
	if err := fake.WaitSubscribed(ctxFor(t), 1); err != nil {
		t.Fatal(err)
	}

	// garbage first: skipped, counted, nothing breaks
	fake.SendRaw([]byte("{garbage"))
	fake.Send(launchpadfake.Signature("bad"), launchpadfake.Logs(launchpad.DefaultProgram, "Create", []byte{27, 114, 169, 77, 222, 235, 99, 118, 9}), false)

	sig := launchpadfake.Signature("create")
	fake.Send(sig, launchpadfake.Logs(launchpad.DefaultProgram, "Create",
		launchpadfake.CreateEvent{Name: "Dog Wif Hat Two", Symbol: "WIF2", URI: "https://ipfs.io/ipfs/Qm123", Mint: mint, BondingCurve: curve, User: dev}.Data()), false)
	var match struct {
		Type string `json:"type"`
		Data struct {
			Token     json.RawMessage `json:"token"`
			MatchType string          `json:"match_type"`
		} `json:"data"`
	}
	_ = json.Unmarshal(ecaWS.next(t), &match)
	if match.Type != "match" || match.Data.MatchType != "creator_address" {
		t.Fatalf("eca frame %+v", match)
	}
	sameJSONText(t, "eca token", match.Data.Token, `{"name":"Dog Wif Hat Two","symbol":"WIF2","mint":"`+mint+`","creator":"`+dev+
		`","bonding_curve":"`+curve+`","uri":"https://ipfs.io/ipfs/Qm123","signature":"`+sig+`"}`)

	pfEvent := func(want string) {
		t.Helper()
		var f struct {
			Type string `json:"type"`
			Data struct {
				EventType     string `json:"event_type"`
				WalletAddress string `json:"wallet_address"`
				Mint          string `json:"mint"`
				TokenSymbol   string `json:"token_symbol"`
			} `json:"data"`
		}
		b := pfWS.next(t)
		_ = json.Unmarshal(b, &f)
		if f.Type != "pf_event" || f.Data.EventType != want || f.Data.WalletAddress != dev || f.Data.Mint != mint || f.Data.TokenSymbol != "WIF2" {
			t.Fatalf("pf frame %s", b)
		}
	}
	pfEvent("token_launched")
	fake.Send(launchpadfake.Signature("complete"), launchpadfake.Logs(launchpad.DefaultProgram, "Buy",
		launchpadfake.TradeEvent{Mint: mint}.Data(), launchpadfake.CompleteEvent{User: dev, Mint: mint, BondingCurve: curve, Timestamp: time.Now().Unix()}.Data()), false)
	pfEvent("graduated")

	h.healthy(t)
	eventually(t, "counters", func() bool { return h.e.UpstreamStats().Launchpad.Graduations == 1 }) // counted after the hand-over
	s := h.e.UpstreamStats().Launchpad
	if s.Launches != 1 || s.Graduations != 1 || s.Malformed != 2 || s.Skipped != 1 {
		t.Errorf("stats %+v", *s)
	}
	// The console's ingest numbers count what the connector ingested in
	// process (nothing came over HTTP here).
	eventually(t, "console ingest count", func() bool {
		st, data := h.call(t, "GET", "/admin/v1/stats", h.admin, nil)
		var d struct {
			Ingest struct {
				Accepted uint64 `json:"accepted"`
			} `json:"ingest"`
		}
		return st == 200 && json.Unmarshal(data, &d) == nil && d.Ingest.Accepted >= 2
	})
}

// --- a minimal local harness (to be replaced by the shared one) ---

type harness struct {
	e     *engine.Engine
	base  string
	admin string
}

type lockedBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// startEngine runs an engine on a loopback port with the embedded store;
// its log is printed when the test fails.
func startEngine(t *testing.T, mutate func(*engine.Config)) *harness {
	t.Helper()
	cfg := engine.DefaultConfig()
	cfg.Addr, cfg.DataDir, cfg.AdminToken = "127.0.0.1:0", t.TempDir(), "adm_e2e_connectors"
	cfg.Upstream.HandlesEvery, cfg.Upstream.RuleDebounce = 20*time.Millisecond, 20*time.Millisecond
	mutate(&cfg)
	logs := &lockedBuf{}
	e, err := engine.Start(context.Background(), &cfg, slog.New(slog.NewJSONHandler(logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan struct{})
	go func() { _ = e.Serve(); close(served) }()
	t.Cleanup(func() {
		e.Close()
		<-served
		if t.Failed() {
			logs.mu.Lock()
			t.Logf("engine log:\n%s", logs.b.String())
			logs.mu.Unlock()
		}
	})
	h := &harness{e: e, base: "http://" + e.Addr().String(), admin: cfg.AdminToken}
	eventually(t, "healthy", func() bool { return h.health() == 200 })
	return h
}

func (h *harness) health() int {
	r, err := http.Get(h.base + "/health")
	if err != nil {
		return 0
	}
	r.Body.Close()
	return r.StatusCode
}

func (h *harness) healthy(t *testing.T) {
	t.Helper()
	if st := h.health(); st != 200 {
		t.Fatalf("/health %d", st)
	}
}

// call does a JSON request with a bearer key and returns the status and the
// envelope's data (or the whole body when there is none).
func (h *harness) call(t *testing.T, method, path, key string, body any) (int, json.RawMessage) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, h.base+path, rd)
	req.Header.Set("Authorization", "Bearer "+key)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	r, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	b, _ := io.ReadAll(r.Body)
	var env struct {
		Data json.RawMessage `json:"data"`
	}
	if json.Unmarshal(b, &env) == nil && env.Data != nil {
		return r.StatusCode, env.Data
	}
	return r.StatusCode, b
}

// issue creates an account and key through the admin API.
func (h *harness) issue(t *testing.T, body map[string]any) string {
	t.Helper()
	st, data := h.call(t, "POST", "/admin/v1/keys", h.admin, body)
	var d struct {
		Key string `json:"key"`
	}
	if st != 201 || json.Unmarshal(data, &d) != nil || d.Key == "" {
		t.Fatalf("issue %v: %d %s", body, st, data)
	}
	return d.Key
}

type wsConn struct {
	c      *websocket.Conn
	frames chan []byte
}

// dial opens a WebSocket; a goroutine reads its frames until it closes.
func (h *harness) dial(t *testing.T, path string) *wsConn {
	t.Helper()
	c, r, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(h.base, "http")+path, nil)
	if err != nil {
		if r != nil {
			b, _ := io.ReadAll(r.Body)
			err = fmt.Errorf("%w: HTTP %d %s", err, r.StatusCode, b)
		}
		t.Fatalf("dial %s: %v", path, err)
	}
	w := &wsConn{c: c, frames: make(chan []byte, 256)}
	go func() {
		defer close(w.frames)
		for {
			_, b, err := c.ReadMessage()
			if err != nil {
				return
			}
			w.frames <- b
		}
	}()
	t.Cleanup(func() { c.Close() })
	return w
}

func (w *wsConn) next(t *testing.T) []byte {
	t.Helper()
	select {
	case b, ok := <-w.frames:
		if !ok {
			t.Fatal("socket closed")
		}
		return b
	case <-time.After(10 * time.Second):
		t.Fatal("no frame within 10 s")
		return nil
	}
}

// realtime opens the B2B realtime socket and logs in with key.
func (h *harness) realtime(t *testing.T, key string) *wsConn {
	t.Helper()
	w := h.dial(t, "/v1/dt/realtime/ws")
	if b := w.next(t); !strings.Contains(string(b), `"op":10`) {
		t.Fatalf("HELLO: %s", b)
	}
	if err := w.c.WriteMessage(websocket.TextMessage, []byte(`{"op":2,"d":"`+key+`"}`)); err != nil {
		t.Fatal(err)
	}
	if b := w.next(t); !strings.Contains(string(b), `"op":4`) {
		t.Fatalf("READY: %s", b)
	}
	return w
}

type rtEvent struct {
	Event string          `json:"event"`
	Data  json.RawMessage `json:"data"`
}

// event reads frames up to the next EVENT named name.
func (w *wsConn) event(t *testing.T, name string) rtEvent {
	t.Helper()
	for {
		var f struct {
			Op int     `json:"op"`
			D  rtEvent `json:"d"`
		}
		b := w.next(t)
		if err := json.Unmarshal(b, &f); err != nil {
			t.Fatalf("frame %s: %v", b, err)
		}
		if f.Op == 0 && f.D.Event == name {
			return f.D
		}
	}
}

// sameJSON compares two JSON texts as values.
func sameJSONText(t *testing.T, what string, got json.RawMessage, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("%s: %v: %s", what, err, got)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("%s: bad expectation: %v", what, err)
	}
	gb, _ := json.Marshal(g)
	wb, _ := json.Marshal(w)
	if !bytes.Equal(gb, wb) {
		t.Errorf("%s:\n got %s\nwant %s", what, gb, wb)
	}
}

func ctxFor(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// eventually polls cond until it holds (positive conditions only).
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
