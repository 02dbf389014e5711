//go:build linux && !wsportable

package ws

import (
	"unsafe"

	"github.com/alertd/alertd/internal/stageclock"
	"github.com/alertd/alertd/internal/uring"
	"github.com/gobwas/ws"
	"golang.org/x/sys/unix"
)

// The io_uring send path (Config.Send = SendIOURing, issue 16). A writer
// takes up to uringBatch scheduled connections from the run queue at once,
// swaps out each one's queue as drain does, copies each connection's turn
// (its pending tail, then its frames' headers and payloads, up to
// uringTurn bytes; the rest stays first in its queue) into one region of
// its arena, and queues one IORING_OP_SEND per connection; a single
// io_uring_enter submits them all and, the sockets being non-blocking
// (MSG_DONTWAIT), the kernel completes every send inside that call. So a
// fan-out of one event to a thousand quiet sockets costs a few system calls
// instead of a thousand.
//
// Per-socket order and the slow-reader rules are the write path's: a send
// that completes short, or with EAGAIN, leaves its unwritten bytes on the
// connection as pending, arms EPOLLOUT and the write deadline, and the
// connection waits for the loop (finishTurn, shared with drain); frames
// sent meanwhile queue behind it. A turn whose first frame is over
// copyFrame goes through drain, the write path's writev from the shared
// payload.

const (
	uringBatch = 256       // connections per io_uring_enter at most (the ring's size)
	uringArena = 512 << 10 // bytes one batch copies at most
	uringTurn  = 64 << 10  // bytes of one connection per batch (unless its pending tail is more)
	uringFlags = unix.MSG_DONTWAIT | unix.MSG_NOSIGNAL
)

// uringSender is a writer's ring and the memory its queued sends point at;
// the writer's goroutine owns it.
type uringSender struct {
	ring   *uring.Ring
	arena  []byte
	used   int
	conns  []*Conn
	slots  []uringSlot
	cqes   []uring.CQE
	broken bool // the ring failed: the writer writes from now on
}

// uringSlot is one connection's turn in a batch.
type uringSlot struct {
	c          *Conn
	q          *queue // the swapped-out queue (nil when only a tail was pending)
	fd         int
	nframes    int // frames of q in the bytes (a close frame ends them)
	off, n     int // the bytes in the arena
	closeFrame bool
	res        int32
	done       bool
}

// newRing makes a writer's ring and checks that a send through it works
// (io_uring can be set up in sandboxes whose sends then fail: better to
// write from the start than to fail every connection); tests replace it to
// see the fallback.
var newRing = func() (*uring.Ring, error) {
	r, err := uring.New(uringBatch)
	if err != nil {
		return nil, err
	}
	if err := r.ProbeSend(); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

func newURingSender() (*uringSender, error) {
	r, err := newRing()
	if err != nil {
		return nil, err
	}
	return &uringSender{
		ring:  r,
		arena: make([]byte, uringArena),
		conns: make([]*Conn, 0, uringBatch),
		slots: make([]uringSlot, 0, r.Entries()),
		cqes:  make([]uring.CQE, 0, r.Entries()),
	}, nil
}

// runURing is run for a writer with a ring.
func (w *writer) runURing() {
	u := w.u
	for !u.broken {
		u.conns = w.h.runq.popBatch(u.conns[:0], cap(u.slots))
		if len(u.conns) == 0 {
			u.ring.Close()
			return
		}
		for i, c := range u.conns {
			w.uringTake(c)
			u.conns[i] = nil
		}
		w.uringSubmit()
	}
	w.h.log.Error("ws: io_uring send path failed; this writer writes with send(2) from now on")
	for {
		c := w.h.runq.pop()
		if c == nil {
			return
		}
		w.drain(c)
	}
}

// uringTake adds c's turn to the batch, or has drain write it.
func (w *writer) uringTake(c *Conn) {
	u := w.u
	for {
		if u.broken {
			w.drain(c)
			return
		}
		c.mu.Lock()
		if c.dead || c.blocked || ((c.q == nil || len(c.q.f) == 0) && c.pending == nil) {
			c.scheduled = false
			c.mu.Unlock()
			return
		}
		k, need, closeFrame := turnPlan(c.pending, c.q, uringTurn)
		if need == 0 || need > len(u.arena) {
			// The first frame is too large to copy, or the pending tail
			// (a writev's, up to maxBatch) is larger than the whole arena:
			// writev from where the bytes are. (Waiting for room that
			// can never be made would spin this writer forever.)
			c.mu.Unlock()
			w.drain(c)
			return
		}
		if u.used+need > len(u.arena) || len(u.slots) == cap(u.slots) {
			c.mu.Unlock()
			w.uringSubmit()
			continue // c may have changed meanwhile
		}
		q, pend, fd := c.q, c.pending, c.fd
		c.q, c.pending = nil, nil
		c.writing = true
		c.mu.Unlock()

		s := uringSlot{c: c, q: q, fd: fd, off: u.used, nframes: k, closeFrame: closeFrame}
		b := append(u.arena[s.off:s.off], pend...)
		for i := range k {
			f := &q.f[i]
			b = appendHeader(b, f.op, len(f.p))
			b = append(b, f.p...)
		}
		s.n = len(b)
		u.used += s.n
		// The ring has room: slots and queued sends move in step, and a
		// full slots list was submitted above.
		u.ring.Send(fd, unsafe.Pointer(&u.arena[s.off]), s.n, uringFlags, uint64(len(u.slots)))
		u.slots = append(u.slots, s)
		return
	}
}

// turnPlan is what one turn of pend and q's first k frames copies: bytes
// in all, at most limit unless pend alone is more; it stops before a frame
// over copyFrame and after a close frame (closeFrame: nothing goes after
// it). bytes 0: nothing to copy (a large first frame).
func turnPlan(pend []byte, q *queue, limit int) (k, bytes int, closeFrame bool) {
	bytes = len(pend)
	if q == nil {
		return 0, bytes, false
	}
	for i := range q.f {
		f := &q.f[i]
		n := headerLen(len(f.p)) + len(f.p)
		if len(f.p) > copyFrame || bytes+n > limit && (k > 0 || bytes > 0) {
			break
		}
		bytes += n
		k++
		if f.op == ws.OpClose {
			return k, bytes, true
		}
	}
	return k, bytes, false
}

// uringSubmit sends the batch with one io_uring_enter, waits for every
// completion, and finishes each connection's turn.
func (w *writer) uringSubmit() {
	u := w.u
	if len(u.slots) == 0 {
		return
	}
	if stageclock.On {
		for i := range u.slots {
			if q := u.slots[i].q; q != nil {
				markFrames(q.f[:u.slots[i].nframes], stageclock.SendStart)
			}
		}
	}
	taken, err := u.ring.Submit(len(u.slots))
	if stageclock.On {
		for i := range u.slots {
			if q := u.slots[i].q; q != nil {
				markFrames(q.f[:u.slots[i].nframes], stageclock.SendDone)
			}
		}
	}
	w.st.writeCalls.Add(1)
	if err != nil {
		w.h.log.Warn("ws: io_uring_enter", "err", err, "sends", len(u.slots), "taken", taken)
	}
	for got := 0; got < taken; {
		u.cqes = u.ring.Reap(u.cqes[:0])
		for _, e := range u.cqes {
			got++
			if e.UserData >= uint64(len(u.slots)) || u.slots[e.UserData].done {
				continue // not one of ours: nothing to finish
			}
			s := &u.slots[e.UserData]
			s.res, s.done = e.Res, true
		}
		if got < taken {
			if err := u.ring.Wait(taken - got); err != nil {
				// Sends may still point into the arena: never touch it
				// again, and close the connections whose bytes are unknown.
				u.broken = true
				break
			}
			w.st.writeCalls.Add(1)
		}
	}
	for i := range u.slots {
		s := &u.slots[i]
		switch {
		case s.done:
		case i >= taken:
			// Not taken by the kernel: nothing went out; the loop writes it
			// once the socket is writable (EPOLLOUT).
			s.res = -int32(unix.EAGAIN)
		default:
			s.res = -int32(unix.EIO) // in flight in a broken ring
		}
		w.uringFinish(s)
		*s = uringSlot{}
	}
	u.slots = u.slots[:0]
	u.used = 0
}

// uringFinish records one send's completion, as drain does after flush.
func (w *writer) uringFinish(s *uringSlot) {
	written, err := sendResult(s.res, s.n)
	var frames []outFrame
	if s.q != nil {
		frames = s.q.f
	}
	var rem []byte
	if err == nil {
		// The whole turn is committed: what did not go out goes first, from
		// pending (as a partial writev in flush).
		w.st.framesWritten.Add(uint64(s.nframes))
		w.st.account(s.c.opt.class, frames[:s.nframes])
		w.st.bytesWritten.Add(uint64(written))
		if written < s.n {
			rem = append([]byte(nil), w.u.arena[s.off+written:s.off+s.n]...)
		}
	}
	closeDone := s.closeFrame && err == nil && rem == nil
	next := s.nframes
	if s.closeFrame {
		next = len(frames) // what followed the close frame is dropped
	}
	w.finishTurn(s.c, s.fd, s.q, next, len(frames), true, rem, closeDone, err, true)
}

// sendResult reads a send's completion result for n bytes: how many went
// out, or the error that ends the connection. EAGAIN (and EINTR) mean none
// went out and the socket is full; a count above n (which the kernel never
// reports) is taken as n.
func sendResult(res int32, n int) (written int, err error) {
	switch {
	case res >= 0:
		return min(int(res), n), nil
	case res == -int32(unix.EAGAIN), res == -int32(unix.EINTR):
		return 0, nil
	default:
		return 0, unix.Errno(-int64(res))
	}
}
