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

// tokenInfo is what a CreateEvent told about a mint.
type tokenInfo struct{ name, symbol, uri, creator string }

// launches remembers the tokens of the last CreateEvents, so that a
// CompleteEvent (which carries only addresses) can name its token. Bounded:
// a token launched long before, or before the connector started, graduates
// without a name. Owned by Run's goroutine.
type launches struct {
	ring   []string
	next   int
	byMint map[string]tokenInfo
}

func newLaunches(n int) *launches {
	return &launches{ring: make([]string, n), byMint: make(map[string]tokenInfo, n)}
}

func (l *launches) put(mint string, t tokenInfo) {
	if _, ok := l.byMint[mint]; !ok {
		if old := l.ring[l.next]; old != "" {
			delete(l.byMint, old)
		}
		l.ring[l.next] = mint
		l.next = (l.next + 1) % len(l.ring)
	}
	l.byMint[mint] = t
}

func (l *launches) get(mint string) (tokenInfo, bool) {
	t, ok := l.byMint[mint]
	return t, ok
}
