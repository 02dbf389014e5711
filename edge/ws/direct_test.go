//go:build linux && !wsportable

package ws

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/alertd/alertd/internal/latency"
	gorilla "github.com/gorilla/websocket"
	"golang.org/x/sys/unix"
)

// forgetDirect makes the connection eligible for a direct write again, as
// if directGap had passed since its last write, a single frame.
func forgetDirect(c *Conn) {
	c.mu.Lock()
	c.lastWrite = 0
	c.batched = false
	c.mu.Unlock()
}

// A frame to an idle connection is written by the sender, one system call,
// counted as a delivery; a second one within directGap goes to the writers.
func TestDirectWrite(t *testing.T) {
	rec := newRecorder(false)
	ts := startServerOn(t, Config{DirectWrites: true}, rec, Options{Class: 1})
	c := dialGorilla(t, ts.url)
	defer c.Close()
	sc := rec.waitOpen(t)

	before := ts.hub.Stats()
	if !sc.SendEvent([]byte("direct"), latency.Now()) {
		t.Fatal("SendEvent")
	}
	// Written before SendEvent returned: nothing queued, nothing scheduled.
	sc.mu.Lock()
	idle := sc.q == nil && !sc.scheduled && !sc.writing && sc.pending == nil
	sc.mu.Unlock()
	if !idle {
		t.Fatal("connection not idle after a direct write")
	}
	st := ts.hub.Stats()
	if st.WriteCalls-before.WriteCalls != 1 || st.FramesWritten-before.FramesWritten != 1 {
		t.Fatalf("%d calls, %d frames; want 1 and 1", st.WriteCalls-before.WriteCalls, st.FramesWritten-before.FramesWritten)
	}
	if n, lat := ts.hub.Deliveries(1); n != 1 || lat.Count() != 1 {
		t.Fatalf("%d deliveries (%d timed), want 1", n, lat.Count())
	}
	sc.SendEvent([]byte("queued"), 0) // within directGap: the writers'
	for _, want := range []string{"direct", "queued"} {
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		if _, m, err := c.ReadMessage(); err != nil || string(m) != want {
			t.Fatalf("read %q, %v; want %q", m, err, want)
		}
	}
	waitFor(t, func() bool { n, _ := ts.hub.Deliveries(1); return n == 2 })
}

// An event ingested longer than directLag ago (the server behind its
// input) goes to the writers, even to a quiet connection.
func TestDirectWriteLagging(t *testing.T) {
	rec := newRecorder(false)
	ts := startServerOn(t, Config{DirectWrites: true}, rec, Options{Class: 1})
	c := dialGorilla(t, ts.url)
	defer c.Close()
	sc := rec.waitOpen(t)
	// Stamps count from the process's start: one directLag old needs the
	// clock past it.
	waitFor(t, func() bool { return latency.Now() > int64(directLag)+2 })
	sc.SendEvent([]byte("late"), 1)
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, m, err := c.ReadMessage(); err != nil || string(m) != "late" {
		t.Fatalf("read %q, %v", m, err)
	}
	waitFor(t, func() bool { n, _ := ts.hub.Deliveries(1); return n == 1 })
	for i := range ts.hub.direct {
		if n := ts.hub.direct[i].framesWritten.Load(); n != 0 {
			t.Fatalf("%d frames written directly", n)
		}
	}
}

// Senders on several goroutines, each direct when it finds the connection
// idle, queue behind one another: every sender's frames arrive in its
// order, none lost or doubled.
func TestDirectWriteConcurrentOrder(t *testing.T) {
	rec := newRecorder(false)
	ts := startServerOn(t, Config{DirectWrites: true}, rec, Options{QueueLen: 100000})
	c := dialGorilla(t, ts.url)
	defer c.Close()
	sc := rec.waitOpen(t)

	const senders, each = 4, 500
	var wg sync.WaitGroup
	for s := range senders {
		wg.Go(func() {
			for i := range each {
				if i%50 == 0 {
					forgetDirect(sc)
				}
				if !sc.Send(fmt.Appendf(nil, "%d %d", s, i)) {
					t.Error("Send failed")
					return
				}
			}
		})
	}
	next := make([]int, senders)
	for range senders * each {
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		_, m, err := c.ReadMessage()
		if err != nil {
			t.Fatal(err)
		}
		var s, i int
		if _, err := fmt.Sscanf(string(m), "%d %d", &s, &i); err != nil || s >= senders || i != next[s] {
			t.Fatalf("got %q, want sender %d's frame %d", m, s, next[min(s, senders-1)])
		}
		next[s]++
	}
	wg.Wait()
}

// A direct write the socket cannot take whole keeps its tail on the
// connection, arms EPOLLOUT, and later frames queue behind it: once the
// client reads, everything arrives in order.
func TestDirectWriteBlocks(t *testing.T) {
	rec := newRecorder(false)
	ts := startServerOn(t, Config{DirectWrites: true}, rec, Options{QueueLen: 100000})
	d := gorilla.Dialer{HandshakeTimeout: 5 * time.Second,
		NetDialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			nc, err := (&net.Dialer{}).DialContext(ctx, network, addr)
			if err == nil {
				nc.(*net.TCPConn).SetReadBuffer(4096)
			}
			return nc, err
		}}
	c, _, err := d.Dial(ts.url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	sc := rec.waitOpen(t)
	if err := unix.SetsockoptInt(sc.fd, unix.SOL_SOCKET, unix.SO_SNDBUF, 4096); err != nil {
		t.Fatal(err)
	}

	var sent [][]byte
	blocked := false
	for i := 0; i < 10000 && !blocked; i++ {
		forgetDirect(sc)
		m := bytes.Repeat([]byte{byte('a' + i%26)}, 3000)
		m[0] = byte('0' + i%10)
		if !sc.Send(m) {
			t.Fatalf("Send %d failed", i)
		}
		sent = append(sent, m)
		sc.mu.Lock()
		blocked = sc.blocked && sc.pending != nil
		sc.mu.Unlock()
	}
	if !blocked {
		t.Fatal("the socket never filled")
	}
	t.Logf("blocked after %d frames", len(sent))
	for i := range 20 { // behind the blocked tail
		m := []byte(fmt.Sprintf("after %d", i))
		if !sc.Send(m) {
			t.Fatal("Send after block")
		}
		sent = append(sent, m)
	}
	for i, want := range sent {
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		_, m, err := c.ReadMessage()
		if err != nil || !bytes.Equal(m, want) {
			t.Fatalf("message %d: %d bytes %.10q, %v; want %d bytes %.10q", i, len(m), m, err, len(want), want)
		}
	}
}

// Without DirectWrites (the default), and on the io_uring path whatever it
// says (its writers batch quiet sockets' sends), every frame goes through
// the writers.
func TestNoDirectWrites(t *testing.T) {
	t.Run("off", func(t *testing.T) { testNoDirectWrites(t, Config{}) })
	t.Run("io_uring", func(t *testing.T) {
		testNoDirectWrites(t, Config{DirectWrites: true, Send: SendIOURing})
	})
}

func testNoDirectWrites(t *testing.T, cfg Config) {
	rec := newRecorder(false)
	ts := startServerOn(t, cfg, rec, Options{})
	if cfg.Send == SendIOURing && ts.hub.SendPath() != SendIOURing {
		t.Skip("io_uring unavailable here")
	}
	c := dialGorilla(t, ts.url)
	defer c.Close()
	sc := rec.waitOpen(t)
	for _, want := range []string{"x", "y"} {
		forgetDirect(sc)
		sc.Send([]byte(want))
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		if _, m, err := c.ReadMessage(); err != nil || string(m) != want {
			t.Fatalf("read %q, %v", m, err)
		}
	}
	waitFor(t, func() bool { return ts.hub.Stats().FramesWritten == 2 })
	for i := range ts.hub.direct {
		if n := ts.hub.direct[i].framesWritten.Load(); n != 0 {
			t.Fatalf("%d frames written directly", n)
		}
	}
}
