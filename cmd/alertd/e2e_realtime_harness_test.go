package main

// Harness of the realtime WebSocket end-to-end tests: servers started with
// shortened timings (ALERTD_TEST_TIMINGS, see timings_env.go), a WebSocket
// client on gorilla/websocket (independent of the server's transport) that
// can dial from any loopback address, and builders of observations.

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// Timings of the realtime servers. The main server keeps the spec's
// heartbeat and silence limits (its sessions live across many steps without
// heartbeats) and shortens only what tests wait for; the short server
// shortens the login window and the liveness limits. InboundSilence is
// shorter than HeartbeatTimeout there so that a silent session shows the
// silence close, and a session that pings (inbound bytes, no HEARTBEAT)
// shows the heartbeat close.
const (
	mainTimings  = "BlockedAcceptEvery=1s"
	shortTimings = "LoginWindow=800ms,InboundSilence=1500ms,HeartbeatTimeout=3s"
)

// startServerEnv is startServer with extra environment for the child.
func startServerEnv(t *testing.T, opts serverOpts, env ...string) *server {
	t.Helper()
	bin := alertdBinary(t)
	if opts.dataDir == "" {
		opts.dataDir = t.TempDir()
	}
	if opts.adminToken == "" {
		opts.adminToken = "adm_e2e_" + randomHex(16)
	}
	for attempt := 1; ; attempt++ {
		s, err := tryStartEnv(t, bin, opts, env)
		if err == nil {
			t.Cleanup(func() { s.stop(t) })
			return s
		}
		if attempt < 4 && strings.Contains(err.Error(), "address already in use") {
			t.Logf("port taken, retrying: %v", err)
			continue
		}
		t.Fatalf("alertd did not become healthy: %v", err)
	}
}

func tryStartEnv(t *testing.T, bin string, opts serverOpts, env []string) (*server, error) {
	addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	args := []string{"serve", "--addr", addr, "--data-dir", opts.dataDir, "--admin-token", opts.adminToken}
	if opts.dbURL != "" {
		args = append(args, "--database-url", opts.dbURL)
	}
	s := &server{t: t, opts: opts, base: "http://" + addr, admin: opts.adminToken,
		stdout: &lockedBuffer{}, stderr: &lockedBuffer{}, exited: make(chan struct{})}
	s.cmd = exec.Command(bin, args...)
	s.cmd.Env = append(childEnv(), env...)
	s.cmd.Stdout, s.cmd.Stderr = s.stdout, s.stderr
	s.cmd.SysProcAttr = childSysProcAttr()
	if err := s.cmd.Start(); err != nil {
		return nil, err
	}
	go func() { _ = s.cmd.Wait(); close(s.exited) }()
	deadline := time.Now().Add(startDeadline)
	for {
		select {
		case <-s.exited:
			return nil, fmt.Errorf("exited early (%v); stderr:\n%s", s.cmd.ProcessState, s.stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			s.kill()
			return nil, fmt.Errorf("no 200 from /health within %v; stderr:\n%s", startDeadline, tail(s.stderr.String(), 4000))
		}
		if r, err := httpClient.Get(s.base + "/health"); err == nil {
			io.Copy(io.Discard, r.Body)
			r.Body.Close()
			if r.StatusCode == 200 {
				return s, nil
			}
		}
		time.Sleep(25 * time.Millisecond)
	}
}

// --- loopback source addresses ---

// Failed logins block the source IP, so each test that fails a login dials
// from its own loopback address (Linux routes all of 127.0.0.0/8 to lo).
var ipSeq atomic.Int32

func freshIP() string {
	n := ipSeq.Add(1)
	return fmt.Sprintf("127.77.%d.%d", n/200, n%200+2)
}

// --- WebSocket client ---

// frame is one message read from a socket, or how the read ended.
type frame struct {
	typ  int
	data []byte
	err  error
}

// wsClient is a test client. One goroutine reads frames into a channel (a
// gorilla read deadline would break the connection), the test writes.
type wsClient struct {
	t      *testing.T
	name   string
	c      *websocket.Conn
	frames chan frame
	wmu    sync.Mutex
	done   chan struct{}
	closed *frame // the terminal read error, once seen
}

func (s *server) wsURL(path string) string { return "ws" + strings.TrimPrefix(s.base, "http") + path }

// dialFrom opens a WebSocket from local IP from ("" = the default). It
// returns the HTTP response when the upgrade was refused.
func dialFrom(t *testing.T, url, from string) (*wsClient, *http.Response, error) {
	t.Helper()
	d := websocket.Dialer{HandshakeTimeout: 10 * time.Second, Proxy: nil}
	if from != "" {
		ip := net.ParseIP(from)
		d.NetDial = func(network, addr string) (net.Conn, error) {
			nd := net.Dialer{LocalAddr: &net.TCPAddr{IP: ip}, Timeout: 10 * time.Second}
			return nd.Dial(network, addr)
		}
	}
	c, r, err := d.Dial(url, nil)
	if err != nil {
		return nil, r, err
	}
	w := &wsClient{t: t, name: url, c: c, frames: make(chan frame, 4096), done: make(chan struct{})}
	go w.readLoop()
	t.Cleanup(w.close)
	return w, r, nil
}

func (w *wsClient) readLoop() {
	defer close(w.frames)
	for {
		typ, data, err := w.c.ReadMessage()
		select {
		case w.frames <- frame{typ, data, err}:
		case <-w.done:
			return
		}
		if err != nil {
			return
		}
	}
}

// close drops the connection (cleanup; idempotent).
func (w *wsClient) close() {
	select {
	case <-w.done:
	default:
		close(w.done)
		w.c.Close()
	}
}

// closeGracefully sends a close frame, then drops the connection.
func (w *wsClient) closeGracefully() {
	w.wmu.Lock()
	_ = w.c.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(time.Second))
	w.wmu.Unlock()
	w.close()
}

func (w *wsClient) sendText(t *testing.T, s string) {
	t.Helper()
	w.wmu.Lock()
	defer w.wmu.Unlock()
	_ = w.c.SetWriteDeadline(time.Now().Add(5 * time.Second))
	if err := w.c.WriteMessage(websocket.TextMessage, []byte(s)); err != nil {
		t.Fatalf("%s: write: %v", w.name, err)
	}
}

func (w *wsClient) sendBinary(t *testing.T, b []byte) {
	t.Helper()
	w.wmu.Lock()
	defer w.wmu.Unlock()
	if err := w.c.WriteMessage(websocket.BinaryMessage, b); err != nil {
		t.Fatalf("%s: write: %v", w.name, err)
	}
}

// ping sends a ping control frame (inbound bytes that are not a HEARTBEAT).
func (w *wsClient) ping() error {
	w.wmu.Lock()
	defer w.wmu.Unlock()
	return w.c.WriteControl(websocket.PingMessage, []byte("p"), time.Now().Add(time.Second))
}

const frameWait = 10 * time.Second

// next returns the next message; it fails the test when the socket ends or
// nothing comes within frameWait.
func (w *wsClient) next(t *testing.T) []byte {
	t.Helper()
	f, ok := w.read(frameWait)
	if !ok {
		t.Fatalf("%s: no frame within %v", w.name, frameWait)
	}
	if f.err != nil {
		t.Fatalf("%s: socket ended while a frame was expected: %v", w.name, f.err)
	}
	if f.typ != websocket.TextMessage {
		t.Fatalf("%s: frame of type %d, want text: %q", w.name, f.typ, f.data)
	}
	return f.data
}

func (w *wsClient) read(within time.Duration) (frame, bool) {
	if w.closed != nil {
		return *w.closed, true
	}
	select {
	case f, ok := <-w.frames:
		if !ok {
			return frame{err: io.EOF}, true
		}
		if f.err != nil {
			w.closed = &f
		}
		return f, true
	case <-time.After(within):
		return frame{}, false
	}
}

// nextOp returns the next frame, asserting {"op":op,...}; it returns the
// whole frame decoded.
func (w *wsClient) nextOp(t *testing.T, op int) obj {
	t.Helper()
	b := w.next(t)
	o := decodeObj(t, b, w.name+" frame")
	if got := o.num(t, "op"); got != float64(op) {
		t.Fatalf("%s: frame op %v, want %d: %s", w.name, got, op, b)
	}
	return o
}

// waitEnd reads until the socket ends and returns the close error (nil
// code 0 when it ended without a close frame). Frames read on the way are
// returned too.
func (w *wsClient) waitEnd(t *testing.T, within time.Duration) (code int, text string, frames [][]byte) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		left := time.Until(deadline)
		if left <= 0 {
			t.Fatalf("%s: still open after %v (frames: %q)", w.name, within, frames)
		}
		f, ok := w.read(left)
		if !ok {
			continue
		}
		if f.err == nil {
			frames = append(frames, f.data)
			continue
		}
		if ce, ok := f.err.(*websocket.CloseError); ok {
			return ce.Code, ce.Text, frames
		}
		return 0, "", frames
	}
}

// --- realtime protocol steps ---

const helloFrame = `{"op":10,"d":{"heartbeat_interval":30000}}`

// rtDial opens /v1/dt/realtime/ws from IP from and asserts HELLO, byte for byte.
func (s *server) rtDial(t *testing.T, from string) *wsClient {
	t.Helper()
	w, r, err := dialFrom(t, s.wsURL("/v1/dt/realtime/ws"), from)
	if err != nil {
		t.Fatalf("dial realtime from %q: %v (%s)", from, err, respText(r))
	}
	if got := string(w.next(t)); got != helloFrame {
		t.Fatalf("first frame %s, want HELLO %s", got, helloFrame)
	}
	return w
}

func respText(r *http.Response) string {
	if r == nil {
		return "no response"
	}
	b, _ := io.ReadAll(r.Body)
	return fmt.Sprintf("HTTP %d %s", r.StatusCode, b)
}

// loginJSON is a LOGIN frame with d as given (marshalled).
func loginJSON(t *testing.T, d any) string {
	t.Helper()
	b, err := json.Marshal(map[string]any{"op": 2, "d": d})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// rtLogin dials, logs in with d and returns the client and READY's d.
func (s *server) rtLogin(t *testing.T, d any) (*wsClient, obj) {
	t.Helper()
	w := s.rtDial(t, "")
	w.sendText(t, loginJSON(t, d))
	return w, w.ready(t)
}

// ready asserts READY and its exact members; it returns d.
func (w *wsClient) ready(t *testing.T) obj {
	t.Helper()
	f := w.nextOp(t, 4)
	f.wantKeys(t, "READY", "op", "d")
	d := f.object(t, "d")
	d.wantKeys(t, "READY d", "client_id", "modules", "handles", "max_handles")
	if raw := string(d["client_id"]); strings.ContainsAny(raw, ".eE-") || d.num(t, "client_id") < 1 {
		t.Errorf("READY client_id %s, want a positive integer", raw)
	}
	d.strings(t, "modules")
	return d
}

// disconnect asserts the next frame is DISCONNECT with code (and the
// table's reason), then that the socket closes. It returns d.
func (w *wsClient) disconnect(t *testing.T, code string) obj {
	t.Helper()
	f := w.nextOp(t, 3)
	f.wantKeys(t, "DISCONNECT", "op", "d")
	d := f.object(t, "d")
	wantDisconnect(t, d, code)
	if _, _, extra := w.waitEnd(t, frameWait); len(extra) > 0 {
		t.Errorf("frames after DISCONNECT: %q", extra)
	}
	return d
}

var disconnectReasons = map[string]string{
	"key_missing": "Invalid or expired API key", "key_malformed": "Invalid or expired API key",
	"key_unknown": "Invalid or expired API key", "key_expired": "Invalid or expired API key",
	"key_deactivated": "Invalid or expired API key", "key_blocked": "Invalid or expired API key",
	"ip_blocked": "Too many failed logins", "login_invalid": "Invalid login payload",
	"login_timeout": "Login timeout", "too_many_connections": "Too many connections (max 5)",
	"subscription_expired": "Subscription expired",
}

// retryCodes carry retry_after; the others never do.
var retryCodes = map[string]bool{"key_blocked": true, "ip_blocked": true, "too_many_connections": true}

func wantDisconnect(t *testing.T, d obj, code string) {
	t.Helper()
	if retryCodes[code] {
		d.wantKeys(t, "DISCONNECT "+code, "reason", "code", "message", "retry_after")
		if n := d.num(t, "retry_after"); n < 1 || n != float64(int64(n)) {
			t.Errorf("DISCONNECT %s retry_after %v, want a positive integer", code, n)
		}
	} else {
		d.wantKeys(t, "DISCONNECT "+code, "reason", "code", "message")
	}
	if got := d.str(t, "code"); got != code {
		t.Fatalf("DISCONNECT code %q, want %q (message %q)", got, code, d.str(t, "message"))
	}
	if got := d.str(t, "reason"); got != disconnectReasons[code] {
		t.Errorf("DISCONNECT %s reason %q, want %q", code, got, disconnectReasons[code])
	}
	if d.str(t, "message") == "" {
		t.Errorf("DISCONNECT %s: empty message", code)
	}
}

// heartbeat sends HEARTBEAT and reads frames up to HEARTBEAT_ACK; it returns
// the frames that came before the ACK (a barrier: every event the server
// queued for this socket before it read the heartbeat is among them).
func (w *wsClient) heartbeat(t *testing.T) [][]byte {
	t.Helper()
	w.sendText(t, `{"op":1}`)
	var before [][]byte
	for {
		b := w.next(t)
		if string(b) == `{"op":11}` {
			return before
		}
		before = append(before, b)
	}
}

// --- events ---

// event is a decoded EVENT frame's d.
type event struct {
	raw  []byte
	d    obj
	name string
	id   string
}

func decodeEvent(t *testing.T, b []byte) event {
	t.Helper()
	f := decodeObj(t, b, "EVENT frame")
	f.wantKeys(t, "EVENT frame "+string(b), "op", "d")
	if f.num(t, "op") != 0 {
		t.Fatalf("frame %s is not an EVENT", b)
	}
	d := f.object(t, "d")
	return event{raw: b, d: d, name: d.str(t, "event"), id: d.str(t, "event_id")}
}

// nextEvent reads the next frame, which must be an EVENT.
func (w *wsClient) nextEvent(t *testing.T) event {
	t.Helper()
	return decodeEvent(t, w.next(t))
}

// events collects n EVENTs.
func (w *wsClient) events(t *testing.T, n int) []event {
	t.Helper()
	out := make([]event, 0, n)
	for len(out) < n {
		out = append(out, w.nextEvent(t))
	}
	return out
}

// drain reads everything up to a heartbeat barrier, as events.
func (w *wsClient) drain(t *testing.T) []event {
	t.Helper()
	var out []event
	for _, b := range w.heartbeat(t) {
		out = append(out, decodeEvent(t, b))
	}
	return out
}

func (e event) data(t *testing.T) obj      { t.Helper(); return e.d.object(t, "data") }
func (e event) task(t *testing.T) obj      { t.Helper(); return e.d.object(t, "task_info") }
func (e event) String() string             { return string(e.raw) }
func (e event) handle(t *testing.T) string { t.Helper(); return e.task(t).str(t, "handle") }

// --- accounts, targets, observations ---

// dtAccount is a dt key with its target handles.
type dtAccount struct {
	issued
}

// newDT issues a dt key (plan and extra admin fields) and adds targets.
func (s *server) newDT(t *testing.T, plan string, extra map[string]any, handles ...string) dtAccount {
	t.Helper()
	body := map[string]any{"product": "dt", "plan": plan}
	for k, v := range extra {
		body[k] = v
	}
	a := dtAccount{s.issue(t, body)}
	for _, h := range handles {
		s.addTarget(t, a.key, h)
	}
	return a
}

func (s *server) addTarget(t *testing.T, key, handle string) {
	t.Helper()
	r := s.do(t, "POST", "/v1/dt/targets", hdr{"Authorization": "Bearer " + key, "Content-Type": "application/json"},
		`{"handle":"`+handle+`"}`)
	r.wantOK(t, 201)
}

func (s *server) removeTarget(t *testing.T, key, handle string) {
	t.Helper()
	s.do(t, "DELETE", "/v1/dt/targets/"+handle, bearer(key), nil).wantOK(t, 200)
}

// send ingests observations (each marshalled to one NDJSON line) and
// asserts that all were accepted.
func (s *server) send(t *testing.T, obs ...any) {
	t.Helper()
	var b strings.Builder
	for _, o := range obs {
		j, err := json.Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(j)
		b.WriteByte('\n')
	}
	wantIngest(t, s.ingest(t, "application/x-ndjson", b.String()), len(obs))
}

var handleSeq atomic.Int64

// newHandle is a unique lowercase handle.
func newHandle(prefix string) string {
	return fmt.Sprintf("%s_%s%d", prefix, randomHex(3), handleSeq.Add(1))
}

var tweetSeq atomic.Int64

// newTweetID is a unique numeric post id.
func newTweetID() string {
	return fmt.Sprintf("19%010d%07d", time.Now().Unix()%1e10, tweetSeq.Add(1))
}

// jsonMap is a JSON object built by a test (observations, expected data).
type jsonMap = map[string]any

// postObs is a `post` observation of handle: the spec 2 tweet payload with
// every field, of the given type, created now.
func postObs(handle, typ, text string) jsonMap {
	id := newTweetID()
	p := jsonMap{
		"kind": "post", "id": id, "created_at": time.Now().UnixMilli(), "type": typ, "text": text,
		"cashtags": []string{}, "media": []any{jsonMap{"type": "photo", "url": "https://pbs.example.com/m/" + id + ".jpg"}},
		"mentions": []string{},
		"author": jsonMap{"id": "900" + id[8:], "handle": handle, "name": "Name of " + handle, "avatar": "https://pbs.example.com/a/" + handle + ".jpg",
			"description": "bio of " + handle, "verification": jsonMap{"is_verified": true, "type": "blue"}, "affiliation": nil,
			"stats": jsonMap{"followers": 1234, "following": 56}},
		"in_reply_to": nil, "quoted_tweet": nil, "possibly_sensitive": false, "conversation_id": id,
		"entities": jsonMap{"hashtags": []any{}, "urls": []any{}, "symbols": []any{}},
		"metrics":  jsonMap{"likes": 1, "retweets": 2, "replies": 3, "quotes": 4, "views": "500"},
	}
	switch typ {
	case "reply":
		p["in_reply_to"] = jsonMap{"tweet_id": "1800000000000000001", "user": "parent_user"}
		p["quoted_tweet"] = quoted()
		p["conversation_id"] = "1800000000000000001"
	case "quote":
		p["quoted_tweet"] = quoted()
	}
	return p
}

func quoted() jsonMap {
	return jsonMap{"id": "1800000000000000001", "text": "the parent post",
		"author": jsonMap{"handle": "parent_user", "name": "Parent", "avatar": "https://pbs.example.com/a/parent.jpg"},
		"media":  []any{jsonMap{"type": "photo", "url": "https://pbs.example.com/m/parent.jpg"}}}
}

// userObs2 is a `user` observation as a map (all fields).
func userMap(id, handle string, cats ...string) jsonMap {
	if cats == nil {
		cats = []string{}
	}
	return jsonMap{"kind": "user", "id": id, "handle": handle, "name": "Name of " + handle, "bio": "bio of " + handle,
		"avatar": "https://pbs.example.com/a/" + handle + ".jpg", "banner_url": nil, "location": nil, "website": nil,
		"followers": 100, "following": 10, "verified": false, "verification_type": nil, "pinned_post": []string{},
		"categories": cats, "suspended": false}
}

var userIDSeq atomic.Int64

func newUserID() string {
	return fmt.Sprintf("55%09d%05d", time.Now().UnixNano()%1e9, userIDSeq.Add(1))
}

func followUser(id, handle string) jsonMap {
	return jsonMap{"id": id, "handle": handle, "name": "Name " + handle, "bio": "bio " + handle,
		"followers": 10, "following": 20, "protected": false}
}

func followingObs(handle string, users ...jsonMap) jsonMap {
	if users == nil {
		users = []jsonMap{}
	}
	return jsonMap{"kind": "following", "handle": handle, "users": users}
}

func followersObs(handle string, users ...jsonMap) jsonMap {
	return jsonMap{"kind": "followers_new", "handle": handle, "users": users}
}

func deletedObs(handle string, tweetID, text any) jsonMap {
	return jsonMap{"kind": "post_deleted", "handle": handle, "tweet_id": tweetID, "text": text}
}

// roundTrip turns v into what JSON decoding gives (for comparisons).
func roundTrip(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// sameJSON reports whether two JSON texts (or values) are equal as values.
func sameJSON(t *testing.T, a, b any) bool {
	t.Helper()
	ja, _ := json.Marshal(roundTripRaw(t, a))
	jb, _ := json.Marshal(roundTripRaw(t, b))
	return string(ja) == string(jb)
}

func roundTripRaw(t *testing.T, v any) any {
	switch x := v.(type) {
	case json.RawMessage:
		var out any
		if err := json.Unmarshal(x, &out); err != nil {
			t.Fatalf("bad JSON %s", x)
		}
		return out
	case []byte:
		return roundTripRaw(t, json.RawMessage(x))
	}
	return roundTrip(t, v)
}

// health returns /health's ws_connections.
func (s *server) wsConnections(t *testing.T) float64 {
	t.Helper()
	r := s.do(t, "GET", "/health", nil, nil)
	return decodeObj(t, r.body, "health").num(t, "ws_connections")
}
