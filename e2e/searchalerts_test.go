package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestSearchAlerts: queries, the plan's limit and the flush schedule
// (spec 3).
func TestSearchAlerts(t *testing.T) {
	forEachStore(t, func(t *testing.T, m storeMode) {
		s := startServer(t, serverOpts{dbURL: m.DatabaseURL(t), configure: streamsMain})
		subtests{
			{"SAQueries", testSAQueries},
			{"SALimit", testSALimit},
			{"SASchedule", testSASchedule},
		}.run(t, s)
	})
}

var saQueryKeys = []string{"query_id", "query_text", "interval", "created_at"}

func (s *server) saList(t *testing.T, key string) []obj {
	t.Helper()
	d := s.call(t, "GET", "/v1/sa/queries", key, nil).wantOK(t, 200)
	d.wantKeys(t, "queries", "queries", "count", "max_queries")
	if d.num(t, "max_queries") != 20 {
		t.Errorf("max_queries %v, want 20", d["max_queries"])
	}
	var out []obj
	for _, raw := range d.array(t, "queries") {
		o := decodeObj(t, raw, "query")
		o.wantKeys(t, "query", saQueryKeys...)
		out = append(out, o)
	}
	if d.num(t, "count") != float64(len(out)) {
		t.Errorf("count %v, %d queries", d["count"], len(out))
	}
	return out
}

func (s *server) saStatus(t *testing.T, key string) int {
	t.Helper()
	d := s.call(t, "GET", "/v1/sa/status", key, nil).wantOK(t, 200)
	d.wantKeys(t, "sa status", "subscription_status", "plan", "expires_at", "query_count", "max_queries")
	if d.str(t, "subscription_status") != "active" || d.num(t, "max_queries") != 20 {
		t.Errorf("sa status %v", d)
	}
	return int(d.num(t, "query_count"))
}

// testSAQueries: query_text 1 to 200 characters, intervals, duplicates,
// removal, status.
func testSAQueries(t *testing.T, s *server) {
	key := s.issue(t, map[string]any{"product": "sa"}).key
	if len(s.saList(t, key)) != 0 || s.saStatus(t, key) != 0 {
		t.Fatal("queries at first")
	}
	s.call(t, "POST", "/v1/sa/queries", key, `{"interval":"1m"}`).wantPlain(t, 422)
	s.call(t, "POST", "/v1/sa/queries", key, `{"query_text":`).wantPlain(t, 400)
	s.call(t, "POST", "/v1/sa/queries", key, `"solana"`).wantPlain(t, 400)
	for _, bad := range []map[string]any{
		{"query_text": ""}, {"query_text": "   "}, {"query_text": 5}, {"query_text": nil},
		{"query_text": strings.Repeat("a", 201)}, {"query_text": strings.Repeat("é", 201)},
		{"query_text": "!!! ???"}, {"query_text": "solana", "interval": "2m"},
		{"query_text": "solana", "interval": 60}, {"query_text": "solana", "interval": "1M"},
	} {
		s.call(t, "POST", "/v1/sa/queries", key, bad).wantErr(t, 400, "bad_request")
	}
	start := time.Now().Add(-time.Second)
	d := s.call(t, "POST", "/v1/sa/queries", key, map[string]any{"query_text": "  Solana ETF  "}).wantOK(t, 201)
	d.wantKeys(t, "created query", saQueryKeys...)
	id := d.num(t, "query_id")
	if id < 1 || d.str(t, "query_text") != "Solana ETF" || d.str(t, "interval") != "5m" {
		t.Errorf("created query %v (default interval 5m)", d)
	}
	if c, err := parseRFC3339(d.str(t, "created_at")); err != nil || c.Before(start) {
		t.Errorf("created_at %s", d["created_at"])
	}
	for _, iv := range []string{"1m", "10m", "30m", "1h", "6h"} {
		q := s.call(t, "POST", "/v1/sa/queries", key, map[string]any{"query_text": "word " + iv, "interval": iv}).wantOK(t, 201)
		if q.str(t, "interval") != iv {
			t.Errorf("interval %s stored as %s", iv, q["interval"])
		}
	}
	long := strings.Repeat("é", 199) + "x"
	s.call(t, "POST", "/v1/sa/queries", key, map[string]any{"query_text": long}).wantOK(t, 201)
	// The same words in any order and case are the same query.
	r := s.call(t, "POST", "/v1/sa/queries", key, map[string]any{"query_text": "etf, SOLANA", "interval": "1m"})
	r.wantErr(t, 409, "conflict")
	l := s.saList(t, key)
	if len(l) != 7 || l[0].num(t, "query_id") != id || l[6].str(t, "query_text") != long {
		t.Fatalf("queries %v", l)
	}
	wantJSON(t, "listed query", mustJSON(t, l[0]), d)
	if n := s.saStatus(t, key); n != 7 {
		t.Errorf("query_count %d, want 7", n)
	}
	other := s.issue(t, map[string]any{"product": "sa"}).key
	sid := fmt.Sprint(int64(id))
	s.call(t, "DELETE", "/v1/sa/queries/"+sid, other, nil).wantErr(t, 404, "not_found")
	s.call(t, "DELETE", "/v1/sa/queries/x1", key, nil).wantErr(t, 404, "not_found")
	if d := s.call(t, "DELETE", "/v1/sa/queries/"+sid, key, nil).wantOK(t, 200); d.num(t, "removed") != id {
		t.Errorf("removed %v", d)
	}
	s.call(t, "DELETE", "/v1/sa/queries/"+sid, key, nil).wantErr(t, 404, "not_found")
	if n := s.saStatus(t, key); n != 6 {
		t.Errorf("query_count %d after removal, want 6", n)
	}
	s.call(t, "POST", "/v1/sa/queries", key, map[string]any{"query_text": "etf, SOLANA", "interval": "1m"}).wantOK(t, 201)
}

// testSALimit: up to 20 queries; the 21st gets 403.
func testSALimit(t *testing.T, s *server) {
	key := s.issue(t, map[string]any{"product": "sa"}).key
	var ids []float64
	for i := range 20 {
		ids = append(ids, s.call(t, "POST", "/v1/sa/queries", key, map[string]any{"query_text": fmt.Sprint("limit word", i)}).wantOK(t, 201).num(t, "query_id"))
	}
	s.call(t, "POST", "/v1/sa/queries", key, map[string]any{"query_text": "one too many"}).wantErr(t, 403, "forbidden")
	if n := s.saStatus(t, key); n != 20 {
		t.Errorf("query_count %d, want 20", n)
	}
	s.call(t, "DELETE", "/v1/sa/queries/"+fmt.Sprint(int64(ids[3])), key, nil).wantOK(t, 200)
	s.call(t, "POST", "/v1/sa/queries", key, map[string]any{"query_text": "one too many"}).wantOK(t, 201)
}

var saAlertKeys = []string{"query_id", "query_text", "tweet_id", "full_text", "screen_name", "display_name", "tweet_url"}

// testSASchedule: matches (all words, any case, whole words) are collected
// and delivered on each query's schedule, not in real time: a 1m query
// (1 s here) delivers while a 6h query on the same posts stays silent;
// each post is alerted once per query.
func testSASchedule(t *testing.T, s *server) {
	key := s.issue(t, map[string]any{"product": "sa"}).key
	other := s.issue(t, map[string]any{"product": "sa"}).key
	a, b := word("alpha"), word("beta")
	fast := s.call(t, "POST", "/v1/sa/queries", key, map[string]any{"query_text": a + " " + strings.ToUpper(b), "interval": "1m"}).wantOK(t, 201)
	slow := s.call(t, "POST", "/v1/sa/queries", key, map[string]any{"query_text": a, "interval": "6h"}).wantOK(t, 201)
	s.call(t, "POST", "/v1/sa/queries", other, map[string]any{"query_text": word("gamma"), "interval": "1m"}).wantOK(t, 201)
	fastID := fast.num(t, "query_id")
	if slow.str(t, "interval") != "6h" {
		t.Fatalf("slow query %v", slow)
	}
	w := s.streamDial(t, "sa", key)
	wo := s.streamDial(t, "sa", other)

	h := newHandle("sa")
	p1 := postObs(h, "post", "Breaking: $"+strings.ToUpper(a)+" and "+b+"! big news")
	stream := postObs(h, "reply", b+" first, then "+a)
	miss1 := postObs(h, "post", a+" only")   // slow's, not fast's
	miss2 := postObs(h, "post", a+"x "+b)    // not whole words
	p1again := postObs(h, "post", "ignored") // the same post observed again
	for k, v := range p1 {
		p1again[k] = v
	}
	p1again["text"] = p1["text"].(string) + " (edited)"
	s.send(t, p1, stream, miss1, miss2, p1again)

	check := func(raw []byte, post jsonMap) {
		t.Helper()
		d := streamFrame(t, raw, "search_alert")
		d.wantKeys(t, "search alert", saAlertKeys...)
		id := post["id"].(string)
		wantJSON(t, "alert", mustJSON(t, d), jsonMap{"query_id": fastID, "query_text": a + " " + strings.ToUpper(b),
			"tweet_id": id, "full_text": post["text"], "screen_name": h, "display_name": "Name of " + h,
			"tweet_url": "https://x.com/" + h + "/status/" + id})
	}
	// The 1m query flushes both matches; the 6h query (same words and
	// more posts) has delivered nothing by then.
	check(w.Next(t), p1)
	check(w.Next(t), stream)
	// Once more after the flush: p1 and stream again bring nothing, a new post
	// is delivered at the next flush.
	p3 := postObs(h, "quote", strings.ToUpper(b)+" "+a)
	s.send(t, p1again, stream, p3)
	check(w.Next(t), p3)
	// The other account's socket gets its own query's alerts only.
	g := postObs(h, "post", "about "+strings.ToUpper(a)+" "+b)
	s.send(t, g)
	check(w.Next(t), g)
	gm := s.call(t, "GET", "/v1/sa/queries", other, nil).wantOK(t, 200).array(t, "queries")
	gq := decodeObj(t, gm[0], "query")
	gp := postObs(h, "post", "news of "+gq.str(t, "query_text"))
	s.send(t, gp)
	d := streamFrame(t, wo.Next(t), "search_alert")
	if d.str(t, "tweet_id") != gp["id"] || d.num(t, "query_id") != gq.num(t, "query_id") {
		t.Fatalf("other account's first alert %v, want its own query's", d)
	}
	// A removed query stops alerting, and what it collected is dropped: the
	// next alert on the socket is of another query, on a post both match.
	c := word("delta")
	third := s.call(t, "POST", "/v1/sa/queries", key, map[string]any{"query_text": c, "interval": "1m"}).wantOK(t, 201)
	p4 := postObs(h, "post", a+" "+b+" unflushed")
	s.send(t, p4)
	s.call(t, "DELETE", "/v1/sa/queries/"+fmt.Sprint(int64(fastID)), key, nil).wantOK(t, 200)
	p5 := postObs(h, "post", a+" "+b+" "+c)
	s.send(t, p5)
	d = streamFrame(t, w.Next(t), "search_alert")
	if d.num(t, "query_id") != third.num(t, "query_id") || d.str(t, "tweet_id") != p5["id"] {
		t.Fatalf("alert after the removal: %v, want the third query's alert of the last post", d)
	}
	if n := s.saStatus(t, key); n != 2 {
		t.Errorf("query_count %d, want 2 (slow and third)", n)
	}
}
