package delivery

import (
	"slices"
	"sync"
	"sync/atomic"
)

// Group is a set of subscribers that share one subscription: the handle
// topics they all hear (the sockets of one B2B account share the account's
// targets). The hub holds the group once per handle, not each member, and
// the group keeps the topics it is in once for all of them: an idle socket
// then costs one pointer in its group's member list instead of a copy of
// the account's handles and a hub entry per handle.
//
// Locks: mu guards ids and dead and serialises the changes of the topic
// set; it is taken before the hub's locks (the group subscribes while
// holding it). Members are a copy-on-write slice that publishers read
// without a lock; membership changes are rare (a socket opening or closing)
// and serialised by the owner of the group (see Join).
type Group struct {
	hub     *Hub
	members atomic.Pointer[memberList]

	mu   sync.Mutex
	dead bool // closed: the set stays empty
	// ids are the ids (subList.id) of the handle topics' lists the group
	// is in, sorted: 4 bytes a handle, kept once for all the members. A
	// list the group is in stays live, so its id names it.
	ids []uint32
}

// NewGroup returns an empty group of hub h, in no topic.
func NewGroup(h *Hub) *Group { return &Group{hub: h} }

// Join adds s to the members; they hear every event of the group's topics
// published from then on. Join and Leave of one group must not run
// concurrently (the owner of the group serialises them).
func (g *Group) Join(s Subscriber) {
	var ms []Subscriber
	if p := g.members.Load(); p != nil {
		ms = p.s
	}
	g.members.Store(newMemberList(ms, s))
}

// Leave removes s from the members and returns how many are left. A
// publisher that loaded the members before may still hand s an event.
func (g *Group) Leave(s Subscriber) int {
	p := g.members.Load()
	if p == nil {
		return 0
	}
	ms := p.s
	i := slices.Index(ms, s)
	if i < 0 {
		return len(ms)
	}
	next := newMemberList(ms[:i], ms[i+1:]...)
	g.members.Store(next)
	return len(next.s)
}

// memberList is an immutable list of members: a change stores a new one,
// publishers may be reading the old one.
type memberList struct{ s []Subscriber }

// fewMembers is how many members a memberList holds in its own allocation
// (a B2B account has at most 5 sockets).
const fewMembers = 5

// newMemberList returns the list of a then b. Up to fewMembers, the list
// and its entries are one allocation: a publisher reads both, and one
// fetch from memory is cheaper than two.
func newMemberList(a []Subscriber, b ...Subscriber) *memberList {
	n := len(a) + len(b)
	switch {
	case n == 1: // most accounts have one socket
		w := &struct {
			l memberList
			a [1]Subscriber
		}{}
		copy(w.a[copy(w.a[:], a):], b)
		w.l.s = w.a[:]
		return &w.l
	case n <= fewMembers:
		w := &struct {
			l memberList
			a [fewMembers]Subscriber
		}{}
		copy(w.a[copy(w.a[:], a):], b)
		w.l.s = w.a[:n:n]
		return &w.l
	}
	return &memberList{s: append(slices.Clip(a), b...)}
}

// Members is the number of members.
func (g *Group) Members() int {
	if p := g.members.Load(); p != nil {
		return len(p.s)
	}
	return 0
}

// appendMembers appends the members to dst (a publisher's copy).
func (g *Group) appendMembers(dst []Subscriber) []Subscriber {
	if p := g.members.Load(); p != nil {
		// One by one: a group has a few members, and appending a slice
		// costs a call to the runtime's copy each time.
		for _, m := range p.s {
			dst = append(dst, m)
		}
	}
	return dst
}

// find reports whether the group is in handle's list.
func (g *Group) find(handle string) (id uint32, i int, found bool) {
	id, live := g.hub.liveID(HandleTopic(handle))
	if !live {
		// No list, or one being removed: the group is in neither (it
		// would keep it live). An id of a list being removed may already
		// be another's, so it is not looked up.
		return 0, 0, false
	}
	// The list with this id was live just now, and so is every list the
	// group is in (g.mu keeps the set still): if the set has the id, it is
	// this list's.
	i, found = slices.BinarySearch(g.ids, id)
	return id, i, found
}

// WatchAll subscribes the group to every handle of hs.
func (g *Group) WatchAll(hs []string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.dead {
		return
	}
	// Sized once: the set lives as long as the group, and grows only by
	// targets added later.
	g.ids = slices.Grow(g.ids, len(hs))
	for _, h := range hs {
		g.watchLocked(h)
	}
	if cap(g.ids) > len(g.ids)+len(g.ids)/8+4 {
		g.ids = slices.Clip(g.ids)
	}
}

// Watch subscribes the group to handle (once, however often it is called;
// never after Close).
func (g *Group) Watch(handle string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.dead {
		g.watchLocked(handle)
	}
}

func (g *Group) watchLocked(handle string) {
	if _, _, found := g.find(handle); found {
		return
	}
	l := g.hub.joinGroup(HandleTopic(handle), g)
	i, _ := slices.BinarySearch(g.ids, l.id)
	g.ids = slices.Insert(g.ids, i, l.id)
}

// Unwatch unsubscribes the group from handle if it was subscribed.
func (g *Group) Unwatch(handle string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	id, i, found := g.find(handle)
	if !found {
		return
	}
	l := g.hub.byIDs([]uint32{id})[0]
	g.ids = slices.Delete(g.ids, i, i+1)
	g.hub.leaveGroup(l, g)
}

// Renamed follows a platform rename (Hub.Rename): the group hears the new
// handle too.
func (g *Group) Renamed(_, to string) { g.Watch(to) }

// Handles is the number of handle topics the group is in.
func (g *Group) Handles() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.ids)
}

// Close leaves every topic; the group subscribes to nothing afterwards.
func (g *Group) Close() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.dead = true
	for _, l := range g.hub.byIDs(g.ids) {
		g.hub.leaveGroup(l, g)
	}
	g.ids = nil
}
