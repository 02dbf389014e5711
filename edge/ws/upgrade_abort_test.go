package ws

import (
	"context"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/valyala/fasthttp"
)

// lifecycle is a handler that counts how each upgrade ended and holds a
// "slot" from before the upgrade until OnClose or OnAbort, as the
// connection limit does.
type lifecycle struct {
	held     atomic.Int64 // slots taken by the fasthttp handler, not given back
	accepted atomic.Int64 // upgrades Upgrade accepted (returned nil)
	prepared atomic.Int64
	opened   atomic.Int64
	closed   atomic.Int64
	aborted  atomic.Int64
	prepare  func(c *Conn)
	ends     chan string // "closed" or "aborted: <err>", once per upgrade
}

func newLifecycle() *lifecycle { return &lifecycle{ends: make(chan string, 100)} }

func (l *lifecycle) OnPrepare(c *Conn) {
	l.prepared.Add(1)
	if l.prepare != nil {
		l.prepare(c)
	}
}
func (l *lifecycle) OnOpen(*Conn)                  { l.opened.Add(1) }
func (l *lifecycle) OnMessage(*Conn, wsOp, []byte) {}
func (l *lifecycle) OnClose(*Conn, ClosedState) {
	l.closed.Add(1)
	l.held.Add(-1)
	l.ends <- "closed"
}
func (l *lifecycle) OnAbort(err error) {
	l.aborted.Add(1)
	l.held.Add(-1)
	l.ends <- "aborted: " + err.Error()
}

// end waits for the end of one upgrade.
func (l *lifecycle) end(t *testing.T) string {
	t.Helper()
	select {
	case e := <-l.ends:
		return e
	case <-time.After(10 * time.Second):
		t.Fatal("the upgrade neither closed nor aborted")
		return ""
	}
}

// startLifecycle serves l, taking a slot before each Upgrade that returns nil.
func startLifecycle(t *testing.T, l *lifecycle, opt Options) *testServer {
	ts := startServer(t, Config{Logger: discardLogger()}, l, opt)
	ts.srv.Handler = func(ctx *fasthttp.RequestCtx) {
		l.held.Add(1)
		if ts.hub.Upgrade(ctx, l, opt) != nil {
			l.held.Add(-1)
			return
		}
		l.accepted.Add(1)
	}
	return ts
}

// TestUpgradeClientGoneBefore101: the client resets the connection after
// Upgrade returned and before the 101 is written: the handler gets OnAbort,
// never OnOpen or OnClose, and gives its slot back; what it sent in
// OnPrepare is dropped.
func TestUpgradeClientGoneBefore101(t *testing.T) {
	l := newLifecycle()
	l.prepare = func(c *Conn) {
		if !c.Send([]byte("queued before the 101")) {
			t.Error("Send refused while preparing")
		}
	}
	ts := startLifecycle(t, l, Options{})
	client := make(chan *net.TCPConn, 1)
	ts.hub.beforeTakeOver = func(nc net.Conn) {
		c := <-client
		c.SetLinger(0)
		c.Close() // RST
		// Barrier: the server side sees the reset before it writes the 101.
		var b [1]byte
		nc.SetReadDeadline(time.Now().Add(5 * time.Second))
		if _, err := nc.Read(b[:]); err == nil {
			t.Error("read data from a reset client")
		}
	}
	nc, err := net.Dial("tcp", ts.addr)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := nc.Write([]byte(handshakeRequest(ts.addr))); err != nil {
		t.Fatal(err)
	}
	client <- nc.(*net.TCPConn)
	if e := l.end(t); !strings.HasPrefix(e, "aborted:") {
		t.Fatalf("upgrade ended %q, want aborted", e)
	}
	if l.prepared.Load() != 1 || l.opened.Load() != 0 || l.closed.Load() != 0 || l.aborted.Load() != 1 || l.held.Load() != 0 {
		t.Fatalf("prepared %d opened %d closed %d aborted %d held %d", l.prepared.Load(), l.opened.Load(), l.closed.Load(), l.aborted.Load(), l.held.Load())
	}
	if n := ts.hub.Conns(); n != 0 {
		t.Fatalf("hub counts %d connections", n)
	}
}

// TestUpgradeHubShutsDownMidUpgrade: the hub stops between Upgrade and the
// 101: OnAbort with ErrHubClosed, and the client gets no 101.
func TestUpgradeHubShutsDownMidUpgrade(t *testing.T) {
	l := newLifecycle()
	ts := startLifecycle(t, l, Options{})
	var stopped sync.WaitGroup
	l.prepare = func(*Conn) {
		stopped.Add(1)
		go func() {
			defer stopped.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_ = ts.hub.Shutdown(ctx)
		}()
		for deadline := time.Now().Add(5 * time.Second); ts.hub.running(); {
			if time.Now().After(deadline) {
				t.Error("the hub did not start shutting down")
				return
			}
			time.Sleep(time.Millisecond) // waiting for a state change, not proving an absence
		}
	}
	nc, err := net.Dial("tcp", ts.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	if _, err := nc.Write([]byte(handshakeRequest(ts.addr))); err != nil {
		t.Fatal(err)
	}
	if e := l.end(t); e != "aborted: "+ErrHubClosed.Error() {
		t.Fatalf("upgrade ended %q, want aborted with ErrHubClosed", e)
	}
	// The client's connection ends without a 101.
	nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	var b [64]byte
	if n, _ := nc.Read(b[:]); n > 0 {
		t.Fatalf("client read %q", b[:n])
	}
	stopped.Wait()
	if l.opened.Load() != 0 || l.closed.Load() != 0 || l.held.Load() != 0 {
		t.Fatalf("opened %d closed %d held %d", l.opened.Load(), l.closed.Load(), l.held.Load())
	}
}

// TestUpgradeLostByFasthttp: an upgrade whose connection fasthttp closes
// without handing it over ends in OnAbort (through ConnState), once; a
// hijack that comes after cannot adopt it.
func TestUpgradeLostByFasthttp(t *testing.T) {
	h, err := NewHub(Config{Logger: discardLogger()})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Shutdown(context.Background())
	l := newLifecycle()
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	h.upgrades.add(a, l)
	h.ConnState(a, fasthttp.StateActive)
	h.ConnState(b, fasthttp.StateClosed)
	if l.aborted.Load() != 0 {
		t.Fatal("aborted on another connection's or a non-closing state")
	}
	h.ConnState(a, fasthttp.StateClosed)
	h.ConnState(a, fasthttp.StateClosed)
	if e := l.end(t); e != "aborted: "+ErrUpgradeLost.Error() || l.aborted.Load() != 1 {
		t.Fatalf("ended %q, %d aborts", e, l.aborted.Load())
	}
	if h.upgrades.take(a) != nil {
		t.Fatal("the upgrade is still pending after its abort")
	}
}

// TestUpgradeEndsOnce: many upgrades, some clients leaving at once, some
// staying until the hub shuts down: every upgrade ends exactly once, and
// every slot comes back.
func TestUpgradeEndsOnce(t *testing.T) {
	l := newLifecycle()
	l.ends = make(chan string, 1000)
	ts := startLifecycle(t, l, Options{})
	const n = 60
	var conns []net.Conn
	for i := range n {
		nc, err := net.Dial("tcp", ts.addr)
		if err != nil {
			t.Fatal(err)
		}
		nc.Write([]byte(handshakeRequest(ts.addr)))
		if i%2 == 0 {
			nc.(*net.TCPConn).SetLinger(0)
			nc.Close()
			continue
		}
		conns = append(conns, nc)
	}
	// Wait until the clients that stay are open, then shut down.
	deadline := time.Now().Add(10 * time.Second)
	for l.opened.Load() < int64(len(conns)) && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	ts.stop()
	for _, c := range conns {
		c.Close()
	}
	// Barrier: every accepted upgrade has ended (a hijack may still run
	// after the server stopped; it aborts).
	for deadline := time.Now().Add(10 * time.Second); l.closed.Load()+l.aborted.Load() < l.accepted.Load(); {
		if time.Now().After(deadline) {
			t.Fatalf("%d upgrades accepted, %d closed, %d aborted", l.accepted.Load(), l.closed.Load(), l.aborted.Load())
		}
		time.Sleep(time.Millisecond)
	}
	if l.closed.Load()+l.aborted.Load() != l.accepted.Load() {
		t.Errorf("%d upgrades accepted, %d closed, %d aborted", l.accepted.Load(), l.closed.Load(), l.aborted.Load())
	}
	if l.opened.Load() != l.closed.Load() {
		t.Errorf("opened %d, closed %d", l.opened.Load(), l.closed.Load())
	}
	if held := l.held.Load(); held != 0 {
		t.Errorf("%d slots never given back", held)
	}
}

// TestPreparedFramesFollowThe101: frames sent in OnPrepare are the first the
// client reads after the 101, before those of OnOpen.
func TestPreparedFramesFollowThe101(t *testing.T) {
	l := newLifecycle()
	l.prepare = func(c *Conn) { c.Send([]byte("first")) }
	opened := make(chan *Conn, 1)
	h := &openSender{lifecycle: l, opened: opened}
	ts := startServer(t, Config{Logger: discardLogger()}, h, Options{})
	rc := dialRaw(t, ts.addr, nil)
	for _, want := range []string{"first", "second"} {
		f, err := rc.read()
		if err != nil || string(f.payload) != want {
			t.Fatalf("frame %q (%v), want %q", f.payload, err, want)
		}
	}
}

type openSender struct {
	*lifecycle
	opened chan *Conn
}

func (o *openSender) OnOpen(c *Conn) { c.Send([]byte("second")) }

// TestKilledWhilePreparing: a connection that overflows its queue in
// OnPrepare opens and closes at once as a slow consumer (OnOpen, OnClose).
func TestKilledWhilePreparing(t *testing.T) {
	l := newLifecycle()
	l.prepare = func(c *Conn) {
		for range 3 {
			c.Send([]byte("x"))
		}
	}
	rec := &closeState{lifecycle: l, state: make(chan ClosedState, 1)}
	ts := startServer(t, Config{Logger: discardLogger()}, rec, Options{QueueLen: 2})
	dialRaw(t, ts.addr, nil)
	select {
	case st := <-rec.state:
		if st != SlowConsumer || l.opened.Load() != 1 {
			t.Fatalf("closed %v after %d opens", st, l.opened.Load())
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no OnClose")
	}
	if l.aborted.Load() != 0 {
		t.Fatal("aborted after the 101 went out")
	}
}

type closeState struct {
	*lifecycle
	state chan ClosedState
}

func (c *closeState) OnClose(_ *Conn, st ClosedState) { c.state <- st }
