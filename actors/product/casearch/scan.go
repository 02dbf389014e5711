package casearch

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
	json "github.com/goccy/go-json"
)

// DefaultScanBudget is how many stored posts one call reads at most when
// the index does not cover it. A call that stops at the budget answers
// what it found (possibly nothing) with has_next_page true and a
// next_cursor where it stopped, so a client paging on reads the whole
// window in bounded steps.
const DefaultScanBudget = 20_000

// scanChunk is how many stored posts one store read returns.
const scanChunk = 1000

// SetScanBudget changes the budget of store scans (tests, benchmarks).
func (sv *Service) SetScanBudget(n int) { sv.budget = max(n, 1) }

// scanned is a stored post being checked against a query.
type scanned struct {
	key  Key
	post *persistence.Post
}

// scanStore answers r from the store: the posts carrying r's contract and
// cashtag terms (every post of the window for words only), newest first,
// each checked against every term of r by reading it (stored terms are
// never removed, and words are not stored).
func (sv *Service) scanStore(ctx context.Context, r *Request) (Result, error) {
	res := Result{FromStore: true}
	if len(r.Query.Terms) == 0 {
		return res, nil
	}
	b := r.Bounds()
	upper := b.Upper
	q := persistence.SearchQuery{Terms: storedTerms(storeOrder(r.Query.Terms)), Since: time.UnixMilli(b.Since).UTC()}
	var hits []Hit
	read, limit := 0, scanChunk
	for {
		q.Limit, q.Through = limit, time.Time{}
		if upper.At != math.MaxInt64 {
			q.Through = time.UnixMilli(upper.At).UTC()
		}
		posts, err := sv.store.SearchPosts(ctx, q)
		if err != nil {
			return res, err
		}
		rows := make([]scanned, 0, len(posts))
		for i := range posts {
			if k := (Key{posts[i].CreatedAt.UnixMilli(), TieOf(posts[i].ID)}); k.Less(upper) {
				rows = append(rows, scanned{k, &posts[i]})
			}
		}
		exhausted := len(posts) < limit
		next := upper
		if !exhausted {
			// The oldest millisecond of a full read may go on past it: leave
			// it to the next read, which starts there.
			oldest := posts[len(posts)-1].CreatedAt.UnixMilli()
			if posts[0].CreatedAt.UnixMilli() == oldest {
				limit *= 2 // one millisecond holds more than a read: read more
				continue
			}
			rows = slices.DeleteFunc(rows, func(s scanned) bool { return s.key.At == oldest })
			if k := (Key{oldest, math.MaxInt64}); k.Less(next) {
				next = k
			}
		}
		slices.SortFunc(rows, func(a, b scanned) int {
			if b.key.Less(a.key) {
				return -1
			}
			return 1
		})
		for _, row := range rows {
			read++
			hit, ok, err := sv.check(row, r.Query.Terms)
			if err != nil {
				return res, err
			}
			if ok {
				hits = append(hits, hit)
				if len(hits) > PageSize {
					res.Hits, res.HasNext, res.Next = hits[:PageSize], true, hits[PageSize-1].Key
					return res, nil
				}
			}
			if read >= sv.budget {
				res.Hits, res.HasNext, res.Next = hits, true, row.key
				return res, nil
			}
		}
		if exhausted {
			res.Hits = hits
			return res, nil
		}
		upper, limit = next, scanChunk
	}
}

// scanFields are what checking a stored post against a query needs.
type scanFields struct {
	Text     string   `json:"text"`
	Cashtags []string `json:"cashtags"`
}

// check reads a stored post and renders it when it carries every term.
func (sv *Service) check(row scanned, terms []Term) (Hit, bool, error) {
	var f scanFields
	if err := json.Unmarshal(row.post.Data, &f); err != nil {
		return Hit{}, false, fmt.Errorf("stored post %s: %w", row.post.ID, err)
	}
	has := PostTerms(&protocol.Tweet{Text: f.Text, Cashtags: f.Cashtags})
	for _, t := range terms {
		if !slices.Contains(has, t) {
			return Hit{}, false, nil
		}
	}
	var tw protocol.Tweet
	if err := json.Unmarshal(row.post.Data, &tw); err != nil {
		return Hit{}, false, fmt.Errorf("stored post %s: %w", row.post.ID, err)
	}
	return Hit{Key: row.key, ID: tw.ID, Handle: tw.Author.Handle, Followers: tw.Author.Stats.Followers,
		R: Render(&tw, sv.people, nil)}, true, nil
}
