package delivery

import (
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/alertd/alertd/internal/stageclock"
)

// Subscriber receives the events of the topics it is subscribed to. Deliver
// is called on the publishing actor's goroutine, by several publishers at
// once for different events, and must never block: a subscriber that cannot
// keep up drops itself. Every Deliver of one event runs on its publisher's
// goroutine, one after the other. Subscribers are pointers (sessions); the
// hub tells them apart by identity.
type Subscriber interface {
	Deliver(e *Event)
}

// Hub is the one subscriber registry of alertd: topics (handle, account,
// wallet, product) to their subscribers, the sessions of every socket kind.
// Safe for concurrent use.
//
// Locks: mu guards the topic map and the ids of live lists (byID, free);
// each list's own mu guards its set. The two are never held together, and
// no hub lock is held while Deliver runs (subscribers may take their own
// lock there, and subscribe under it). A Group's mu is taken before them (a
// group subscribes while holding it).
type Hub struct {
	mu     sync.RWMutex
	topics map[Topic]*subList
	// byID finds a live list by its id (subList.id); free are the ids of
	// removed lists, given to the next ones.
	byID []*subList
	free []uint32
	// watch hears topics gain their first and lose their last subscriber
	// (SetWatcher); nil for a hub of one node.
	watch atomic.Pointer[TopicWatcher]
}

// TopicWatcher hears that topic t got its first subscriber or lost its last
// one; it runs on the subscriber's goroutine, with no hub lock held, and
// must not block. Calls for one topic may arrive out of order from
// different goroutines: a watcher reads Listened for the truth.
type TopicWatcher func(t Topic)

// SetWatcher makes w hear topics come and go (the cluster's relay does, to
// subscribe its node to the handles its sessions listen to).
func (h *Hub) SetWatcher(w TopicWatcher) { h.watch.Store(&w) }

// changed tells the watcher, if any, that t came or went.
func (h *Hub) changed(t Topic) {
	if w := h.watch.Load(); w != nil {
		(*w)(t)
	}
}

// NewHub returns an empty hub.
func NewHub() *Hub { return &Hub{topics: map[Topic]*subList{}} }

// subList is the subscriber set of one topic: a slice, each subscriber
// once, in no order (a removal moves the last entry into the gap). A slice
// costs 16 bytes a subscription where a map of interfaces cost about 35, and
// most sessions sit idle on a hundred handles; finding an entry is a scan,
// paid on subscribe and unsubscribe, never on publish.
//
// A publisher copies the set into a pooled slice under mu and delivers from
// the copy, with no lock held: Deliver may take a subscriber's own lock, and
// a subscriber may subscribe while holding it. Copying a thousand entries
// per event costs about a microsecond; keeping a snapshot beside the set
// instead would cost 16 bytes per subscription for as long as it lives.
//
// Groups (Group) are kept apart, 8 bytes each: a group is in a list once,
// as the group knows (it never asks the list), and a publisher's copy holds
// their members.
type subList struct {
	mu     sync.Mutex
	dead   bool   // emptied and being removed from the hub: do not add to it
	id     uint32 // unique among live lists (Group keeps its lists by id)
	t      Topic  // the list's key in the hub (a group leaves by list)
	subs   []Subscriber
	groups []*Group
}

// empty reports whether nobody is in the list.
func (l *subList) empty() bool { return len(l.subs) == 0 && len(l.groups) == 0 }

// index is the position of s in the set, or -1. Subscribers are compared
// by identity, the two words of the interface (type and pointer), which
// is what == does for the pointers subscribers are, without the runtime
// call per entry that == on interfaces costs (5x faster at a thousand).
func (l *subList) index(s Subscriber) int {
	w := (*ifaceWords)(unsafe.Pointer(&s))
	tab, data := w.tab, w.data
	subs := l.subs
	for i := range subs {
		if x := (*ifaceWords)(unsafe.Pointer(&subs[i])); x.data == data && x.tab == tab {
			return i
		}
	}
	return -1
}

// ifaceWords is how an interface value is laid out.
type ifaceWords struct{ tab, data unsafe.Pointer }

// remove drops the entry at i, giving memory back once the set has shrunk
// to a quarter of its capacity (after a wave of disconnects).
func (l *subList) remove(i int) { l.subs = removeAt(l.subs, i) }

// removeAt drops s[i] by moving the last entry into its place.
func removeAt[T any](s []T, i int) []T {
	last := len(s) - 1
	s[i] = s[last]
	var zero T
	s[last] = zero
	s = s[:last]
	if c := cap(s); c > 16 && len(s) < c/4 {
		s = slices.Clone(s)
	}
	return s
}

// snapPool holds the publishers' copies of subscriber sets.
var snapPool = sync.Pool{New: func() any { return new([]Subscriber) }}

// maxPooledSnap bounds the copies kept for reuse (entries).
const maxPooledSnap = 1 << 16

// snapshot appends the subscribers of l to dst, the members of its groups
// included. Reading the groups' members here, in a tight loop, rather than
// one group at a time between Deliver calls, lets the CPU fetch many
// groups' memory at once.
func (l *subList) snapshot(dst []Subscriber) []Subscriber {
	l.mu.Lock()
	dst = append(dst, l.subs...)
	for _, g := range l.groups {
		dst = g.appendMembers(dst)
	}
	l.mu.Unlock()
	return dst
}

// groupsOf appends the groups of l to dst.
func (l *subList) groupsOf(dst []*Group) []*Group {
	l.mu.Lock()
	dst = append(dst, l.groups...)
	l.mu.Unlock()
	return dst
}

func (h *Hub) list(t Topic, create bool) *subList {
	h.mu.RLock()
	l := h.topics[t]
	h.mu.RUnlock()
	if l != nil || !create {
		return l
	}
	h.mu.Lock()
	l = h.topics[t]
	created := l == nil
	if created {
		l = &subList{t: t, id: h.newIDLocked()}
		h.byID[l.id] = l
		h.topics[t] = l
	}
	h.mu.Unlock()
	if created {
		h.changed(t)
	}
	return l
}

// Subscribe adds s to t's subscribers (once, however often it is called).
func (h *Hub) Subscribe(t Topic, s Subscriber) {
	for {
		l := h.list(t, true)
		l.mu.Lock()
		if l.dead { // lost a race with the last Unsubscribe: take the new list
			l.mu.Unlock()
			continue
		}
		if l.index(s) < 0 {
			l.subs = append(l.subs, s)
		}
		l.mu.Unlock()
		return
	}
}

// Unsubscribe removes s from t's subscribers.
func (h *Hub) Unsubscribe(t Topic, s Subscriber) {
	l := h.list(t, false)
	if l == nil {
		return
	}
	l.mu.Lock()
	if i := l.index(s); i >= 0 {
		l.remove(i)
	}
	h.dropIfEmptyLocked(l)
}

// dropIfEmptyLocked unlocks l and, when l is empty, removes it from the
// hub: the last one out removes the topic's list, so topics nobody hears
// any more cost nothing.
func (h *Hub) dropIfEmptyLocked(l *subList) {
	empty := l.empty() && !l.dead
	if empty {
		l.dead = true
	}
	l.mu.Unlock()
	if empty {
		h.mu.Lock()
		if h.topics[l.t] == l {
			delete(h.topics, l.t)
		}
		h.byID[l.id] = nil
		h.free = append(h.free, l.id)
		h.mu.Unlock()
		h.changed(l.t)
	}
}

// newIDLocked returns an id for a new list, a removed list's if any; under
// mu (write).
func (h *Hub) newIDLocked() uint32 {
	if n := len(h.free); n > 0 {
		id := h.free[n-1]
		h.free = h.free[:n-1]
		return id
	}
	h.byID = append(h.byID, nil)
	return uint32(len(h.byID) - 1)
}

// liveID returns the id of t's list while it has one that is not being
// removed.
func (h *Hub) liveID(t Topic) (uint32, bool) {
	l := h.list(t, false)
	if l == nil {
		return 0, false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.id, !l.dead
}

// byIDs returns the lists of ids, which are live (their caller is in them).
func (h *Hub) byIDs(ids []uint32) []*subList {
	out := make([]*subList, len(ids))
	h.mu.RLock()
	for i, id := range ids {
		out[i] = h.byID[id]
	}
	h.mu.RUnlock()
	return out
}

// joinGroup adds g to t's list and returns the list; g is not in it (the
// group keeps its set).
func (h *Hub) joinGroup(t Topic, g *Group) *subList {
	for {
		l := h.list(t, true)
		l.mu.Lock()
		if l.dead { // lost a race with the last one out: take the new list
			l.mu.Unlock()
			continue
		}
		l.groups = append(l.groups, g)
		l.mu.Unlock()
		return l
	}
}

// leaveGroup removes g from l, which it joined.
func (h *Hub) leaveGroup(l *subList, g *Group) {
	l.mu.Lock()
	if i := slices.Index(l.groups, g); i >= 0 {
		l.groups = removeAt(l.groups, i)
	}
	h.dropIfEmptyLocked(l)
}

// Listened reports whether t has subscribers now, so that a publisher can
// skip encoding what nobody would get.
func (h *Hub) Listened(t Topic) bool {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.topics[t] != nil
}

// Topics is the number of topics with a subscriber list.
func (h *Hub) Topics() int {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return len(h.topics)
}

// Subscribers returns a copy of the current subscribers of t: those
// subscribed on their own, then the members of its groups.
func (h *Hub) Subscribers(t Topic) []Subscriber {
	l := h.list(t, false)
	if l == nil {
		return nil
	}
	return l.snapshot(nil)
}

// Publish hands e to every subscriber of t, on the caller's goroutine (the
// subscribers encode the variants they take on first use: Event.FrameFor).
// It returns the number of subscribers it reached.
func (h *Hub) Publish(t Topic, e *Event) int {
	l := h.list(t, false)
	if l == nil {
		return 0
	}
	if stageclock.On {
		stageclock.Mark(e.IngestedAt, stageclock.Publish)
	}
	p := snapPool.Get().(*[]Subscriber)
	subs := l.snapshot((*p)[:0])
	if len(subs) > 0 {
		subs[0].Deliver(e)
		if stageclock.On {
			stageclock.Mark(e.IngestedAt, stageclock.Delivered)
		}
		// The first Deliver woke a socket writer, which the scheduler puts
		// next in line on this thread (runnext) and which would wait there
		// for the whole fan-out unless another thread stole it: on a loaded
		// machine that thread's wake-up took 0.5 ms at the median (stage
		// clock). Yielding once per event runs the writer here at once,
		// and this loop goes on where a free thread takes it (the global
		// run queue): the first socket write comes a few µs after the
		// first Deliver (bench/results/fanout-latency-2026-11-25.md).
		runtime.Gosched()
		for _, s := range subs[1:] {
			s.Deliver(e)
		}
	}
	n := len(subs)
	clear(subs) // the pool must not keep sessions alive
	if cap(subs) <= maxPooledSnap {
		*p = subs[:0]
		snapPool.Put(p)
	}
	return n
}

// Rename adds the subscribers of handle from that follow renames (Renamer)
// to handle to (a platform rename keeps the monitored account). They stay on
// the old handle too: events the old handle's actor still has queued must
// reach them, and a handle is rarely taken over by another account soon
// after.
func (h *Hub) Rename(from, to string) {
	if from == to {
		return
	}
	l := h.list(HandleTopic(from), false)
	if l == nil {
		return
	}
	l.mu.Lock()
	subs := slices.Clone(l.subs)
	l.mu.Unlock()
	for _, s := range subs {
		if r, ok := s.(Renamer); ok {
			h.Subscribe(HandleTopic(to), s)
			r.Renamed(from, to)
		}
	}
	for _, g := range l.groupsOf(nil) {
		g.Renamed(from, to)
	}
}

// Renamer is implemented by subscribers that follow a renamed handle: Rename
// subscribes them to the new handle and tells them so (groups follow too).
// Others (a Tweet Alerts socket subscribes to handles by name) stay on the
// old handle only.
type Renamer interface {
	Renamed(from, to string)
}
