//go:build linux

package uring

import (
	"bytes"
	"errors"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

func newRing(t *testing.T, entries uint32) *Ring {
	t.Helper()
	r, err := New(entries)
	if errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EPERM) {
		t.Skipf("io_uring unavailable here: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func socketPair(t *testing.T) (a, b int) {
	t.Helper()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(fds[0]); unix.Close(fds[1]) })
	return fds[0], fds[1]
}

const sendFlags = unix.MSG_DONTWAIT | unix.MSG_NOSIGNAL

// Many sockets' sends go in one Submit, each completes with its byte
// count and its user data, and each peer reads exactly its bytes.
func TestSendBatch(t *testing.T) {
	r := newRing(t, 8)
	const n = 5
	var peers [n]int
	var msgs [n][]byte
	for i := range n {
		a, b := socketPair(t)
		peers[i] = b
		msgs[i] = bytes.Repeat([]byte{byte('a' + i)}, 100+i)
		if !r.Send(a, unsafe.Pointer(&msgs[i][0]), len(msgs[i]), sendFlags, uint64(1000+i)) {
			t.Fatalf("send %d refused", i)
		}
	}
	if q := r.Queued(); q != n {
		t.Fatalf("queued %d, want %d", q, n)
	}
	taken, err := r.Submit(n)
	if err != nil || taken != n {
		t.Fatalf("Submit: %d, %v", taken, err)
	}
	if err := r.Wait(n); err != nil {
		t.Fatal(err)
	}
	cqes := r.Reap(make([]CQE, 0, 16))
	if len(cqes) != n {
		t.Fatalf("%d completions, want %d", len(cqes), n)
	}
	seen := map[uint64]bool{}
	for _, c := range cqes {
		i := int(c.UserData) - 1000
		if i < 0 || i >= n || seen[c.UserData] {
			t.Fatalf("completion with user data %d", c.UserData)
		}
		seen[c.UserData] = true
		if int(c.Res) != len(msgs[i]) {
			t.Fatalf("send %d: res %d, want %d", i, c.Res, len(msgs[i]))
		}
	}
	for i, b := range peers {
		buf := make([]byte, 512)
		m, err := unix.Read(b, buf)
		if err != nil || !bytes.Equal(buf[:m], msgs[i]) {
			t.Fatalf("peer %d read %q, %v", i, buf[:m], err)
		}
	}
	if r.Queued() != 0 || len(r.Reap(make([]CQE, 0, 4))) != 0 {
		t.Fatal("ring not empty after the batch")
	}
}

// A socket whose buffer is full completes with -EAGAIN (MSG_DONTWAIT: the
// kernel does not park the send), or with a short count when some room was
// left: the caller keeps the rest.
func TestSendFullSocket(t *testing.T) {
	r := newRing(t, 4)
	a, _ := socketPair(t)
	if err := unix.SetsockoptInt(a, unix.SOL_SOCKET, unix.SO_SNDBUF, 4096); err != nil {
		t.Fatal(err)
	}
	big := make([]byte, 1<<20)
	total, short, again := 0, false, false
	for range 64 {
		if !r.Send(a, unsafe.Pointer(&big[0]), len(big), sendFlags, 7) {
			t.Fatal("send refused")
		}
		if _, err := r.Submit(1); err != nil {
			t.Fatal(err)
		}
		cqes := r.Reap(make([]CQE, 0, 1))
		if len(cqes) != 1 || cqes[0].UserData != 7 {
			t.Fatalf("completions %+v", cqes)
		}
		switch res := cqes[0].Res; {
		case res == -int32(unix.EAGAIN):
			again = true
		case res >= 0 && int(res) < len(big):
			short = true
			total += int(res)
		default:
			t.Fatalf("res %d", res)
		}
		if again {
			break
		}
	}
	if !again || !short {
		t.Fatalf("short %v (%d bytes), EAGAIN %v", short, total, again)
	}
}

// Send refuses once the submission ring is full, before Submit.
func TestSendRingFull(t *testing.T) {
	r := newRing(t, 2)
	a, _ := socketPair(t)
	b := []byte("x")
	for i := range r.Entries() {
		if !r.Send(a, unsafe.Pointer(&b[0]), 1, sendFlags, uint64(i)) {
			t.Fatalf("send %d refused below %d entries", i, r.Entries())
		}
	}
	if r.Send(a, unsafe.Pointer(&b[0]), 1, sendFlags, 99) {
		t.Fatal("send accepted into a full ring")
	}
	if n, err := r.Submit(r.Entries()); err != nil || n != r.Entries() {
		t.Fatalf("Submit %d, %v", n, err)
	}
	if got := r.Reap(make([]CQE, 0, 8)); len(got) != r.Entries() {
		t.Fatalf("%d completions", len(got))
	}
}

// A send on a closed descriptor completes with -EBADF; the batch goes on.
func TestSendBadFD(t *testing.T) {
	r := newRing(t, 4)
	a, b := socketPair(t)
	msg := []byte("hello")
	r.Send(1<<20, unsafe.Pointer(&msg[0]), len(msg), sendFlags, 1)
	r.Send(a, unsafe.Pointer(&msg[0]), len(msg), sendFlags, 2)
	if n, err := r.Submit(2); err != nil || n != 2 {
		t.Fatalf("Submit %d, %v", n, err)
	}
	res := map[uint64]int32{}
	for _, c := range r.Reap(make([]CQE, 0, 4)) {
		res[c.UserData] = c.Res
	}
	if res[1] != -int32(unix.EBADF) || res[2] != int32(len(msg)) {
		t.Fatalf("results %v", res)
	}
	buf := make([]byte, 16)
	if m, _ := unix.Read(b, buf); string(buf[:m]) != "hello" {
		t.Fatalf("peer read %q", buf[:m])
	}
}

// A send on a registered file reaches the descriptor at its index.
func TestSendFixed(t *testing.T) {
	t.Parallel()
	r := newRing(t, 4)
	a0, b0 := socketPair(t)
	a1, b1 := socketPair(t)
	if err := r.RegisterFiles([]int32{int32(a0), int32(a1)}); err != nil {
		t.Fatal(err)
	}
	msg := []byte("to the second")
	if !r.SendFixed(1, unsafe.Pointer(&msg[0]), len(msg), sendFlags, 7) {
		t.Fatal("send refused")
	}
	if taken, err := r.Submit(1); taken != 1 || err != nil {
		t.Fatalf("Submit: %d, %v", taken, err)
	}
	if err := r.Wait(1); err != nil {
		t.Fatal(err)
	}
	if c := r.Reap(make([]CQE, 0, 2)); len(c) != 1 || c[0].UserData != 7 || int(c[0].Res) != len(msg) {
		t.Fatalf("completions %+v", c)
	}
	buf := make([]byte, 64)
	if n, err := unix.Read(b1, buf); err != nil || !bytes.Equal(buf[:n], msg) {
		t.Fatalf("second peer read %q, %v", buf[:n], err)
	}
	if _, err := unix.Read(b0, buf); err != unix.EAGAIN {
		t.Fatalf("first peer read: %v, want EAGAIN", err)
	}
	if err := r.UnregisterFiles(); err != nil {
		t.Fatal(err)
	}
}

// The start-up probe passes on a working ring and leaves it empty.
func TestProbeSend(t *testing.T) {
	t.Parallel()
	r := newRing(t, 4)
	if err := r.ProbeSend(); err != nil {
		t.Fatal(err)
	}
	if r.Queued() != 0 || len(r.Reap(make([]CQE, 0, 4))) != 0 {
		t.Fatal("ring not empty after the probe")
	}
}
