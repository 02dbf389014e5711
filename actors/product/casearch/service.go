package casearch

import (
	"context"
	"log/slog"
	"slices"
	"time"

	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
	json "github.com/goccy/go-json"
)

// Store is what the search service reads and writes.
type Store interface {
	SearchPosts(ctx context.Context, q persistence.SearchQuery) ([]persistence.Post, error)
	PostsByIDs(ctx context.Context, ids []string) ([]persistence.Post, error)
	PostsCreatedSince(ctx context.Context, since, afterAt time.Time, afterID string, limit int) ([]persistence.Post, error)
	PutPostTerms(ctx context.Context, posts []persistence.PostTerms) error
}

// Jobs run store writes off the hot path, in order (the engine's writer).
type Jobs interface {
	Do(name string, f func(ctx context.Context) error)
}

// Service answers CA searches: from the index when it covers the call,
// from the store otherwise; and it feeds both from post observations.
type Service struct {
	ix      *Index
	store   Store
	people  People
	log     *slog.Logger
	terms   *termWriter
	authors *Interner
	// budget is how many stored posts one call reads at most.
	budget int
}

// NewService builds a service over ix and store; jobs write post terms
// behind (nil: terms are not written, as in benchmarks); people may be nil.
func NewService(ix *Index, store Store, jobs Jobs, people People, log *slog.Logger) *Service {
	if log == nil {
		log = slog.Default()
	}
	sv := &Service{ix: ix, store: store, people: people, log: log, budget: DefaultScanBudget,
		authors: NewInterner(authorInternMax)}
	if jobs != nil {
		sv.terms = &termWriter{jobs: jobs, store: store}
	}
	return sv
}

// authorInternMax bounds the shared author objects (a few hundred bytes each).
const authorInternMax = 200_000

// Index is the service's index.
func (sv *Service) Index() *Index { return sv.ix }

// Observe takes one version of a post (the Indexer calls it): the index
// gets it and the store its terms. Safe for concurrent use. Posts the index
// will not hold (older than its window) are not rendered.
func (sv *Service) Observe(tw *protocol.Tweet) {
	if tw == nil {
		return
	}
	var d Doc
	if sv.ix.Holds(tw.CreatedAt) {
		d = sv.Doc(tw)
	} else {
		d = Doc{ID: tw.ID, CreatedAt: tw.CreatedAt, Terms: PostTerms(tw)} // drops a version held, if any
	}
	sv.ix.Insert(&d)
	if keys := storedTerms(d.Terms); sv.terms != nil && len(keys) > 0 {
		sv.terms.add(persistence.PostTerms{PostID: d.ID, CreatedAt: time.UnixMilli(d.CreatedAt).UTC(), Terms: keys})
	}
}

// Doc prepares tw for the index.
func (sv *Service) Doc(tw *protocol.Tweet) Doc {
	return Doc{ID: tw.ID, Handle: tw.Author.Handle, CreatedAt: tw.CreatedAt, Followers: tw.Author.Stats.Followers,
		Terms: PostTerms(tw), R: Render(tw, sv.people, sv.authors)}
}

// Stored reports whether the store keeps terms of this kind: contracts and
// cashtags. Words are many per post; writing them would cost the store
// more than the posts themselves, so old windows match words by reading
// the posts.
func (t Term) Stored() bool { return t.Kind == Contract || t.Kind == Cashtag }

// storedTerms are the keys of the terms the store keeps.
func storedTerms(ts []Term) []string {
	var out []string
	for _, t := range ts {
		if t.Stored() {
			out = append(out, t.Key())
		}
	}
	return out
}

// Result is one page of a search.
type Result struct {
	Hits    []Hit // newest first, at most PageSize
	HasNext bool
	// Next is the position next_cursor continues from when HasNext: the
	// last hit, or the last post read when a store scan stopped early.
	Next Key
	// Originals are the `original` objects of the first replies, by hit index.
	Originals map[int][]byte
	// FromStore says the page came from the store.
	FromStore bool
}

// Search answers r.
func (sv *Service) Search(ctx context.Context, r *Request) (Result, error) {
	var res Result
	hits, complete := sv.ix.Search(r.Query.Terms, r.Bounds(), PageSize+1)
	if complete {
		res.Hits = hits
		if len(hits) > PageSize {
			res.Hits, res.HasNext, res.Next = hits[:PageSize], true, hits[PageSize-1].Key
		}
	} else {
		var err error
		if res, err = sv.scanStore(ctx, r); err != nil {
			return res, err
		}
	}
	orig, err := sv.originals(ctx, res.Hits)
	if err != nil {
		return res, err
	}
	res.Originals = orig
	return res, nil
}

// storeOrder puts the term most likely to be rare first: the store walks
// the first term's rows. Contracts, then cashtags, then the longest word.
func storeOrder(ts []Term) []Term {
	rank := func(t Term) int {
		switch t.Kind {
		case Contract:
			return 1 << 20
		case Cashtag:
			return 1 << 19
		}
		return len(t.Text)
	}
	out := slices.Clone(ts)
	slices.SortStableFunc(out, func(a, b Term) int { return rank(b) - rank(a) })
	return out
}

// originals finds the parents of the first MaxOriginals replies: held in
// the index, else stored, else the parent a reply's payload carries.
func (sv *Service) originals(ctx context.Context, hits []Hit) (map[int][]byte, error) {
	var want []int
	var ids []string
	for i := range hits {
		if hits[i].R.Parent != "" {
			want = append(want, i)
			ids = append(ids, hits[i].R.Parent)
			if len(want) == MaxOriginals {
				break
			}
		}
	}
	if len(want) == 0 {
		return nil, nil
	}
	held := sv.ix.Parents(ids)
	var missing []string
	for _, id := range ids {
		if _, ok := held[id]; !ok {
			missing = append(missing, id)
		}
	}
	stored := map[string][]byte{}
	if len(missing) > 0 {
		posts, err := sv.store.PostsByIDs(ctx, missing)
		if err != nil {
			return nil, err
		}
		for i := range posts {
			var tw protocol.Tweet
			if json.Unmarshal(posts[i].Data, &tw) == nil {
				stored[posts[i].ID] = AppendOriginal(nil, posts[i].ID, tw.Text, tw.Author.Handle)
			}
		}
	}
	out := make(map[int][]byte, len(want))
	for _, i := range want {
		id := hits[i].R.Parent
		switch p, ok := held[id]; {
		case ok:
			out[i] = appendOriginalRaw(nil, id, p.TextJSON, p.Handle)
		case stored[id] != nil:
			out[i] = stored[id]
		case hits[i].R.Carried != nil:
			out[i] = hits[i].R.Carried
		}
	}
	return out, nil
}
