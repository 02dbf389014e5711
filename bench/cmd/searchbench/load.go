package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"runtime"
	"sync"
	"time"

	"github.com/alertd/alertd/actors/product/casearch"
	"github.com/alertd/alertd/actors/state/directory"
	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
	"github.com/alertd/alertd/upstream/sim"
)

// simClock is the synthetic content clock: each call moves it one step, so
// the loaded posts spread evenly over the span.
type simClock struct {
	mu   sync.Mutex
	t    time.Time
	step time.Duration
}

func (c *simClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(c.step)
	return c.t
}

// world is the loaded index and what queries are drawn from.
type world struct {
	sim   *sim.Simulator
	end   time.Time // the index's now: the window is the 24 h before it
	svc   *casearch.Service
	ix    *casearch.Index
	dir   *directory.Directory
	cas   []string   // contract addresses seen in posts (sampled)
	words [][]string // the words of sampled posts
	ticks []string
}

// emptyStore answers every store read with nothing: the bench measures the
// in-memory index (searches inside the window never reach the store).
type emptyStore struct{}

func (emptyStore) SearchPosts(context.Context, persistence.SearchQuery) ([]persistence.Post, error) {
	return nil, nil
}
func (emptyStore) PostsByIDs(context.Context, []string) ([]persistence.Post, error) { return nil, nil }
func (emptyStore) PostsCreatedSince(context.Context, time.Time, time.Time, string, int) ([]persistence.Post, error) {
	return nil, nil
}
func (emptyStore) PutPostTerms(context.Context, []persistence.PostTerms) error { return nil }

func heapAlloc() uint64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// load builds the synthetic world and indexes o.posts post observations.
func load(o options, r *report) (*world, error) {
	w := &world{end: time.Now().UTC().Truncate(time.Millisecond), dir: directory.New()}
	clock := &simClock{t: w.end.Add(-o.window), step: o.window / time.Duration(o.posts)}
	w.sim = sim.New(sim.Config{Seed: o.seed, Users: o.users, Mix: map[string]float64{"post": 1}, Now: clock.now})
	w.ticks = w.sim.Tickers()
	w.ix = casearch.NewIndex(casearch.Options{Window: 24 * time.Hour, Now: func() time.Time { return w.end }})
	w.ix.MarkReady()
	w.svc = casearch.NewService(w.ix, emptyStore{}, nil, casearch.DirectoryPeople{Dir: w.dir}, slog.New(slog.NewTextHandler(io.Discard, nil)))

	// The start-up snapshots (users, following, communities) first: the
	// directory gives authors' locations and mentioned accounts.
	for _, line := range w.sim.Generate(3 * o.users) {
		ob, err := protocol.DecodeObservation(line, w.end.UnixMilli())
		if err != nil {
			return nil, fmt.Errorf("sim line: %w", err)
		}
		if ob.User != nil {
			w.dir.Put(ob.User, w.end)
		}
	}
	before := heapAlloc()
	rng := rand.New(rand.NewPCG(uint64(o.seed), 7))
	start := time.Now()
	var decode time.Duration
	n := 0
	for n < o.posts {
		batch := w.sim.Generate(min(10_000, o.posts-n))
		for _, line := range batch {
			t0 := time.Now()
			ob, err := protocol.DecodeObservation(line, w.end.UnixMilli())
			decode += time.Since(t0)
			if err != nil {
				return nil, fmt.Errorf("sim line: %w", err)
			}
			if ob.Post == nil {
				continue
			}
			w.svc.Observe(ob.Post)
			n++
			w.sample(rng, ob.Post)
		}
	}
	r.loadTime = time.Since(start)
	r.decodeTime = decode
	r.posts = n
	after := heapAlloc()
	r.stats = w.ix.Stats()
	r.heapBytes = int64(after) - int64(before)
	r.bytesPerPost = float64(r.heapBytes) / float64(max(r.stats.Live, 1))
	return w, nil
}

// sample keeps query material: every post's addresses now and then, and
// the words of about one post in 100.
func (w *world) sample(rng *rand.Rand, tw *protocol.Tweet) {
	if cas := protocol.DetectContracts(tw.Text); len(cas) > 0 && rng.IntN(10) == 0 {
		w.cas = append(w.cas, cas...)
	}
	if rng.IntN(100) != 0 {
		return
	}
	var ws []string
	for _, t := range casearch.PostTerms(tw) {
		if t.Kind == casearch.Word {
			ws = append(ws, t.Text)
		}
	}
	if len(ws) >= 2 {
		w.words = append(w.words, ws)
	}
}

// queryKind draws queries of one kind.
type queryKind struct {
	name string
	next func(rng *rand.Rand) string
}

func (w *world) kinds() []queryKind {
	return []queryKind{
		{"contract address", func(rng *rand.Rand) string { return w.cas[rng.IntN(len(w.cas))] }},
		{"ticker ($TICKER or TICKER)", func(rng *rand.Rand) string {
			t := w.ticks[rng.IntN(len(w.ticks))]
			if rng.IntN(2) == 0 {
				return "$" + t
			}
			return t
		}},
		{"keyword (1 word)", func(rng *rand.Rand) string {
			ws := w.words[rng.IntN(len(w.words))]
			return ws[rng.IntN(len(ws))]
		}},
		{"keywords (2 words of one post)", func(rng *rand.Rand) string {
			ws := w.words[rng.IntN(len(w.words))]
			i := rng.IntN(len(ws))
			j := (i + 1 + rng.IntN(len(ws)-1)) % len(ws)
			return ws[i] + " " + ws[j]
		}},
	}
}
