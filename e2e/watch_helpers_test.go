package e2e

// Harness of the Community Watch, Convergence Tracker and Engagement
// Tracker end-to-end tests: servers that let webhooks reach loopback
// (--webhook-allow-cidrs through its environment variable) with short
// webhook backoffs, a local webhook receiver, observation builders and the
// product WebSockets (on the realtime harness's gorilla client).

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/alertd/alertd/engine"
	"github.com/alertd/alertd/internal/testkit"
)

// watchConfig lets webhooks reach the test's receivers on 127.0.0.1 and
// shortens the webhook backoff (spec: 1 s, 2 s) so retries are quick to
// watch, and the REST rate window so the suite's bursts of requests (tens
// per account) are not limited.
func watchConfig(c *engine.Config) {
	loopbackHooks(c)
	c.Timings.WebhookBackoff = []time.Duration{50 * time.Millisecond, 100 * time.Millisecond}
	c.Timings.RateWindow = time.Microsecond
}

// TestWatchAuth: keys on the Community Watch, Convergence Tracker and
// Engagement Tracker routes.
func TestWatchAuth(t *testing.T) {
	forEachStore(t, func(t *testing.T, m storeMode) {
		s := startServer(t, serverOpts{dbURL: m.DatabaseURL(t), configure: watchConfig})
		subtests{{"Auth", testWatchAuth}}.run(t, s)
	})
}

// --- keys ---

// watchIssue issues a key of product with the extra admin fields.
func (s *server) watchIssue(t *testing.T, product string, extra map[string]any) issued {
	t.Helper()
	body := map[string]any{"product": product}
	for k, v := range extra {
		body[k] = v
	}
	return s.issue(t, body)
}

// --- observations ---

var watchSeq atomic.Int64

// watchHandle is a fresh handle.
func watchHandle(prefix string) string {
	return fmt.Sprintf("%s_%s%d", prefix, testkit.RandomHex(3), watchSeq.Add(1))
}

// watchTweetID is a fresh numeric post id.
func watchTweetID() string {
	return fmt.Sprintf("19%d%05d", time.Now().UnixNano()%1e12, watchSeq.Add(1))
}

type watchComm struct {
	ID, Name, Desc string
	Members        int64
}

func watchCommunities(handle string, cs ...watchComm) map[string]any {
	list := []map[string]any{}
	for _, c := range cs {
		list = append(list, map[string]any{"id": c.ID, "name": c.Name, "description": c.Desc,
			"member_count": c.Members, "creator_screen_name": "creator_" + c.ID})
	}
	return map[string]any{"kind": "communities", "handle": handle, "communities": list}
}

func watchFollowing(handle string, ids ...string) map[string]any {
	users := []map[string]any{}
	for _, id := range ids {
		users = append(users, map[string]any{"id": id, "handle": "Acct" + id, "name": "Account " + id, "bio": "bio " + id,
			"followers": 100, "following": 10, "protected": false})
	}
	return map[string]any{"kind": "following", "handle": handle, "users": users}
}

func watchFollowersNew(handle string, ids ...string) map[string]any {
	users := []map[string]any{}
	for _, id := range ids {
		users = append(users, map[string]any{"id": id, "handle": "fan" + id, "name": "Fan " + id})
	}
	return map[string]any{"kind": "followers_new", "handle": handle, "users": users}
}

func watchEngagement(id string, fav, rt, reply, quote, book int64) map[string]any {
	return map[string]any{"kind": "engagement", "tweet_id": id, "favorite_count": fav, "retweet_count": rt,
		"reply_count": reply, "quote_count": quote, "bookmark_count": book}
}

// --- webhook receiver ---

type watchDelivery struct {
	path   string
	header http.Header
	body   []byte
}

// watchHook is a webhook receiver on 127.0.0.1. It answers the statuses of
// script in turn (the last one repeats; none: 200).
type watchHook struct {
	srv    *httptest.Server
	mu     sync.Mutex
	script []int
	got    []watchDelivery
}

func watchNewHook(t *testing.T, script ...int) *watchHook {
	h := &watchHook{script: script}
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		h.mu.Lock()
		h.got = append(h.got, watchDelivery{path: r.URL.Path, header: r.Header.Clone(), body: b})
		st := 200
		if len(h.script) > 0 {
			st = h.script[min(len(h.got)-1, len(h.script)-1)]
		}
		h.mu.Unlock()
		w.WriteHeader(st)
	}))
	t.Cleanup(h.srv.Close)
	return h
}

func (h *watchHook) url() string { return h.srv.URL + "/hook" }

func (h *watchHook) all() []watchDelivery {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]watchDelivery(nil), h.got...)
}

// wait returns the deliveries once there are at least n.
func (h *watchHook) wait(t *testing.T, n int) []watchDelivery {
	t.Helper()
	var got []watchDelivery
	testkit.WaitFor(t, 15*time.Second, fmt.Sprintf("%d webhook deliveries", n), func() (bool, string) {
		got = h.all()
		return len(got) >= n, fmt.Sprintf("%d so far", len(got))
	})
	return got
}

// webhooksDone waits until the durable webhook queue of scope (a product)
// is empty. A delivery's row goes once it is done, delivered or given up:
// after that no attempt can follow, so the receivers' counts are final.
// The engine syncs first: until the products have queued what the last
// observations made, an empty queue says nothing.
func (s *server) webhooksDone(t *testing.T, scope string) {
	t.Helper()
	s.sync(t)
	testkit.WaitFor(t, 15*time.Second, scope+" webhook queue empty", func() (bool, string) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		rows, err := s.eng.Store().ListDeliveries(ctx, scope)
		if err != nil {
			t.Fatalf("list %s deliveries: %v", scope, err)
		}
		return len(rows) == 0, fmt.Sprintf("%d queued", len(rows))
	})
}

// watchSigned asserts a cw or ct delivery's signature and client id.
func watchSigned(t *testing.T, d watchDelivery, secret, clientHeader, account string) {
	t.Helper()
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(d.body)
	if got, want := d.header.Get("X-Signature"), hex.EncodeToString(m.Sum(nil)); got != want {
		t.Errorf("X-Signature %q, want %q (lowercase hex HMAC-SHA256 of the raw body)", got, want)
	}
	if got := d.header.Get(clientHeader); got != account {
		t.Errorf("%s %q, want %q", clientHeader, got, account)
	}
	if ct := d.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("Content-Type %q", ct)
	}
}

// watchPutWebhook registers hook for key's product and returns the secret.
func (s *server) watchPutWebhook(t *testing.T, product, key string, h *watchHook) string {
	t.Helper()
	d := s.call(t, "PUT", "/v1/"+product+"/webhook", key, map[string]any{"url": h.url()}).wantOK(t, 200)
	d.wantKeys(t, "PUT webhook", "url", "secret", "updated_at")
	secret := d.str(t, "secret")
	if len(secret) != 64 || strings.Trim(secret, "0123456789abcdef") != "" {
		t.Errorf("secret %q: want 64 lowercase hex characters", secret)
	}
	return secret
}

// --- WebSockets ---

// watchDial opens /v1/<product>/ws with key.
func (s *server) watchDial(t *testing.T, product, key string) *wsClient {
	t.Helper()
	w, r, err := dialFrom(t, s.wsURL("/v1/"+product+"/ws?api_key="+key), "")
	if err != nil {
		t.Fatalf("dial %s ws: %v (%s)", product, err, testkit.ResponseText(r))
	}
	return w
}

// watchNextFrame reads the next frame and asserts {type, data} with that type.
func watchNextFrame(t *testing.T, w *wsClient, typ string) obj {
	t.Helper()
	b := w.Next(t)
	o := decodeObj(t, b, "frame")
	o.wantKeys(t, "frame "+string(b), "type", "data")
	if got := o.str(t, "type"); got != typ {
		t.Fatalf("frame type %q, want %q: %s", got, typ, b)
	}
	return o.object(t, "data")
}

// watchISO parses an ISO 8601 time of the watch products' data.
func watchISO(t *testing.T, o obj, name string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339Nano, o.str(t, name))
	if err != nil {
		t.Fatalf("%s %s is not ISO 8601: %v", name, o[name], err)
	}
	return v
}

// joinedIDs are the community ids of community_joined deliveries, sorted:
// an endpoint has several deliveries in flight at once, so they may arrive
// in any order.
func joinedIDs(t *testing.T, ds []watchDelivery) []string {
	t.Helper()
	var out []string
	for _, d := range ds {
		if o := decodeObj(t, d.body, "body").object(t, "data"); o.str(t, "event_type") == "community_joined" {
			out = append(out, o.str(t, "community_id"))
		}
	}
	slices.Sort(out)
	return out
}
