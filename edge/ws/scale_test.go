//go:build linux

package ws

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/alertd/alertd/internal/testkit"
	"golang.org/x/sys/unix"
)

// fdClient opens a WebSocket with raw system calls, so the client side puts
// nothing on the Go heap and starts no goroutine: heap deltas measure the
// server alone.
func fdClient(t testing.TB, addr string) int {
	t.Helper()
	host, port, _ := net.SplitHostPort(addr)
	p, _ := strconv.Atoi(port)
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	sa := &unix.SockaddrInet4{Port: p}
	copy(sa.Addr[:], net.ParseIP(host).To4())
	for {
		err := unix.Connect(fd, sa)
		if err == nil || err == unix.EISCONN {
			break
		}
		if err != unix.EINTR && err != unix.EALREADY && err != unix.EINPROGRESS {
			t.Fatal(err)
		}
		time.Sleep(time.Millisecond) // paces the retries of a non-blocking connect
	}
	unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &unix.Timeval{Sec: 5})
	if _, err := writeFD(fd, []byte(handshakeRequest(addr))); err != nil {
		t.Fatal(err)
	}
	var buf [512]byte
	var got []byte
	for !bytes.Contains(got, []byte("\r\n\r\n")) {
		n, err := readFD(fd, buf[:])
		if err != nil || n <= 0 {
			t.Fatalf("handshake read: %v", err)
		}
		got = append(got, buf[:n]...)
	}
	if !bytes.HasPrefix(got, []byte("HTTP/1.1 101")) {
		t.Fatalf("handshake: %q", got)
	}
	return fd
}

// readFD and writeFD retry system calls interrupted by the runtime's
// preemption signals.
func readFD(fd int, b []byte) (int, error) {
	for {
		n, err := unix.Read(fd, b)
		if err != unix.EINTR {
			return n, err
		}
	}
}

func writeFD(fd int, b []byte) (int, error) {
	for {
		n, err := unix.Write(fd, b)
		if err != unix.EINTR {
			return n, err
		}
	}
}

func heapAlloc() uint64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// openIdle opens n idle connections and returns the server's heap bytes per
// connection.
func openIdle(t testing.TB, ts *testServer, rec *recorder, n int) (fds []int, perConn float64) {
	// Warm up pools and the fd table.
	warm := fdClient(t, ts.addr)
	rec.waitOpen(t)
	before := heapAlloc()
	for range n {
		fds = append(fds, fdClient(t, ts.addr))
	}
	for range n {
		rec.waitOpen(t)
	}
	after := heapAlloc()
	fds = append(fds, warm)
	return fds, float64(int64(after)-int64(before)) / float64(n)
}

func TestManyConnections(t *testing.T) {
	const n = 2000
	baseline := runtime.NumGoroutine()
	rec := newRecorder(false)
	rec.opened = make([]*Conn, 0, n+1)
	ts := startServer(t, Config{Writers: 4}, rec, Options{PingInterval: time.Hour, IdleTimeout: time.Hour})
	fds, perConn := openIdle(t, ts, rec, n)
	defer func() {
		for _, fd := range fds {
			unix.Close(fd)
		}
	}()
	if got := ts.hub.Conns(); got != n+1 {
		t.Fatalf("gauge %d", got)
	}
	// fasthttp's workers of the upgrades go idle and leave on their own.
	testkit.WaitFor(t, 10*time.Second, "goroutines independent of the connections", func() (bool, string) {
		g := runtime.NumGoroutine()
		return g <= baseline+40+goroutinesPerConn*(n+1), fmt.Sprintf("%d goroutines for %d connections (baseline %d)", g, n, baseline)
	})
	t.Logf("%d connections: %d goroutines (baseline %d), %.0f heap bytes per idle connection", n+1, runtime.NumGoroutine(), baseline, perConn)
	if perConn > maxIdleConnHeap {
		t.Fatalf("%.0f bytes per idle connection", perConn)
	}

	// One encoded event to everyone.
	event := []byte(`{"op":0,"d":{"event":"social.post.new"}}`)
	rec.mu.Lock()
	for _, c := range rec.opened {
		if !c.Send(event) {
			t.Fatal("Send failed")
		}
	}
	rec.mu.Unlock()
	want := append([]byte{0x81, byte(len(event))}, event...)
	buf := make([]byte, 256)
	for _, fd := range fds {
		got := buf[:0]
		for len(got) < len(want) {
			m, err := readFD(fd, buf[len(got):])
			if err != nil || m <= 0 {
				t.Fatalf("read: %v", err)
			}
			got = buf[:len(got)+m]
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("got %q", got)
		}
	}
	st := ts.hub.Stats()
	t.Logf("broadcast: %d frames, %d writev calls", st.FramesWritten, st.WriteCalls)

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// Peers answer the close frame by closing: Shutdown then completes
	// without waiting for the linger timeout.
	go func() {
		for _, fd := range fds {
			unix.Shutdown(fd, unix.SHUT_WR)
		}
	}()
	if err := ts.hub.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	for range n + 1 {
		rec.waitClosed(t)
	}
	if ts.hub.Conns() != 0 {
		t.Fatalf("gauge %d after shutdown", ts.hub.Conns())
	}
	// TestMain's goleak check covers goroutines left after all tests; here
	// the hub's own goroutines must be gone right away.
	waitFor(t, func() bool { return runtime.NumGoroutine() <= baseline+3 })
}
