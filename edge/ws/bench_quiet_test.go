//go:build linux && !wsportable

package ws

import (
	"bytes"
	"testing"
	"time"
	"unsafe"

	"github.com/alertd/alertd/internal/latency"
	"golang.org/x/sys/unix"
)

// BenchmarkFanoutQuiet is the fan-out bench's regime in one process: one
// 930-byte event to 1,000 quiet sockets (nothing queued, last written more
// than directGap ago) out of 4,000, a different thousand each time, as posts
// to handles with a thousand listeners each, the sockets' memory cold. It
// reports the process's CPU time per delivery (cpu-ns/msg: publisher,
// writers, runtime and the kernel's send path, loopback receive included)
// over the fan-outs alone: the clients are raw sockets drained between
// fan-outs, outside the measurement, so their reads cost it nothing.
// path=floor is the floor of issue 16 in the same process: the publisher
// writes the pre-framed event to each server-side socket with one send(2),
// nothing else. Compare the paths within one run (-count interleaves them):
//
//	go test -run '^$' -bench FanoutQuiet -benchtime 200x -count 3 ./edge/ws/
func BenchmarkFanoutQuiet(b *testing.B) {
	const n, groups = 1000, 4
	for _, p := range []struct {
		name string
		cfg  Config
	}{
		{"floor", Config{}},
		{"writers", Config{Send: SendWrite}},
		{"direct", Config{Send: SendWrite, DirectWrites: true}},
		{"io_uring", Config{Send: SendIOURing}},
	} {
		b.Run("path="+p.name, func(b *testing.B) {
			rec := newRecorder(false)
			rec.opened = make([]*Conn, 0, n*groups)
			ts := startServerOn(b, p.cfg, rec, Options{QueueLen: 64})
			if p.cfg.Send == SendIOURing && ts.hub.SendPath() != SendIOURing {
				b.Skip("io_uring unavailable")
			}
			fds := make([]int, 0, n*groups)
			conns := make([]*Conn, 0, n*groups)
			for range n * groups {
				fds = append(fds, fdClient(b, ts.addr))
				conns = append(conns, rec.waitOpen(b))
			}
			defer func() {
				for _, fd := range fds {
					// A reset, not a FIN: no TIME_WAIT to run the
					// loopback's ports out over repeated runs.
					unix.SetsockoptLinger(fd, unix.SOL_SOCKET, unix.SO_LINGER, &unix.Linger{Onoff: 1})
					unix.Close(fd)
				}
				ts.stop()
			}()
			event := bytes.Repeat([]byte("e"), 930)
			framed := appendHeader(nil, opText, len(event))
			framed = append(framed, event...)
			var buf [64 << 10]byte
			drain := func(fds []int) {
				for _, fd := range fds {
					for {
						k, _, e := unix.RawSyscall6(unix.SYS_RECVFROM, uintptr(fd), uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)), unix.MSG_DONTWAIT, 0, 0)
						if e != 0 || int(k) < len(buf) {
							break
						}
					}
				}
			}
			var cpu time.Duration
			sent := uint64(0)
			st0 := ts.hub.Stats()
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				next := time.Now().Add(directGap + 2*time.Millisecond)
				g := i % groups
				c0 := processCPU()
				if p.name == "floor" {
					for _, c := range conns[g*n : (g+1)*n] {
						sendBuf(c.fd, unsafe.Pointer(&framed[0]), len(framed), &ts.hub.direct[0])
					}
				} else {
					at := latency.Now()
					for _, c := range conns[g*n : (g+1)*n] {
						if !c.SendEvent(event, at) {
							b.Fatal("slow consumer in benchmark")
						}
					}
					sent += n
					// Coarse polls: the wait's own CPU is part of the figure.
					for d, _ := ts.hub.Deliveries(0); d < sent; d, _ = ts.hub.Deliveries(0) {
						time.Sleep(time.Millisecond)
					}
				}
				cpu += processCPU() - c0
				drain(fds[g*n : (g+1)*n])
				time.Sleep(time.Until(next))
			}
			b.StopTimer()
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N*n), "cpu-ns/msg")
			if p.name != "floor" {
				st := ts.hub.Stats()
				b.ReportMetric(float64(st.FramesWritten-st0.FramesWritten)/float64(max(st.WriteCalls-st0.WriteCalls, 1)), "frames/call")
			}
		})
	}
}

// processCPU is the CPU time (user and system) of the whole process.
func processCPU() time.Duration {
	var ru unix.Rusage
	unix.Getrusage(unix.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
