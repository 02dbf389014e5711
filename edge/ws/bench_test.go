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
// covers Send, the writers and the kernel, not just queueing).
func BenchmarkFanout(b *testing.B) {
	for _, n := range []int{100, 1000} {
		b.Run(fmt.Sprintf("conns=%d", n), func(b *testing.B) {
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
				for _, c := range conns {
					if !c.Send(event) {
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
			st := ts.hub.Stats()
			msgs := float64(b.N) * float64(n)
			b.ReportMetric(msgs/el.Seconds(), "msgs/s")
			b.ReportMetric(float64(el.Nanoseconds())/msgs, "ns/msg")
			b.ReportMetric(float64(st.FramesWritten-st0.FramesWritten)/float64(max(st.WriteCalls-st0.WriteCalls, 1)), "frames/writev")
			for _, c := range clients {
				c.nc.Close()
			}
			ts.stop()
			wg.Wait()
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
