package e2e

// End-to-end tests of the real upstream connectors (CONTRACT.md section 8)
// against their fakes on loopback: the engine runs in process through
// engine.Start with --x-bearer-token / --x-api-url or --solana-rpc-ws-url
// pointing at the fakes, on the shared in-process harness (startServer).
// What the connectors do happens outside the engine's Sync barrier (a fake
// upstream's stream, its rate-limit resets), so it is awaited with
// testkit.WaitFor.

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/alertd/alertd/engine"
	"github.com/alertd/alertd/internal/testkit"
	"github.com/alertd/alertd/upstream/launchpad"
	"github.com/alertd/alertd/upstream/launchpad/launchpadfake"
	"github.com/alertd/alertd/upstream/xapi/xapifake"
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
	t.Parallel()
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

	h := connectorServer(t, func(c *engine.Config) {
		c.Upstream.XBearerToken, c.Upstream.XAPIURL = fake.Token(), base
	})
	key := h.issue(t, map[string]any{"product": "dt", "plan": "pro"}).key
	for _, handle := range []string{"solwhale", "degenmike"} {
		if r := h.call(t, "POST", "/v1/dt/targets", key, map[string]any{"handle": handle}); r.status != 201 {
			t.Fatalf("add target %s: %d %s", handle, r.status, r.body)
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
		body := h.call(t, "GET", "/v1/dt/targets", key, nil).body
		return strings.Contains(string(body), `"social_user_id":"744628103955443712"`) && strings.Contains(string(body), `"social_user_id":"1111"`)
	})

	// A streamed post reaches the realtime socket with every payload field
	// filled from the line's includes.
	ws, _ := h.rtLogin(t, key)
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
	ev := eventNamed(t, ws, "social.post.new")
	created, _ := time.Parse(time.RFC3339Nano, p.CreatedAt)
	want := `{"id":"1860000000000000101","created_at":` + fmt.Sprint(created.UnixMilli()) + `,"type":"post","text":"new launch $WIF2 #memes https://t.co/xyz",` +
		`"cashtags":["WIF2"],"media":[{"type":"photo","url":"https://pbs.twimg.com/media/a.jpg"}],"mentions":[],` +
		`"author":{"id":"744628103955443712","handle":"SolWhale","name":"Sol Whale","avatar":"https://pbs.twimg.com/profile_images/1/whale_normal.jpg",` +
		`"description":"on-chain since 2017","verification":{"is_verified":true,"type":"blue"},"affiliation":null,"stats":{"followers":48210,"following":311}},` +
		`"in_reply_to":null,"quoted_tweet":null,"possibly_sensitive":true,"conversation_id":"1860000000000000101",` +
		`"entities":{"hashtags":[{"text":"memes","indices":[17,23]}],"urls":[{"url":"https://t.co/xyz","expanded_url":"https://pump.fun/coin/x","display_url":"pump.fun/coin/x","indices":[24,40]}],` +
		`"symbols":[{"text":"WIF2","indices":[11,16]}]},"metrics":{"likes":3,"retweets":1,"replies":2,"quotes":4,"views":"60"}}`
	sameJSONText(t, "post payload", ev.d["data"], want)

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
		ev := eventNamed(t, ws, "social.post.new")
		var d struct {
			Type        string          `json:"type"`
			InReplyTo   json.RawMessage `json:"in_reply_to"`
			QuotedTweet json.RawMessage `json:"quoted_tweet"`
		}
		_ = json.Unmarshal(ev.d["data"], &d)
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
	if ev := eventNamed(t, ws, "social.post.new"); !strings.Contains(string(ev.d["data"]), `"id":"1860000000000000105"`) {
		t.Fatalf("after the reconnect: %s", ev.d["data"])
	}
	if r := h.do(t, "GET", "/health", nil, nil); r.status != 200 {
		t.Fatalf("health: %s", r)
	}
	eventually(t, "counters", func() bool { return h.eng.UpstreamStats().X.Posts >= 5 })
	s := h.eng.UpstreamStats().X
	if s.Reconnects < 1 || s.Malformed < 2 || s.Posts < 5 || h.eng.UpstreamStats().Rejected != 0 {
		t.Errorf("stats %+v, %d rejected", *s, h.eng.UpstreamStats().Rejected)
	}

	// A 429 on the users lookup: the next call waits for the announced reset.
	fake.AddUser(xapifake.User{ID: "3333", Username: "newfan01", Name: "New Fan"})
	fake.SpendBudget(xapifake.EpUsersBy, 2*time.Second)
	if r := h.call(t, "POST", "/v1/dt/targets", key, map[string]any{"handle": "newfan01"}); r.status != 201 {
		t.Fatalf("add target: %d %s", r.status, r.body)
	}
	eventually(t, "newfan01 resolved after the reset", func() bool {
		body := h.call(t, "GET", "/v1/dt/targets", key, nil).body
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
	cw := h.issue(t, map[string]any{"product": "cw"}).key
	if r := h.call(t, "POST", "/v1/cw/targets", cw, map[string]any{"handle": "chartqueen"}); r.status != 201 {
		t.Fatalf("cw target: %d %s", r.status, r.body)
	}
	eventually(t, "rules with the cw target", func() bool { return strings.Contains(strings.Join(rules(), ";"), "from:chartqueen") })
	eventually(t, "the cw target's following list", func() bool {
		for _, c := range fake.Calls(xapifake.EpFollowing) {
			if strings.HasPrefix(c.Path, "/2/users/2222/following") && c.Status == 200 {
				return h.eng.UpstreamStats().X.Followings >= 1
			}
		}
		return false
	})

	// A removed target leaves the rules.
	if r := h.call(t, "DELETE", "/v1/dt/targets/degenmike", key, nil); r.status != 200 {
		t.Fatalf("remove target: %d %s", r.status, r.body)
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
	t.Parallel()
	fake := launchpadfake.New()
	url := fake.Start()
	t.Cleanup(fake.Close)
	h := connectorServer(t, func(c *engine.Config) { c.Upstream.SolanaRPCWSURL = url })

	dev, mint, curve := launchpadfake.Address("dev wallet"), launchpadfake.Address("mint"), launchpadfake.Address("curve")
	eca := h.issue(t, map[string]any{"product": "eca"}).key
	if r := h.call(t, "POST", "/v1/eca/watchlist", eca, map[string]any{"creator_address": dev}); r.status != 201 {
		t.Fatalf("eca watchlist: %d %s", r.status, r.body)
	}
	pf := h.issue(t, map[string]any{"product": "pf"}).key
	if r := h.call(t, "POST", "/v1/pf/targets", pf, map[string]any{"wallet_address": dev}); r.status != 201 {
		t.Fatalf("pf target: %d %s", r.status, r.body)
	}
	ecaWS, pfWS := h.dialProduct(t, "/v1/eca/ws?api_key="+eca), h.dialProduct(t, "/v1/pf/ws?api_key="+pf)
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
	_ = json.Unmarshal(ecaWS.Next(t), &match)
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
		b := pfWS.Next(t)
		_ = json.Unmarshal(b, &f)
		if f.Type != "pf_event" || f.Data.EventType != want || f.Data.WalletAddress != dev || f.Data.Mint != mint || f.Data.TokenSymbol != "WIF2" {
			t.Fatalf("pf frame %s", b)
		}
	}
	pfEvent("token_launched")
	fake.Send(launchpadfake.Signature("complete"), launchpadfake.Logs(launchpad.DefaultProgram, "Buy",
		launchpadfake.TradeEvent{Mint: mint}.Data(), launchpadfake.CompleteEvent{User: dev, Mint: mint, BondingCurve: curve, Timestamp: time.Now().Unix()}.Data()), false)
	pfEvent("graduated")

	if r := h.do(t, "GET", "/health", nil, nil); r.status != 200 {
		t.Fatalf("health: %s", r)
	}
	eventually(t, "counters", func() bool { return h.eng.UpstreamStats().Launchpad.Graduations == 1 }) // counted after the hand-over
	s := h.eng.UpstreamStats().Launchpad
	if s.Launches != 1 || s.Graduations != 1 || s.Malformed != 2 || s.Skipped != 1 {
		t.Errorf("stats %+v", *s)
	}
	// The console's ingest numbers count what the connector ingested in
	// process (nothing came over HTTP here).
	eventually(t, "console ingest count", func() bool {
		r := h.adminDo(t, "GET", "/admin/v1/stats", nil)
		var env struct {
			Data struct {
				Ingest struct {
					Accepted uint64 `json:"accepted"`
				} `json:"ingest"`
			} `json:"data"`
		}
		return r.status == 200 && json.Unmarshal(r.body, &env) == nil && env.Data.Ingest.Accepted >= 2
	})
}

// connectorServer starts an engine on the embedded store with the
// connectors' schedules shortened.
func connectorServer(t *testing.T, configure func(*engine.Config)) *server {
	t.Helper()
	return startServer(t, serverOpts{configure: func(c *engine.Config) {
		c.Upstream.HandlesEvery, c.Upstream.RuleDebounce = 20*time.Millisecond, 20*time.Millisecond
		configure(c)
	}})
}

// dialProduct opens a product socket (authenticated by its query).
func (s *server) dialProduct(t *testing.T, path string) *wsClient {
	t.Helper()
	w, r, err := dialWith(t, s.wsURL(path), testkit.DialOptions{})
	if err != nil {
		t.Fatalf("dial %s: %v (%s)", path, err, testkit.ResponseText(r))
	}
	return w
}

// eventNamed reads EVENTs up to the next one named name.
func eventNamed(t *testing.T, w *wsClient, name string) event {
	t.Helper()
	for {
		if ev := w.nextEvent(t); ev.name == name {
			return ev
		}
	}
}

// sameJSONText compares two JSON texts as values.
func sameJSONText(t *testing.T, what string, got json.RawMessage, want string) {
	t.Helper()
	if !sameJSON(t, got, json.RawMessage(want)) {
		t.Errorf("%s:\n got %s\nwant %s", what, got, want)
	}
}

func ctxFor(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// eventually waits for cond, something the connectors do outside the
// engine's Sync barrier.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	testkit.WaitFor(t, 15*time.Second, what, func() (bool, string) { return cond(), "" })
}
