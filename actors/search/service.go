package search

import (
	"context"
	"fmt"
	"log/slog"
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
	ix     *Index
	store  Store
	people People
	log    *slog.Logger
	terms  *termWriter
}

// NewService builds a service over ix and store; jobs write post terms
// behind (nil: terms are not written, as in benchmarks); people may be nil.
func NewService(ix *Index, store Store, jobs Jobs, people People, log *slog.Logger) *Service {
	if log == nil {
		log = slog.Default()
	}
	sv := &Service{ix: ix, store: store, people: people, log: log}
	if jobs != nil {
		sv.terms = &termWriter{jobs: jobs, store: store}
	}
	return sv
}

// Index is the service's index.
func (sv *Service) Index() *Index { return sv.ix }

// Observe takes one post observation (a handle.PostTap): the index gets the
// new version and the store its terms. Safe for concurrent use.
func (sv *Service) Observe(o *protocol.Observation, _ int64, _ bool) {
	if o.Post == nil {
		return
	}
	d := sv.Doc(o.Post)
	sv.ix.Insert(&d)
	if sv.terms != nil {
		sv.terms.add(persistence.PostTerms{PostID: d.ID, CreatedAt: time.UnixMilli(d.CreatedAt).UTC(),
			Tie: TieOf(d.ID), Terms: termKeys(d.Terms)})
	}
}

// Doc prepares tw for the index.
func (sv *Service) Doc(tw *protocol.Tweet) Doc {
	return Doc{ID: tw.ID, Handle: tw.Author.Handle, CreatedAt: tw.CreatedAt, Followers: tw.Author.Stats.Followers,
		Terms: PostTerms(tw), R: Render(tw, sv.people)}
}

func termKeys(ts []Term) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.Key()
	}
	return out
}

// Result is one page of a search.
type Result struct {
	Hits    []Hit // newest first, at most PageSize
	HasNext bool
	// Originals are the `original` objects of the first replies, by hit index.
	Originals map[int][]byte
	// FromStore says the page came from the store.
	FromStore bool
}

// Search answers r.
func (sv *Service) Search(ctx context.Context, r *Request) (Result, error) {
	var res Result
	hits, complete := sv.ix.Search(r.Query.Terms, r.Bounds(), PageSize+1)
	if !complete {
		var err error
		if hits, err = sv.searchStore(ctx, r); err != nil {
			return res, err
		}
		res.FromStore = true
	}
	if len(hits) > PageSize {
		hits, res.HasNext = hits[:PageSize], true
	}
	res.Hits = hits
	orig, err := sv.originals(ctx, hits)
	if err != nil {
		return res, err
	}
	res.Originals = orig
	return res, nil
}

func (sv *Service) searchStore(ctx context.Context, r *Request) ([]Hit, error) {
	if len(r.Query.Terms) == 0 {
		return nil, nil
	}
	b := r.Bounds()
	q := persistence.SearchQuery{Terms: storeOrder(r.Query.Terms), Since: time.UnixMilli(b.Since).UTC(), Limit: PageSize + 1}
	if b.Upper.At != NoUpper.At {
		pos := persistence.SearchPosition{At: time.UnixMilli(b.Upper.At).UTC(), Tie: b.Upper.Tie}
		q.Before = &pos
	}
	posts, err := sv.store.SearchPosts(ctx, q)
	if err != nil {
		return nil, err
	}
	hits := make([]Hit, 0, len(posts))
	for i := range posts {
		var tw protocol.Tweet
		if err := json.Unmarshal(posts[i].Data, &tw); err != nil {
			return nil, fmt.Errorf("stored post %s: %w", posts[i].ID, err)
		}
		hits = append(hits, Hit{Key: Key{tw.CreatedAt, TieOf(tw.ID)}, ID: tw.ID, Handle: tw.Author.Handle,
			Followers: tw.Author.Stats.Followers, R: Render(&tw, sv.people)})
	}
	return hits, nil
}

// storeOrder puts the term most likely to be rare first: the store walks
// the first term's rows. Contracts, then cashtags, then the longest word.
func storeOrder(ts []Term) []string {
	best := 0
	rank := func(t Term) int {
		switch t.Kind {
		case Contract:
			return 1 << 20
		case Cashtag:
			return 1 << 19
		}
		return len(t.Text)
	}
	for i, t := range ts {
		if rank(t) > rank(ts[best]) {
			best = i
		}
	}
	out := make([]string, 0, len(ts))
	out = append(out, ts[best].Key())
	for i, t := range ts {
		if i != best {
			out = append(out, t.Key())
		}
	}
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
