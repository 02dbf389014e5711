package ws

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"testing"
	"time"

	gorilla "github.com/gorilla/websocket"
)

// A client that stops reading: the server keeps Sending, Send never blocks,
// and once the kernel buffers and the queue are full the connection is
// dropped as SlowConsumer and Send reports false.
func TestSlowReader(t *testing.T) {
	rec := newRecorder(false)
	ts := startServer(t, Config{}, rec, Options{QueueLen: 64})
	nc, err := net.Dial("tcp", ts.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	// Small receive buffer so the test needs few messages.
	nc.(*net.TCPConn).SetReadBuffer(4096)
	nc.Write([]byte(handshakeRequest(ts.addr)))
	sc := rec.waitOpen(t)

	msg := bytes.Repeat([]byte("x"), 16<<10)
	var slowest time.Duration
	sent := 0
	deadline := time.Now().Add(20 * time.Second)
	for {
		t0 := time.Now()
		ok := sc.Send(msg)
		if d := time.Since(t0); d > slowest {
			slowest = d
		}
		if !ok {
			break
		}
		sent++
		if sent%32 == 0 {
			time.Sleep(time.Millisecond) // let the writers fill the socket
		}
		if time.Now().After(deadline) {
			t.Fatalf("still accepted after %d sends", sent)
		}
	}
	if s := rec.waitClosed(t); s != SlowConsumer {
		t.Fatalf("state %v", s)
	}
	if st, closed := sc.Closed(); !closed || st != SlowConsumer {
		t.Fatalf("Closed() = %v %v", st, closed)
	}
	if sc.Send(msg) {
		t.Fatal("Send after close succeeded")
	}
	if ts.hub.Stats().SlowConsumers != 1 {
		t.Fatalf("slow consumers %d", ts.hub.Stats().SlowConsumers)
	}
	t.Logf("sent %d x 16 KiB before the queue filled; slowest Send %v", sent, slowest)
	if slowest > 200*time.Millisecond {
		t.Fatalf("a Send took %v", slowest)
	}
}

// Frames queued while the connection waits for a writer go out in one
// writev: here the scheduling is held back so that all 1,000 are queued
// first, which makes the count exact.
// Large payloads are referenced, not copied, and a partial write resumes
// where it stopped (the client reads slowly, so writes hit EAGAIN).
func TestLargeFramesPartialWrites(t *testing.T) {
	rec := newRecorder(false)
	ts := startServer(t, Config{}, rec, Options{QueueLen: 4096})
	d := gorilla.Dialer{ReadBufferSize: 1024}
	c, _, err := d.Dial(ts.url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetReadLimit(1 << 24)
	sc := rec.waitOpen(t)
	var msgs [][]byte
	for i := range 64 {
		size := []int{10, 200, 600, 70000, 300000}[i%5]
		m := bytes.Repeat([]byte{byte('a' + i%26)}, size)
		msgs = append(msgs, m)
		if !sc.Send(m) {
			t.Fatal("Send failed")
		}
	}
	for i, want := range msgs {
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		_, m, err := c.ReadMessage()
		if err != nil || !bytes.Equal(m, want) {
			t.Fatalf("message %d: len %d want %d, %v", i, len(m), len(want), err)
		}
		if i%8 == 0 {
			time.Sleep(2 * time.Millisecond) // a slow reader: paces the reads
		}
	}
}

// Send from many goroutines to one connection: every message arrives once.
func TestConcurrentSends(t *testing.T) {
	rec := newRecorder(false)
	ts := startServer(t, Config{}, rec, Options{QueueLen: 100000})
	c := dialGorilla(t, ts.url)
	defer c.Close()
	sc := rec.waitOpen(t)
	const G, N = 8, 500
	var wg sync.WaitGroup
	for g := range G {
		wg.Go(func() {
			for i := range N {
				sc.Send(fmt.Appendf(nil, "%d:%d", g, i))
			}
		})
	}
	seen := make(map[string]bool)
	last := make([]int, G)
	for i := range last {
		last[i] = -1
	}
	for range G * N {
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		_, m, err := c.ReadMessage()
		if err != nil {
			t.Fatal(err)
		}
		var g, i int
		fmt.Sscanf(string(m), "%d:%d", &g, &i)
		if seen[string(m)] || i != last[g]+1 {
			t.Fatalf("out of order or duplicate: %s after %d", m, last[g])
		}
		seen[string(m)] = true
		last[g] = i
	}
	wg.Wait()
}

func TestShutdownSends1001(t *testing.T) {
	rec := newRecorder(true)
	ts := startServer(t, Config{}, rec, Options{})
	var clients []*gorilla.Conn
	for range 20 {
		clients = append(clients, dialGorilla(t, ts.url))
	}
	for range clients {
		rec.waitOpen(t)
	}
	// Data queued before Shutdown still arrives, ahead of the close frame.
	rec.mu.Lock()
	for _, sc := range rec.opened {
		sc.Send([]byte("last words"))
	}
	rec.mu.Unlock()

	errs := make(chan error, len(clients))
	for _, c := range clients {
		go func() {
			defer c.Close()
			_, m, err := c.ReadMessage()
			if err != nil || string(m) != "last words" {
				errs <- fmt.Errorf("before close: %q %v", m, err)
				return
			}
			_, _, err = c.ReadMessage()
			var ce *gorilla.CloseError
			if !errors.As(err, &ce) || ce.Code != 1001 {
				errs <- fmt.Errorf("want 1001, got %v", err)
				return
			}
			errs <- nil
		}()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := ts.hub.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	for range clients {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	for range clients {
		if s := rec.waitClosed(t); s != ServerShutdown {
			t.Fatalf("state %v", s)
		}
	}
	if ts.hub.Conns() != 0 {
		t.Fatalf("gauge %d", ts.hub.Conns())
	}
	// Upgrades after Shutdown are refused with 503.
	_, resp, err := gorilla.DefaultDialer.Dial(ts.url, nil)
	if err == nil || resp == nil || resp.StatusCode != 503 {
		t.Fatalf("after shutdown: %v %v", resp, err)
	}
}

// Shutdown with a peer that never reads and never closes: the context
// bounds it and every goroutine still stops.
func TestShutdownForced(t *testing.T) {
	rec := newRecorder(false)
	ts := startServer(t, Config{LingerTimeout: time.Minute}, rec, Options{QueueLen: 100000})
	nc, err := net.Dial("tcp", ts.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	nc.(*net.TCPConn).SetReadBuffer(4096)
	nc.Write([]byte(handshakeRequest(ts.addr)))
	sc := rec.waitOpen(t)
	big := make([]byte, 1<<20)
	for range 32 {
		sc.Send(big)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	t0 := time.Now()
	if err := ts.hub.Shutdown(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Shutdown: %v", err)
	}
	if d := time.Since(t0); d > 3*time.Second {
		t.Fatalf("Shutdown took %v", d)
	}
	if s := rec.waitClosed(t); s != ServerShutdown {
		t.Fatalf("state %v", s)
	}
}

func TestWriteTimeout(t *testing.T) {
	rec := newRecorder(false)
	ts := startServer(t, Config{}, rec, Options{QueueLen: 1 << 20, WriteTimeout: 150 * time.Millisecond})
	nc, err := net.Dial("tcp", ts.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	nc.(*net.TCPConn).SetReadBuffer(4096)
	nc.Write([]byte(handshakeRequest(ts.addr)))
	sc := rec.waitOpen(t)
	big := make([]byte, 1<<20)
	t0 := time.Now()
	for range 16 {
		sc.Send(big)
	}
	if s := rec.waitClosed(t); s != WriteTimeout {
		t.Fatalf("state %v", s)
	}
	t.Logf("closed after %v", time.Since(t0))
}
