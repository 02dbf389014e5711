package trending

// recentSet remembers the last max keys added, forgetting the oldest first.
type recentSet struct {
	max  int
	m    map[string]struct{}
	ring []string
	next int
}

func newRecentSet(max int) *recentSet {
	return &recentSet{max: max, m: make(map[string]struct{}, max), ring: make([]string, 0, max)}
}

// Add records key and reports whether it was new.
func (r *recentSet) Add(key string) bool {
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
