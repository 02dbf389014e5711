//go:build linux

package ws

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/alertd/alertd/internal/latency"
	"golang.org/x/sys/unix"
)

// benchClient is a load-generator socket: a goroutine reads and counts.
type benchClient struct {
	nc net.Conn
}

func dialBench(b *testing.B, addr string, got *atomic.Int64, wg *sync.WaitGroup) *benchClient {
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		b.Fatal(err)
	}
	nc.Write([]byte(handshakeRequest(addr)))
	br := bufio.NewReader(nc)
	resp, err := http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != 101 {
		b.Fatal(resp, err)
	}
	wg.Go(func() {
		buf := make([]byte, 64<<10)
		if n := br.Buffered(); n > 0 {
			br.Read(buf[:n])
			got.Add(int64(n))
		}
		for {
			n, err := nc.Read(buf)
			got.Add(int64(n))
			if err != nil {
				return
			}
		}
	})
	return &benchClient{nc: nc}
}

// BenchmarkFanout: one op sends one pre-encoded 256-byte event to every
// connection and waits until all of them have received it (so the number
// covers Send, the writers and the kernel, not just queueing). The /events
// variants send with SendEvent, as sessions deliver: counted and timed.
func BenchmarkFanout(b *testing.B) {
	for _, c := range []struct {
		n      int
		events bool
	}{{100, false}, {100, true}, {1000, false}, {1000, true}} {
		n := c.n
		name := fmt.Sprintf("conns=%d", n)
		if c.events {
			name += "/events"
		}
		b.Run(name, func(b *testing.B) {
			rec := newRecorder(false)
			ts := startServer(b, Config{}, rec, Options{QueueLen: 4096})
			var got atomic.Int64
			var wg sync.WaitGroup
			var clients []*benchClient
			for range n {
				clients = append(clients, dialBench(b, ts.addr, &got, &wg))
			}
			conns := make([]*Conn, 0, n)
			for range n {
				conns = append(conns, rec.waitOpen(b))
			}
			event := bytes.Repeat([]byte("e"), 256)
			per := int64(2 + 2 + len(event)) // header with 16-bit length
			st0 := ts.hub.Stats()
			b.ReportAllocs()
			b.ResetTimer()
			t0 := time.Now()
			var want int64
			for i := 0; i < b.N; i++ {
				at := latency.Now()
				for _, conn := range conns {
					ok := false
					if c.events {
						ok = conn.SendEvent(event, at)
					} else {
						ok = conn.Send(event)
					}
					if !ok {
						b.Fatal("slow consumer in benchmark")
					}
				}
				want += per * int64(n)
				// Bound the backlog so the queue never fills.
				if i%256 == 255 {
					for got.Load() < want-per*int64(n)*128 {
						time.Sleep(50 * time.Microsecond)
					}
				}
			}
			for got.Load() < want {
				time.Sleep(50 * time.Microsecond)
			}
			el := time.Since(t0)
			b.StopTimer()
			// A writer counts a turn's frames after its send returned (the
			// io_uring path after its whole batch): the clients may have
			// read them first.
			for end := time.Now().Add(5 * time.Second); c.events && time.Now().Before(end); {
				if d, _ := ts.hub.Deliveries(0); d >= uint64(b.N*n) {
					break
				}
				time.Sleep(50 * time.Microsecond)
			}
			st := ts.hub.Stats()
			msgs := float64(b.N) * float64(n)
			b.ReportMetric(msgs/el.Seconds(), "msgs/s")
			b.ReportMetric(float64(el.Nanoseconds())/msgs, "ns/msg")
			b.ReportMetric(float64(st.FramesWritten-st0.FramesWritten)/float64(max(st.WriteCalls-st0.WriteCalls, 1)), "frames/writev")
			if d, _ := ts.hub.Deliveries(0); c.events && d != uint64(b.N*n) {
				b.Fatalf("%d deliveries counted, want %d", d, b.N*n)
			}
			for _, c := range clients {
				c.nc.Close()
			}
			ts.stop()
			wg.Wait()
		})
	}
}

// BenchmarkAccount is what counting and timing the events of one written
// batch costs a writer, per frame: a batch of one event (a fan-out's
// usual batch) and of 64.
func BenchmarkAccount(b *testing.B) {
	for _, n := range []int{1, 64} {
		b.Run(fmt.Sprintf("batch=%d", n), func(b *testing.B) {
			var d deliveries
			frames := make([]outFrame, n)
			for i := range frames {
				frames[i] = outFrame{op: opText, ev: true, at: latency.Now()}
			}
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				d.account(1, frames)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/frame")
		})
	}
}

// BenchmarkSend is the publisher's cost alone: Send to one connection whose
// queue is drained by the writers meanwhile.
func BenchmarkSend(b *testing.B) {
	rec := newRecorder(false)
	ts := startServer(b, Config{}, rec, Options{QueueLen: 1 << 20})
	var got atomic.Int64
	var wg sync.WaitGroup
	cl := dialBench(b, ts.addr, &got, &wg)
	c := rec.waitOpen(b)
	event := bytes.Repeat([]byte("e"), 100)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if !c.Send(event) {
			b.Fatal("Send")
		}
		if i%4096 == 4095 {
			for got.Load() < int64(i-8192)*102 {
				time.Sleep(10 * time.Microsecond)
			}
		}
	}
	b.StopTimer()
	cl.nc.Close()
	ts.stop()
	wg.Wait()
}

// BenchmarkIdleConnMemory opens 5,000 idle connections (the client side
// with raw system calls, so it costs the Go heap nothing) and reports the
// server's heap bytes per connection, with the ping and idle timers armed
// as the Tweet Alerts socket has them.
func BenchmarkIdleConnMemory(b *testing.B) {
	const n = 5000
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		rec := newRecorder(false)
		rec.opened = make([]*Conn, 0, n+1)
		ts := startServer(b, Config{}, rec, Options{PingInterval: 30 * time.Second, PongTimeout: 10 * time.Second, IdleTimeout: 180 * time.Second})
		b.StartTimer()
		fds, perConn := openIdle(b, ts, rec, n)
		b.StopTimer()
		b.ReportMetric(perConn, "B/conn")
		for _, fd := range fds {
			unix.Close(fd)
		}
		ts.stop()
	}
}
