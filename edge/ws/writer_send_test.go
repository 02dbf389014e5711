package ws

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/alertd/alertd/internal/testkit"
	gorilla "github.com/gorilla/websocket"
)

// Batches of small and medium frames are copied into one buffer and go out
// with send(2); when the socket fills (the client holds off reading), the
// unsent tail is kept and resumed on EPOLLOUT, in order, with nothing lost.
func TestSmallFramesPartialSends(t *testing.T) {
	rec := newRecorder(false)
	ts := startServer(t, Config{}, rec, Options{QueueLen: 8192})
	d := gorilla.Dialer{HandshakeTimeout: 5 * time.Second,
		NetDialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			nc, err := (&net.Dialer{}).DialContext(ctx, network, addr)
			if err == nil {
				nc.(*net.TCPConn).SetReadBuffer(64 << 10)
			}
			return nc, err
		}}
	c, _, err := d.Dial(ts.url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	sc := rec.waitOpen(t)
	before := ts.hub.Stats()
	var msgs [][]byte
	for i := range 4000 {
		size := []int{20, 700, 1500, 5000}[i%4] // all below copyFrame
		m := bytes.Repeat([]byte{byte('a' + i%26)}, size)
		m[0] = byte('0' + i%10)
		msgs = append(msgs, m)
		if !sc.Send(m) {
			t.Fatalf("Send %d failed", i)
		}
	}
	time.Sleep(100 * time.Millisecond) // let the socket fill up
	for i, want := range msgs {
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		_, m, err := c.ReadMessage()
		if err != nil || !bytes.Equal(m, want) {
			t.Fatalf("message %d: len %d want %d, %v", i, len(m), len(want), err)
		}
	}
	// The writer counts a batch after its system call returns, which may
	// be after the client has read it.
	var frames, calls uint64
	testkit.WaitFor(t, 5*time.Second, "every frame counted (partial writes must count their batch)", func() (bool, string) {
		st := ts.hub.Stats()
		frames, calls = st.FramesWritten-before.FramesWritten, st.WriteCalls-before.WriteCalls
		return frames == uint64(len(msgs)), fmt.Sprintf("%d frames written, want %d", frames, len(msgs))
	})
	t.Logf("%d frames in %d send/writev calls", frames, calls)
	if calls >= frames {
		t.Fatalf("no batching: %d calls for %d frames", calls, frames)
	}
}
