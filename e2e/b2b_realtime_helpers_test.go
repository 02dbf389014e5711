package e2e

// Helpers of the B2B realtime WebSocket tests (/v1/dt/realtime/ws): the
// servers' timings, the protocol steps (HELLO, LOGIN, READY, HEARTBEAT,
// DISCONNECT), events, accounts with targets, and builders of observations.

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/alertd/alertd/engine"
	"github.com/alertd/alertd/internal/testkit"
)

// Timings of the realtime servers. The main server keeps the spec's
// heartbeat and silence limits (its sessions live across many steps without
// heartbeats) and shortens only what tests wait for; the short server
// shortens the login window and the liveness limits. InboundSilence is
// shorter than HeartbeatTimeout there so that a silent session shows the
// silence close, and a session that pings (inbound bytes, no HEARTBEAT)
// shows the heartbeat close. The limits leave seconds of slack to the
// clients' 200 ms pacing: a -race engine on a busy 2-core box can stall
// for a second.
func realtimeMain(c *engine.Config) { c.Timings.BlockedAcceptEvery = time.Second }

func realtimeShort(c *engine.Config) {
	c.Timings.LoginWindow = 2 * time.Second
	c.Timings.InboundSilence = 3 * time.Second
	c.Timings.HeartbeatTimeout = 6 * time.Second
}

// --- realtime protocol steps ---

const helloFrame = `{"op":10,"d":{"heartbeat_interval":30000}}`

// rtDial opens /v1/dt/realtime/ws from IP from and asserts HELLO, byte for byte.
func (s *server) rtDial(t *testing.T, from string) *wsClient {
	t.Helper()
	w, r, err := dialFrom(t, s.wsURL("/v1/dt/realtime/ws"), from)
	if err != nil {
		t.Fatalf("dial realtime from %q: %v (%s)", from, err, testkit.ResponseText(r))
	}
	if got := string(w.Next(t)); got != helloFrame {
		t.Fatalf("first frame %s, want HELLO %s", got, helloFrame)
	}
	return w
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
	w.SendText(t, loginJSON(t, d))
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
	if _, _, extra := w.WaitEnd(t, testkit.FrameWait); len(extra) > 0 {
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
	w.SendText(t, `{"op":1}`)
	var before [][]byte
	for {
		b := w.Next(t)
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
	return decodeEvent(t, w.Next(t))
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

// drain returns the events queued for w once the engine has handled all it
// accepted (Sync), read up to a heartbeat barrier: an empty result proves
// that nothing more was, or will be, delivered for what came before.
func (s *server) drain(t *testing.T, w *wsClient) []event {
	t.Helper()
	s.sync(t)
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

var handleSeq atomic.Int64

// newHandle is a unique lowercase handle.
func newHandle(prefix string) string {
	return fmt.Sprintf("%s_%s%d", prefix, testkit.RandomHex(3), handleSeq.Add(1))
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
