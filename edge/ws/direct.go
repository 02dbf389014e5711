//go:build linux && !wsportable

package ws

import (
	"sync"
	"time"
	"unsafe"

	"github.com/alertd/alertd/internal/latency"
	"github.com/alertd/alertd/internal/stageclock"
	"golang.org/x/sys/unix"
)

// Direct writes (issue 16). A frame sent to a connection with nothing
// queued, nothing half-written and no writer on it is written by the
// sending goroutine itself, with one non-blocking send(2): no run-queue
// push, no writer wake-up, no second pass over the connection's lock. The
// sender takes the writer's role for that call (scheduled and writing set
// under mu), so frames sent meanwhile queue behind it and order holds; what
// queued while it wrote goes to the writers. A send that would block keeps
// the tail on the connection (pending) and arms EPOLLOUT and the write
// deadline, exactly as a writer does; the caller never waits.
//
// A fan-out of one event to many sockets thus costs the publisher about what
// the kernel's send path costs, and the handoff (a wake-up and a second
// lock per delivery) leaves the profile. Off by default (Config.DirectWrites):
// in two same-load comparisons on the shared 2-core machine (load 13-20,
// bench/results/fanout-floor-2026-11-24-notes.md) it saved no CPU per
// delivery and doubled p99, the publisher doing a whole fan-out's system
// calls alone where two writers share them; it waits for a measurement on a
// quiet machine.

// maxDirect is the largest frame (header included) written directly;
// larger ones go through the writers (writev from the shared payload).
const maxDirect = 8 << 10

// directBuf holds one frame's header and a copy of its payload, so that the
// frame goes out with send(2) of one buffer.
type directBuf struct{ b [maxDirect]byte }

var directBufs = sync.Pool{New: func() any { return new(directBuf) }}

// directShards is how many delivery counters direct writers spread over (by
// connection id), so that concurrent publishers rarely share a cache line.
const directShards = 8

// directGap: a connection written less than this long ago (directly or by
// a writer) queues its next frame for the writers instead; so does one whose
// last writer turn found several frames queued (Conn.batched), until a turn
// finds one. The writers pack a busy socket's frames into few system
// calls: a burst to one socket (a replay after READY) or a backlog (events
// to the same sockets faster than one system call each could carry them)
// stays with them. A socket that has been quiet for a while, as most
// sockets of a fan-out are (a session on a hundred handles hears a few
// events a second), is written directly.
const directGap = 10 * time.Millisecond

// tryDirectLocked reports whether the caller may write f itself now, and if
// so marks the connection as being written (c.mu held).
func (c *Conn) tryDirectLocked(f outFrame) bool {
	if !c.hub.cfg.DirectWrites || c.q != nil || c.pending != nil || c.scheduled || c.blocked || c.adopting || c.batched ||
		headerLen(len(f.p))+len(f.p) > maxDirect {
		return false
	}
	now := latency.Now()
	if c.lastWrite != 0 && now-c.lastWrite < int64(directGap) {
		return false
	}
	c.lastWrite = now
	c.scheduled = true
	c.writing = true
	return true
}

// writeDirect writes f, which tryDirectLocked let through, and hands what
// queued meanwhile to the writers.
func (c *Conn) writeDirect(f outFrame) {
	h := c.hub
	fd := c.fd // fixed for the connection's life; closed only while no one writes
	d := directBufs.Get().(*directBuf)
	n := len(appendHeader(d.b[:0], f.op, len(f.p)))
	n += copy(d.b[n:], f.p)
	st := &h.direct[c.id%directShards]
	if stageclock.On && f.ev {
		stageclock.Mark(f.at, stageclock.SendStart)
	}
	written, err := sendBuf(fd, unsafe.Pointer(&d.b[0]), n, st)
	if stageclock.On && f.ev {
		stageclock.Mark(f.at, stageclock.SendDone)
	}
	var rem []byte
	if err == unix.EAGAIN {
		rem, err = append([]byte(nil), d.b[written:n]...), nil
	}
	directBufs.Put(d)
	if err == nil {
		st.framesWritten.Add(1)
		st.account1(c.opt.class, &f)
	}

	c.mu.Lock()
	c.writing = false
	var post, push bool
	switch {
	case c.dead:
		post = c.releaseLocked()
	case err != nil:
		post = c.failLocked(err)
	case rem != nil:
		// Blocked: the tail goes first, then whatever queued meanwhile.
		c.pending = rem
		c.blocked = true
		c.scheduled = false
		unix.EpollCtl(h.epfd, unix.EPOLL_CTL_MOD, fd, &unix.EpollEvent{Events: c.interestLocked(), Fd: int32(fd)})
		h.timers.set(&c.tWrite, time.Now().Add(time.Duration(c.opt.writeTimeout)).UnixNano())
	case c.q != nil:
		push = true // still scheduled: the writers take it from here
	default:
		c.scheduled = false
	}
	c.mu.Unlock()
	if push {
		h.runq.push(c)
	}
	if post {
		h.post(cmd{kind: cmdRelease, c: c})
	}
}

// sendBuf writes n bytes at p with send(2) until done, an error, or EAGAIN
// (then it returns what was written and EAGAIN). RawSyscall, as in the
// writers: the socket is non-blocking.
func sendBuf(fd int, p unsafe.Pointer, n int, st *deliveries) (written int, err error) {
	for written < n {
		r, _, e := unix.RawSyscall6(unix.SYS_SENDTO, uintptr(fd), uintptr(unsafe.Add(p, written)), uintptr(n-written),
			unix.MSG_DONTWAIT|unix.MSG_NOSIGNAL, 0, 0)
		st.writeCalls.Add(1)
		if e != 0 {
			if e == unix.EINTR {
				continue
			}
			return written, e
		}
		written += int(r)
		st.bytesWritten.Add(uint64(r))
	}
	return written, nil
}
