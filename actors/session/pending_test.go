package session

import "testing"

// TestPendingUntilReady: a realtime session holds a place of Deps.Pending
// from before its upgrade until READY, or until it ends without one; the
// cap refuses the place beyond.
func TestPendingUntilReady(t *testing.T) {
	d := newTestDeps(t)
	d.Pending = NewPending(2)
	dt, _ := d.issue(t, "pro", nil)

	if !d.Pending.Reserve() {
		t.Fatal("first place refused")
	}
	ready := NewRealtime(d.Deps).HoldsPending()
	rc := newFakeConn("192.0.2.40")
	open(ready, rc)
	if !d.Pending.Reserve() {
		t.Fatal("second place refused")
	}
	gone := NewRealtime(d.Deps).HoldsPending()
	open(gone, newFakeConn("192.0.2.41"))
	if d.Pending.Reserve() {
		t.Fatal("a third place beyond the cap of 2")
	}
	ready.Message(true, loginFrame(dt))
	wantOp(t, rc.frames()[1], "4")
	if n := d.Pending.Len(); n != 1 {
		t.Fatalf("after READY %d pending, want 1", n)
	}
	gone.Closed(ReasonClientClosed)
	gone.Aborted() // a second end gives nothing back
	ready.Closed(ReasonClientClosed)
	if n := d.Pending.Len(); n != 0 {
		t.Fatalf("after both ended %d pending, want 0", n)
	}
}
