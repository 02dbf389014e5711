package launchpad

// recent remembers the last signatures handed over, so a transaction seen
// both live and in a backfill is delivered once. Owned by Run's goroutine.
type recent struct {
	ring []string
	next int
	set  map[string]struct{}
}

func newRecent(n int) *recent {
	return &recent{ring: make([]string, n), set: make(map[string]struct{}, n)}
}

// add records sig and reports whether it was new.
func (r *recent) add(sig string) bool {
	if _, ok := r.set[sig]; ok {
		return false
	}
	if old := r.ring[r.next]; old != "" {
		delete(r.set, old)
	}
	r.ring[r.next] = sig
	r.next = (r.next + 1) % len(r.ring)
	r.set[sig] = struct{}{}
	return true
}
