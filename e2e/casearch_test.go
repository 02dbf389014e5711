package e2e

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/alertd/alertd/internal/testkit"
	"github.com/alertd/alertd/protocol"
	"github.com/alertd/alertd/upstream/sim"
)

// TestCASearch runs the CA Search suite against one server per store.
func TestCASearch(t *testing.T) {
	forEachStore(t, func(t *testing.T, m storeMode) {
		s := startServer(t, serverOpts{dbURL: m.DatabaseURL(t)})
		for _, c := range []struct {
			name string
			f    func(*testing.T, *server)
		}{
			{"Refusals", testSearchRefusals},
			{"PostItem", testSearchPostItem},
			{"QueryKinds", testSearchQueryKinds},
			{"Pagination", testSearchPagination},
			{"Windows", testSearchWindows},
			{"RateLimits", testSearchRateLimits},
			{"DailyAllowance", testSearchDaily},
		} {
			t.Run(c.name, func(t *testing.T) { c.f(t, s) })
		}
	})
}

// testSearchRefusals: 401 and 403 carry no quota headers and do not count
// against the allowance; every call that reaches it counts once (spec 2),
// refused bodies (plain-text 400/413/415/422, 400 bad_request) included.
func testSearchRefusals(t *testing.T, s *server) {
	k := s.csKey(t, 100)
	expired := s.issue(t, map[string]any{"product": "dt", "ca_search_daily_limit": 100, "expires_at": "2022-02-02T02:02:02Z"})
	plain := s.issue(t, map[string]any{"product": "dt", "plan": "enterprise"})
	xg := s.issue(t, map[string]any{"product": "xg", "plan": "ultra"})
	ok := `{"query":"gm"}`
	for name, c := range map[string]struct {
		h      hdr
		status int
		code   string
	}{
		"no key":      {hdr{}, 401, "unauthorized"},
		"xg key":      {bearer(xg.key), 401, "unauthorized"},
		"unknown key": {bearer("dt_" + strings.Repeat("7", 48)), 401, "unauthorized"},
		"expired":     {bearer(expired.key), 403, "forbidden"},
		"no add-on":   {bearer(plain.key), 403, "forbidden"},
	} {
		c.h["Content-Type"] = "application/json"
		r := s.do(t, "POST", "/v1/search", c.h, ok)
		r.wantErr(t, c.status, c.code)
		if q := csQuota(r); q != [4]string{} {
			t.Errorf("%s: quota headers %v", name, q)
		}
	}
	if env := s.do(t, "POST", "/v1/search", hdr{"Content-Type": "application/json", "Authorization": "Bearer " + expired.key}, ok).wantErr(t, 403, "forbidden"); !strings.Contains(env.str(t, "error"), "2022-02-02") {
		t.Errorf("expired: message %q does not name the expiry date", env.str(t, "error"))
	}
	// The key works with X-API-Key too.
	csDecode(t, s.do(t, "POST", "/v1/search", hdr{"Content-Type": "application/json", "X-API-Key": k.key}, ok))

	// Each refused body on a key with an allowance of 1: the refusal uses it
	// up, so the next well-formed call is refused for the day.
	type refusal struct {
		name, ctype, body string
		status            int
	}
	refusals := []refusal{
		{"no body", "application/json", "", 400},
		{"not JSON", "application/json", `{"query":`, 400},
		{"no query field", "application/json", `{"since":"2026-01-01"}`, 422},
		{"text/plain", "text/plain", ok, 415},
		{"over 64 KB", "application/json", `{"query":"` + strings.Repeat("x", 70*1024) + `"}`, 413},
	}
	for _, body := range []string{
		`{"query":""}`, `{"query":"   "}`, `{"query":null}`, `{"query":5}`,
		`{"query":"` + strings.Repeat("a", 201) + `"}`,
		`{"query":"gm","since":"last week"}`,
		`{"query":"gm","until":"2021-13-01"}`,
		`{"query":"gm","until":"2020-01-01"}`, // older than 24 h without since
		`{"query":"gm","since":"2026-01-02","until":"2026-01-01"}`,
		`{"query":"gm","since":"2026-01-01","until":"2026-01-01"}`,
	} {
		refusals = append(refusals, refusal{body, "application/json", body, 400})
	}
	for _, c := range refusals {
		one := s.csKey(t, 1)
		r := s.do(t, "POST", "/v1/search", hdr{"Authorization": "Bearer " + one.key, "Content-Type": c.ctype}, c.body)
		if c.status == 400 && strings.HasPrefix(c.name, "{") {
			r.wantErr(t, 400, "bad_request")
			if q := csQuota(r); q != [4]string{"1", "0", "20", "19"} {
				t.Errorf("%s: quota headers %v on a 400, want 1 0 20 19", c.name, q)
			}
		} else {
			r.wantPlain(t, c.status)
		}
		if r := s.csSearch(t, one.key, ok); r.status != 429 {
			t.Errorf("%s: the refused call did not count: the next call answered %s", c.name, r)
		} else {
			r.wantErr(t, 429, "daily_limit_reached")
		}
	}
	// Exactly 200 bytes (after trimming) is fine.
	csDecode(t, s.csSearch(t, k.key, `{"query":"  `+strings.Repeat("é", 100)+`  "}`))
	// Two calls counted so far on k: X-API-Key and the 200-byte query; the
	// 401s and 403s counted nothing.
	r := s.csSearch(t, k.key, ok)
	csDecode(t, r)
	if q := csQuota(r); q != [4]string{"100", "97", "20", "17"} {
		t.Errorf("after refusals: quota %v, want 100 97 20 17", q)
	}
}

// testSearchPostItem: every field of a post item, the summary, originals.
func testSearchPostItem(t *testing.T, s *server) {
	c := s.csClient(t)
	word := csWord("item")
	u := newUser("cs_author")
	loc := "Lisbon"
	u.Location = &loc
	friend := newUser("cs_friend")
	wantIngest(t, s.ingest(t, "application/x-ndjson", u.line(t)+"\n"+friend.line(t)+"\n"), 2)
	s.userNow(t, c.key, u.Handle)
	s.userNow(t, c.key, friend.Handle)
	author := csAuthor{id: u.ID, handle: u.Handle, name: u.Name, followers: 5000}
	other := csAuthor{id: "123456", handle: "cs_other" + testkit.RandomHex(3), name: "Other", followers: 70}
	now := time.Now().UTC().Truncate(time.Second)

	parent := csPost(csID(), now.Add(-10*time.Minute), "post", "the parent says hi", other)
	post := csPost(csID(), now.Add(-9*time.Minute), "post", word+" gm @"+friend.Handle+" and @nobody_"+testkit.RandomHex(2), author)
	post["entities"] = map[string]any{"hashtags": []any{map[string]any{"text": "gm", "indices": []int{0, 3}}}, "urls": []any{}, "symbols": []any{}}
	quote := csPost(csID(), now.Add(-8*time.Minute), "quote", word+" quoting", other)
	quote["quoted_tweet"] = map[string]any{"id": parent["id"], "text": "the parent says hi", "author": map[string]any{"handle": other.handle, "name": "Other", "avatar": "https://a/o.jpg"}}
	repost := csPost(csID(), now.Add(-7*time.Minute), "repost", "RT @"+other.handle+": "+word, other)
	repost["quoted_tweet"] = map[string]any{"id": parent["id"], "text": "the parent says hi", "author": map[string]any{"handle": other.handle, "name": nil, "avatar": ""}}
	reply := csPost(csID(), now.Add(-6*time.Minute), "reply", "@"+other.handle+" "+word+" agreed", author)
	reply["in_reply_to"] = map[string]any{"tweet_id": parent["id"], "user": other.handle}
	reply["conversation_id"] = parent["id"]
	orphan := csPost(csID(), now.Add(-5*time.Minute), "reply", word+" to the unknown", author)
	orphan["in_reply_to"] = map[string]any{"tweet_id": "42", "user": "ghost"}
	orphan["quoted_tweet"] = map[string]any{"id": "42", "text": "ghost text", "author": map[string]any{"handle": "ghost", "name": "G", "avatar": ""}}
	lost := csPost(csID(), now.Add(-4*time.Minute), "reply", word+" lost parent", author)
	lost["in_reply_to"] = map[string]any{"tweet_id": "43", "user": "gone"}
	lost["metrics"] = map[string]any{"likes": nil, "retweets": nil, "replies": nil, "quotes": nil, "views": nil}
	s.send(t, parent, post, quote, repost, reply, orphan, lost)

	body := map[string]any{"query": word}
	p := c.wait(t, body, 6)
	if want := []string{lost["id"].(string), orphan["id"].(string), reply["id"].(string), repost["id"].(string), quote["id"].(string), post["id"].(string)}; !slices.Equal(p.ids, want) {
		t.Fatalf("ids %v, want newest first %v", p.ids, want)
	}
	p.data.wantKeys(t, "data", "tweets", "summary", "window_hours", "has_next_page", "next_cursor")
	if p.data.num(t, "window_hours") != 24 || p.more {
		t.Errorf("window_hours %v, has_next_page %v", p.data["window_hours"], p.more)
	}
	base := []string{"type", "id", "url", "text", "createdAt", "retweetCount", "replyCount", "likeCount", "quoteCount",
		"viewCount", "bookmarkCount", "lang", "isReply", "inReplyToId", "inReplyToUsername", "conversationId", "author", "entities"}
	byID := map[string]obj{}
	for _, tw := range p.tweets {
		byID[tw.str(t, "id")] = tw
	}

	// A plain post: every field.
	it := byID[post["id"].(string)]
	it.wantKeys(t, "post item", base...)
	for name, want := range map[string]string{"type": "post", "text": post["text"].(string),
		"url": "https://x.com/" + u.Handle + "/status/" + post["id"].(string), "conversationId": post["id"].(string),
		"createdAt": now.Add(-9 * time.Minute).Format("Mon Jan 02 15:04:05 -0700 2006")} {
		if got := it.str(t, name); got != want {
			t.Errorf("post %s = %q, want %q", name, got, want)
		}
	}
	for name, want := range map[string]float64{"likeCount": 5, "retweetCount": 2, "replyCount": 1, "quoteCount": 0, "viewCount": 99} {
		if got := it.num(t, name); got != want {
			t.Errorf("post %s = %v, want %v", name, got, want)
		}
	}
	for _, name := range []string{"bookmarkCount", "lang", "inReplyToId", "inReplyToUsername"} {
		if !it.isNull(name) {
			t.Errorf("post %s = %s, want null", name, it[name])
		}
	}
	if it.boolean(t, "isReply") {
		t.Errorf("post isReply true")
	}
	a := it.object(t, "author")
	a.wantKeys(t, "author", "userName", "name", "id", "followers", "following", "isBlueVerified", "profilePicture",
		"description", "location", "createdAt", "statusesCount", "mediaCount", "favouritesCount")
	if a.str(t, "userName") != u.Handle || a.str(t, "name") != u.Name || a.str(t, "id") != u.ID || a.num(t, "followers") != 5000 ||
		a.num(t, "following") != 7 || !a.boolean(t, "isBlueVerified") || a.str(t, "profilePicture") != "https://pbs.example.com/"+u.Handle+".jpg" ||
		a.str(t, "description") != "bio of "+u.Handle || a.str(t, "location") != "Lisbon" {
		t.Errorf("author %v", a)
	}
	ents := it.object(t, "entities")
	ents.wantKeys(t, "entities", "hashtags", "urls", "user_mentions")
	if len(ents.array(t, "hashtags")) != 1 || len(ents.array(t, "urls")) != 0 {
		t.Errorf("entities %v", ents)
	}
	mentions := ents.array(t, "user_mentions")
	if len(mentions) != 2 {
		t.Fatalf("user_mentions %v", mentions)
	}
	m0 := decodeObj(t, mentions[0], "mention")
	if m0.str(t, "screen_name") != friend.Handle || m0.str(t, "id_str") != friend.ID || m0.str(t, "name") != friend.Name {
		t.Errorf("known mention %v", m0)
	}
	if m1 := decodeObj(t, mentions[1], "mention"); !m1.isNull("id_str") || !strings.HasPrefix(m1.str(t, "screen_name"), "nobody_") {
		t.Errorf("unknown mention %v", m1)
	}

	// Quote, repost, replies.
	q := byID[quote["id"].(string)]
	q.wantKeys(t, "quote item", append(base, "quoted_tweet")...)
	qt := q.object(t, "quoted_tweet")
	qt.wantKeys(t, "quoted_tweet", "id", "url", "text", "author", "retweetCount", "replyCount", "likeCount", "quoteCount", "viewCount", "bookmarkCount")
	if qt.str(t, "id") != parent["id"] || qt.str(t, "text") != "the parent says hi" || qt.object(t, "author").str(t, "userName") != other.handle {
		t.Errorf("quoted_tweet %v", qt)
	}
	rp := byID[repost["id"].(string)]
	rp.wantKeys(t, "repost item", append(base, "retweeted_tweet")...)
	if rt := rp.object(t, "retweeted_tweet"); rt.str(t, "id") != parent["id"] || rp.str(t, "type") != "repost" {
		t.Errorf("retweeted_tweet %v", rt)
	}
	r := byID[reply["id"].(string)]
	r.wantKeys(t, "reply item", append(base, "original")...)
	if !r.boolean(t, "isReply") || r.str(t, "inReplyToId") != parent["id"] || r.str(t, "inReplyToUsername") != other.handle || r.str(t, "conversationId") != parent["id"] {
		t.Errorf("reply fields %v", r)
	}
	orig := r.object(t, "original")
	orig.wantKeys(t, "original", "id", "text", "author")
	if orig.str(t, "id") != parent["id"] || orig.str(t, "text") != "the parent says hi" || orig.object(t, "author").str(t, "userName") != other.handle {
		t.Errorf("original %v", orig)
	}
	if o := byID[orphan["id"].(string)].object(t, "original"); o.str(t, "text") != "ghost text" {
		t.Errorf("original of a reply whose parent is not stored, from the carried parent: %v", o)
	}
	l := byID[lost["id"].(string)]
	l.wantKeys(t, "reply without parent", base...)
	for _, name := range []string{"likeCount", "retweetCount", "replyCount", "quoteCount", "viewCount"} {
		if !l.isNull(name) {
			t.Errorf("unknown %s = %s, want null", name, l[name])
		}
	}

	// Summary: 6 posts, 2 authors, reach 4×5000 + 2×70, top callers by followers.
	sum := p.data.object(t, "summary")
	sum.wantKeys(t, "summary", "total_tweets", "unique_authors", "total_reach", "top_callers")
	if sum.num(t, "total_tweets") != 6 || sum.num(t, "unique_authors") != 2 || sum.num(t, "total_reach") != 20140 {
		t.Errorf("summary %v", sum)
	}
	at := "@" + u.Handle
	if got := sum.strings(t, "top_callers"); !slices.Equal(got, []string{at, at, at, at, "@" + other.handle}) {
		t.Errorf("top_callers %v", got)
	}

	// A re-observation replaces the stored version.
	post2 := csPost(post["id"].(string), now.Add(-9*time.Minute), "post", word+" edited "+csWord("new"), author)
	s.send(t, post2)
	if p := c.wait(t, map[string]any{"query": word + " edited"}, 1); p.tweets[0].str(t, "text") != post2["text"] {
		t.Errorf("the new version is not what is found: %v", p.tweets[0])
	}
	if p := c.page(t, map[string]any{"query": word + " gm"}); len(p.ids) != 0 {
		t.Errorf("the old version's words still match: %v", p.ids)
	}
}

// testSearchQueryKinds: contract (Solana exact, EVM any case), $TICKER,
// bare TICKER, keywords (all words).
func testSearchQueryKinds(t *testing.T, s *server) {
	cl := s.csClient(t)
	a := csAuthor{id: "555", handle: "cs_kinds" + testkit.RandomHex(3), name: "K", followers: 1}
	var raw [32]byte
	_, _ = rand.Read(raw[:])
	sol := sim.EncodeBase58(raw[:])
	if !protocol.IsSolanaAddress(sol) {
		t.Fatalf("%s is not a Solana address", sol)
	}
	evm := "0x" + strings.ToUpper(testkit.RandomHex(20))[:20] + testkit.RandomHex(10)
	tick := csTicker()
	w1, w2 := csWord("alpha"), csWord("beta")
	now := time.Now()
	p1 := csPost(csID(), now.Add(-3*time.Minute), "post", "CA: "+sol+" $"+tick+" "+w1, a)
	stream := csPost(csID(), now.Add(-2*time.Minute), "post", "evm "+evm+" "+w1+" "+w2, a)
	p3 := csPost(csID(), now.Add(-time.Minute), "post", strings.ToLower(tick)+" and "+w2+" $"+strings.ToLower(tick), a)
	s.send(t, p1, stream, p3)
	cl.wait(t, map[string]any{"query": w1}, 2)
	id1, id2, id3 := p1["id"].(string), stream["id"].(string), p3["id"].(string)
	for _, c := range []struct {
		q    string
		want []string
	}{
		{sol, []string{id1}},
		{strings.ToLower(sol), nil}, // Solana addresses are case-sensitive
		{evm, []string{id2}},
		{strings.ToLower(evm), []string{id2}},
		{"0x" + strings.ToUpper(evm[2:]), []string{id2}},
		{"$" + tick, []string{id3, id1}},
		{"$" + strings.ToLower(tick), []string{id3, id1}},
		{tick, []string{id3, id1}},                  // a bare ticker in capitals is a cashtag
		{strings.ToLower(tick), []string{id3, id1}}, // lowercase: the word, which $tags also carry
		{w1, []string{id2, id1}},
		{w1 + " " + w2, []string{id2}},
		{strings.ToUpper(w2) + "!", []string{id3, id2}},
		{w1 + " nothingelse" + testkit.RandomHex(3), nil},
		{"?!", nil},
	} {
		p := cl.page(t, map[string]any{"query": c.q})
		if !slices.Equal(p.ids, c.want) && !(len(p.ids) == 0 && len(c.want) == 0) {
			t.Errorf("query %q: %v, want %v", c.q, p.ids, c.want)
		}
	}
}

// testSearchPagination: 450 posts page as 200, 200, 50 with cursors;
// unrecognised cursors start again from the newest.
func testSearchPagination(t *testing.T, s *server) {
	c := s.csClient(t)
	word := csWord("page")
	a := csAuthor{id: "777", handle: "cs_pager" + testkit.RandomHex(3), name: "P", followers: 3}
	now := time.Now()
	var obs []map[string]any
	var want []string
	for i := 0; i < 450; i++ {
		p := csPost(csID(), now.Add(-time.Duration(i)*time.Minute), "post", fmt.Sprintf("%s number %d", word, i), a)
		obs = append(obs, p)
		want = append(want, p["id"].(string))
	}
	s.send(t, toAny(obs)...)
	s.sync(t)
	if got := c.all(t, map[string]any{"query": word}); len(got) != 450 {
		t.Fatalf("%d posts searchable after Sync, want 450", len(got))
	}
	var got []string
	var sizes []int
	body := map[string]any{"query": word}
	for {
		p := c.page(t, body)
		got, sizes = append(got, p.ids...), append(sizes, len(p.ids))
		if !p.more {
			break
		}
		body["cursor"] = p.next
	}
	if !slices.Equal(got, want) || fmt.Sprint(sizes) != "[200 200 50]" {
		t.Errorf("pages %v; ids in order: %v", sizes, slices.Equal(got, want))
	}
	first := c.page(t, map[string]any{"query": word})
	for _, cur := range []any{"junk", "", nil, 12, first.next + "x"} {
		p := c.page(t, map[string]any{"query": word, "cursor": cur})
		if len(p.ids) != 200 || p.ids[0] != want[0] {
			t.Errorf("cursor %v: first id %v, want a restart from the newest", cur, p.ids[:1])
		}
	}
	// A cursor of another query is not recognised either.
	p := c.page(t, map[string]any{"query": word + " number", "cursor": first.next})
	if len(p.ids) == 0 || p.ids[0] != want[0] {
		t.Errorf("cursor of another query: %v", p.ids[:1])
	}
}

// testSearchWindows: default 24 h from memory, older windows from the
// store, every time format, until exclusive, the echo.
func testSearchWindows(t *testing.T, s *server) {
	cl := s.csClient(t)
	word := csWord("win")
	tick := csTicker()
	a := csAuthor{id: "888", handle: "cs_windows" + testkit.RandomHex(3), name: "W", followers: 3}
	now := time.Now().UTC().Truncate(time.Millisecond)
	recent := csPost(csID(), now.Add(-2*time.Hour), "post", word+" recent $"+tick, a)
	dayOld := csPost(csID(), now.Add(-30*time.Hour), "post", word+" day old $"+tick, a)
	old := csPost(csID(), now.Add(-72*time.Hour), "post", word+" three days $"+tick, a)
	s.send(t, recent, dayOld, old)
	r, d, o := recent["id"].(string), dayOld["id"].(string), old["id"].(string)
	cl.wait(t, map[string]any{"query": word}, 1)
	since4d := now.Add(-96 * time.Hour)
	cl.wait(t, map[string]any{"query": "$" + tick, "since": since4d.Format(time.RFC3339)}, 3)
	for _, c := range []struct {
		body map[string]any
		want []string
	}{
		{map[string]any{"query": word}, []string{r}},
		{map[string]any{"query": word, "since": since4d.Format(time.RFC3339)}, []string{r, d, o}},
		{map[string]any{"query": word, "since": since4d.Format("2006-01-02")}, []string{r, d, o}},
		{map[string]any{"query": word, "since": strconv.FormatInt(since4d.Unix(), 10)}, []string{r, d, o}},
		{map[string]any{"query": word, "since": strconv.FormatInt(since4d.UnixMilli(), 10)}, []string{r, d, o}},
		{map[string]any{"query": word, "since": since4d.Unix()}, []string{r, d, o}},
		{map[string]any{"query": word, "since": now.Add(-48 * time.Hour).Format(time.RFC3339Nano)}, []string{r, d}},
		// until is exclusive.
		{map[string]any{"query": word, "since": since4d.Format(time.RFC3339), "until": now.Add(-2 * time.Hour).Format(time.RFC3339Nano)}, []string{d, o}},
		{map[string]any{"query": word, "since": since4d.Format(time.RFC3339), "until": strconv.FormatInt(now.Add(-2*time.Hour).UnixMilli()+1, 10)}, []string{r, d, o}},
		{map[string]any{"query": "$" + tick, "since": since4d.Format(time.RFC3339), "until": now.Add(-48 * time.Hour).Format(time.RFC3339)}, []string{o}},
		// until within the day needs no since.
		{map[string]any{"query": word, "until": now.Add(-time.Hour).Format(time.RFC3339)}, []string{r}},
		{map[string]any{"query": word, "until": now.Add(-3 * time.Hour).Format(time.RFC3339)}, nil},
	} {
		p := cl.page(t, c.body)
		if !slices.Equal(p.ids, c.want) && !(len(p.ids) == 0 && len(c.want) == 0) {
			t.Errorf("%v: %v, want %v", c.body, p.ids, c.want)
		}
		for _, f := range []string{"since", "until"} {
			v, sent := c.body[f]
			raw, echoed := p.data[f]
			if sent != echoed {
				t.Errorf("%v: %s echoed %v, want %v", c.body, f, echoed, sent)
				continue
			}
			if sent {
				w, _ := json.Marshal(v)
				if string(raw) != string(w) {
					t.Errorf("%v: %s echoed as %s, want %s", c.body, f, raw, w)
				}
			}
		}
	}
}
