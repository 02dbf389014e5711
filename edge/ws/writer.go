//go:build linux && !wsportable

package ws

import (
	"time"
	"unsafe"

	"github.com/alertd/alertd/internal/latency"
	"github.com/alertd/alertd/internal/stageclock"
	"github.com/gobwas/ws"
	"golang.org/x/sys/unix"
)

const (
	wBufSize   = 64 << 10 // per-writer buffer for headers and small payloads
	maxIov     = 1024     // IOV_MAX
	smallFrame = 512      // payloads up to this are copied next to their header
	copyFrame  = 8 << 10  // ...and up to this while buf has room: one buffer, one send(2)
	maxBatch   = 1 << 20  // bytes per writev
	maxRounds  = 8        // batches per turn before the connection requeues
)

// writer is one goroutine of the pool. It takes a scheduled connection,
// swaps out its whole queue, and writes it in as few system calls as it
// can: headers and small payloads are packed into one buffer (sent with
// send(2) when that is all), large shared payloads are referenced in place
// (writev). Sockets are non-blocking: a write that
// would block saves its tail on the connection, arms EPOLLOUT and the write
// deadline, and the writer moves on.
type writer struct {
	h    *Hub
	st   deliveries
	buf  []byte
	bufs [][]byte
	iov  []unix.Iovec
	u    *uringSender // the io_uring send path (writer_uring.go); nil: write
}

func newWriter(h *Hub) *writer {
	return &writer{
		h:    h,
		buf:  make([]byte, 0, wBufSize),
		bufs: make([][]byte, 0, maxIov),
		iov:  make([]unix.Iovec, 0, maxIov),
	}
}

func (w *writer) run() {
	defer w.h.wg.Done()
	if w.u != nil {
		w.runURing()
		return
	}
	for {
		c := w.h.runq.pop()
		if c == nil {
			return
		}
		w.drain(c)
	}
}

func (w *writer) drain(c *Conn) {
	h := w.h
	for round := 0; ; round++ {
		c.mu.Lock()
		if c.dead || c.blocked {
			c.scheduled = false
			c.mu.Unlock()
			return
		}
		if (c.q == nil || len(c.q.f) == 0) && c.pending == nil {
			c.scheduled = false
			c.mu.Unlock()
			return
		}
		if round == maxRounds {
			c.mu.Unlock()
			h.runq.push(c) // still scheduled: give the others a turn
			return
		}
		q := c.q
		c.q = nil
		pend := c.pending
		c.pending = nil
		c.writing = true
		fd := c.fd
		c.mu.Unlock()

		var frames []outFrame
		if q != nil {
			frames = q.f
		}
		next, rem, closeDone, err := w.flush(fd, c.opt.class, pend, frames)

		if w.finishTurn(c, fd, q, next, len(frames), false, rem, closeDone, err, false) {
			return
		}
	}
}

// finishTurn records the outcome of a writer's turn on c (its queue q,
// swapped out, written up to frame next of nframes; rem the unwritten tail
// when the socket would block) and reports whether c left the writer: dead,
// blocked or its close frame sent. A connection without work left is
// unscheduled (and, without requeue, reported done: it left the writer);
// one with work left goes back on the run queue (still scheduled) with
// requeue, and without it the caller takes another round.
//
// Frames after next were written in part and the socket would block, or
// (more) were left for the next turn.
func (w *writer) finishTurn(c *Conn, fd int, q *queue, next, nframes int, more bool, rem []byte, closeDone bool, err error, requeue bool) (done bool) {
	h := w.h
	var now int64
	if h.cfg.DirectWrites {
		now = latency.Now()
	}
	c.mu.Lock()
	c.writing = false
	if now != 0 { // for the direct-write rule (direct.go)
		c.lastWrite = now
		c.batched = nframes > 1
	}
	var post bool
	switch {
	case c.dead:
		post = c.releaseLocked()
	case err != nil:
		post = c.failLocked(err)
	case closeDone:
		c.closeSent = true
		if c.readEOF || c.peerClosed {
			post = c.killLocked()
		} else {
			// FIN after the close frame; keep reading until the peer
			// closes too, at most LingerTimeout.
			unix.Shutdown(fd, unix.SHUT_WR)
			h.timers.set(&c.tLinger, time.Now().Add(h.cfg.LingerTimeout).UnixNano())
		}
	case rem != nil || next < nframes && !more:
		// Blocked: keep the unwritten tail and the frames not reached,
		// in front of anything queued meanwhile.
		c.pending = rem
		if next < nframes {
			q = c.requeueFrontLocked(q, next)
		}
		c.blocked = true
		c.scheduled = false
		unix.EpollCtl(h.epfd, unix.EPOLL_CTL_MOD, fd, &unix.EpollEvent{Events: c.interestLocked(), Fd: int32(fd)})
		h.timers.set(&c.tWrite, time.Now().Add(time.Duration(c.opt.writeTimeout)).UnixNano())
	case next < nframes:
		// Not attempted this turn (more): first in line for the next one.
		q = c.requeueFrontLocked(q, next)
	}
	done = c.dead || c.blocked || c.closeSent
	push := false
	switch {
	case done:
		c.scheduled = false
	case (c.q == nil || len(c.q.f) == 0) && c.pending == nil:
		// Nothing came meanwhile (the usual case, one frame a turn): leave
		// now rather than in the caller's next round, one lock pass less
		// per delivery.
		c.scheduled = false
		done = !requeue
	case requeue:
		push = true // still scheduled
	}
	c.mu.Unlock()
	if q != nil {
		putQueue(q)
	}
	if post {
		h.post(cmd{kind: cmdRelease, c: c})
	}
	if push {
		h.runq.push(c)
	}
	return done
}

// requeueFrontLocked puts q's frames from next on in front of c's queue and
// returns what the caller still has to give back to the pool (nil: q
// became c's queue).
func (c *Conn) requeueFrontLocked(q *queue, next int) *queue {
	n := copy(q.f, q.f[next:])
	clear(q.f[n:])
	q.f = q.f[:n]
	if c.q != nil {
		q.f = append(q.f, c.q.f...)
		putQueue(c.q)
	}
	c.q = q
	return nil
}

// flush writes pend, then frames, in batches. It returns how many frames it
// got through, the unwritten bytes when the socket would block (a copy),
// whether a close frame went out whole, and a write error.
func (w *writer) flush(fd int, class uint8, pend []byte, frames []outFrame) (next int, rem []byte, closeDone bool, err error) {
	i := 0
	for first := true; first || i < len(frames); first = false {
		from := i
		w.buf = w.buf[:0]
		w.bufs = w.bufs[:0]
		total := 0
		if first && len(pend) > 0 {
			w.bufs = append(w.bufs, pend)
			total += len(pend)
		}
		start := 0 // open region of buf not yet in bufs
		nframes := 0
		sawClose := false
		for i < len(frames) && len(w.bufs) < maxIov-2 && total < maxBatch {
			f := frames[i]
			small := len(f.p) <= smallFrame ||
				len(f.p) <= copyFrame && len(w.buf)+headerLen(len(f.p))+len(f.p) <= cap(w.buf)
			need := headerLen(len(f.p))
			if small {
				need += len(f.p)
			}
			if len(w.buf)+need > cap(w.buf) {
				break
			}
			w.buf = appendHeader(w.buf, f.op, len(f.p))
			if small {
				w.buf = append(w.buf, f.p...)
			} else {
				w.bufs = append(w.bufs, w.buf[start:])
				start = len(w.buf)
				w.bufs = append(w.bufs, f.p)
			}
			total += headerLen(len(f.p)) + len(f.p)
			i++
			nframes++
			if f.op == ws.OpClose {
				sawClose = true
				i = len(frames) // nothing goes after a close frame
				break
			}
		}
		if start < len(w.buf) {
			w.bufs = append(w.bufs, w.buf[start:])
		}
		if stageclock.On {
			markFrames(frames[from:from+nframes], stageclock.SendStart)
		}
		rem, err = w.writev(fd, total)
		if stageclock.On {
			markFrames(frames[from:from+nframes], stageclock.SendDone)
		}
		clear(w.bufs)
		if err != nil {
			return i, rem, false, err
		}
		// A partial write commits the batch too: its tail goes out first,
		// from pending, before any other frame.
		w.st.framesWritten.Add(uint64(nframes))
		w.st.account(class, frames[from:from+nframes])
		if rem != nil {
			return i, rem, false, nil
		}
		if sawClose {
			return i, nil, true, nil
		}
	}
	return i, nil, false, nil
}

// writev writes w.bufs (total bytes). On EAGAIN it returns a copy of what
// is left.
func (w *writer) writev(fd int, total int) (rem []byte, err error) {
	if total == 0 {
		return nil, nil
	}
	iov := w.iov[:0]
	for _, b := range w.bufs {
		if len(b) > 0 {
			var v unix.Iovec
			v.Base = &b[0]
			v.SetLen(len(b))
			iov = append(iov, v)
		}
	}
	defer clear(iov)
	if len(iov) == 1 {
		return w.send(fd, iov[0].Base, total)
	}
	written := 0
	for len(iov) > 0 {
		// RawSyscall (here and in send): the socket is non-blocking, so the
		// call returns at once (EAGAIN when full) and need not tell the
		// scheduler. At one system call per delivery, Syscall's
		// entersyscall/exitsyscall and sysmon's retaking of writers' Ps
		// cost more than they protect against (bench/cmd/fanoutbench:
		// paired runs used 15-30% less server CPU per delivery).
		n, _, e := unix.RawSyscall(unix.SYS_WRITEV, uintptr(fd), uintptr(unsafe.Pointer(&iov[0])), uintptr(len(iov)))
		w.st.writeCalls.Add(1)
		if e != 0 {
			switch e {
			case unix.EINTR:
				continue
			case unix.EAGAIN:
				return w.tail(written, total), nil
			default:
				return nil, e
			}
		}
		written += int(n)
		w.st.bytesWritten.Add(uint64(n))
		// drop the written iovecs
		for k := int(n); k > 0; {
			l := int(iov[0].Len)
			if k >= l {
				k -= l
				iov = iov[1:]
				continue
			}
			iov[0].Base = (*byte)(unsafe.Add(unsafe.Pointer(iov[0].Base), k))
			iov[0].SetLen(l - k)
			k = 0
		}
	}
	return nil, nil
}

// send writes one buffer (the common case: a connection's few frames, all
// copied into buf) with send(2), which goes straight to the socket and skips
// writev's file-position lock and iovec import.
func (w *writer) send(fd int, base *byte, total int) (rem []byte, err error) {
	written := 0
	for written < total {
		p := unsafe.Add(unsafe.Pointer(base), written)
		n, _, e := unix.RawSyscall6(unix.SYS_SENDTO, uintptr(fd), uintptr(p), uintptr(total-written),
			unix.MSG_DONTWAIT|unix.MSG_NOSIGNAL, 0, 0)
		w.st.writeCalls.Add(1)
		if e != 0 {
			switch e {
			case unix.EINTR:
				continue
			case unix.EAGAIN:
				return w.tail(written, total), nil
			default:
				return nil, e
			}
		}
		written += int(n)
		w.st.bytesWritten.Add(uint64(n))
	}
	return nil, nil
}

// tail copies the bytes of w.bufs after the first skip.
func (w *writer) tail(skip, total int) []byte {
	out := make([]byte, 0, total-skip)
	for _, b := range w.bufs {
		if skip >= len(b) {
			skip -= len(b)
			continue
		}
		out = append(out, b[skip:]...)
		skip = 0
	}
	return out
}

// failLocked records why a write failed (the peer gone, or another
// transport error) and kills the connection; it reports whether the
// caller must post the connection's release. c.mu is held.
func (c *Conn) failLocked(err error) bool {
	state := TransportError
	if err == unix.EPIPE || err == unix.ECONNRESET {
		state = ClientClosed
	}
	c.st.CompareAndSwap(0, int32(state))
	return c.killLocked()
}
