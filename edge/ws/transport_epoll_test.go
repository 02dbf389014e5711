//go:build linux && !wsportable

package ws

import (
	"fmt"
	"testing"
	"time"
)

// Tests of the epoll transport's insides; the behaviour tests run against
// both transports.

// An idle connection costs no goroutine and at most this much heap.
const (
	goroutinesPerConn = 0
	maxIdleConnHeap   = 8192
)

// armedTimers is the number of timers in the hub's heap.
func armedTimers(h *Hub) int { return h.timers.len() }

func TestTimerHeap(t *testing.T) {
	h, err := NewHub(Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Shutdown(t.Context())
	c := newConn(h, -1, HandlerFuncs{}, connOpts{}, nil)
	var ts []*Timer
	for i := range 200 {
		u := &Timer{t: timer{idx: -1, kind: tkUser, c: c}}
		h.timers.set(&u.t, int64((i*7919)%1000))
		ts = append(ts, u)
	}
	for i := 0; i < 200; i += 3 {
		h.timers.stop(&ts[i].t)
	}
	got := h.timers.due(1<<62, nil)
	for i := 1; i < len(got); i++ {
		if got[i-1].when > got[i].when {
			t.Fatal("heap order")
		}
	}
	if len(got) != 200-67 {
		t.Fatalf("%d due", len(got))
	}
}

func TestWriteBatching(t *testing.T) {
	rec := newRecorder(false)
	ts := startServer(t, Config{}, rec, Options{QueueLen: 2000})
	c := dialGorilla(t, ts.url)
	defer c.Close()
	sc := rec.waitOpen(t)

	sc.mu.Lock()
	sc.scheduled = true // as if already on the run queue
	sc.mu.Unlock()
	const n = 1000
	for i := range n {
		if !sc.Send(fmt.Appendf(nil, "message %04d", i)) {
			t.Fatal("Send failed")
		}
	}
	before := ts.hub.Stats()
	sc.mu.Lock()
	sc.scheduled = false
	push := sc.scheduleLocked()
	sc.mu.Unlock()
	if push {
		ts.hub.runq.push(sc)
	}
	for i := range n {
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		_, m, err := c.ReadMessage()
		if err != nil || string(m) != fmt.Sprintf("message %04d", i) {
			t.Fatalf("message %d: %q %v", i, m, err)
		}
	}
	after := ts.hub.Stats()
	calls := after.WriteCalls - before.WriteCalls
	if calls < 1 || calls > 2 {
		t.Fatalf("%d frames took %d writev calls", n, calls)
	}
	if f := after.FramesWritten - before.FramesWritten; f != n {
		t.Fatalf("frames written %d", f)
	}

	// A publisher in a tight loop: fewer system calls than messages.
	before = ts.hub.Stats()
	for i := range n {
		sc.Send(fmt.Appendf(nil, "again %04d", i))
	}
	for range n {
		if _, _, err := c.ReadMessage(); err != nil {
			t.Fatal(err)
		}
	}
	after = ts.hub.Stats()
	t.Logf("tight loop: %d messages in %d writev calls", n, after.WriteCalls-before.WriteCalls)
	if after.WriteCalls-before.WriteCalls >= n {
		t.Fatalf("no batching: %d calls", after.WriteCalls-before.WriteCalls)
	}
}
