package fanout

import (
	"sync"
)

// Recent keeps, per handle, the events a session replays right after READY:
// follow and unfollow events of the replay window (spec 2 delivery rule 3)
// and live posts for late delivery (rule 2). The publishing actor appends;
// sessions read at login.
type Recent struct {
	mu      sync.RWMutex
	window  int64 // ms
	perKind int   // events kept per handle and list
	handles map[string]*recentLists
}

type recentLists struct {
	follows []*Event // oldest first
	posts   []*Event
}

// NewRecent keeps events of the last windowMs, at most perHandle of each list.
func NewRecent(windowMs int64, perHandle int) *Recent {
	return &Recent{window: windowMs, perKind: perHandle, handles: map[string]*recentLists{}}
}

func (r *Recent) add(handle string, e *Event, pick func(*recentLists) *[]*Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	l := r.handles[handle]
	if l == nil {
		l = &recentLists{}
		r.handles[handle] = l
	}
	s := pick(l)
	*s = append(*s, e)
	cut := e.DetectedAt - r.window
	i := 0
	for i < len(*s) && ((*s)[i].DetectedAt < cut || len(*s)-i > r.perKind) {
		i++
	}
	if i > 0 {
		*s = append((*s)[:0:0], (*s)[i:]...)
	}
}

// AddFollow keeps a follow or unfollow event (already encoded).
func (r *Recent) AddFollow(handle string, e *Event) {
	r.add(handle, e, func(l *recentLists) *[]*Event { return &l.follows })
}

// AddPost keeps a live post event (already encoded).
func (r *Recent) AddPost(handle string, e *Event) {
	r.add(handle, e, func(l *recentLists) *[]*Event { return &l.posts })
}

// Follows returns the follow events of handles detected at or after sinceMs,
// oldest first within each handle.
func (r *Recent) Follows(handles []string, sinceMs int64) []*Event {
	return r.collect(handles, sinceMs, func(l *recentLists) []*Event { return l.follows })
}

// Posts returns the post events of handles detected at or after sinceMs.
func (r *Recent) Posts(handles []string, sinceMs int64) []*Event {
	return r.collect(handles, sinceMs, func(l *recentLists) []*Event { return l.posts })
}

func (r *Recent) collect(handles []string, since int64, pick func(*recentLists) []*Event) []*Event {
	r.mu.RLock()
	defer r.mu.RUnlock()
	var out []*Event
	for _, h := range handles {
		l := r.handles[h]
		if l == nil {
			continue
		}
		for _, e := range pick(l) {
			if e.DetectedAt >= since {
				out = append(out, e)
			}
		}
	}
	return out
}

// Rename copies the kept events of a renamed handle to the new handle.
func (r *Recent) Rename(from, to string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	l := r.handles[from]
	if l == nil || from == to {
		return
	}
	dst := r.handles[to]
	if dst == nil {
		dst = &recentLists{}
		r.handles[to] = dst
	}
	dst.follows = append(append([]*Event(nil), l.follows...), dst.follows...)
	dst.posts = append(append([]*Event(nil), l.posts...), dst.posts...)
}
