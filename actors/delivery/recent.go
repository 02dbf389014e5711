package delivery

import (
	"sync"
	"time"
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
		// Drop from the front without copying what stays: a full list
		// drops one event per add, and copying it each time cost an
		// allocation of perKind pointers per post. append moves the rest
		// to a new array when this one runs out.
		clear((*s)[:i])
		*s = (*s)[i:]
	}
}

// AddFollow keeps a follow or unfollow event, encoded: replays send its
// standard frame (Event.FrameFor).
func (r *Recent) AddFollow(handle string, e *Event) {
	r.add(handle, e, func(l *recentLists) *[]*Event { return &l.follows })
}

// AddPost keeps a live post event. It need not be encoded: replays build
// their own frame (Event.ReplayFrame), and the event is not written again.
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

// Sweep drops events older than the window at nowMs, and handles left with
// none: handles that go quiet would otherwise keep their last events forever.
func (r *Recent) Sweep(nowMs int64) {
	cut := nowMs - r.window
	keep := func(s []*Event) []*Event {
		i := 0
		for i < len(s) && s[i].DetectedAt < cut {
			i++
		}
		if i == 0 {
			return s
		}
		return append(s[:0:0], s[i:]...)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for h, l := range r.handles {
		l.follows, l.posts = keep(l.follows), keep(l.posts)
		if len(l.follows) == 0 && len(l.posts) == 0 {
			delete(r.handles, h)
		}
	}
}

// Len is the number of handles with kept events.
func (r *Recent) Len() int {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return len(r.handles)
}

// StartSweeper sweeps every interval until the returned stop is called.
func (r *Recent) StartSweeper(every time.Duration, now func() time.Time) (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				r.Sweep(now().UnixMilli())
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() { close(done) })
		<-finished
	}
}
