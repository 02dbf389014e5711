package session

import (
	"context"
	"testing"
	"time"

	"github.com/alertd/alertd/actors/state/account"
	"github.com/alertd/alertd/protocol"
)

// TestRealtimeExpiryCancelled: an end date removed while the socket is open
// keeps it open when the timer armed for the old end fires (the fake clock
// stands in for e2e's wait past that date).
func TestRealtimeExpiryCancelled(t *testing.T) {
	d := newTestDeps(t)
	end := d.now.Add(2 * time.Second)
	key, acct := d.issue(t, "pro", &end)
	c := newFakeConn("192.0.2.6")
	s := NewRealtime(d.Deps)
	open(s, c)
	s.Message(true, loginFrame(key))
	wantOp(t, c.frames()[1], "4")

	var none *time.Time
	if _, err := d.reg.Change(context.Background(), acct, protocol.ProductB2B, account.Changes{ExpiresAt: &none}); err != nil {
		t.Fatal(err)
	}
	d.advance(time.Hour)
	c.fire(2 * time.Second)
	if f := c.frames(); len(f) != 2 || c.closed {
		t.Fatalf("end date removed: frames %q closed %v, want the socket open", f, c.closed)
	}
	s.Message(true, []byte(`{"op":1}`))
	if f := c.frames(); len(f) != 3 || f[2] != `{"op":11}` || c.closed {
		t.Fatalf("heartbeat after: frames %q closed %v", f, c.closed)
	}
	s.Closed(ReasonClientClosed)
}
