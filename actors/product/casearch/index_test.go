package casearch

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/alertd/alertd/protocol"
)

// clock is a settable time source for tests.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

var t0 = time.Date(2026, 5, 10, 12, 0, 0, 0, time.UTC)

func newTestIndex(opt Options) (*Index, *clock) {
	c := &clock{t: t0}
	opt.Now = c.now
	ix := NewIndex(opt)
	ix.MarkReady()
	return ix, c
}

func tweet(id string, at time.Time, text string) *protocol.Tweet {
	return &protocol.Tweet{ID: id, CreatedAt: at.UnixMilli(), Type: protocol.PostTypePost, Text: text,
		Author: protocol.TweetAuthor{ID: "u" + id, Handle: "h" + id, Stats: protocol.AuthorStats{Followers: 10}}}
}

func doc(tw *protocol.Tweet) *Doc {
	return &Doc{ID: tw.ID, Handle: tw.Author.Handle, CreatedAt: tw.CreatedAt, Followers: tw.Author.Stats.Followers,
		Terms: PostTerms(tw), R: Render(tw, nil, nil)}
}

func ids(hits []Hit) string {
	var s []string
	for _, h := range hits {
		s = append(s, h.ID)
	}
	return strings.Join(s, ",")
}

func search(ix *Index, q string, b Bounds, limit int) ([]Hit, bool) {
	return ix.Search(ParseQuery(q).Terms, b, limit)
}

func open(since time.Time) Bounds { return Bounds{Since: since.UnixMilli(), Upper: NoUpper} }

func TestIndexNewestFirstAndTerms(t *testing.T) {
	ix, _ := newTestIndex(Options{})
	since := t0.Add(-24 * time.Hour)
	// Inserted out of time order on purpose.
	for _, p := range []*protocol.Tweet{
		tweet("3", t0.Add(-3*time.Minute), "$PEPE to the moon "+solCA),
		tweet("1", t0.Add(-10*time.Hour), "pepe is the moon"),
		tweet("5", t0.Add(-1*time.Minute), "moon soon "+evmCA),
		tweet("2", t0.Add(-5*time.Hour), "$WIF and $PEPE"),
		tweet("4", t0.Add(-2*time.Minute), "to the MOON"),
	} {
		if !ix.Insert(doc(p)) {
			t.Fatalf("post %s not held", p.ID)
		}
	}
	for _, c := range []struct{ q, want string }{
		{"moon", "5,4,3,1"},
		{"the moon", "4,3,1"},
		{"MOON the TO", "4,3"},
		{"$PEPE", "3,2"},
		{"PEPE", "3,2"},
		{"pepe", "3,2,1"},
		{"$pepe moon", "3"},
		{solCA, "3"},
		{strings.ToUpper(evmCA[2:]), ""}, // a word, not the address
		{"0x" + strings.ToUpper(evmCA[2:]), "5"},
		{"nothing", ""},
		{"!!!", ""},
	} {
		hits, complete := search(ix, c.q, open(since), 10)
		if got := ids(hits); got != c.want || !complete {
			t.Errorf("%q: %q complete=%v, want %q complete", c.q, got, complete, c.want)
		}
	}
	// Limit, then continuing from the last key.
	hits, _ := search(ix, "moon", open(since), 2)
	if ids(hits) != "5,4" {
		t.Fatalf("page 1 %s", ids(hits))
	}
	hits, _ = search(ix, "moon", Bounds{Since: since.UnixMilli(), Upper: hits[1].Key}, 2)
	if ids(hits) != "3,1" {
		t.Fatalf("page 2 %s", ids(hits))
	}
	// Since and until bound the window (until exclusive).
	hits, _ = search(ix, "moon", Bounds{Since: t0.Add(-3 * time.Minute).UnixMilli(), Upper: Key{t0.Add(-time.Minute).UnixMilli(), math.MinInt64}}, 10)
	if ids(hits) != "4,3" {
		t.Errorf("window: %s", ids(hits))
	}
}

func TestIndexSameMillisecondOrder(t *testing.T) {
	ix, _ := newTestIndex(Options{})
	at := t0.Add(-time.Hour)
	for _, id := range []string{"20", "3", "100", "7"} {
		ix.Insert(doc(tweet(id, at, "gm")))
	}
	var got []string
	b := open(t0.Add(-24 * time.Hour))
	for {
		hits, _ := search(ix, "gm", b, 1)
		if len(hits) == 0 {
			break
		}
		got = append(got, hits[0].ID)
		b.Upper = hits[0].Key
	}
	if strings.Join(got, ",") != "100,20,7,3" {
		t.Errorf("same-millisecond posts page as %v, want by numeric id, descending", got)
	}
}

func TestIndexReplace(t *testing.T) {
	ix, _ := newTestIndex(Options{})
	since := open(t0.Add(-24 * time.Hour))
	ix.Insert(doc(tweet("9", t0.Add(-time.Hour), "first version $AAA")))
	ix.Insert(doc(tweet("8", t0.Add(-2*time.Hour), "other $AAA")))
	ix.Insert(doc(tweet("9", t0.Add(-time.Hour), "second version $BBB")))
	if hits, _ := search(ix, "$AAA", since, 10); ids(hits) != "8" {
		t.Errorf("old terms still find the replaced post: %s", ids(hits))
	}
	hits, _ := search(ix, "$BBB", since, 10)
	if ids(hits) != "9" || !strings.Contains(string(hits[0].R.AppendItem(nil)), "second version") {
		t.Fatalf("new version not found: %s", ids(hits))
	}
	if hits, _ := search(ix, "version", since, 10); len(hits) != 1 {
		t.Errorf("one post, two versions: %d hits", len(hits))
	}
	// InsertIfAbsent keeps what is held.
	ix.InsertIfAbsent(doc(tweet("9", t0.Add(-time.Hour), "stale version $CCC")))
	if hits, _ := search(ix, "$CCC", since, 10); len(hits) != 0 {
		t.Errorf("warming replaced a held version")
	}
	if st := ix.Stats(); st.Live != 2 || st.Slots != 3 {
		t.Errorf("stats %+v: want 2 live, 3 slots", st)
	}
}

func TestIndexEvictsTheWindow(t *testing.T) {
	ix, c := newTestIndex(Options{Window: time.Hour})
	if ix.Insert(doc(tweet("old", t0.Add(-2*time.Hour), "gm"))) {
		t.Errorf("a post older than the window was held")
	}
	if ix.Insert(doc(tweet("future", t0.Add(2*time.Hour), "gm"))) {
		t.Errorf("a post dated 2 hours ahead was held")
	}
	ix.Insert(doc(tweet("a", t0.Add(-50*time.Minute), "gm $X")))
	ix.Insert(doc(tweet("b", t0.Add(-10*time.Minute), "gm")))
	c.add(30 * time.Minute) // a is now 80 minutes old
	ix.Insert(doc(tweet("c", c.now(), "gm")))
	st := ix.Stats()
	if st.Live != 2 || st.Slots != 2 || st.Terms != 1 || st.Postings != 2 {
		t.Fatalf("after eviction: %+v", st)
	}
	if hits, complete := search(ix, "gm", open(c.now().Add(-time.Hour)), 10); ids(hits) != "c,b" || !complete {
		t.Errorf("after eviction: %s %v", ids(hits), complete)
	}
	// The window reaches below the floor: complete only when the page fills.
	old := open(c.now().Add(-3 * time.Hour))
	if _, complete := search(ix, "gm", old, 10); complete {
		t.Errorf("a search below the floor claims to be complete")
	}
	if hits, complete := search(ix, "gm", old, 1); !complete || ids(hits) != "c" {
		t.Errorf("a full page above the floor: %s %v", ids(hits), complete)
	}
	if _, complete := search(ix, "$X", old, 1); complete {
		t.Errorf("an evicted term below the floor claims to be complete")
	}
}

func TestIndexMaxPosts(t *testing.T) {
	ix, _ := newTestIndex(Options{MaxPosts: 10})
	for i := range 25 {
		ix.Insert(doc(tweet(fmt.Sprint(i), t0.Add(-time.Duration(25-i)*time.Minute), "gm")))
	}
	st := ix.Stats()
	if st.Slots > 10 || st.Live != st.Slots {
		t.Fatalf("over MaxPosts: %+v", st)
	}
	hits, complete := search(ix, "gm", open(t0.Add(-24*time.Hour)), 100)
	if complete || len(hits) != st.Live || hits[0].ID != "24" {
		t.Errorf("bounded index: %d hits (%s), complete=%v", len(hits), ids(hits), complete)
	}
	if floor := ix.Floor(); floor <= t0.Add(-24*time.Hour).UnixMilli() {
		t.Errorf("floor did not rise: %d", floor)
	}
}

func TestIndexNotReady(t *testing.T) {
	ix := NewIndex(Options{Now: func() time.Time { return t0 }})
	ix.Insert(doc(tweet("1", t0, "gm")))
	if _, complete := search(ix, "gm", open(t0.Add(-time.Hour)), 10); complete {
		t.Errorf("an index that is not warmed claims to be complete")
	}
}

func TestIndexParents(t *testing.T) {
	ix, _ := newTestIndex(Options{})
	ix.Insert(doc(tweet("1", t0.Add(-time.Minute), `say "hi"`)))
	got := ix.Parents([]string{"1", "2"})
	if len(got) != 1 || string(got["1"].TextJSON) != `"say \"hi\""` || got["1"].Handle != "h1" {
		t.Errorf("parents %+v", got)
	}
}

// The index against a brute-force model: random posts, replacements and
// clock moves, then every kind of query, paged with cursors.
func TestIndexAgainstModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	ix, c := newTestIndex(Options{Window: 2 * time.Hour})
	words := []string{"gm", "moon", "pepe", "$PEPE", "$WIF", solCA, evmCA, "the", "wen"}
	model := map[string]*protocol.Tweet{}
	for i := range 3000 {
		if i%100 == 99 {
			c.add(time.Duration(rng.IntN(10)) * time.Minute)
		}
		id := fmt.Sprint(rng.IntN(2000))
		var parts []string
		for range 1 + rng.IntN(4) {
			parts = append(parts, words[rng.IntN(len(words))])
		}
		tw := tweet(id, c.now().Add(-time.Duration(rng.IntN(7200))*time.Second), strings.Join(parts, " "))
		if ix.Insert(doc(tw)) {
			model[id] = tw
		} else {
			delete(model, id)
		}
	}
	now := c.now()
	since := now.Add(-2 * time.Hour)
	for _, q := range []string{"gm", "moon the", "$PEPE", "PEPE", "pepe", solCA, evmCA, "$WIF gm wen", "nothing"} {
		pq := ParseQuery(q)
		var want []*protocol.Tweet
		for _, tw := range model {
			terms := PostTerms(tw)
			all := tw.CreatedAt >= since.UnixMilli()
			for _, qt := range pq.Terms {
				all = all && slices.Contains(terms, qt)
			}
			if all {
				want = append(want, tw)
			}
		}
		slices.SortFunc(want, func(a, b *protocol.Tweet) int {
			ka, kb := Key{a.CreatedAt, TieOf(a.ID)}, Key{b.CreatedAt, TieOf(b.ID)}
			if kb.Less(ka) {
				return -1
			}
			return 1
		})
		var got []string
		b := open(since)
		for page := 0; ; page++ {
			hits, complete := ix.Search(pq.Terms, b, 7)
			if !complete {
				t.Fatalf("%q: incomplete inside the window", q)
			}
			for _, h := range hits {
				got = append(got, h.ID)
			}
			if len(hits) < 7 {
				break
			}
			b.Upper = hits[len(hits)-1].Key
		}
		var wantIDs []string
		for _, tw := range want {
			wantIDs = append(wantIDs, tw.ID)
		}
		if len(wantIDs) == 0 && q != "nothing" {
			t.Errorf("%q: the model finds nothing: a weak test", q)
		}
		if !slices.Equal(got, wantIDs) {
			t.Errorf("%q:\n got %v\nwant %v", q, got, wantIDs)
		}
	}
}

// Taps insert from many goroutines while searches run (for -race).
func TestIndexConcurrent(t *testing.T) {
	ix, _ := newTestIndex(Options{})
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			for i := range 300 {
				ix.Insert(doc(tweet(fmt.Sprintf("%d%04d", g+1, i), t0.Add(-time.Duration(i)*time.Second), "gm $PEPE")))
			}
		}()
		go func() {
			defer wg.Done()
			for range 100 {
				search(ix, "gm $PEPE", open(t0.Add(-time.Hour)), 50)
			}
		}()
	}
	wg.Wait()
	if hits, _ := search(ix, "gm", open(t0.Add(-time.Hour)), 2000); len(hits) != 1200 {
		t.Errorf("%d hits, want 1200", len(hits))
	}
}
