package session

import (
	"bytes"
	"context"
	"fmt"
	"net/netip"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/alertd/alertd/actors/delivery"
	"github.com/alertd/alertd/actors/state/account"
	"github.com/alertd/alertd/internal/testkit"
	"github.com/alertd/alertd/persistence/embedded"
	"github.com/alertd/alertd/protocol"
)

// fakeConn records what a session sends; its timers fire only when the test
// says so, on the test goroutine (like the transport's loop).
type fakeConn struct {
	ip netip.Addr

	mu          sync.Mutex
	sent        [][]byte
	closeCode   int
	closeReason string
	closed      bool
	timers      []*fakeTimer
}

type fakeTimer struct {
	c     *fakeConn
	d     time.Duration
	f     func()
	armed bool
}

func (t *fakeTimer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	was := t.armed
	t.armed = false
	return was
}

func (t *fakeTimer) Reset(d time.Duration) bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	was := t.armed
	t.armed, t.d = true, d
	return was
}

func newFakeConn(ip string) *fakeConn { return &fakeConn{ip: netip.MustParseAddr(ip)} }

func (c *fakeConn) Send(msg []byte) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return false
	}
	c.sent = append(c.sent, bytes.Clone(msg))
	return true
}

func (c *fakeConn) SendEvent(msg []byte, _ int64) bool { return c.Send(msg) }

func (c *fakeConn) Close(code int, reason string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.closed {
		c.closed, c.closeCode, c.closeReason = true, code, reason
	}
}

func (c *fakeConn) CloseNow() { c.Close(0, "") }

func (c *fakeConn) AfterFunc(d time.Duration, f func()) Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &fakeTimer{c: c, d: d, f: f, armed: true}
	c.timers = append(c.timers, t)
	return t
}

func (c *fakeConn) RemoteIP() netip.Addr { return c.ip }

// fire runs every armed timer whose duration is at most d.
func (c *fakeConn) fire(d time.Duration) {
	c.mu.Lock()
	var due []*fakeTimer
	for _, t := range c.timers {
		if t.armed && t.d <= d {
			t.armed = false
			due = append(due, t)
		}
	}
	c.mu.Unlock()
	for _, t := range due {
		t.f()
	}
}

func (c *fakeConn) frames() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]string, len(c.sent))
	for i, b := range c.sent {
		out[i] = string(b)
	}
	return out
}

// open drives a session through the transport's opening steps.
func open(s Socket, c Conn) {
	s.Prepare(c)
	s.Open()
}

type fakeTargets map[string][]string

func (f fakeTargets) ActiveHandles(a string) []string { return append([]string(nil), f[a]...) }

// testDeps are session deps over a real account registry (embedded store)
// and a clock the test moves.
type testDeps struct {
	*Deps
	reg *account.Registry
	now *time.Time
	mu  *sync.Mutex
}

func newTestDeps(t testing.TB) testDeps {
	t.Helper()
	st, err := embedded.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	now := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	mu := &sync.Mutex{}
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	reg := account.NewRegistry(st, clock)
	if err := reg.Load(context.Background()); err != nil {
		t.Fatal(err)
	}
	tm := protocol.DefaultTimings()
	d := &Deps{Registry: reg, Hub: delivery.NewHub(), Recent: delivery.NewRecent(tm.ReplayWindow.Milliseconds(), 500),
		Targets: fakeTargets{}, Blocker: NewBlocker(protocol.MaxFailedLogins, tm.FailedLoginWindow, tm.IPBlock, tm.BlockedAcceptEvery),
		Limits: NewConnLimit(), Stats: &Stats{}, Timings: tm, Now: clock}
	return testDeps{Deps: d, reg: reg, now: &now, mu: mu}
}

func (d testDeps) advance(by time.Duration) {
	d.mu.Lock()
	*d.now = d.now.Add(by)
	d.mu.Unlock()
}

func (d testDeps) issue(t testing.TB, plan string, expires *time.Time, handles ...string) (key, acct string) {
	t.Helper()
	c := account.Changes{Plan: &plan}
	if expires != nil {
		c.ExpiresAt = &expires
	}
	is, err := d.reg.Issue(context.Background(), "", protocol.ProductB2B, c)
	if err != nil {
		t.Fatal(err)
	}
	d.Targets.(fakeTargets)[is.Sub.AccountID] = handles
	return is.Key, is.Sub.AccountID
}

func loginFrame(key string) []byte { return []byte(`{"op":2,"d":"` + key + `"}`) }

func postEvent(handle, id string) *delivery.Event {
	tw := &protocol.Tweet{ID: id, CreatedAt: 1, Type: "post", Text: "gm", Author: protocol.TweetAuthor{ID: "1", Handle: handle}}
	return &delivery.Event{Meta: protocol.PostMeta(protocol.EventKindPostNew, tw, protocol.CategorySet{}),
		Header: protocol.EventHeader{Kind: protocol.EventKindPostNew, EventID: protocol.TweetEventID(id), Handle: handle},
		Tweet:  tw, CreatedAt: 1, DetectedAt: 1}
}

func wantOp(t *testing.T, frame string, op string) {
	t.Helper()
	if !strings.HasPrefix(frame, `{"op":`+op+`,`) && frame != `{"op":`+op+`}` {
		t.Fatalf("frame %s, want op %s", frame, op)
	}
}

// TestRealtimeSessionsLeaveNothing: many sessions log in, get an event and
// close; afterwards no subscription, live entry, slot or goroutine is left.
func TestRealtimeSessionsLeaveNothing(t *testing.T) {
	d := newTestDeps(t)
	key, acct := d.issue(t, "enterprise", nil, "alpha", "beta")
	runtime.GC()
	base := runtime.NumGoroutine()
	for round := 0; round < 40; round++ {
		var sessions []*Realtime
		var conns []*fakeConn
		for i := 0; i < protocol.DTWSConns; i++ {
			c := newFakeConn("192.0.2.1")
			s := NewRealtime(d.Deps)
			open(s, c)
			s.Message(true, loginFrame(key))
			sessions, conns = append(sessions, s), append(conns, c)
		}
		if n := d.Hub.Publish(delivery.HandleTopic("alpha"), postEvent("alpha", "100")); n != protocol.DTWSConns {
			t.Fatalf("published to %d sessions, want %d", n, protocol.DTWSConns)
		}
		for i, s := range sessions {
			f := conns[i].frames()
			if len(f) != 3 {
				t.Fatalf("session %d frames %q, want HELLO, READY, EVENT", i, f)
			}
			wantOp(t, f[1], "4")
			wantOp(t, f[2], "0")
			s.Closed(ReasonClientClosed)
			s.Closed(ReasonClientClosed) // idempotent
		}
	}
	for _, h := range []string{"alpha", "beta"} {
		if subs := d.Hub.Subscribers(delivery.HandleTopic(h)); len(subs) != 0 {
			t.Errorf("%s still has %d subscribers", h, len(subs))
		}
	}
	if d.Hub.Topics() != 0 || d.Limits.Held(B2BQuota(acct)) != 0 {
		t.Errorf("left behind: %d topics, %d slots", d.Hub.Topics(), d.Limits.Held(B2BQuota(acct)))
	}
	testkit.WaitFor(t, 5*time.Second, "goroutines back to where they were", func() (bool, string) {
		n := runtime.NumGoroutine()
		return n <= base, fmt.Sprintf("%d after the sessions closed, %d before", n, base)
	})
}

// TestRealtimeIgnoresFramesAfterDisconnect: once DISCONNECT is sent, a
// LOGIN that still arrives before the close neither logs in nor takes a slot.
func TestRealtimeIgnoresFramesAfterDisconnect(t *testing.T) {
	d := newTestDeps(t)
	key, acct := d.issue(t, "pro", nil, "alpha")
	c := newFakeConn("192.0.2.2")
	s := NewRealtime(d.Deps)
	open(s, c)
	s.Message(true, []byte(`garbage`))
	s.Message(true, loginFrame(key))
	s.Message(true, []byte(`{"op":1}`))
	f := c.frames()
	if len(f) != 2 || !strings.Contains(f[1], `"code":"login_invalid"`) {
		t.Fatalf("frames %q, want HELLO and one DISCONNECT login_invalid", f)
	}
	if d.Limits.Held(B2BQuota(acct)) != 0 || len(d.Hub.Subscribers(delivery.HandleTopic("alpha"))) != 0 {
		t.Fatal("a LOGIN after DISCONNECT took a slot or subscribed")
	}
	s.Closed(ReasonClientClosed)
}

// TestRealtimeBlockedAddressOnOpenSocket: a socket opened before its address
// was blocked cannot log in, even with a good key.
func TestRealtimeBlockedAddressOnOpenSocket(t *testing.T) {
	d := newTestDeps(t)
	key, _ := d.issue(t, "pro", nil)
	waiting := newFakeConn("192.0.2.3")
	ws := NewRealtime(d.Deps)
	open(ws, waiting)
	for i := 0; i < protocol.MaxFailedLogins; i++ {
		c := newFakeConn("192.0.2.3")
		s := NewRealtime(d.Deps)
		open(s, c)
		s.Message(true, loginFrame("dt_unknownunknownunknown"))
		s.Closed(ReasonClientClosed)
	}
	ws.Message(true, loginFrame(key))
	f := waiting.frames()
	if len(f) != 2 || !strings.Contains(f[1], `"code":"ip_blocked"`) || !strings.Contains(f[1], `"retry_after":3600`) {
		t.Fatalf("frames %q, want DISCONNECT ip_blocked with retry_after 3600", f)
	}
}

// TestRealtimeExpiry: the end date is re-read on heartbeats and when it
// passes: extended while connected, the socket stays; reached, it ends with
// subscription_expired.
func TestRealtimeExpiry(t *testing.T) {
	d := newTestDeps(t)
	end := d.now.Add(time.Minute)
	key, acct := d.issue(t, "pro", &end)
	c := newFakeConn("192.0.2.4")
	s := NewRealtime(d.Deps)
	open(s, c)
	s.Message(true, loginFrame(key))
	wantOp(t, c.frames()[1], "4")

	// Extended by the operator: the timer for the old end re-arms.
	later := d.now.Add(time.Hour)
	pl := &later
	if _, err := d.reg.Change(context.Background(), acct, protocol.ProductB2B, account.Changes{ExpiresAt: &pl}); err != nil {
		t.Fatal(err)
	}
	d.advance(time.Minute)
	c.fire(time.Minute)
	if f := c.frames(); len(f) != 2 || c.closed {
		t.Fatalf("extended subscription: frames %q closed %v", f, c.closed)
	}
	// Moved near by the operator: seen at the next heartbeat.
	soon := d.now.Add(time.Second)
	ps := &soon
	if _, err := d.reg.Change(context.Background(), acct, protocol.ProductB2B, account.Changes{ExpiresAt: &ps}); err != nil {
		t.Fatal(err)
	}
	s.Message(true, []byte(`{"op":1}`))
	d.advance(time.Second)
	c.fire(time.Second)
	f := c.frames()
	if len(f) != 4 || f[2] != `{"op":11}` || !strings.Contains(f[3], `"code":"subscription_expired"`) || !c.closed {
		t.Fatalf("frames %q closed %v, want ACK then DISCONNECT subscription_expired", f, c.closed)
	}
	s.Closed(ReasonClientClosed)
	if d.Limits.Held(B2BQuota(acct)) != 0 {
		t.Fatal("slot kept after expiry")
	}
}

// TestRealtimeHeartbeatTimeout: no heartbeat within HeartbeatTimeout closes
// the socket with a reason and no DISCONNECT; a heartbeat re-arms it.
func TestRealtimeHeartbeatTimeout(t *testing.T) {
	d := newTestDeps(t)
	key, _ := d.issue(t, "starter", nil)
	c := newFakeConn("192.0.2.5")
	s := NewRealtime(d.Deps)
	open(s, c)
	s.Message(true, loginFrame(key))
	s.Message(true, []byte(`{"op":1}`))
	c.fire(d.Timings.HeartbeatTimeout)
	f := c.frames()
	if len(f) != 3 || f[2] != `{"op":11}` {
		t.Fatalf("frames %q", f)
	}
	if !c.closed || c.closeReason != "heartbeat timeout" {
		t.Fatalf("closed %v %q, want the heartbeat timeout close", c.closed, c.closeReason)
	}
	s.Closed(ReasonClientClosed)
}

// TestTweetOnlyFollowsTargets: a tweet-only session follows target changes
// of its account and leaves nothing behind.
func TestTweetOnlyFollowsTargets(t *testing.T) {
	d := newTestDeps(t)
	key, acct := d.issue(t, "pro", nil, "alpha")
	slot, ok := d.Limits.Reserve(B2BQuota(acct), protocol.DTWSConns)
	if !ok {
		t.Fatal("no slot")
	}
	c := newFakeConn("192.0.2.6")
	s := NewTweetOnly(d.Deps, key, acct, slot)
	open(s, c)
	d.Hub.Publish(delivery.AccountTopic(protocol.ProductB2B, acct), delivery.TargetAdded("beta"))
	d.Hub.Publish(delivery.AccountTopic(protocol.ProductB2B, acct), delivery.TargetRemoved("alpha"))
	d.Hub.Publish(delivery.HandleTopic("alpha"), postEvent("alpha", "1"))
	d.Hub.Publish(delivery.HandleTopic("beta"), postEvent("beta", "2"))
	f := c.frames()
	if len(f) != 2 || f[0] != string(protocol.TweetOnlyGreeting) || !strings.Contains(f[1], `"id":"2"`) {
		t.Fatalf("frames %q, want the greeting and the post of beta only", f)
	}
	s.Closed(ReasonClientClosed)
	if d.Hub.Topics() != 0 || d.Limits.Held(B2BQuota(acct)) != 0 {
		t.Fatal("tweet-only session left a subscription, live entry or slot")
	}
}
