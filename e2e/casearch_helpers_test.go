package e2e

// Helpers of the CA Search end-to-end tests (spec 2 "CA Search").

import (
	"encoding/json"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/alertd/alertd/internal/testkit"
)

var csSeq atomic.Int64

// csID returns a fresh numeric post id, increasing.
func csID() string {
	return strconv.FormatInt(1_900_000_000_000_000_000+time.Now().UnixNano()%1e15*1000+csSeq.Add(1)%1000, 10)
}

// csWord returns a word no other test uses.
func csWord(prefix string) string { return prefix + testkit.RandomHex(5) }

// csTicker returns a cashtag body (letters, up to 10) no other test uses.
func csTicker() string {
	const letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	h := testkit.RandomHex(4)
	b := []byte{'Q'}
	for i := 0; i < len(h); i++ {
		b = append(b, letters[int(h[i])%26])
	}
	return string(b)
}

// csAuthor is the author block of a post observation.
type csAuthor struct {
	id, handle, name string
	followers        int64
}

// csPost builds a post observation (the tweet payload of spec 2 plus kind).
func csPost(id string, created time.Time, typ, text string, a csAuthor) map[string]any {
	blue := "blue"
	return map[string]any{
		"kind": "post", "id": id, "created_at": created.UnixMilli(), "type": typ, "text": text,
		"cashtags": []string{}, "media": []any{}, "mentions": []string{},
		"author": map[string]any{"id": a.id, "handle": a.handle, "name": a.name, "avatar": "https://pbs.example.com/" + a.handle + ".jpg",
			"description": "bio of " + a.handle, "verification": map[string]any{"is_verified": true, "type": blue},
			"affiliation": nil, "stats": map[string]any{"followers": a.followers, "following": 7}},
		"in_reply_to": nil, "quoted_tweet": nil, "possibly_sensitive": false, "conversation_id": id,
		"entities": map[string]any{"hashtags": []any{}, "urls": []any{}, "symbols": []any{}},
		"metrics":  map[string]any{"likes": 5, "retweets": 2, "replies": 1, "quotes": 0, "views": "99"},
	}
}

// csSearch is POST /v1/search with key; body is marshalled unless a string.
func (s *server) csSearch(t *testing.T, key string, body any) resp {
	t.Helper()
	var raw string
	switch b := body.(type) {
	case string:
		raw = b
	default:
		j, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		raw = string(j)
	}
	h := hdr{"Content-Type": "application/json"}
	if key != "" {
		h["Authorization"] = "Bearer " + key
	}
	return s.do(t, "POST", "/v1/search", h, raw)
}

// csPage is one decoded 200 answer.
type csPage struct {
	data   obj
	tweets []obj
	ids    []string
	next   string // "" when null
	more   bool
}

func csDecode(t *testing.T, r resp) csPage {
	t.Helper()
	d := r.wantOK(t, 200)
	p := csPage{data: d, more: d.boolean(t, "has_next_page")}
	for _, raw := range d.array(t, "tweets") {
		o := decodeObj(t, raw, "tweet")
		p.tweets = append(p.tweets, o)
		p.ids = append(p.ids, o.str(t, "id"))
	}
	if !d.isNull("next_cursor") {
		p.next = d.str(t, "next_cursor")
	}
	if p.more != (p.next != "") {
		t.Errorf("has_next_page %v with next_cursor %s", p.more, d["next_cursor"])
	}
	return p
}

// csKey issues a dt key with the CA Search add-on of the given allowance.
func (s *server) csKey(t *testing.T, daily int) issued {
	t.Helper()
	return s.issue(t, map[string]any{"product": "dt", "plan": "enterprise", "ca_search_daily_limit": daily})
}

// csClient searches with keys of fresh accounts so the quota never
// refuses it: a new account every 9 calls (below 10 a second and 20 a
// minute). Tests of the quota itself use csSearch with one key.
type csClient struct {
	s   *server
	key string
	n   int
}

func (s *server) csClient(t *testing.T) *csClient {
	t.Helper()
	return &csClient{s: s, key: s.csKey(t, 5000).key}
}

func (c *csClient) search(t *testing.T, body any) resp {
	t.Helper()
	if c.n == 9 {
		c.key, c.n = c.s.csKey(t, 5000).key, 0
	}
	c.n++
	return c.s.csSearch(t, c.key, body)
}

// page runs body and decodes the 200 answer.
func (c *csClient) page(t *testing.T, body any) csPage {
	t.Helper()
	return csDecode(t, c.search(t, body))
}

// all pages through body and returns every id, in order.
func (c *csClient) all(t *testing.T, body map[string]any) []string {
	t.Helper()
	var ids []string
	b := map[string]any{}
	for k, v := range body {
		b[k] = v
	}
	for page := 0; page < 50; page++ {
		p := c.page(t, b)
		ids = append(ids, p.ids...)
		if !p.more {
			return ids
		}
		b["cursor"] = p.next
	}
	t.Fatalf("%v: more than 50 pages", body)
	return nil
}

// wait searches body once the engine has handled what it accepted (Sync):
// its first page must hold want posts.
func (c *csClient) wait(t *testing.T, body any, want int) csPage {
	t.Helper()
	c.s.sync(t)
	p := c.page(t, body)
	if len(p.ids) != want {
		t.Fatalf("search %v after Sync: %v, want %d posts", body, p.ids, want)
	}
	return p
}

// csQuota returns the four quota headers.
func csQuota(r resp) [4]string {
	return [4]string{r.header.Get("X-RateLimit-Daily-Limit"), r.header.Get("X-RateLimit-Daily-Remaining"),
		r.header.Get("X-RateLimit-Minute-Limit"), r.header.Get("X-RateLimit-Minute-Remaining")}
}
