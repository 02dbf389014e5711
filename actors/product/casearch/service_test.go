package casearch

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
	json "github.com/goccy/go-json"
)

// memStore is the search part of persistence.Store in memory, with the
// contract's semantics; within one millisecond it returns posts in reverse
// id order on purpose (the contract leaves that order open).
type memStore struct {
	mu    sync.Mutex
	posts map[string]persistence.Post
	terms map[string]map[string]bool // term -> post ids
	fail  error
	reads int
}

func newMemStore() *memStore {
	return &memStore{posts: map[string]persistence.Post{}, terms: map[string]map[string]bool{}}
}

func (m *memStore) save(tw *protocol.Tweet) {
	data, _ := json.Marshal(tw)
	m.mu.Lock()
	defer m.mu.Unlock()
	at := time.UnixMilli(tw.CreatedAt).UTC()
	m.posts[tw.ID] = persistence.Post{ID: tw.ID, Handle: tw.Author.Handle, CreatedAt: at, DetectedAt: at, Data: data}
}

func (m *memStore) PutPostTerms(_ context.Context, ps []persistence.PostTerms) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, p := range ps {
		for _, t := range p.Terms {
			if m.terms[t] == nil {
				m.terms[t] = map[string]bool{}
			}
			m.terms[t][p.PostID] = true
		}
	}
	return nil
}

func (m *memStore) SearchPosts(_ context.Context, q persistence.SearchQuery) ([]persistence.Post, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.reads++
	if m.fail != nil {
		return nil, m.fail
	}
	var out []persistence.Post
	for id, p := range m.posts {
		ok := !p.CreatedAt.Before(q.Since) && (q.Through.IsZero() || !p.CreatedAt.After(q.Through))
		for _, t := range q.Terms {
			ok = ok && m.terms[t][id]
		}
		if ok {
			out = append(out, p)
		}
	}
	slices.SortFunc(out, func(a, b persistence.Post) int {
		if c := b.CreatedAt.Compare(a.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID) // not the index's order
	})
	return out[:min(len(out), q.Limit)], nil
}

func (m *memStore) PostsByIDs(_ context.Context, ids []string) ([]persistence.Post, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.fail != nil {
		return nil, m.fail
	}
	var out []persistence.Post
	for _, id := range ids {
		if p, ok := m.posts[id]; ok {
			out = append(out, p)
		}
	}
	return out, nil
}

func (m *memStore) PostsCreatedSince(_ context.Context, since, afterAt time.Time, afterID string, limit int) ([]persistence.Post, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.fail != nil {
		return nil, m.fail
	}
	var out []persistence.Post
	for _, p := range m.posts {
		if !p.CreatedAt.Before(since) && (p.CreatedAt.After(afterAt) || p.CreatedAt.Equal(afterAt) && p.ID > afterID) {
			out = append(out, p)
		}
	}
	slices.SortFunc(out, func(a, b persistence.Post) int {
		if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out[:min(len(out), limit)], nil
}

// fixture is a service over a memStore whose writer jobs run at once.
type fixture struct {
	sv    *Service
	ix    *Index
	store *memStore
	clock *clock
}

type syncJobs struct{}

func (syncJobs) Do(_ string, f func(context.Context) error) { _ = f(context.Background()) }

func newFixture(t *testing.T) *fixture {
	t.Helper()
	ix, c := newTestIndex(Options{})
	st := newMemStore()
	return &fixture{sv: NewService(ix, st, syncJobs{}, nil, nil), ix: ix, store: st, clock: c}
}

// observe feeds tw as the engine does: stored by the writer, then indexed.
func (f *fixture) observe(tw *protocol.Tweet) {
	f.store.save(tw)
	f.sv.Observe(tw)
}

func (f *fixture) request(t *testing.T, body string) *Request {
	t.Helper()
	r, err := ParseRequest(members(t, body), f.clock.now(), 24*time.Hour)
	if err != nil {
		t.Fatalf("%s: %v", body, err)
	}
	return &r
}

// pages runs body and every continuation; it returns the ids in order, the
// page sizes and whether a page came from the store.
func (f *fixture) pages(t *testing.T, body string) (ids []string, sizes []int, fromStore []bool) {
	t.Helper()
	cursor := ""
	for range 1000 {
		b := body
		if cursor != "" {
			b = strings.TrimSuffix(body, "}") + `,"cursor":"` + cursor + `"}`
		}
		r := f.request(t, b)
		res, err := f.sv.Search(context.Background(), r)
		if err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		for _, h := range res.Hits {
			ids = append(ids, h.ID)
		}
		sizes, fromStore = append(sizes, len(res.Hits)), append(fromStore, res.FromStore)
		if !res.HasNext {
			return
		}
		var data struct {
			Next *string `json:"next_cursor"`
		}
		if err := json.Unmarshal(AppendData(nil, r, &res), &data); err != nil || data.Next == nil {
			t.Fatalf("has_next_page without next_cursor: %v", err)
		}
		cursor = *data.Next
	}
	t.Fatal("paging does not end")
	return
}

func TestServiceMemoryThenStore(t *testing.T) {
	f := newFixture(t)
	now := f.clock.now()
	var want []string
	// 1200 posts over 3.5 days, newest first by id; pairs share a
	// millisecond; the window's edge falls inside the third page.
	for i := range 1200 {
		at := now.Add(-time.Duration(i/2) * 7 * time.Minute)
		tw := tweet(fmt.Sprint(100000-i), at, "gm $PEPE "+solCA)
		if i%7 == 0 {
			tw.Text = "other text"
		} else {
			want = append(want, tw.ID)
		}
		f.observe(tw)
	}
	for _, q := range []string{"gm", "$PEPE", solCA, "gm " + solCA} {
		body := `{"query":"` + q + `","since":"` + now.Add(-80*time.Hour).Format(time.RFC3339) + `"}`
		got, sizes, fromStore := f.pages(t, body)
		if !slices.Equal(got, want) {
			t.Errorf("%q: %d posts paged, want %d\n got %v\nwant %v", q, len(got), len(want), got, want)
		}
		if len(sizes) < 3 || fromStore[0] || !fromStore[len(fromStore)-1] {
			t.Errorf("%q: pages %v from store %v; want memory first, the store last", q, sizes, fromStore)
		}
	}
	// The default window stays in memory.
	got, _, fromStore := f.pages(t, `{"query":"gm"}`)
	if len(got) == 0 || slices.Contains(fromStore, true) {
		t.Errorf("default window: %d posts, from store %v", len(got), fromStore)
	}
	for _, id := range got {
		if TieOf(id) < 100000-411 { // post i is i/2*7 minutes old
			t.Fatalf("default window returned %s, older than a day", id)
		}
	}
}

func TestServiceObserveOutsideTheWindow(t *testing.T) {
	f := newFixture(t)
	now := f.clock.now()
	f.observe(tweet("1", now.Add(-time.Hour), "moved $MOVED"))
	// A re-observation dated before the window drops the version held; its
	// terms still reach the store.
	f.observe(tweet("1", now.Add(-30*time.Hour), "moved $MOVED"))
	if hits, _ := f.ix.Search(ParseQuery("moved").Terms, open(now.Add(-24*time.Hour)), 10); len(hits) != 0 {
		t.Errorf("the version held was not dropped")
	}
	got, _, fromStore := f.pages(t, `{"query":"$MOVED","since":"`+now.Add(-48*time.Hour).Format(time.RFC3339)+`"}`)
	if !slices.Equal(got, []string{"1"}) || !fromStore[0] {
		t.Errorf("old window: %v from store %v", got, fromStore)
	}
	if st := f.ix.Stats(); st.Live != 0 {
		t.Errorf("stats %+v", st)
	}
}

func TestServiceScanBudget(t *testing.T) {
	f := newFixture(t)
	now := f.clock.now()
	var want []string
	for i := range 300 {
		tw := tweet(fmt.Sprint(5000-i), now.Add(-30*time.Hour-time.Duration(i)*time.Minute), "filler words")
		if i%10 == 3 {
			tw.Text = "rare needle"
			want = append(want, tw.ID)
		}
		f.observe(tw)
	}
	f.sv.SetScanBudget(25)
	body := `{"query":"needle","since":"` + now.Add(-72*time.Hour).Format(time.RFC3339) + `"}`
	got, sizes, _ := f.pages(t, body)
	if !slices.Equal(got, want) {
		t.Errorf("budgeted scan: got %v\nwant %v", got, want)
	}
	if len(sizes) < 12 || slices.Max(sizes) > 3 {
		t.Errorf("pages %v: want many small pages of a 25-post budget", sizes)
	}
	// Contract terms come from the term rows: no budget trouble for them.
	if reads := f.store.reads; reads == 0 {
		t.Errorf("the store was never read")
	}
}

func TestServiceSameMillisecondAcrossReads(t *testing.T) {
	f := newFixture(t)
	now := f.clock.now()
	at := now.Add(-40 * time.Hour)
	var want []string
	for i := range 2500 { // one millisecond holds more than a store read
		id := fmt.Sprint(900000 - i)
		f.observe(tweet(id, at, "$SAME"))
		want = append(want, id)
	}
	f.observe(tweet("1", at.Add(-time.Millisecond), "$SAME"))
	want = append(want, "1")
	got, _, _ := f.pages(t, `{"query":"$SAME","since":"`+now.Add(-72*time.Hour).Format(time.RFC3339)+`"}`)
	if !slices.Equal(got, want) {
		t.Errorf("%d posts paged, want %d (first %v)", len(got), len(want), got[:min(5, len(got))])
	}
}

func TestServiceOriginals(t *testing.T) {
	f := newFixture(t)
	now := f.clock.now()
	f.observe(tweet("10", now.Add(-time.Hour), "parent in memory"))
	old := tweet("11", now.Add(-50*time.Hour), "parent in the store")
	f.observe(old)
	reply := func(id, parent string, carried bool) *protocol.Tweet {
		tw := tweet(id, now.Add(-time.Minute), "@x answer")
		tw.Type, tw.InReplyTo = protocol.PostTypeReply, &protocol.InReplyTo{TweetID: parent, User: "x"}
		if carried {
			tw.QuotedTweet = &protocol.QuotedTweet{ID: parent, Text: "carried text", Author: protocol.QuotedAuthor{Handle: "carrier"}}
		}
		return tw
	}
	f.observe(reply("20", "10", true))
	f.observe(reply("21", "11", false))
	f.observe(reply("22", "12", true))
	f.observe(reply("23", "13", false))
	r := f.request(t, `{"query":"answer"}`)
	res, err := f.sv.Search(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for i, h := range res.Hits {
		got[h.ID] = string(res.Originals[i])
	}
	want := map[string]string{
		"20": `{"id":"10","text":"parent in memory","author":{"userName":"h10"}}`,
		"21": `{"id":"11","text":"parent in the store","author":{"userName":"h11"}}`,
		"22": `{"id":"12","text":"carried text","author":{"userName":"carrier"}}`,
		"23": "",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("originals\n got %v\nwant %v", got, want)
	}
	// Only the first 30 replies of a page get one.
	for i := range 40 {
		f.observe(reply(fmt.Sprint(100+i), "10", false))
	}
	res, _ = f.sv.Search(context.Background(), f.request(t, `{"query":"answer"}`))
	if len(res.Hits) != 44 || len(res.Originals) != MaxOriginals {
		t.Errorf("%d hits, %d originals; want 44 and %d", len(res.Hits), len(res.Originals), MaxOriginals)
	}
	for i := range MaxOriginals {
		if res.Originals[i] == nil && res.Hits[i].ID != "23" {
			t.Errorf("reply %d (%s) of the first 30 has no original", i, res.Hits[i].ID)
		}
	}
}

func TestServiceWarmAndErrors(t *testing.T) {
	st := newMemStore()
	c := &clock{t: t0}
	for i := range 4500 { // more than two warm pages
		st.save(tweet(fmt.Sprint(10000+i), t0.Add(-time.Duration(i)*time.Second), "warm $W"))
	}
	st.save(tweet("1", t0.Add(-30*time.Hour), "warm but old"))
	ix := NewIndex(Options{Now: c.now})
	sv := NewService(ix, st, nil, nil, nil)
	r, err := ParseRequest(members(t, `{"query":"warm"}`), t0, 24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	res, err := sv.Search(context.Background(), &r)
	if err != nil || !res.FromStore || len(res.Hits) != PageSize {
		t.Fatalf("before warming: from store %v, %d hits, %v", res.FromStore, len(res.Hits), err)
	}
	sv.Observe(tweet("10000", t0, "newer version"))
	if err := sv.Warm(context.Background()); err != nil {
		t.Fatal(err)
	}
	if st := ix.Stats(); !st.Ready || st.Live != 4500 {
		t.Fatalf("after warming: %+v", st)
	}
	res, err = sv.Search(context.Background(), &r)
	if err != nil || res.FromStore || len(res.Hits) != PageSize || res.Hits[0].ID != "10001" {
		t.Errorf("after warming: from store %v, %d hits, first %s, %v", res.FromStore, len(res.Hits), res.Hits[0].ID, err)
	}
	// A store failure fails the call.
	st.fail = errors.New("disk on fire")
	old, err := ParseRequest(members(t, `{"query":"old","since":"2026-05-01"}`), t0, 24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	old.Until = math.MaxInt64
	if _, err := sv.Search(context.Background(), &old); err == nil {
		t.Errorf("a failing store gave no error")
	}
	// Warming that cannot read leaves the index not ready.
	ix2 := NewIndex(Options{Now: c.now})
	if err := NewService(ix2, st, nil, nil, nil).Warm(context.Background()); err == nil || ix2.Ready() {
		t.Errorf("warming over a failing store: %v, ready %v", err, ix2.Ready())
	}
}
