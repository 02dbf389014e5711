package delivery

import (
	"sync"
)

// Subscriber receives events of the handles it is subscribed to. Deliver is
// called from publishing actors, possibly several at once, and must never
// block: a subscriber that cannot keep up drops itself.
type Subscriber interface {
	Deliver(e *Event)
}

// Hub maps handles to their subscribers.
type Hub struct {
	mu      sync.RWMutex
	handles map[string]*subList
}

// NewHub returns an empty hub.
func NewHub() *Hub { return &Hub{handles: map[string]*subList{}} }

// subList is the subscriber set of one handle. A publisher copies the set
// into a pooled slice under mu and delivers from the copy, with no lock
// held: Deliver may take a subscriber's own lock, and a subscriber may
// subscribe while holding it. Copying a thousand entries per event costs a
// few microseconds; keeping a snapshot beside the set instead would cost 16
// bytes per subscription for as long as it lives (1.6 KiB per session
// watching 100 handles).
type subList struct {
	mu   sync.Mutex
	dead bool // emptied and being removed from the hub: do not add to it
	set  map[Subscriber]struct{}
}

// snapPool holds the publishers' copies of subscriber sets.
var snapPool = sync.Pool{New: func() any { return new([]Subscriber) }}

// maxPooledSnap bounds the copies kept for reuse (entries).
const maxPooledSnap = 1 << 16

// snapshot appends the subscribers of l to dst.
func (l *subList) snapshot(dst []Subscriber) []Subscriber {
	l.mu.Lock()
	for x := range l.set {
		dst = append(dst, x)
	}
	l.mu.Unlock()
	return dst
}

func (h *Hub) list(handle string, create bool) *subList {
	h.mu.RLock()
	l := h.handles[handle]
	h.mu.RUnlock()
	if l != nil || !create {
		return l
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if l = h.handles[handle]; l == nil {
		l = &subList{set: map[Subscriber]struct{}{}}
		h.handles[handle] = l
	}
	return l
}

// Subscribe adds s to handle's subscribers.
func (h *Hub) Subscribe(handle string, s Subscriber) {
	for {
		l := h.list(handle, true)
		l.mu.Lock()
		if l.dead { // lost a race with the last Unsubscribe: take the new list
			l.mu.Unlock()
			continue
		}
		l.set[s] = struct{}{}
		l.mu.Unlock()
		return
	}
}

// Unsubscribe removes s from handle's subscribers; the last one out removes
// the handle's list, so handles nobody watches any more cost nothing.
func (h *Hub) Unsubscribe(handle string, s Subscriber) {
	l := h.list(handle, false)
	if l == nil {
		return
	}
	l.mu.Lock()
	delete(l.set, s)
	empty := len(l.set) == 0 && !l.dead
	if empty {
		l.dead = true
	}
	l.mu.Unlock()
	if empty {
		h.mu.Lock()
		if h.handles[handle] == l {
			delete(h.handles, handle)
		}
		h.mu.Unlock()
	}
}

// Handles is the number of handles with a subscriber list.
func (h *Hub) Handles() int {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return len(h.handles)
}

// Subscribers returns a copy of the current subscribers of handle.
func (h *Hub) Subscribers(handle string) []Subscriber {
	l := h.list(handle, false)
	if l == nil {
		return nil
	}
	return l.snapshot(nil)
}

// Publish encodes e and hands it to every subscriber of handle. It returns
// the number of subscribers it reached.
func (h *Hub) Publish(handle string, e *Event) int {
	l := h.list(handle, false)
	if l == nil {
		return 0
	}
	p := snapPool.Get().(*[]Subscriber)
	subs := l.snapshot((*p)[:0])
	if len(subs) > 0 {
		e.Encode()
		for _, s := range subs {
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

// Rename adds the subscribers of handle from to handle to (a platform rename
// keeps the monitored account). They stay on the old handle too: events the
// old handle's actor still has queued must reach them, and a handle is rarely
// taken over by another account soon after.
func (h *Hub) Rename(from, to string) {
	if from == to {
		return
	}
	for _, s := range h.Subscribers(from) {
		h.Subscribe(to, s)
		if r, ok := s.(Renamer); ok {
			r.Renamed(from, to)
		}
	}
}

// Renamer is implemented by subscribers that track their handles: Rename
// tells them they were added to another.
type Renamer interface {
	Renamed(from, to string)
}
