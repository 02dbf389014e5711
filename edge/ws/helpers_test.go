package ws

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	gorilla "github.com/gorilla/websocket"
	"github.com/valyala/fasthttp"
	"go.uber.org/goleak"
)

// testSend is the send path every test hub uses unless the test sets one:
// ALERTD_TEST_WS_SEND=io_uring runs the whole suite on the io_uring path
// (writer_uring.go); the default is the write path.
var testSend, _ = ParseSendPath(os.Getenv("ALERTD_TEST_WS_SEND"))

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m,
		// fasthttp's process-wide Date header refresher (started once).
		goleak.IgnoreAnyFunction("github.com/valyala/fasthttp.updateServerDate.func1"),
	)
}

// testServer is a real fasthttp server on 127.0.0.1 with a hub behind it.
type testServer struct {
	t    testing.TB
	hub  *Hub
	srv  *fasthttp.Server
	ln   net.Listener
	addr string
	url  string
	done chan struct{}
	// refuse, when set, answers before the upgrade.
	refuse func(ctx *fasthttp.RequestCtx) bool
}

func startServer(t testing.TB, cfg Config, h Handler, opt Options, mods ...func(*fasthttp.Server)) *testServer {
	t.Helper()
	if testSend == SendIOURing {
		cfg.Send = SendIOURing
	}
	return startServerOn(t, cfg, h, opt, mods...)
}

// startServerOn is startServer on cfg.Send whatever ALERTD_TEST_WS_SEND
// says: for the tests of one path (direct writes are the write path's).
func startServerOn(t testing.TB, cfg Config, h Handler, opt Options, mods ...func(*fasthttp.Server)) *testServer {
	t.Helper()
	hub, err := NewHub(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := hub.Start(); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ts := &testServer{t: t, hub: hub, ln: ln, addr: ln.Addr().String(), done: make(chan struct{})}
	ts.url = "ws://" + ts.addr + "/ws"
	ts.srv = &fasthttp.Server{
		Handler: func(ctx *fasthttp.RequestCtx) {
			if ts.refuse != nil && ts.refuse(ctx) {
				return
			}
			_ = hub.Upgrade(ctx, h, opt)
		},
		MaxIdleWorkerDuration: 50 * time.Millisecond,
		ReadBufferSize:        8192,
		ConnState:             hub.ConnState,
	}
	for _, m := range mods {
		m(ts.srv)
	}
	go func() {
		defer close(ts.done)
		_ = ts.srv.Serve(ln)
	}()
	t.Cleanup(ts.stop)
	return ts
}

func (ts *testServer) stop() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = ts.hub.Shutdown(ctx)
	_ = ts.srv.ShutdownWithContext(ctx)
	<-ts.done
}

// recorder is a Handler that echoes (optionally) and records events.
type recorder struct {
	echo    bool
	mu      sync.Mutex
	opened  []*Conn
	openCh  chan *Conn
	msgs    chan []byte
	closed  chan ClosedState
	aborted chan error
	onMsg   func(c *Conn, op byte, p []byte)
}

func newRecorder(echo bool) *recorder {
	return &recorder{echo: echo, openCh: make(chan *Conn, 10000), msgs: make(chan []byte, 10000), closed: make(chan ClosedState, 10000),
		aborted: make(chan error, 10000)}
}

func (r *recorder) OnOpen(c *Conn) {
	r.mu.Lock()
	r.opened = append(r.opened, c)
	r.mu.Unlock()
	r.openCh <- c
}

func (r *recorder) OnMessage(c *Conn, op wsOp, p []byte) {
	if r.onMsg != nil {
		r.onMsg(c, byte(op), p)
	}
	cp := append([]byte(nil), p...)
	if r.echo {
		if op == opBinary {
			c.SendBinary(cp)
		} else {
			c.Send(cp)
		}
	}
	select {
	case r.msgs <- cp:
	default:
	}
}

func (r *recorder) OnClose(c *Conn, s ClosedState) { r.closed <- s }

func (r *recorder) OnAbort(err error) { r.aborted <- err }

func (r *recorder) waitOpen(t testing.TB) *Conn {
	t.Helper()
	select {
	case c := <-r.openCh:
		return c
	case <-time.After(5 * time.Second):
		t.Fatal("no OnOpen")
		return nil
	}
}

func (r *recorder) waitClosed(t testing.TB) ClosedState {
	t.Helper()
	select {
	case s := <-r.closed:
		return s
	case <-time.After(5 * time.Second):
		t.Fatal("no OnClose")
		return 0
	}
}

func dialGorilla(t testing.TB, url string) *gorilla.Conn {
	t.Helper()
	d := gorilla.Dialer{HandshakeTimeout: 5 * time.Second}
	c, resp, err := d.Dial(url, nil)
	if err != nil {
		t.Fatalf("dial: %v (resp %v)", err, resp)
	}
	return c
}

// rawClient speaks frames by hand: it is how the tests send what a correct
// client library never would.
type rawClient struct {
	t  testing.TB
	nc net.Conn
	br *bufio.Reader
}

func handshakeRequest(addr string) string {
	var k [16]byte
	rand.Read(k[:])
	return "GET /ws HTTP/1.1\r\nHost: " + addr + "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
		"Sec-WebSocket-Key: " + base64.StdEncoding.EncodeToString(k[:]) + "\r\nSec-WebSocket-Version: 13\r\n\r\n"
}

// dialRaw does the handshake; extra is written in the same packet right
// after the request (to exercise bytes buffered by fasthttp).
func dialRaw(t testing.TB, addr string, extra []byte) *rawClient {
	t.Helper()
	nc, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	return handshakeRaw(t, nc, addr, extra)
}

// handshakeRaw upgrades nc, dialled by the caller.
func handshakeRaw(t testing.TB, nc net.Conn, addr string, extra []byte) *rawClient {
	t.Helper()
	req := append([]byte(handshakeRequest(addr)), extra...)
	if _, err := nc.Write(req); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(nc)
	nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 101 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	nc.SetReadDeadline(time.Time{})
	rc := &rawClient{t: t, nc: nc, br: br}
	t.Cleanup(func() { nc.Close() })
	return rc
}

// frame encodes one client frame. mask false sends it unmasked.
func frame(fin bool, rsv byte, op byte, payload []byte, mask bool) []byte {
	b0 := op | rsv<<4
	if fin {
		b0 |= 0x80
	}
	out := []byte{b0}
	var mb byte
	if mask {
		mb = 0x80
	}
	n := len(payload)
	switch {
	case n < 126:
		out = append(out, mb|byte(n))
	case n <= 0xffff:
		out = append(out, mb|126, byte(n>>8), byte(n))
	default:
		out = append(out, mb|127)
		out = binary.BigEndian.AppendUint64(out, uint64(n))
	}
	p := append([]byte(nil), payload...)
	if mask {
		key := [4]byte{0x37, 0xfa, 0x21, 0x3d}
		out = append(out, key[:]...)
		for i := range p {
			p[i] ^= key[i%4]
		}
	}
	return append(out, p...)
}

func (rc *rawClient) write(b []byte) {
	rc.t.Helper()
	if _, err := rc.nc.Write(b); err != nil {
		rc.t.Fatal(err)
	}
}

type srvFrame struct {
	fin     bool
	op      byte
	payload []byte
}

// read reads one server frame (server frames must be unmasked).
func (rc *rawClient) read() (srvFrame, error) {
	rc.nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	var h [2]byte
	if _, err := io.ReadFull(rc.br, h[:]); err != nil {
		return srvFrame{}, err
	}
	if h[1]&0x80 != 0 {
		return srvFrame{}, fmt.Errorf("masked server frame")
	}
	if h[0]&0x70 != 0 {
		return srvFrame{}, fmt.Errorf("rsv bits on server frame")
	}
	n := uint64(h[1] & 0x7f)
	switch n {
	case 126:
		var e [2]byte
		if _, err := io.ReadFull(rc.br, e[:]); err != nil {
			return srvFrame{}, err
		}
		n = uint64(binary.BigEndian.Uint16(e[:]))
	case 127:
		var e [8]byte
		if _, err := io.ReadFull(rc.br, e[:]); err != nil {
			return srvFrame{}, err
		}
		n = binary.BigEndian.Uint64(e[:])
	}
	p := make([]byte, n)
	if _, err := io.ReadFull(rc.br, p); err != nil {
		return srvFrame{}, err
	}
	return srvFrame{fin: h[0]&0x80 != 0, op: h[0] & 0x0f, payload: p}, nil
}

// expectClose reads until a close frame and returns its code, then checks
// that the server closes the TCP connection.
func (rc *rawClient) expectClose(want uint16) {
	rc.t.Helper()
	for {
		f, err := rc.read()
		if err != nil {
			rc.t.Fatalf("waiting for close %d: %v", want, err)
		}
		if f.op != 8 {
			continue
		}
		if len(f.payload) < 2 {
			rc.t.Fatalf("close without code, want %d", want)
		}
		if got := binary.BigEndian.Uint16(f.payload); got != want {
			rc.t.Fatalf("close code %d (%q), want %d", got, f.payload[2:], want)
		}
		break
	}
	rc.nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := rc.br.ReadByte(); err == nil {
		rc.t.Fatal("data after close frame")
	} else if err != io.EOF && !strings.Contains(err.Error(), "reset") {
		rc.t.Fatalf("after close: %v", err)
	}
	rc.nc.Close()
}

func discardLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
