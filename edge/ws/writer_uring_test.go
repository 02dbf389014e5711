//go:build linux && !wsportable

package ws

import (
	"bytes"
	"fmt"
	"net"
	"syscall"
	"testing"

	"github.com/alertd/alertd/internal/uring"
	"golang.org/x/sys/unix"
)

func startURing(t *testing.T, h Handler, opt Options) *testServer {
	t.Helper()
	ts := startServer(t, Config{Send: SendIOURing, Writers: 1}, h, opt)
	if ts.hub.SendPath() != SendIOURing {
		t.Skip("io_uring unavailable here; the hub fell back to send(2)")
	}
	return ts
}

// A fan-out of events to many connections goes out in fewer system calls
// than frames, every connection gets every frame in order, and each event
// counts as a delivery.
func TestURingFanout(t *testing.T) {
	rec := newRecorder(false)
	ts := startURing(t, rec, Options{QueueLen: 1000, Class: 1})
	const conns, events = 50, 40
	clients := make([]*rawClient, conns)
	server := make([]*Conn, conns)
	for i := range clients {
		clients[i] = dialRaw(t, ts.addr, nil)
		server[i] = rec.waitOpen(t)
	}
	before := ts.hub.Stats()
	msgs := make([][]byte, events)
	for e := range msgs {
		msgs[e] = bytes.Repeat([]byte{byte('a' + e%26)}, 900+e)
		for _, c := range server {
			if !c.SendEvent(msgs[e], 0) {
				t.Fatal("SendEvent refused")
			}
		}
	}
	for i, rc := range clients {
		for e := range msgs {
			f, err := rc.read()
			if err != nil || !bytes.Equal(f.payload, msgs[e]) {
				t.Fatalf("client %d frame %d: %d bytes, %v", i, e, len(f.payload), err)
			}
		}
	}
	// A writer counts a turn's frames after its send returned: the client
	// may have read them first.
	waitFor(t, func() bool { n, _ := ts.hub.Deliveries(1); return n == conns*events })
	st := ts.hub.Stats()
	frames, calls := st.FramesWritten-before.FramesWritten, st.WriteCalls-before.WriteCalls
	if frames != conns*events {
		t.Fatalf("frames written %d, want %d", frames, conns*events)
	}
	if calls >= frames {
		t.Fatalf("%d system calls for %d frames: not batched", calls, frames)
	}
	t.Logf("%d frames in %d io_uring_enter calls", frames, calls)
}

// A reader that stops: sends complete short or with EAGAIN, the rest waits
// on the connection (EPOLLOUT), frames sent meanwhile queue behind it, and
// once the client reads again every byte arrives in order.
func TestURingBlockedResumes(t *testing.T) {
	rec := newRecorder(false)
	ts := startURing(t, rec, Options{QueueLen: 100000})
	rc, sc := dialSmallReceiveBuffer(t, ts, rec)
	const n, size = 4000, 2000
	for i := range n {
		if !sc.Send(fmt.Appendf(bytes.Repeat([]byte{'.'}, size), "%06d", i)) {
			t.Fatal("Send refused")
		}
	}
	// The socket cannot take 8 MB unread: the connection blocks.
	waitFor(t, func() bool {
		sc.mu.Lock()
		defer sc.mu.Unlock()
		return sc.blocked
	})
	for i := range n {
		f, err := rc.read()
		if err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
		if got := string(f.payload[size:]); got != fmt.Sprintf("%06d", i) {
			t.Fatalf("frame %d is %s", i, got)
		}
	}
}

// dialSmallReceiveBuffer opens a client socket with a 64 KiB receive buffer
// from the start (no autotuning up to 32 MiB), so that a server that sends
// more than it reads blocks soon, and returns both ends.
func dialSmallReceiveBuffer(t *testing.T, ts *testServer, rec *recorder) (*rawClient, *Conn) {
	t.Helper()
	d := net.Dialer{Control: func(_, _ string, rc syscall.RawConn) error {
		return rc.Control(func(fd uintptr) { unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_RCVBUF, 64<<10) })
	}}
	nc, err := d.Dial("tcp", ts.addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	rc := handshakeRaw(t, nc, ts.addr, nil)
	return rc, rec.waitOpen(t)
}

// A pending tail larger than the writer's arena (a writev of a large frame
// that blocked early) goes out once the socket drains, followed by what
// was queued behind it; it used to make the writer wait for arena room
// forever.
func TestURingPendingLargerThanArena(t *testing.T) {
	rec := newRecorder(false)
	ts := startURing(t, rec, Options{QueueLen: 100})
	rc, sc := dialSmallReceiveBuffer(t, ts, rec)
	// A fixed send buffer (no autotuning up to 4 MiB): the socket takes a
	// few hundred KiB unread, and the writev leaves the rest pending.
	if err := unix.SetsockoptInt(sc.fd, unix.SOL_SOCKET, unix.SO_SNDBUF, 64<<10); err != nil {
		t.Fatal(err)
	}
	big := bytes.Repeat([]byte{'b'}, 4*uringArena)
	if !sc.Send(big) {
		t.Fatal("Send refused")
	}
	waitFor(t, func() bool {
		sc.mu.Lock()
		defer sc.mu.Unlock()
		return sc.blocked && len(sc.pending) > uringArena
	})
	if !sc.Send([]byte("after")) {
		t.Fatal("Send refused")
	}
	for _, want := range [][]byte{big, []byte("after")} {
		f, err := rc.read()
		if err != nil || !bytes.Equal(f.payload, want) {
			t.Fatalf("read %d bytes, %v; want %d", len(f.payload), err, len(want))
		}
	}
}

// A close frame queued behind events goes out last, on the batched path too.
func TestURingCloseAfterFrames(t *testing.T) {
	rec := newRecorder(false)
	ts := startURing(t, rec, Options{})
	rc := dialRaw(t, ts.addr, nil)
	sc := rec.waitOpen(t)
	for i := range 10 {
		sc.Send([]byte{byte('0' + i)})
	}
	sc.Close(1000, "bye")
	for i := range 10 {
		f, err := rc.read()
		if err != nil || string(f.payload) != string(rune('0'+i)) {
			t.Fatalf("frame %d: %q, %v", i, f.payload, err)
		}
	}
	rc.expectClose(1000)
}

// FuzzSendResult: a completion's result becomes bytes written within the
// send (never more, never negative) or an error; EAGAIN is no error.
func FuzzSendResult(f *testing.F) {
	f.Add(int32(930), 930)
	f.Add(int32(-11), 930)
	f.Add(int32(-32), 10)
	f.Add(int32(5000), 930)
	f.Fuzz(func(t *testing.T, res int32, n int) {
		if n < 0 {
			n = -n
		}
		w, err := sendResult(res, n)
		switch {
		case w < 0 || w > n:
			t.Fatalf("written %d of %d", w, n)
		case err != nil && (res >= 0 || res == -int32(unix.EAGAIN)):
			t.Fatalf("res %d gave error %v", res, err)
		case err == nil && res < 0 && w != 0:
			t.Fatalf("res %d wrote %d", res, w)
		case err == nil && res < 0 && res != -int32(unix.EAGAIN) && res != -int32(unix.EINTR):
			t.Fatalf("res %d gave no error", res)
		}
	})
}

// Where io_uring cannot be set up, the hub says so, writes with send(2),
// and every frame still arrives.
func TestURingFallback(t *testing.T) {
	saved := newRing
	newRing = func() (*uring.Ring, error) { return nil, unix.ENOSYS }
	defer func() { newRing = saved }()
	rec := newRecorder(false)
	ts := startServer(t, Config{Send: SendIOURing, Logger: discardLogger()}, rec, Options{})
	if p := ts.hub.SendPath(); p != SendWrite {
		t.Fatalf("send path %v, want write", p)
	}
	rc := dialRaw(t, ts.addr, nil)
	sc := rec.waitOpen(t)
	sc.Send([]byte("still here"))
	if f, err := rc.read(); err != nil || string(f.payload) != "still here" {
		t.Fatalf("read %q, %v", f.payload, err)
	}
}
