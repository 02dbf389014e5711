package ws

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/alertd/alertd/internal/testkit"
	gorilla "github.com/gorilla/websocket"
	"github.com/valyala/fasthttp"
)

func TestEcho(t *testing.T) {
	rec := newRecorder(true)
	ts := startServer(t, Config{}, rec, Options{ReadLimit: 1 << 20})
	c := dialGorilla(t, ts.url)
	defer c.Close()

	for _, m := range []struct {
		typ int
		p   []byte
	}{
		{gorilla.TextMessage, []byte("hello")},
		{gorilla.BinaryMessage, []byte{0, 1, 2, 255}},
		{gorilla.TextMessage, []byte("")},
		{gorilla.TextMessage, bytes.Repeat([]byte("ünïcödé "), 40000)}, // ~400 KB, spans many reads
	} {
		if err := c.WriteMessage(m.typ, m.p); err != nil {
			t.Fatal(err)
		}
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		typ, got, err := c.ReadMessage()
		if err != nil {
			t.Fatal(err)
		}
		if typ != m.typ || !bytes.Equal(got, m.p) {
			t.Fatalf("echo mismatch: type %d len %d, want type %d len %d", typ, len(got), m.typ, len(m.p))
		}
	}
	if ts.hub.Conns() != 1 {
		t.Fatalf("gauge %d", ts.hub.Conns())
	}
	c.WriteMessage(gorilla.CloseMessage, gorilla.FormatCloseMessage(1000, ""))
	if s := rec.waitClosed(t); s != ClientClosed {
		t.Fatalf("state %v", s)
	}
	waitFor(t, func() bool { return ts.hub.Conns() == 0 })
}

// A fragmented message written by gorilla (NextWriter with a small write
// buffer) comes back whole.
func TestGorillaFragments(t *testing.T) {
	rec := newRecorder(true)
	ts := startServer(t, Config{}, rec, Options{ReadLimit: 1 << 20})
	d := gorilla.Dialer{WriteBufferSize: 256}
	c, _, err := d.Dial(ts.url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	msg := bytes.Repeat([]byte("0123456789"), 1000)
	w, _ := c.NextWriter(gorilla.TextMessage)
	for i := 0; i < len(msg); i += 333 {
		w.Write(msg[i:min(i+333, len(msg))])
	}
	w.Close()
	_, got, err := c.ReadMessage()
	if err != nil || !bytes.Equal(got, msg) {
		t.Fatalf("got %d bytes, err %v", len(got), err)
	}
}

func TestFragmentationWithInterleavedPing(t *testing.T) {
	rec := newRecorder(true)
	ts := startServer(t, Config{}, rec, Options{})
	rc := dialRaw(t, ts.addr, nil)
	var b []byte
	b = append(b, frame(false, 0, 1, []byte("frag1-"), true)...)
	b = append(b, frame(true, 0, 9, []byte("ping!"), true)...)
	b = append(b, frame(false, 0, 0, []byte("frag2-ü"), true)...)
	b = append(b, frame(true, 0, 10, []byte("unsolicited pong"), true)...)
	b = append(b, frame(true, 0, 0, []byte("frag3"), true)...)
	// Write byte by byte: every state of the incremental parser is a read
	// boundary somewhere.
	for i := range b {
		rc.write(b[i : i+1])
	}
	f, err := rc.read()
	if err != nil || f.op != 10 || string(f.payload) != "ping!" {
		t.Fatalf("want pong ping!, got %+v %v", f, err)
	}
	f, err = rc.read()
	if err != nil || f.op != 1 || !f.fin || string(f.payload) != "frag1-frag2-üfrag3" {
		t.Fatalf("want echo, got %+v %v", f, err)
	}
	// A UTF-8 sequence split across fragments is valid.
	eur := []byte("€")
	rc.write(frame(false, 0, 1, eur[:1], true))
	rc.write(frame(true, 0, 0, eur[1:], true))
	f, err = rc.read()
	if err != nil || string(f.payload) != "€" {
		t.Fatalf("got %+v %v", f, err)
	}
}

// Bytes sent right behind the handshake request land in fasthttp's read
// buffer; they must reach the parser.
func TestFrameInHandshakePacket(t *testing.T) {
	rec := newRecorder(true)
	ts := startServer(t, Config{}, rec, Options{})
	extra := append(frame(true, 0, 1, []byte("early"), true), frame(true, 0, 1, []byte("bird"), true)...)
	rc := dialRaw(t, ts.addr, extra)
	for _, want := range []string{"early", "bird"} {
		f, err := rc.read()
		if err != nil || string(f.payload) != want {
			t.Fatalf("got %+v %v, want %q", f, err, want)
		}
	}
}

func TestProtocolViolations(t *testing.T) {
	closeBody := func(code uint16, reason string) []byte {
		return append(binary.BigEndian.AppendUint16(nil, code), reason...)
	}
	cases := []struct {
		name  string
		in    []byte
		code  uint16
		state ClosedState
	}{
		{"unmasked", frame(true, 0, 1, []byte("hi"), false), 1002, ProtocolError},
		{"rsv1", frame(true, 4, 1, []byte("hi"), true), 1002, ProtocolError},
		{"rsv3", frame(true, 1, 1, []byte("hi"), true), 1002, ProtocolError},
		{"opcode 3", frame(true, 0, 3, nil, true), 1002, ProtocolError},
		{"opcode 11", frame(true, 0, 11, nil, true), 1002, ProtocolError},
		{"ping 126 bytes", frame(true, 0, 9, make([]byte, 126), true), 1002, ProtocolError},
		{"fragmented ping", frame(false, 0, 9, []byte("x"), true), 1002, ProtocolError},
		{"continuation first", frame(true, 0, 0, []byte("x"), true), 1002, ProtocolError},
		{"text inside fragments", append(frame(false, 0, 1, []byte("a"), true), frame(true, 0, 1, []byte("b"), true)...), 1002, ProtocolError},
		{"close 1 byte", frame(true, 0, 8, []byte{3}, true), 1002, ProtocolError},
		{"close 999", frame(true, 0, 8, closeBody(999, ""), true), 1002, ProtocolError},
		{"close 1005", frame(true, 0, 8, closeBody(1005, ""), true), 1002, ProtocolError},
		{"close 1006", frame(true, 0, 8, closeBody(1006, ""), true), 1002, ProtocolError},
		{"close 1016", frame(true, 0, 8, closeBody(1016, ""), true), 1002, ProtocolError},
		{"close 5000", frame(true, 0, 8, closeBody(5000, ""), true), 1002, ProtocolError},
		{"close bad utf8", frame(true, 0, 8, closeBody(1000, "\xce\xba\xe1\xbd"), true), 1002, ProtocolError},
		{"bad utf8", frame(true, 0, 1, []byte("ok\xff"), true), 1007, InvalidUTF8},
		{"bad utf8 fragmented", append(frame(false, 0, 1, []byte("\xce"), true), frame(true, 0, 0, []byte("\x41"), true)...), 1007, InvalidUTF8},
		{"truncated utf8 at end", frame(true, 0, 1, []byte("\xe2\x82"), true), 1007, InvalidUTF8},
		{"too big", frame(true, 0, 2, make([]byte, 1025), true), 1009, MessageTooBig},
		{"too big fragmented", append(frame(false, 0, 2, make([]byte, 600), true), frame(true, 0, 0, make([]byte, 600), true)...), 1009, MessageTooBig},
		{"64-bit length msb", []byte{0x82, 0xff, 0x80, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4}, 1002, ProtocolError},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rec := newRecorder(true)
			ts := startServer(t, Config{}, rec, Options{ReadLimit: 1024})
			rc := dialRaw(t, ts.addr, nil)
			rc.write(tc.in)
			rc.expectClose(tc.code)
			if s := rec.waitClosed(t); s != tc.state {
				t.Fatalf("state %v, want %v", s, tc.state)
			}
			select {
			case m := <-rec.msgs:
				t.Fatalf("message delivered: %q", m)
			default:
			}
		})
	}
}

func TestCloseHandshake(t *testing.T) {
	t.Run("client initiates", func(t *testing.T) {
		rec := newRecorder(true)
		ts := startServer(t, Config{}, rec, Options{})
		c := dialGorilla(t, ts.url)
		defer c.Close()
		c.WriteMessage(gorilla.CloseMessage, gorilla.FormatCloseMessage(4001, "bye"))
		_, _, err := c.ReadMessage()
		var ce *gorilla.CloseError
		if !errors.As(err, &ce) || ce.Code != 4001 {
			t.Fatalf("want echoed 4001, got %v", err)
		}
		if s := rec.waitClosed(t); s != ClientClosed {
			t.Fatalf("state %v", s)
		}
	})
	t.Run("empty close answered 1000", func(t *testing.T) {
		rec := newRecorder(true)
		ts := startServer(t, Config{}, rec, Options{})
		rc := dialRaw(t, ts.addr, nil)
		rc.write(frame(true, 0, 8, nil, true))
		rc.expectClose(1000)
		rec.waitClosed(t)
	})
	t.Run("server initiates after queued data", func(t *testing.T) {
		rec := newRecorder(false)
		ts := startServer(t, Config{}, rec, Options{})
		c := dialGorilla(t, ts.url)
		defer c.Close()
		sc := rec.waitOpen(t)
		sc.Send([]byte("one"))
		sc.Send([]byte("two"))
		sc.Close(4000, "policy")
		if sc.Send([]byte("three")) {
			t.Fatal("Send after Close succeeded")
		}
		for _, want := range []string{"one", "two"} {
			_, m, err := c.ReadMessage()
			if err != nil || string(m) != want {
				t.Fatalf("got %q %v", m, err)
			}
		}
		_, _, err := c.ReadMessage()
		var ce *gorilla.CloseError
		if !errors.As(err, &ce) || ce.Code != 4000 || ce.Text != "policy" {
			t.Fatalf("want 4000 policy, got %v", err)
		}
		if s := rec.waitClosed(t); s != PolicyClosed {
			t.Fatalf("state %v", s)
		}
	})
	t.Run("peer vanishes", func(t *testing.T) {
		rec := newRecorder(true)
		ts := startServer(t, Config{}, rec, Options{})
		rc := dialRaw(t, ts.addr, nil)
		rec.waitOpen(t)
		rc.nc.Close()
		if s := rec.waitClosed(t); s != ClientClosed {
			t.Fatalf("state %v", s)
		}
	})
	t.Run("close now", func(t *testing.T) {
		rec := newRecorder(true)
		ts := startServer(t, Config{}, rec, Options{})
		rc := dialRaw(t, ts.addr, nil)
		rec.waitOpen(t).CloseNow()
		if s := rec.waitClosed(t); s != PolicyClosed {
			t.Fatalf("state %v", s)
		}
		if _, err := rc.read(); err == nil {
			t.Fatal("frame after CloseNow")
		}
	})
}

func TestUpgradeRefusals(t *testing.T) {
	rec := newRecorder(true)
	ts := startServer(t, Config{}, rec, Options{})
	ts.refuse = func(ctx *fasthttp.RequestCtx) bool {
		switch string(ctx.QueryArgs().Peek("api_key")) {
		case "bad":
			ctx.SetStatusCode(401)
			ctx.SetBodyString("invalid api key")
			return true
		case "busy":
			ctx.SetStatusCode(429)
			ctx.Response.Header.Set("Retry-After", "5")
			ctx.SetContentType("application/json")
			ctx.SetBodyString(`{"ok":false,"code":"too_many_connections"}`)
			return true
		}
		return false
	}
	for _, tc := range []struct {
		key    string
		status int
		body   string
	}{{"bad", 401, "invalid api key"}, {"busy", 429, `{"ok":false,"code":"too_many_connections"}`}} {
		_, resp, err := gorilla.DefaultDialer.Dial(ts.url+"?api_key="+tc.key, nil)
		if err == nil || resp == nil || resp.StatusCode != tc.status {
			t.Fatalf("%s: want %d, got %v %v", tc.key, tc.status, resp, err)
		}
		body, _ := io.ReadAll(resp.Body)
		if string(body) != tc.body {
			t.Fatalf("body %q", body)
		}
	}

	raw := func(req string) string {
		nc, err := net.Dial("tcp", ts.addr)
		if err != nil {
			t.Fatal(err)
		}
		defer nc.Close()
		nc.Write([]byte(req))
		nc.SetReadDeadline(time.Now().Add(5 * time.Second))
		b := make([]byte, 512)
		n, _ := nc.Read(b)
		return string(b[:n])
	}
	base := "GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
	if r := raw(base + "Sec-WebSocket-Version: 13\r\n\r\n"); !strings.HasPrefix(r, "HTTP/1.1 400") {
		t.Fatalf("no key: %q", r)
	}
	if r := raw(base + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 8\r\n\r\n"); !strings.HasPrefix(r, "HTTP/1.1 426") || !strings.Contains(r, "Sec-Websocket-Version: 13") && !strings.Contains(r, "Sec-WebSocket-Version: 13") {
		t.Fatalf("version: %q", r)
	}
	if r := raw("GET /ws HTTP/1.1\r\nHost: x\r\n\r\n"); !strings.HasPrefix(r, "HTTP/1.1 400") {
		t.Fatalf("plain GET: %q", r)
	}
	// RFC 6455's own example key.
	r := raw(base + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
	if !strings.HasPrefix(r, "HTTP/1.1 101 ") || !strings.Contains(r, "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n") {
		t.Fatalf("101: %q", r)
	}
	select {
	case <-rec.openCh:
	case <-time.After(5 * time.Second):
		t.Fatal("no open")
	}
	rec.waitClosed(t)
	if ts.hub.Stats().Accepted != 1 {
		t.Fatalf("accepted %d", ts.hub.Stats().Accepted)
	}
}

func TestHandlerPanicCloses1011(t *testing.T) {
	rec := newRecorder(false)
	rec.onMsg = func(c *Conn, op byte, p []byte) { panic("boom") }
	ts := startServer(t, Config{Logger: discardLogger()}, rec, Options{})
	rc := dialRaw(t, ts.addr, nil)
	rc.write(frame(true, 0, 1, []byte("x"), true))
	rc.expectClose(1011)
	if s := rec.waitClosed(t); s != InternalError {
		t.Fatalf("state %v", s)
	}
}

func waitFor(t testing.TB, cond func() bool) {
	t.Helper()
	testkit.WaitFor(t, 10*time.Second, "condition", func() (bool, string) { return cond(), "not met" })
}

// fasthttp wraps conns with MaxConnsPerIP, and leaves closing them to the
// hijacker with KeepHijackedConns: both must work, and the per-IP count must
// not leak (more upgrades than the limit, one after another).
func TestFasthttpConnWrappers(t *testing.T) {
	for _, keep := range []bool{false, true} {
		t.Run(fmt.Sprintf("keep=%v", keep), func(t *testing.T) {
			rec := newRecorder(true)
			ts := startServer(t, Config{}, rec, Options{}, func(s *fasthttp.Server) {
				s.MaxConnsPerIP = 3
				s.KeepHijackedConns = keep
			})
			for i := range 10 {
				c := dialGorilla(t, ts.url)
				c.WriteMessage(gorilla.TextMessage, []byte("hi"))
				if _, m, err := c.ReadMessage(); err != nil || string(m) != "hi" {
					t.Fatalf("conn %d: %q %v", i, m, err)
				}
				c.Close()
				rec.waitClosed(t)
			}
		})
	}
}

// The peer sends its close frame and shuts its side at once: the echo must
// still go out.
func TestCloseThenHalfClose(t *testing.T) {
	rec := newRecorder(true)
	ts := startServer(t, Config{}, rec, Options{})
	rc := dialRaw(t, ts.addr, nil)
	rc.write(frame(true, 0, 8, []byte{0x0f, 0xa0, 'b', 'y', 'e'}, true)) // 4000
	rc.nc.(*net.TCPConn).CloseWrite()
	rc.expectClose(4000)
	if s := rec.waitClosed(t); s != ClientClosed {
		t.Fatalf("state %v", s)
	}
}

func TestTooBigWithGorilla(t *testing.T) {
	rec := newRecorder(true)
	ts := startServer(t, Config{}, rec, Options{ReadLimit: 1000})
	c := dialGorilla(t, ts.url)
	defer c.Close()
	c.WriteMessage(gorilla.TextMessage, bytes.Repeat([]byte("a"), 1000)) // at the limit: fine
	if _, m, err := c.ReadMessage(); err != nil || len(m) != 1000 {
		t.Fatalf("%d %v", len(m), err)
	}
	c.WriteMessage(gorilla.BinaryMessage, make([]byte, 1001))
	_, _, err := c.ReadMessage()
	var ce *gorilla.CloseError
	if !errors.As(err, &ce) || ce.Code != 1009 {
		t.Fatalf("want 1009, got %v", err)
	}
	if s := rec.waitClosed(t); s != MessageTooBig {
		t.Fatalf("state %v", s)
	}
}
