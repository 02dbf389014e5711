package testkit

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// FrameWait is how long Next waits for a frame the test expects.
const FrameWait = 10 * time.Second

// Frame is one message read from a socket, or how the read ended (Err).
type Frame struct {
	Type int
	Data []byte
	Err  error
}

// DialOptions are how a test dials.
type DialOptions struct {
	From        string      // local IP to dial from ("" = the default)
	Header      http.Header // request headers (cookies)
	IgnorePings bool        // never answer the server's pings
	// WriteBufferSize is the largest frame the client sends; longer
	// messages go as several frames (gorilla's default: 4096). Browsers
	// send a message as one frame.
	WriteBufferSize int
}

// WS is a WebSocket test client. One goroutine (readLoop) reads frames into
// a channel, because a gorilla read deadline would break the connection;
// the test writes under wmu. It is closed when the test ends.
type WS struct {
	Name   string
	Conn   *websocket.Conn
	frames chan Frame
	wmu    sync.Mutex
	done   chan struct{}
	closed *Frame // the terminal read error, once seen (test goroutine only)
	marks  atomic.Int64
}

// barrierPrefix marks the pings of Barrier; their pongs are read as frames.
const barrierPrefix = "testkit-barrier-"

// DialWS opens a WebSocket. It returns the HTTP response when the upgrade
// was refused.
func DialWS(t testing.TB, url string, o DialOptions) (*WS, *http.Response, error) {
	t.Helper()
	d := websocket.Dialer{HandshakeTimeout: 10 * time.Second, Proxy: nil, WriteBufferSize: o.WriteBufferSize}
	if o.From != "" {
		ip := net.ParseIP(o.From)
		d.NetDial = func(network, addr string) (net.Conn, error) {
			nd := net.Dialer{LocalAddr: &net.TCPAddr{IP: ip}, Timeout: 10 * time.Second}
			return nd.Dial(network, addr)
		}
	}
	c, r, err := d.Dial(url, o.Header)
	if err != nil {
		return nil, r, err
	}
	w := &WS{Name: url, Conn: c, frames: make(chan Frame, 4096), done: make(chan struct{})}
	if o.IgnorePings {
		c.SetPingHandler(func(string) error { return nil })
	}
	// Pongs of Barrier's pings are read in order with the data frames (the
	// handler runs inside ReadMessage, on readLoop's goroutine).
	c.SetPongHandler(func(p string) error {
		if strings.HasPrefix(p, barrierPrefix) {
			w.push(Frame{Type: websocket.PongMessage, Data: []byte(p)})
		}
		return nil
	})
	go w.readLoop()
	t.Cleanup(w.Close)
	return w, r, nil
}

func (w *WS) push(f Frame) bool {
	select {
	case w.frames <- f:
		return true
	case <-w.done:
		return false
	}
}

func (w *WS) readLoop() {
	defer close(w.frames)
	for {
		typ, data, err := w.Conn.ReadMessage()
		if !w.push(Frame{typ, data, err}) || err != nil {
			return
		}
	}
}

// Close drops the connection (idempotent; also the test's cleanup).
func (w *WS) Close() {
	select {
	case <-w.done:
	default:
		close(w.done)
		w.Conn.Close()
	}
}

// CloseGracefully sends a close frame (1000), then drops the connection.
func (w *WS) CloseGracefully() {
	w.wmu.Lock()
	_ = w.Conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(time.Second))
	w.wmu.Unlock()
	w.Close()
}

// SendText writes one text frame.
func (w *WS) SendText(t testing.TB, s string) {
	t.Helper()
	w.wmu.Lock()
	defer w.wmu.Unlock()
	_ = w.Conn.SetWriteDeadline(time.Now().Add(5 * time.Second))
	if err := w.Conn.WriteMessage(websocket.TextMessage, []byte(s)); err != nil {
		t.Fatalf("%s: write: %v", w.Name, err)
	}
}

// TrySendText writes one text frame and returns the write error (for
// tests that flood a server until it closes).
func (w *WS) TrySendText(s string) error {
	w.wmu.Lock()
	defer w.wmu.Unlock()
	_ = w.Conn.SetWriteDeadline(time.Now().Add(5 * time.Second))
	return w.Conn.WriteMessage(websocket.TextMessage, []byte(s))
}

// SendBinary writes one binary frame.
func (w *WS) SendBinary(t testing.TB, b []byte) {
	t.Helper()
	w.wmu.Lock()
	defer w.wmu.Unlock()
	if err := w.Conn.WriteMessage(websocket.BinaryMessage, b); err != nil {
		t.Fatalf("%s: write: %v", w.Name, err)
	}
}

// Ping sends a ping control frame: inbound bytes that are no message.
func (w *WS) Ping() error {
	w.wmu.Lock()
	defer w.wmu.Unlock()
	return w.Conn.WriteControl(websocket.PingMessage, []byte("p"), time.Now().Add(time.Second))
}

// Read returns the next frame, or false when none came within. Once the
// socket has ended, it returns the end again.
func (w *WS) Read(within time.Duration) (Frame, bool) {
	if w.closed != nil {
		return *w.closed, true
	}
	timer := time.NewTimer(within)
	defer timer.Stop()
	select {
	case f, ok := <-w.frames:
		if !ok {
			f = Frame{Err: io.EOF}
		}
		if f.Err != nil {
			w.closed = &f
		}
		return f, true
	case <-timer.C:
		return Frame{}, false
	}
}

// Next returns the next text message; it fails the test when the socket
// ends or nothing comes within FrameWait.
func (w *WS) Next(t testing.TB) []byte {
	t.Helper()
	f, ok := w.Read(FrameWait)
	if !ok {
		t.Fatalf("%s: no frame within %v", w.Name, FrameWait)
	}
	if f.Err != nil {
		t.Fatalf("%s: socket ended while a frame was expected: %v", w.Name, f.Err)
	}
	if f.Type != websocket.TextMessage {
		t.Fatalf("%s: frame of type %d, want text: %q", w.Name, f.Type, f.Data)
	}
	return f.Data
}

// NextWhere returns the next message for which keep holds, skipping others
// (frames of other tests on broadcast streams).
func (w *WS) NextWhere(t testing.TB, keep func(b []byte) bool) []byte {
	t.Helper()
	for {
		if b := w.Next(t); keep(b) {
			return b
		}
	}
}

// Barrier pings the server and reads up to the pong; it returns the
// messages that came before it. The server answers a ping in order with
// the frames it queued, so after the engine's Sync an empty result proves
// that nothing was queued for this socket.
func (w *WS) Barrier(t testing.TB) [][]byte {
	t.Helper()
	mark := fmt.Sprintf("%s%d", barrierPrefix, w.marks.Add(1))
	w.wmu.Lock()
	err := w.Conn.WriteControl(websocket.PingMessage, []byte(mark), time.Now().Add(5*time.Second))
	w.wmu.Unlock()
	if err != nil {
		t.Fatalf("%s: barrier ping: %v", w.Name, err)
	}
	var before [][]byte
	for {
		f, ok := w.Read(FrameWait)
		switch {
		case !ok:
			t.Fatalf("%s: no pong within %v (frames before: %q)", w.Name, FrameWait, before)
		case f.Err != nil:
			t.Fatalf("%s: socket ended before the barrier's pong: %v (frames before: %q)", w.Name, f.Err, before)
		case f.Type == websocket.PongMessage && string(f.Data) == mark:
			return before
		case f.Type == websocket.PongMessage: // an earlier barrier's, given up on
		default:
			before = append(before, f.Data)
		}
	}
}

// WaitEnd reads until the socket ends and returns the close code and text
// (code 0 when it ended without a close frame), with the messages read on
// the way.
func (w *WS) WaitEnd(t testing.TB, within time.Duration) (code int, text string, frames [][]byte) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		left := time.Until(deadline)
		if left <= 0 {
			t.Fatalf("%s: still open after %v (frames: %q)", w.Name, within, frames)
		}
		f, ok := w.Read(left)
		if !ok {
			continue
		}
		if f.Err == nil {
			if f.Type != websocket.PongMessage {
				frames = append(frames, f.Data)
			}
			continue
		}
		if ce, ok := f.Err.(*websocket.CloseError); ok {
			return ce.Code, ce.Text, frames
		}
		return 0, "", frames
	}
}

// ResponseText describes a refused upgrade's answer.
func ResponseText(r *http.Response) string {
	if r == nil {
		return "no response"
	}
	b, _ := io.ReadAll(r.Body)
	return fmt.Sprintf("HTTP %d %s", r.StatusCode, b)
}
