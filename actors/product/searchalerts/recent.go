package searchalerts

import (
	"hash/fnv"
	"strconv"
)

// recentSet remembers the last max post ids added, forgetting the oldest
// first. Ids are kept as numbers (ingest validates post ids as decimal), so
// a full set costs about 24 bytes an id.
type recentSet struct {
	max  int
	m    map[uint64]struct{}
	ring []uint64
	next int
}

func newRecentSet(max int) *recentSet {
	return &recentSet{max: max, m: map[uint64]struct{}{}}
}

// postKey is the number of a decimal post id, or a hash of any other id.
func postKey(id string) uint64 {
	if n, err := strconv.ParseUint(id, 10, 64); err == nil {
		return n
	}
	h := fnv.New64a()
	h.Write([]byte(id))
	return h.Sum64()
}

// Add records id and reports whether it was new.
func (r *recentSet) Add(id string) bool {
	key := postKey(id)
	if _, ok := r.m[key]; ok {
		return false
	}
	if len(r.ring) < r.max {
		r.ring = append(r.ring, key)
	} else {
		delete(r.m, r.ring[r.next])
		r.ring[r.next] = key
		r.next = (r.next + 1) % r.max
	}
	r.m[key] = struct{}{}
	return true
}
