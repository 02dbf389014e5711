//go:build !linux || wsportable

package ws

import "time"

// Timer is a per-connection timer from Conn.AfterFunc. Its function runs
// under the hub's loop lock, like OnMessage: it must not block.
type Timer struct {
	c        *Conn
	f        func()
	internal bool // the transport's own (no recover, no handler)
	t        *time.Timer
	gen      uint64 // bumped by every Stop and Reset: a stale firing is dropped
	on       bool   // armed; under c.tmu
}

// AfterFunc runs f under the loop lock after d, unless the timer is
// stopped or the connection closes first.
func (c *Conn) AfterFunc(d time.Duration, f func()) *Timer {
	u := &Timer{c: c, f: f}
	u.Reset(d)
	return u
}

// after arms one of the transport's timers.
func (c *Conn) after(d time.Duration, f func()) *Timer {
	u := &Timer{c: c, f: f, internal: true}
	u.Reset(d)
	return u
}

// Stop disarms the timer; it reports whether the timer was armed.
func (u *Timer) Stop() bool {
	c := u.c
	c.tmu.Lock()
	defer c.tmu.Unlock()
	was := u.on
	if was {
		u.disarmLocked()
	}
	return was
}

// Reset re-arms the timer to fire after d; it reports whether the timer
// was armed before. Resetting a timer of a closed connection does nothing.
func (u *Timer) Reset(d time.Duration) bool {
	c := u.c
	c.tmu.Lock()
	defer c.tmu.Unlock()
	if c.tclosed {
		return false
	}
	was := u.on
	if was {
		u.t.Stop()
	} else {
		c.timers[u] = struct{}{}
		c.hub.armed.Add(1)
	}
	u.on = true
	u.gen++
	g := u.gen
	u.t = time.AfterFunc(d, func() { u.fire(g) })
	return was
}

func (u *Timer) armed() bool {
	u.c.tmu.Lock()
	defer u.c.tmu.Unlock()
	return u.on
}

func (u *Timer) disarmLocked() {
	u.on = false
	u.gen++
	u.t.Stop()
	delete(u.c.timers, u)
	u.c.hub.armed.Add(-1)
}

// fire runs the timer's function under the loop lock, unless it was
// stopped, re-armed or its connection closed since.
func (u *Timer) fire(gen uint64) {
	c, h := u.c, u.c.hub
	h.loop.Lock()
	defer h.loop.Unlock()
	c.tmu.Lock()
	if !u.on || u.gen != gen || c.tclosed {
		c.tmu.Unlock()
		return
	}
	u.on = false
	delete(c.timers, u)
	h.armed.Add(-1)
	c.tmu.Unlock()
	if u.internal {
		u.f()
		return
	}
	h.callTimer(c, u.f)
}

// closeTimers disarms every timer of c and refuses new ones.
func (c *Conn) closeTimers() {
	c.tmu.Lock()
	defer c.tmu.Unlock()
	c.tclosed = true
	for u := range c.timers {
		u.disarmLocked()
	}
}
