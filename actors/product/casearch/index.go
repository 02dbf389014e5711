package casearch

import (
	"hash/maphash"
	"math"
	"sync"
	"time"
)

// Index holds the posts of the recent window in memory, by term. It is safe
// for concurrent use: post taps insert (handle actors, concurrently across
// handles) while REST calls search. A read-write lock rather than an actor:
// searches are many, short and read-only, and must not queue behind one
// another.
//
// Layout: posts live in slots (reused after eviction); each term has a
// posting list of slot numbers in key order, so "newest first, from a
// cursor" is a binary search and a backwards walk. Slots are grouped in
// buckets by the minute they were created in; eviction drops whole buckets,
// oldest first, once they fall out of the window or when the index is over
// MaxPosts. Every post created at or after floor is held (once the index is
// ready); older ones may not be.
type Index struct {
	opt  Options
	seed maphash.Seed

	mu      sync.RWMutex
	slots   []slot
	free    []uint32
	byID    map[string]uint32
	dict    map[uint64]uint32 // term hash -> list number
	lists   []plist
	freeL   []uint32
	buckets map[int64][]uint32 // created minute -> slots
	floor   int64              // epoch ms
	ready   bool
	live    int // current versions held
	used    int // slots in use: live plus replaced versions awaiting eviction
	items   int64
}

type slot struct {
	key       Key
	followers int64
	id        string
	handle    string
	r         *Rendered
	terms     []uint32 // list numbers
	dead      bool     // replaced by a newer version (or free)
}

// Options tune an Index.
type Options struct {
	// Window is how far back the index holds posts (spec: 24 hours).
	Window time.Duration
	// MaxPosts bounds the slots; beyond it the oldest minutes are evicted
	// early (searches reaching below them then go to the store).
	MaxPosts int
	// FutureSlack: posts dated further ahead than this are left to the store.
	FutureSlack time.Duration
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// DefaultMaxPosts is the default bound of Options.MaxPosts.
const DefaultMaxPosts = 2_000_000

const minuteMS = 60_000

// NewIndex returns an empty index that is not ready: until MarkReady, every
// search answers "incomplete" (callers go to the store) while it is warmed.
func NewIndex(opt Options) *Index {
	if opt.Window <= 0 {
		opt.Window = 24 * time.Hour
	}
	if opt.MaxPosts <= 0 {
		opt.MaxPosts = DefaultMaxPosts
	}
	if opt.FutureSlack <= 0 {
		opt.FutureSlack = time.Hour
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	return &Index{
		opt:     opt,
		seed:    maphash.MakeSeed(),
		byID:    map[string]uint32{},
		dict:    map[uint64]uint32{},
		buckets: map[int64][]uint32{},
		floor:   opt.Now().Add(-opt.Window).UnixMilli(),
	}
}

// Doc is one post version to index.
type Doc struct {
	ID        string
	Handle    string
	CreatedAt int64 // epoch ms
	Followers int64
	Terms     []Term
	R         *Rendered // nil: only drop the version held
}

// Floor is the creation time (epoch ms) from which every post is held.
func (ix *Index) Floor() int64 {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.floor
}

// Holds reports whether a post created at createdAt (epoch ms) would be
// held now: not before the floor, not too far ahead.
func (ix *Index) Holds(createdAt int64) bool {
	now := ix.opt.Now().UnixMilli()
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return createdAt >= ix.floor && createdAt <= now+ix.opt.FutureSlack.Milliseconds()
}

// MarkReady says the index now holds every stored post created since its
// floor: searches are answered from memory from now on.
func (ix *Index) MarkReady() {
	ix.mu.Lock()
	ix.ready = true
	ix.mu.Unlock()
}

// Ready reports whether MarkReady was called.
func (ix *Index) Ready() bool {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.ready
}

func (ix *Index) hashTerm(t Term) uint64 {
	var h maphash.Hash
	h.SetSeed(ix.seed)
	h.WriteByte(byte(t.Kind))
	h.WriteString(t.Text)
	return h.Sum64()
}

func (ix *Index) keyOf(s uint32) Key { return ix.slots[s].key }

// Insert indexes d, replacing the version held of the same id. It reports
// whether d is held: posts created before the floor or too far ahead are not.
func (ix *Index) Insert(d *Doc) bool { return ix.insert(d, true) }

// InsertIfAbsent indexes d unless a version of its id is held (warming from
// the store must not undo a newer version that a tap brought in meanwhile).
func (ix *Index) InsertIfAbsent(d *Doc) bool { return ix.insert(d, false) }

func (ix *Index) insert(d *Doc, replace bool) bool {
	hashes := make([]uint64, len(d.Terms))
	for i, t := range d.Terms {
		hashes[i] = ix.hashTerm(t)
	}
	now := ix.opt.Now().UnixMilli()
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.evictExpiredLocked(now)
	if old, ok := ix.byID[d.ID]; ok {
		if !replace {
			return true
		}
		ix.killLocked(old)
	}
	if d.R == nil || d.CreatedAt < ix.floor || d.CreatedAt > now+ix.opt.FutureSlack.Milliseconds() {
		return false // an unrendered Doc only drops the version held
	}
	s := ix.allocLocked()
	sl := &ix.slots[s]
	*sl = slot{key: Key{d.CreatedAt, TieOf(d.ID)}, followers: d.Followers, id: d.ID, handle: d.Handle,
		r: d.R, terms: make([]uint32, 0, len(hashes))}
	for _, h := range hashes {
		li, ok := ix.dict[h]
		if !ok {
			li = ix.allocListLocked(h)
		}
		ix.lists[li].insert(s, sl.key, ix.keyOf)
		sl.terms = append(sl.terms, li)
	}
	m := d.CreatedAt / minuteMS
	ix.buckets[m] = append(ix.buckets[m], s)
	ix.byID[d.ID] = s
	ix.live++
	ix.used++
	ix.items += int64(d.R.Size())
	for ix.used > ix.opt.MaxPosts && ix.evictOldestLocked(now) {
	}
	return true
}

// killLocked marks slot s as replaced and lets its item go; its postings
// stay (searches skip it) until its bucket is evicted.
func (ix *Index) killLocked(s uint32) {
	sl := &ix.slots[s]
	if sl.dead {
		return
	}
	if ix.byID[sl.id] == s {
		delete(ix.byID, sl.id)
	}
	ix.items -= int64(sl.r.Size())
	sl.dead, sl.r = true, nil
	ix.live--
}

func (ix *Index) allocLocked() uint32 {
	if n := len(ix.free); n > 0 {
		s := ix.free[n-1]
		ix.free = ix.free[:n-1]
		return s
	}
	if len(ix.slots) >= math.MaxUint32 {
		panic("search: index slots exhausted")
	}
	ix.slots = append(ix.slots, slot{})
	return uint32(len(ix.slots) - 1)
}

func (ix *Index) allocListLocked(h uint64) uint32 {
	var li uint32
	if n := len(ix.freeL); n > 0 {
		li = ix.freeL[n-1]
		ix.freeL = ix.freeL[:n-1]
	} else {
		ix.lists = append(ix.lists, plist{})
		li = uint32(len(ix.lists) - 1)
	}
	ix.lists[li] = plist{hash: h}
	ix.dict[h] = li
	return li
}

// evictExpiredLocked drops the minutes that ended before the window.
func (ix *Index) evictExpiredLocked(now int64) {
	cutoff := now - ix.opt.Window.Milliseconds()
	for m := ix.floor / minuteMS; (m+1)*minuteMS <= cutoff; m++ {
		ix.evictBucketLocked(m)
	}
}

// evictOldestLocked drops the oldest non-empty minute, early; false when
// there is none.
func (ix *Index) evictOldestLocked(now int64) bool {
	last := (now + ix.opt.FutureSlack.Milliseconds()) / minuteMS
	for m := ix.floor / minuteMS; m <= last; m++ {
		if len(ix.buckets[m]) > 0 {
			ix.evictBucketLocked(m)
			return true
		}
	}
	return false
}

// evictBucketLocked drops the slots created in minute m. Every older minute
// is already gone, so their postings are at the fronts of their lists.
func (ix *Index) evictBucketLocked(m int64) {
	end := (m + 1) * minuteMS
	for _, s := range ix.buckets[m] {
		sl := &ix.slots[s]
		for _, li := range sl.terms {
			l := &ix.lists[li]
			if l.gone {
				continue // emptied by an earlier slot of this minute
			}
			l.trimBefore(end, ix.keyOf)
			if l.size() == 0 {
				delete(ix.dict, l.hash)
				*l = plist{gone: true}
				ix.freeL = append(ix.freeL, li)
			}
		}
	}
	for _, s := range ix.buckets[m] {
		ix.killLocked(s)
		ix.slots[s] = slot{dead: true}
		ix.free = append(ix.free, s)
		ix.used--
	}
	delete(ix.buckets, m)
	if end > ix.floor {
		ix.floor = end
	}
}

// Stats describe what the index holds.
type Stats struct {
	Live      int   // posts held (current versions)
	Slots     int   // slots in use, replaced versions included
	Terms     int   // distinct terms
	Postings  int   // entries over all posting lists
	ItemBytes int64 // encoded post items (shared author objects counted per post)
	Floor     int64
	Ready     bool
}

// Stats walks the lists; for reports and tests, not the hot path.
func (ix *Index) Stats() Stats {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	st := Stats{Live: ix.live, Slots: ix.used, Terms: len(ix.dict), ItemBytes: ix.items, Floor: ix.floor, Ready: ix.ready}
	for _, li := range ix.dict {
		st.Postings += ix.lists[li].size()
	}
	return st
}
