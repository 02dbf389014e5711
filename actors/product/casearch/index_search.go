package casearch

import (
	"math"
	"slices"
)

// Bounds limit a search: posts created at or after Since whose key is
// below Upper (exclusive: the `until` time, or a cursor's position).
type Bounds struct {
	Since int64 // epoch ms
	Upper Key
}

// NoUpper is the Upper of a search with neither until nor cursor.
var NoUpper = Key{math.MaxInt64, math.MaxInt64}

// Hit is one post found. R is shared with the index and read-only.
type Hit struct {
	Key       Key
	ID        string
	Handle    string
	Followers int64
	R         *Rendered
}

// Search returns up to limit posts holding every term, newest first, and
// whether that answer is complete: false when the index is not ready, or
// when the window reaches below the floor and fewer than limit posts were
// found above it (the caller then asks the store). No terms match nothing.
func (ix *Index) Search(terms []Term, b Bounds, limit int) (hits []Hit, complete bool) {
	hashes := make([]uint64, len(terms))
	for i, t := range terms {
		hashes[i] = ix.hashTerm(t)
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if !ix.ready {
		return nil, false
	}
	covered := b.Since >= ix.floor
	if len(terms) == 0 || limit <= 0 {
		return nil, true
	}
	lists := make([]uint32, len(hashes))
	for i, h := range hashes {
		li, ok := ix.dict[h]
		if !ok {
			return nil, covered // no post held has this term
		}
		lists[i] = li
	}
	// Walk the shortest list newest first; a candidate must hold the other
	// terms too, which its slot's own list numbers tell (a short scan of
	// one small array, cheaper than probing the other lists).
	slices.SortFunc(lists, func(a, b uint32) int { return ix.lists[a].size() - ix.lists[b].size() })
	driver, others := &ix.lists[lists[0]], lists[1:]
	for i := driver.below(len(driver.s), b.Upper, ix.keyOf) - 1; i >= driver.head; i-- {
		s := driver.s[i]
		sl := &ix.slots[s]
		if sl.key.At < b.Since {
			return hits, true
		}
		if sl.dead || !holdsAll(sl.terms, others) {
			continue
		}
		hits = append(hits, Hit{Key: sl.key, ID: sl.id, Handle: sl.handle, Followers: sl.followers, R: sl.r})
		if len(hits) >= limit {
			return hits, true
		}
	}
	return hits, covered
}

// holdsAll reports whether every list number of want is in have.
func holdsAll(have, want []uint32) bool {
	for _, w := range want {
		if !slices.Contains(have, w) {
			return false
		}
	}
	return true
}

// Parent is what an `original` item needs of a post.
type Parent struct {
	TextJSON []byte // the text, JSON-encoded
	Handle   string
}

// Parents returns the posts held among ids.
func (ix *Index) Parents(ids []string) map[string]Parent {
	out := make(map[string]Parent, len(ids))
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	for _, id := range ids {
		s, ok := ix.byID[id]
		if !ok {
			continue
		}
		sl := &ix.slots[s]
		out[id] = Parent{TextJSON: sl.r.Head[sl.r.TextOff : sl.r.TextOff+sl.r.TextLen], Handle: sl.handle}
	}
	return out
}
