//go:build linux

package uring

import (
	"net"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// BenchmarkSend930 sends one 932-byte frame (a 930-byte event and its
// header, the fan-out bench's size) to each of 256 loopback TCP sockets per
// op: with one send(2) each ("write"), with IORING_OP_SEND in one
// io_uring_enter ("uring-send"; "uring-send-fixed" on registered files), and
// with IORING_OP_SEND_ZC, waiting for its
// buffer notifications too ("uring-send-zc"). The receivers are drained
// after each op, the same work in every variant. ns/op and cpu-ns/op are
// per 256 sends.
//
//	go test -run '^$' -bench Send930 -benchtime 2000x -count 5 ./internal/uring/
func BenchmarkSend930(b *testing.B) {
	const conns = 256
	frame := make([]byte, 932)
	b.Run("write", func(b *testing.B) {
		snd, rcv := tcpPairs(b, conns)
		drain := make([]byte, 64<<10)
		b.ResetTimer()
		defer reportCPU(b, cpuNS())
		for range b.N {
			for _, fd := range snd {
				if _, err := unix.SendmsgN(fd, frame, nil, nil, sendFlags); err != nil {
					b.Fatal(err)
				}
			}
			drainAll(b, rcv, drain)
		}
	})
	for _, v := range []struct {
		name      string
		zc, fixed bool
	}{{"uring-send", false, false}, {"uring-send-fixed", false, true}, {"uring-send-zc", true, false}} {
		zc := v.zc
		b.Run(v.name, func(b *testing.B) {
			r, err := New(conns)
			if err != nil {
				b.Skip(err)
			}
			defer r.Close()
			snd, rcv := tcpPairs(b, conns)
			if v.fixed {
				fds := make([]int32, len(snd))
				for i, fd := range snd {
					fds[i] = int32(fd)
				}
				if err := r.RegisterFiles(fds); err != nil {
					b.Skip(err)
				}
				defer r.UnregisterFiles()
			}
			drain := make([]byte, 64<<10)
			cqes := make([]CQE, 0, 2*conns)
			b.ResetTimer()
			defer reportCPU(b, cpuNS())
			for range b.N {
				for i, fd := range snd {
					if zc {
						r.SendZC(fd, unsafe.Pointer(&frame[0]), len(frame), sendFlags, uint64(i))
					} else if v.fixed {
						r.SendFixed(i, unsafe.Pointer(&frame[0]), len(frame), sendFlags, uint64(i))
					} else {
						r.Send(fd, unsafe.Pointer(&frame[0]), len(frame), sendFlags, uint64(i))
					}
				}
				if _, err := r.Submit(conns); err != nil {
					b.Fatal(err)
				}
				// SEND_ZC: each send's result carries F_MORE, and its
				// notification (F_NOTIF) follows when the pages are free.
				want, got := conns, 0
				for got < want {
					cqes = r.Reap(cqes[:0])
					for _, c := range cqes {
						got++
						if c.Flags&CQEFlagNotif == 0 && c.Res != int32(len(frame)) {
							b.Fatalf("res %d", c.Res)
						}
						if c.Flags&CQEFlagMore != 0 {
							want++
						}
					}
					if got < want {
						if err := r.Wait(want - got); err != nil {
							b.Fatal(err)
						}
					}
				}
				drainAll(b, rcv, drain)
			}
		})
	}
}

// cpuNS is the process's CPU time so far (user and system): on a busy
// machine CPU per op says more than wall time per op.
func cpuNS() int64 {
	var ru unix.Rusage
	unix.Getrusage(unix.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// reportCPU reports the CPU time per op since cpu0 (cpu-ns/op).
func reportCPU(b *testing.B, cpu0 int64) {
	b.ReportMetric(float64(cpuNS()-cpu0)/float64(b.N), "cpu-ns/op")
}

// tcpPairs makes n loopback TCP connections: the sending ends' and the
// receiving ends' descriptors (non-blocking).
func tcpPairs(b *testing.B, n int) (snd, rcv []int) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	var keep []net.Conn
	b.Cleanup(func() {
		for _, c := range keep {
			c.Close()
		}
	})
	fdOf := func(c net.Conn) int {
		f, err := c.(*net.TCPConn).File() // a blocking dup; made non-blocking below
		if err != nil {
			b.Fatal(err)
		}
		fd, err := unix.Dup(int(f.Fd()))
		f.Close()
		if err != nil {
			b.Fatal(err)
		}
		unix.SetNonblock(fd, true)
		b.Cleanup(func() { unix.Close(fd) })
		return fd
	}
	for range n {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			b.Fatal(err)
		}
		s, err := ln.Accept()
		if err != nil {
			b.Fatal(err)
		}
		keep = append(keep, c, s)
		// Send on the dialled end: SEND_ZC answers EOPNOTSUPP on an
		// accepted socket here (kernel 6.18), as alertd's are.
		snd = append(snd, fdOf(c))
		rcv = append(rcv, fdOf(s))
	}
	return snd, rcv
}

func drainAll(b *testing.B, fds []int, buf []byte) {
	for _, fd := range fds {
		for {
			n, err := unix.Read(fd, buf)
			if err == unix.EAGAIN || n < len(buf) && err == nil {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
		}
	}
}
