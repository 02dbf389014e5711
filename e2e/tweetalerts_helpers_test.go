package e2e

// Harness of the Tweet Alerts end-to-end tests: servers that may
// deliver webhooks to loopback (ALERTD_WEBHOOK_ALLOW_CIDRS) with shortened
// timings, local webhook receivers that record every attempt, and helpers
// for accounts, handles and sockets.

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/alertd/alertd/engine"
	"github.com/alertd/alertd/internal/testkit"
)

// xgBotToken is the Telegram bot token the Tweet Alerts servers verify with.
const xgBotToken = "424242:e2e-telegram-bot-token"

// tweetAlertsConfig: webhooks may reach 127.0.0.1, Telegram logins verify
// with xgBotToken, and timings are short: webhook backoff 250 ms then
// 500 ms, a 1.5 s attempt timeout, and a server ping every 500 ms with a
// 2 s pong deadline (gorilla answers pings while it reads; the deadline
// leaves slack for a -race process stalled on a busy box); REST rate
// windows of 1 µs, so that the plans' per-second limits do not pace the
// suite (the rate limit has its own tests).
func tweetAlertsConfig(c *engine.Config) {
	loopbackHooks(c)
	c.TelegramBotToken = xgBotToken
	c.Timings.WebhookBackoff = []time.Duration{xgBackoff1, xgBackoff2}
	c.Timings.WebhookTimeout = 1500 * time.Millisecond
	c.Timings.XGPingInterval, c.Timings.XGPongDeadline = 500*time.Millisecond, 2*time.Second
	c.Timings.RateWindow = time.Microsecond
	c.WSAllowedOrigins = []string{xgAllowedOrigin}
}

// xgAllowedOrigin is a dashboard origin other than the server's own that
// may open /v1/ws with the session cookie.
const xgAllowedOrigin = "https://dash.example.com"

const (
	xgBackoff1 = 250 * time.Millisecond
	xgBackoff2 = 500 * time.Millisecond
)

func xgJsonHdr(key string) hdr {
	return hdr{"Authorization": "Bearer " + key, "Content-Type": "application/json"}
}

// xg issues a Tweet Alerts key on plan.
func (s *server) xgKey(t *testing.T, plan string) issued {
	t.Helper()
	return s.issue(t, map[string]any{"product": "xg", "plan": plan})
}

// xgUsers ingests n users (the last suspended when suspended is set) and
// asserts, after Sync, that the directory knows them all; it returns their
// handles.
func (s *server) xgUsers(t *testing.T, n int, suspended bool) []string {
	t.Helper()
	var lines []string
	var users []userObs
	for i := range n {
		u := newUser("cx")
		u.Suspended = suspended && i == n-1
		users = append(users, u)
		lines = append(lines, u.line(t))
	}
	wantIngest(t, s.ingest(t, "application/x-ndjson", strings.Join(lines, "\n")), n)
	probe := s.xgProbe(t)
	var handles []string
	for _, u := range users {
		handles = append(handles, u.Handle)
		s.userNow(t, probe, u.Handle) // suspended ones are in, as suspended
	}
	return handles
}

var xgProbeKeys sync.Map // *server -> dt key used to look users up

func (s *server) xgProbe(t *testing.T) string {
	if k, ok := xgProbeKeys.Load(s); ok {
		return k.(string)
	}
	k := s.issue(t, map[string]any{"product": "dt", "plan": "starter"}).key
	xgProbeKeys.Store(s, k)
	return k
}

// track adds handles to key's list and asserts 201.
func (s *server) xgTrack(t *testing.T, key string, handles ...string) obj {
	t.Helper()
	b, _ := json.Marshal(map[string]any{"handles": handles})
	return s.do(t, "POST", "/v1/accounts", xgJsonHdr(key), b).wantOK(t, 201)
}

// post ingests one post of handle created ago before now and returns its id.
func (s *server) xgPost(t *testing.T, handle, text string, ago time.Duration) jsonMap {
	t.Helper()
	p := postObs(handle, "post", text)
	p["created_at"] = time.Now().Add(-ago).UnixMilli()
	s.send(t, p)
	return p
}

// --- webhook receivers ---

// xgHit is one request a receiver got.
type xgHit struct {
	at     time.Time
	body   []byte
	header http.Header
	status int // what the receiver answered (0: it hung)
}

// xgReceiver is a local webhook endpoint on 127.0.0.1 whose answer the test
// chooses per request: a status, or 0 to hang until the client gives up.
type xgReceiver struct {
	srv    *httptest.Server
	mu     sync.Mutex
	hits   []xgHit
	answer atomic.Value // func(n int) int
}

func newCXReceiver(t *testing.T, answer func(n int) int) *xgReceiver {
	r := &xgReceiver{}
	r.answer.Store(answer)
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.hits = append(r.hits, xgHit{at: time.Now(), body: body, header: req.Header.Clone()})
		n := len(r.hits)
		r.mu.Unlock()
		status := r.answer.Load().(func(int) int)(n)
		r.mu.Lock()
		r.hits[n-1].status = status
		r.mu.Unlock()
		if status == 0 {
			select {
			case <-req.Context().Done():
			case <-time.After(30 * time.Second):
			}
			return
		}
		w.WriteHeader(status)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *xgReceiver) setAnswer(f func(n int) int) { r.answer.Store(f) }

func (r *xgReceiver) got() []xgHit {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]xgHit, len(r.hits))
	copy(out, r.hits)
	return out
}

// byTweet returns the hits that carry tweet id.
func (r *xgReceiver) byTweet(t *testing.T, id string) []xgHit {
	var out []xgHit
	for _, h := range r.got() {
		if xgTweetID(t, h.body) == id {
			out = append(out, h)
		}
	}
	return out
}

// waitHits waits until the receiver has at least n hits for tweet id.
func (r *xgReceiver) waitHits(t *testing.T, id string, n int) []xgHit {
	t.Helper()
	var hits []xgHit
	testkit.WaitFor(t, 20*time.Second, fmt.Sprintf("%d deliveries of post %s", n, id), func() (bool, string) {
		hits = r.byTweet(t, id)
		return len(hits) >= n, fmt.Sprintf("%d", len(hits))
	})
	return hits
}

func xgTweetID(t *testing.T, body []byte) string {
	var b struct {
		Data struct {
			TweetID string `json:"tweet_id"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &b); err != nil {
		t.Errorf("delivery body is not JSON: %s", body)
	}
	return b.Data.TweetID
}

// xgSign is the receiver side of spec 1's signature: lowercase hex
// HMAC-SHA256 of the raw body keyed with the secret, compared in constant
// time.
func xgVerify(secret string, body []byte, sig string) bool {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(body)
	return hmac.Equal([]byte(hex.EncodeToString(m.Sum(nil))), []byte(sig))
}

// xgClosing is an endpoint that accepts connections and closes them at once.
type xgClosing struct {
	ln    net.Listener
	conns atomic.Int64
}

func newCXClosing(t *testing.T) *xgClosing {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c := &xgClosing{ln: ln}
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			c.conns.Add(1)
			conn.Close()
		}
	}()
	t.Cleanup(func() { ln.Close() })
	return c
}

// createWebhook registers url for key with extra body members and returns
// the creation answer.
func (s *server) xgCreateWebhook(t *testing.T, key, url string, extra map[string]any) obj {
	t.Helper()
	body := map[string]any{"url": url}
	for k, v := range extra {
		body[k] = v
	}
	b, _ := json.Marshal(body)
	return s.do(t, "POST", "/v1/webhooks", xgJsonHdr(key), b).wantOK(t, 201)
}

// webhookByID returns the listed webhook id, nil if it is not listed.
func (s *server) xgWebhookByID(t *testing.T, key string, id float64) obj {
	t.Helper()
	d := s.do(t, "GET", "/v1/webhooks", bearer(key), nil).wantOK(t, 200)
	for _, raw := range d.array(t, "webhooks") {
		o := decodeObj(t, raw, "webhook")
		if o.num(t, "id") == id {
			return o
		}
	}
	return nil
}

// --- sockets ---

// xgDial opens a Tweet Alerts socket with header h (cookies); ignorePings
// makes the client never answer the server's pings.
func xgDial(t *testing.T, url string, h http.Header, ignorePings bool) (*wsClient, *http.Response, error) {
	t.Helper()
	return dialWith(t, url, testkit.DialOptions{Header: h, IgnorePings: ignorePings})
}

func (s *server) xgWS(t *testing.T, key string) *wsClient {
	t.Helper()
	w, r, err := xgDial(t, s.wsURL("/v1/ws?api_key="+key), nil, false)
	if err != nil {
		t.Fatalf("dial /v1/ws: %v (%s)", err, testkit.ResponseText(r))
	}
	return w
}

// wsRefused dials and asserts a plain-text refusal with status.
func (s *server) xgRefused(t *testing.T, query string, h http.Header, status int) {
	t.Helper()
	w, r, err := xgDial(t, s.wsURL("/v1/ws"+query), h, false)
	if err == nil {
		w.Close()
		t.Fatalf("/v1/ws%s: upgraded, want %d", query, status)
	}
	if r == nil {
		t.Fatalf("/v1/ws%s: %v, want HTTP %d", query, err, status)
	}
	defer r.Body.Close()
	body, _ := io.ReadAll(r.Body)
	if r.StatusCode != status {
		t.Fatalf("/v1/ws%s: status %d, want %d (%s)", query, r.StatusCode, status, body)
	}
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") || len(body) == 0 || body[0] == '{' {
		t.Errorf("/v1/ws%s: refusal is not plain text: %q %q", query, ct, body)
	}
}

// frameOf reads the next frame as an object and asserts its type.
func (w *wsClient) xgFrame(t *testing.T, typ string) obj {
	t.Helper()
	b := w.Next(t)
	o := decodeObj(t, b, "frame")
	if got := o.str(t, "type"); got != typ {
		t.Fatalf("frame type %q, want %q: %s", got, typ, b)
	}
	return o
}

// until reads frames until one satisfies keep, failing after testkit.FrameWait;
// it returns the frames skipped on the way and the match.
func (w *wsClient) xgUntil(t *testing.T, keep func(obj) bool) (skipped []obj, match obj) {
	t.Helper()
	deadline := time.Now().Add(testkit.FrameWait)
	for time.Now().Before(deadline) {
		f, ok := w.Read(time.Until(deadline))
		if !ok {
			break
		}
		if f.Err != nil {
			t.Fatalf("%s: socket ended: %v (skipped %d frames)", w.Name, f.Err, len(skipped))
		}
		o := decodeObj(t, f.Data, "frame")
		if keep(o) {
			return skipped, o
		}
		skipped = append(skipped, o)
	}
	t.Fatalf("%s: no matching frame within %v (skipped %d)", w.Name, testkit.FrameWait, len(skipped))
	return nil, nil
}
