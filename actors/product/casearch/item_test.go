package casearch

import (
	stdjson "encoding/json"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/alertd/alertd/protocol"
	json "github.com/goccy/go-json"
)

type fakePeople map[string][2]string // handle or id -> {id or location, name}

func (f fakePeople) Location(id string) (*string, bool) {
	v, ok := f["id:"+id]
	if !ok {
		return nil, false
	}
	return &v[0], true
}

func (f fakePeople) Mentioned(h string) (string, string, bool) {
	v, ok := f[h]
	return v[0], v[1], ok
}

func decodeItem(t *testing.T, item []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := stdjson.Unmarshal(append(append([]byte(nil), item...), '}'), &m); err != nil {
		t.Fatalf("item is not JSON: %v\n%s}", err, item)
	}
	return m
}

func keysOf(m map[string]any) []string {
	var k []string
	for n := range m {
		k = append(k, n)
	}
	return k
}

func sameKeys(t *testing.T, what string, m map[string]any, want ...string) {
	t.Helper()
	if len(m) != len(want) {
		t.Errorf("%s: keys %v, want %v", what, keysOf(m), want)
		return
	}
	for _, k := range want {
		if _, ok := m[k]; !ok {
			t.Errorf("%s: no %q in %v", what, k, keysOf(m))
		}
	}
}

func i64(v int64) *int64   { return &v }
func str(s string) *string { return &s }

var itemKeys = []string{"type", "id", "url", "text", "createdAt", "retweetCount", "replyCount", "likeCount",
	"quoteCount", "viewCount", "bookmarkCount", "lang", "isReply", "inReplyToId", "inReplyToUsername",
	"conversationId", "author", "entities"}

func TestRenderPost(t *testing.T) {
	blue := "blue"
	tw := &protocol.Tweet{
		ID: "1860000000000000001", CreatedAt: time.Date(2026, 5, 10, 7, 0, 30, 0, time.UTC).UnixMilli(), Type: "quote",
		Text: "gm @Alice and @nobody_here \"quoted\" $WIF", ConversationID: "1860000000000000001",
		Author: protocol.TweetAuthor{ID: "42", Handle: "solwhale", Name: "Sol Whale", Avatar: "https://a/p.jpg",
			Description: "on-chain", Verification: protocol.Verification{IsVerified: true, Type: &blue},
			Stats: protocol.AuthorStats{Followers: 48210, Following: 311}},
		QuotedTweet: &protocol.QuotedTweet{ID: "77", Text: "orig", Author: protocol.QuotedAuthor{Handle: "bob", Name: str("Bob"), Avatar: "https://a/b.jpg"}},
		Entities:    protocol.TweetEntities{Hashtags: stdjson.RawMessage(`[{"text":"x","indices":[1,2]}]`), URLs: nil},
		Metrics:     protocol.TweetMetrics{Likes: i64(3), Retweets: i64(0), Views: str("57")},
	}
	people := fakePeople{"id:42": {"Lisbon"}, "alice": {"99", "Alice A"}}
	r := Render(tw, people, nil)
	m := decodeItem(t, r.AppendItem(nil))
	sameKeys(t, "item", m, append(itemKeys, "quoted_tweet")...)
	for k, want := range map[string]any{
		"type": "quote", "id": tw.ID, "url": "https://x.com/solwhale/status/1860000000000000001", "text": tw.Text,
		"createdAt": "Sun May 10 07:00:30 +0000 2026", "retweetCount": 0.0, "replyCount": nil, "likeCount": 3.0,
		"quoteCount": nil, "viewCount": 57.0, "bookmarkCount": nil, "lang": nil, "isReply": false,
		"inReplyToId": nil, "inReplyToUsername": nil, "conversationId": tw.ID,
	} {
		if !reflect.DeepEqual(m[k], want) {
			t.Errorf("%s = %#v, want %#v", k, m[k], want)
		}
	}
	author := m["author"].(map[string]any)
	sameKeys(t, "author", author, "userName", "name", "id", "followers", "following", "isBlueVerified", "profilePicture",
		"description", "location", "createdAt", "statusesCount", "mediaCount", "favouritesCount")
	if author["userName"] != "solwhale" || author["followers"] != 48210.0 || author["following"] != 311.0 ||
		author["isBlueVerified"] != true || author["location"] != "Lisbon" || author["profilePicture"] != "https://a/p.jpg" ||
		author["name"] != "Sol Whale" || author["id"] != "42" || author["description"] != "on-chain" || author["createdAt"] != nil {
		t.Errorf("author %v", author)
	}
	ents := m["entities"].(map[string]any)
	sameKeys(t, "entities", ents, "hashtags", "urls", "user_mentions")
	if len(ents["hashtags"].([]any)) != 1 || len(ents["urls"].([]any)) != 0 {
		t.Errorf("entities %v", ents)
	}
	ms := ents["user_mentions"].([]any)
	if len(ms) != 2 {
		t.Fatalf("user_mentions %v", ms)
	}
	if a := ms[0].(map[string]any); a["screen_name"] != "Alice" || a["id_str"] != "99" || a["name"] != "Alice A" ||
		!reflect.DeepEqual(a["indices"], []any{3.0, 9.0}) {
		t.Errorf("mention %v", a)
	}
	if b := ms[1].(map[string]any); b["screen_name"] != "nobody_here" || b["id_str"] != nil {
		t.Errorf("mention %v", b)
	}
	q := m["quoted_tweet"].(map[string]any)
	sameKeys(t, "quoted_tweet", q, "id", "url", "text", "author", "retweetCount", "replyCount", "likeCount", "quoteCount", "viewCount", "bookmarkCount")
	if q["id"] != "77" || q["url"] != "https://x.com/bob/status/77" || q["author"].(map[string]any)["name"] != "Bob" {
		t.Errorf("quoted_tweet %v", q)
	}
	if got := string(r.Head[r.TextOff : r.TextOff+r.TextLen]); got != `"gm @Alice and @nobody_here \"quoted\" $WIF"` {
		t.Errorf("text span %s", got)
	}
	if r.Parent != "" || r.Carried != nil {
		t.Errorf("a quote has a parent: %+v", r)
	}
}

func TestRenderReplyAndRepost(t *testing.T) {
	reply := &protocol.Tweet{ID: "2", Type: "reply", Text: "@bob agreed", Author: protocol.TweetAuthor{Handle: "al"},
		InReplyTo:   &protocol.InReplyTo{TweetID: "1", User: "bob"},
		QuotedTweet: &protocol.QuotedTweet{ID: "1", Text: "parent text", Author: protocol.QuotedAuthor{Handle: "bob"}}}
	r := Render(reply, nil, nil)
	m := decodeItem(t, r.AppendItem(nil))
	sameKeys(t, "reply", m, itemKeys...) // the carried parent is not a quote
	if m["isReply"] != true || m["inReplyToId"] != "1" || m["inReplyToUsername"] != "bob" || m["conversationId"] != nil {
		t.Errorf("reply %v", m)
	}
	if r.Parent != "1" || string(r.Carried) != `{"id":"1","text":"parent text","author":{"userName":"bob"}}` {
		t.Errorf("parent %q carried %s", r.Parent, r.Carried)
	}
	repost := &protocol.Tweet{ID: "3", Type: "repost", Text: "RT @bob: parent text", Author: protocol.TweetAuthor{Handle: "al"},
		QuotedTweet: &protocol.QuotedTweet{ID: "1", Text: "parent text", Author: protocol.QuotedAuthor{Handle: "bob"}}}
	rr := Render(repost, nil, nil)
	m = decodeItem(t, rr.AppendItem(nil))
	sameKeys(t, "repost", m, append(itemKeys, "retweeted_tweet")...)
	if rt := m["retweeted_tweet"].(map[string]any); rt["id"] != "1" || rt["author"].(map[string]any)["name"] != nil {
		t.Errorf("retweeted_tweet %v", rt)
	}
}

func TestAppendData(t *testing.T) {
	mk := func(id, handle string, followers int64, parent bool) Hit {
		tw := &protocol.Tweet{ID: id, Type: "post", Text: "t" + id, Author: protocol.TweetAuthor{Handle: handle, Stats: protocol.AuthorStats{Followers: followers}}}
		if parent {
			tw.Type, tw.InReplyTo = "reply", &protocol.InReplyTo{TweetID: "p" + id}
		}
		return Hit{Key: Key{int64(len(id)), TieOf(id)}, ID: id, Handle: handle, Followers: followers, R: Render(tw, nil, nil)}
	}
	hits := []Hit{mk("9", "a", 10, true), mk("8", "b", 500, false), mk("7", "a", 10, false), mk("6", "c", 500, false),
		mk("5", "d", 1, false), mk("4", "b", 500, false), mk("3", "e", 2, false)}
	req := Request{SinceRaw: []byte(`"2026-05-01"`), UntilRaw: []byte(`1778371200`), fp: 5}
	res := Result{Hits: hits, HasNext: true, Next: hits[6].Key, Originals: map[int][]byte{0: AppendOriginal(nil, "p9", "parent", "zed")}}
	var data map[string]any
	out := AppendData(nil, &req, &res)
	if err := stdjson.Unmarshal(out, &data); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	sameKeys(t, "data", data, "tweets", "summary", "window_hours", "since", "until", "has_next_page", "next_cursor")
	if data["window_hours"] != 24.0 || data["since"] != "2026-05-01" || data["until"] != 1778371200.0 || data["has_next_page"] != true {
		t.Errorf("data %v", data)
	}
	if k, ok := DecodeCursor(data["next_cursor"].(string), 5); !ok || k != hits[6].Key {
		t.Errorf("next_cursor %v decodes to %v %v, want %v", data["next_cursor"], k, ok, hits[6].Key)
	}
	tweets := data["tweets"].([]any)
	if len(tweets) != 7 {
		t.Fatalf("%d tweets", len(tweets))
	}
	if o := tweets[0].(map[string]any)["original"]; !reflect.DeepEqual(o, map[string]any{"id": "p9", "text": "parent", "author": map[string]any{"userName": "zed"}}) {
		t.Errorf("original %v", o)
	}
	if _, ok := tweets[1].(map[string]any)["original"]; ok {
		t.Errorf("original on a post without one")
	}
	sum := data["summary"].(map[string]any)
	want := map[string]any{"total_tweets": 7.0, "unique_authors": 5.0, "total_reach": 1523.0,
		"top_callers": []any{"@b", "@c", "@b", "@a", "@a"}}
	if !reflect.DeepEqual(sum, want) {
		t.Errorf("summary %v\nwant %v", sum, want)
	}
	// An empty page: no echo, no cursor, empty callers.
	out = AppendData(nil, &Request{}, &Result{})
	if string(out) != `{"tweets":[],"summary":{"total_tweets":0,"unique_authors":0,"total_reach":0,"top_callers":[]},"window_hours":24,"has_next_page":false,"next_cursor":null}` {
		t.Errorf("empty page %s", out)
	}
}

// FuzzAppendString: the encoding is JSON that decodes to the input (invalid
// UTF-8 as U+FFFD), and agrees with the rendered item's text span.
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "a\"b\\c", "\x00\x1f\n\r\t", "é東🚀", "\xff\xfe", "\u2028\u2029", "<script>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b := appendString(nil, s)
		var got string
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatalf("%q -> %s: %v", s, b, err)
		}
		if want := strings.ToValidUTF8(s, "\uFFFD"); utf8.ValidString(s) && got != want {
			t.Fatalf("%q -> %s -> %q", s, b, got)
		}
		r := Render(&protocol.Tweet{ID: s, Text: s, Type: s, Author: protocol.TweetAuthor{Handle: s, Name: s}, CreatedAt: math.MaxInt32}, nil, NewInterner(2))
		if !stdjson.Valid(append(r.AppendItem(nil), '}')) {
			t.Fatalf("item of %q is not JSON", s)
		}
	})
}

func TestEachMention(t *testing.T) {
	h50, h51 := strings.Repeat("a", 50), strings.Repeat("b", 51)
	for _, c := range []struct{ text, want string }{
		{"@alice hi", "alice[0 6]"},
		{"hi @Bob_1, @carol!", "Bob_1[3 9] carol[11 17]"},
		{"mail a@b.c or @", ""},
		{"@" + h50 + " @" + h51, h50 + "[0 51]"},
		{"@@x", "x[1 3]"},
		{"é@x", "x[2 4]"},
	} {
		var got []string
		eachMention(c.text, func(h string, s, e int) { got = append(got, fmt.Sprintf("%s[%d %d]", h, s, e)) })
		if strings.Join(got, " ") != c.want {
			t.Errorf("%q: %v, want %s", c.text, got, c.want)
		}
	}
}

func TestInterner(t *testing.T) {
	in := NewInterner(2)
	a := protocol.TweetAuthor{ID: "1", Handle: "al", Name: "Al"}
	r1 := Render(&protocol.Tweet{ID: "1", Text: "x", Author: a}, nil, in)
	r2 := Render(&protocol.Tweet{ID: "2", Text: "y", Author: a}, nil, in)
	if unsafe.StringData(r1.Author) != unsafe.StringData(r2.Author) {
		t.Errorf("the same author block is not shared")
	}
	a.Stats.Followers = 5
	r3 := Render(&protocol.Tweet{ID: "3", Text: "z", Author: a}, nil, in)
	if r3.Author == r1.Author || !strings.Contains(r3.Author, `"followers":5`) {
		t.Errorf("a changed author block was shared: %s", r3.Author)
	}
	in.Intern([]byte("third")) // over the bound: starts afresh
	if len(in.m) != 1 || r1.Author == "" {
		t.Errorf("bound: %d entries", len(in.m))
	}
	var none *Interner
	if none.Intern([]byte("x")) != "x" {
		t.Errorf("nil interner")
	}
}
