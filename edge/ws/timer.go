//go:build linux && !wsportable

package ws

import (
	"math"
	"sync"
	"sync/atomic"
	"time"
)

type timerKind uint8

const (
	tkUser   timerKind = iota // Conn.AfterFunc
	tkIdle                    // inbound silence (Options.IdleTimeout)
	tkPing                    // next server ping (Options.PingInterval)
	tkPong                    // pong deadline after a ping (Options.PongTimeout)
	tkWrite                   // a blocked write's deadline (Options.WriteTimeout)
	tkLinger                  // how long to wait for the peer after our close frame
)

// timer is one entry of the hub's heap. Built-in timers are fields of Conn,
// so arming them allocates nothing; user timers come from Conn.AfterFunc.
type timer struct {
	when int64 // unix ns
	idx  int32 // heap index, -1 when not armed
	kind timerKind
	c    *Conn
	f    func()
}

// timers is one binary heap for every connection's deadlines. The loop
// goroutine sleeps in epoll_wait until the earliest one and fires due timers
// itself, so timer callbacks never run concurrently with a connection's
// other events. Arming from another goroutine wakes the loop only when the
// new deadline is earlier than the one it sleeps to.
type timers struct {
	mu    sync.Mutex
	h     []*timer
	sleep atomic.Int64 // deadline the loop sleeps to; 0 while it is awake
	wake  func()
}

// set arms t at when (or moves it). It is a no-op once c's timers are closed.
func (ts *timers) set(t *timer, when int64) {
	ts.mu.Lock()
	wake := ts.setLocked(t, when)
	ts.mu.Unlock()
	if wake {
		ts.wake()
	}
}

func (ts *timers) setLocked(t *timer, when int64) (wake bool) {
	if t.c.tclosed {
		return false
	}
	t.when = when
	if t.idx < 0 {
		t.idx = int32(len(ts.h))
		ts.h = append(ts.h, t)
		ts.up(int(t.idx))
	} else {
		ts.fix(int(t.idx))
	}
	return when < ts.sleep.Load()
}

// stop disarms t; it reports whether t was armed.
func (ts *timers) stop(t *timer) bool {
	ts.mu.Lock()
	ok := t.idx >= 0
	if ok {
		ts.remove(int(t.idx))
	}
	ts.mu.Unlock()
	return ok
}

func (ts *timers) armed(t *timer) bool {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return t.idx >= 0
}

// closeConn disarms every timer of c and refuses new ones.
func (ts *timers) closeConn(c *Conn) {
	ts.mu.Lock()
	c.tclosed = true
	for _, t := range [...]*timer{&c.tIdle, &c.tPing, &c.tPong, &c.tWrite, &c.tLinger} {
		if t.idx >= 0 {
			ts.remove(int(t.idx))
		}
	}
	for _, u := range c.utimers {
		if u.t.idx >= 0 {
			ts.remove(int(u.t.idx))
		}
	}
	c.utimers = nil
	ts.mu.Unlock()
}

// due pops the timers whose time has come onto out.
func (ts *timers) due(now int64, out []*timer) []*timer {
	ts.mu.Lock()
	for len(ts.h) > 0 && ts.h[0].when <= now {
		t := ts.h[0]
		ts.remove(0)
		if t.kind == tkUser {
			t.c.dropUserTimer(t)
		}
		out = append(out, t)
	}
	ts.mu.Unlock()
	return out
}

// nextWait records the deadline the loop is about to sleep to and returns
// the epoll_wait timeout in milliseconds (-1: no timer).
func (ts *timers) nextWait(now int64) int {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if len(ts.h) == 0 {
		ts.sleep.Store(math.MaxInt64)
		return -1
	}
	when := ts.h[0].when
	ts.sleep.Store(when)
	d := when - now
	if d <= 0 {
		return 0
	}
	ms := (d + int64(time.Millisecond) - 1) / int64(time.Millisecond)
	if ms > math.MaxInt32 {
		ms = math.MaxInt32
	}
	return int(ms)
}

func (ts *timers) awake() { ts.sleep.Store(0) }

func (ts *timers) len() int {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return len(ts.h)
}

// heap mechanics, under mu.

func (ts *timers) remove(i int) {
	h := ts.h
	last := len(h) - 1
	h[i].idx = -1
	if i != last {
		h[i] = h[last]
		h[i].idx = int32(i)
	}
	h[last] = nil
	ts.h = h[:last]
	if i != last {
		ts.fix(i)
	}
}

func (ts *timers) fix(i int) {
	if !ts.down(i) {
		ts.up(i)
	}
}

func (ts *timers) up(i int) {
	h := ts.h
	for i > 0 {
		p := (i - 1) / 2
		if h[p].when <= h[i].when {
			break
		}
		h[p], h[i] = h[i], h[p]
		h[p].idx, h[i].idx = int32(p), int32(i)
		i = p
	}
}

func (ts *timers) down(i0 int) bool {
	h := ts.h
	n := len(h)
	i := i0
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		j := l
		if r := l + 1; r < n && h[r].when < h[l].when {
			j = r
		}
		if h[i].when <= h[j].when {
			break
		}
		h[i], h[j] = h[j], h[i]
		h[i].idx, h[j].idx = int32(i), int32(j)
		i = j
	}
	return i > i0
}

// Timer is a per-connection timer from Conn.AfterFunc. Its function runs on
// the hub's loop goroutine, like OnMessage: it must not block.
type Timer struct {
	t timer
}

// AfterFunc runs f on the loop goroutine after d, unless the timer is
// stopped or the connection closes first. One heap entry, no goroutine.
func (c *Conn) AfterFunc(d time.Duration, f func()) *Timer {
	u := &Timer{t: timer{idx: -1, kind: tkUser, c: c, f: f}}
	u.Reset(d)
	return u
}

// Stop disarms the timer; it reports whether the timer was armed.
func (u *Timer) Stop() bool {
	ts := &u.t.c.hub.timers
	ts.mu.Lock()
	ok := u.t.idx >= 0
	if ok {
		ts.remove(int(u.t.idx))
		u.t.c.dropUserTimer(&u.t)
	}
	ts.mu.Unlock()
	return ok
}

// Reset re-arms the timer to fire after d; it reports whether the timer was
// armed before. Resetting a timer of a closed connection does nothing.
func (u *Timer) Reset(d time.Duration) bool {
	c := u.t.c
	ts := &c.hub.timers
	when := time.Now().Add(d).UnixNano()
	ts.mu.Lock()
	if c.tclosed {
		ts.mu.Unlock()
		return false
	}
	was := u.t.idx >= 0
	if !was {
		c.utimers = append(c.utimers, u)
	}
	wake := ts.setLocked(&u.t, when)
	ts.mu.Unlock()
	if wake {
		ts.wake()
	}
	return was
}

// dropUserTimer forgets t in c's list; under timers.mu.
func (c *Conn) dropUserTimer(t *timer) {
	for i, u := range c.utimers {
		if &u.t == t {
			last := len(c.utimers) - 1
			c.utimers[i] = c.utimers[last]
			c.utimers[last] = nil
			c.utimers = c.utimers[:last]
			if len(c.utimers) == 0 {
				c.utimers = nil
			}
			return
		}
	}
}
