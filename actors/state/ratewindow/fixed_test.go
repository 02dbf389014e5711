package ratewindow

import (
	"testing"
	"time"
)

var t0 = time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)

func at(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }

// allowN counts n requests at now and returns how many were admitted.
func allowN(w *Fixed, now time.Time, n, limit int) int {
	ok := 0
	for range n {
		if a, _ := w.Allow(now, time.Second, limit); a {
			ok++
		}
	}
	return ok
}

func TestOneNodeFixedWindow(t *testing.T) {
	t.Parallel()
	var w Fixed
	if got := allowN(&w, at(0), 7, 5); got != 5 {
		t.Fatalf("admitted %d of 7 at a limit of 5", got)
	}
	if ok, wait := w.Allow(at(400), time.Second, 5); ok || wait != 600*time.Millisecond {
		t.Fatalf("Allow at 400 ms = %v, %v; want refused, 600ms", ok, wait)
	}
	if got := allowN(&w, at(1000), 1, 5); got != 1 || w.Start != at(1000) {
		t.Fatalf("the next window: admitted %d, start %v", got, w.Start)
	}
	if got := allowN(&w, at(500), 1, 5); got != 1 || w.Start != at(500) { // the clock went back
		t.Fatalf("clock back: admitted %d, start %v", got, w.Start)
	}
	if w.peers != nil {
		t.Fatalf("one node keeps peers: %v", w.peers)
	}
}

// Two nodes exchanging their counts after every request admit the limit
// between them, and converge on the first request's window.
func TestNodesShareOneWindow(t *testing.T) {
	t.Parallel()
	var a, b Fixed
	admitted := 0
	for i := range 10 {
		now := at(10 * i)
		w, other, name := &a, &b, "a"
		if i%2 == 1 {
			w, other, name = &b, &a, "b"
		}
		if ok, _ := w.Allow(now, time.Second, 4); ok {
			admitted++
		}
		other.Heard(name, w.Start, w.N)
	}
	if admitted != 4 {
		t.Fatalf("admitted %d over two nodes, want the limit 4", admitted)
	}
	if a.Start != at(0) || b.Start != at(0) {
		t.Fatalf("windows start at %v and %v, want both at the first request", a.Start, b.Start)
	}
	// The other node's wait covers its window too.
	if ok, wait := b.Allow(at(500), time.Second, 4); ok || wait != 500*time.Millisecond {
		t.Fatalf("b at 500 ms: %v, %v", ok, wait)
	}
	// Once the window ended, everyone starts again.
	if got := allowN(&b, at(1000), 4, 4); got != 4 {
		t.Fatalf("next window: admitted %d", got)
	}
}

// A node that started its own window before it heard of an earlier one
// moves back to it; windows that ended stop counting and are forgotten.
func TestJoinEarlierWindowAndForget(t *testing.T) {
	t.Parallel()
	var b Fixed
	allowN(&b, at(30), 1, 10) // b starts at 30 ms, not yet knowing a's
	b.Heard("a", at(0), 3)
	b.Heard("c", at(-800), 5)
	b.Roll(at(150), time.Second)
	if b.Start != at(-800) || b.Total(at(150), time.Second) != 9 {
		t.Fatalf("start %v total %d, want c's window and 9", b.Start, b.Total(at(150), time.Second))
	}
	// c's window (and b's with it) ended at 200 ms: b joins a's.
	b.Roll(at(250), time.Second)
	if b.Start != at(0) || b.Total(at(250), time.Second) != 3 || len(b.peers) != 1 {
		t.Fatalf("after c's window: start %v total %d peers %v", b.Start, b.Total(at(250), time.Second), b.peers)
	}
	b.Heard("a", at(0), 4) // a newer count replaces the older
	if got := b.Total(at(250), time.Second); got != 4 {
		t.Fatalf("total %d, want 4", got)
	}
	// A start ahead of the clock (another node's) counts for up to a window.
	var c Fixed
	c.Heard("a", at(2000), 2)
	if c.Roll(at(1500), time.Second); c.Total(at(1500), time.Second) != 2 {
		t.Fatalf("skewed peer not counted")
	}
	c.Heard("a", at(5000), 2)
	if c.Roll(at(1500), time.Second); c.Total(at(1500), time.Second) != 0 {
		t.Fatalf("a peer window far ahead counted")
	}
}
