package watchhooks

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/alertd/alertd/actors/product/watchlist"
	"github.com/alertd/alertd/actors/webhook"
	"github.com/alertd/alertd/internal/testkit"
	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
	"github.com/asynkron/protoactor-go/actor"
)

type memQueue struct {
	mu   sync.Mutex
	rows []persistence.WebhookDelivery
}

func (q *memQueue) InsertDeliveries(_ context.Context, ds []persistence.WebhookDelivery) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.rows = append(q.rows, ds...)
	return nil
}

// RecordAttempts takes a finished delivery out of the queue (the store
// keeps it as the log; the contract suite covers that).
func (q *memQueue) RecordAttempts(_ context.Context, scope string, as []persistence.WebhookAttempt) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, a := range as {
		if a.Result != persistence.AttemptRetry {
			q.rows = slices.DeleteFunc(q.rows, func(r persistence.WebhookDelivery) bool {
				return r.Scope == scope && r.DeliveryID == a.DeliveryID
			})
		}
	}
	return nil
}

func (q *memQueue) DropDeliveries(_ context.Context, scope string, ids []string, _ time.Time) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.rows = slices.DeleteFunc(q.rows, func(r persistence.WebhookDelivery) bool {
		return r.Scope == scope && slices.Contains(ids, r.DeliveryID)
	})
	return nil
}

func (q *memQueue) DropEndpointDeliveries(_ context.Context, scope string, ep int64, _ time.Time) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.rows = slices.DeleteFunc(q.rows, func(r persistence.WebhookDelivery) bool { return r.Scope == scope && r.EndpointID == ep })
	return nil
}

func (q *memQueue) DeliveryLog(context.Context, string, int64, int64, int) ([]persistence.WebhookLogEntry, error) {
	return nil, nil
}

func (q *memQueue) RequeueDeliveries(context.Context, string, int64, persistence.RedeliverFilter) ([]persistence.WebhookDelivery, error) {
	return nil, nil
}

func (q *memQueue) ListEndpointDeliveries(_ context.Context, scope string, ep int64, limit int) ([]persistence.WebhookDelivery, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	var out []persistence.WebhookDelivery
	for _, r := range q.rows {
		if r.Scope == scope && r.EndpointID == ep && len(out) < limit {
			out = append(out, r)
		}
	}
	return out, nil
}

func (q *memQueue) QueuedEndpoints(_ context.Context, scope string) ([]int64, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	var out []int64
	for _, r := range q.rows {
		if r.Scope == scope && !slices.Contains(out, r.EndpointID) {
			out = append(out, r.EndpointID)
		}
	}
	slices.Sort(out)
	return out, nil
}

func (q *memQueue) ListDeliveries(_ context.Context, scope string) ([]persistence.WebhookDelivery, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	var out []persistence.WebhookDelivery
	for _, r := range q.rows {
		if r.Scope == scope {
			out = append(out, r)
		}
	}
	return out, nil
}

func (q *memQueue) len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.rows)
}

type source map[string]watchlist.Webhook

func (s source) Webhook(a string) (watchlist.Webhook, bool) { w, ok := s[a]; return w, ok }
func (s source) Webhooks() map[string]watchlist.Webhook     { return s }

type hit struct {
	header http.Header
	body   string
}

// receiver answers each request with the next status of script (the last
// repeats) and records it.
type receiver struct {
	mu     sync.Mutex
	script []int
	hits   []hit
}

func (r *receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	b, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	r.hits = append(r.hits, hit{req.Header.Clone(), string(b)})
	st := r.script[min(len(r.hits)-1, len(r.script)-1)]
	r.mu.Unlock()
	w.WriteHeader(st)
}

func (r *receiver) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.hits)
}

func (r *receiver) hit(i int) hit {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.hits[i]
}

func waitFor(t *testing.T, what string, f func() bool) {
	t.Helper()
	testkit.WaitFor(t, 10*time.Second, what, func() (bool, string) { return f(), "no" })
}

func setup(t *testing.T, srcs map[protocol.Product]Source) (*Hooks, *memQueue) {
	return setupActive(t, srcs, nil)
}

func setupActive(t *testing.T, srcs map[protocol.Product]Source, active func(protocol.Product, string) bool) (*Hooks, *memQueue) {
	t.Helper()
	g, err := webhook.NewGuard([]string{"127.0.0.0/8"})
	if err != nil {
		t.Fatal(err)
	}
	tm := protocol.DefaultTimings()
	tm.WebhookBackoff = []time.Duration{10 * time.Millisecond, 20 * time.Millisecond}
	q := &memQueue{}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	sys := actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger { return quiet }))
	h := New(Config{Guard: g, Queue: q, System: sys, Timings: tm, Sources: srcs, Active: active, Log: quiet})
	if err := h.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Stop(); sys.Shutdown() })
	return h, q
}

func TestCWSignedWithClientIDAndRetried(t *testing.T) {
	rcv := &receiver{script: []int{500, 502, 200}}
	srv := httptest.NewServer(rcv)
	defer srv.Close()
	w := watchlist.Webhook{ID: 7, URL: srv.URL + "/hook", Secret: "s3cret"}
	h, q := setup(t, map[protocol.Product]Source{protocol.ProductCW: source{"acct_1": w}, protocol.ProductCT: source{}})
	body := []byte(`{"event":"community_change","timestamp":1,"data":{}}`)
	h.Sender(protocol.ProductCW).Send("acct_1", body)
	h.Sender(protocol.ProductCW).Send("nobody", body) // no webhook: nothing
	waitFor(t, "three attempts", func() bool { return rcv.count() == 3 && q.len() == 0 })
	m := hmac.New(sha256.New, []byte("s3cret"))
	m.Write(body)
	want := hex.EncodeToString(m.Sum(nil))
	ids := map[string]bool{}
	for i := range 3 {
		x := rcv.hit(i)
		if x.body != string(body) {
			t.Errorf("attempt %d body %q", i, x.body)
		}
		if got := x.header.Get("X-Signature"); got != want {
			t.Errorf("attempt %d X-Signature %q, want %q", i, got, want)
		}
		if got := x.header.Get("X-CW-Client-Id"); got != "acct_1" {
			t.Errorf("attempt %d X-CW-Client-Id %q", i, got)
		}
		if x.header.Get("X-Webhook-Secret") != "" {
			t.Errorf("a cw delivery carries the secret")
		}
		ids[x.header.Get("X-Delivery-Id")] = true
	}
	if len(ids) != 1 {
		t.Errorf("delivery ids %v: want one id on every attempt", ids)
	}
	// The row left the queue once the delivery was done: no attempt follows.
	if n := rcv.count(); n != 3 {
		t.Errorf("%d attempts, want 3", n)
	}
}

func TestCTClientIDAnd4xxNotRetried(t *testing.T) {
	rcv := &receiver{script: []int{404}}
	srv := httptest.NewServer(rcv)
	defer srv.Close()
	h, q := setup(t, map[protocol.Product]Source{protocol.ProductCT: source{"a": {ID: 1, URL: srv.URL, Secret: "k"}}})
	h.Sender(protocol.ProductCT).Send("a", []byte(`{}`))
	waitFor(t, "one attempt, dequeued", func() bool { return rcv.count() == 1 && q.len() == 0 })
	if got := rcv.hit(0).header.Get("X-CT-Client-Id"); got != "a" {
		t.Errorf("X-CT-Client-Id %q", got)
	}
	if n := rcv.count(); n != 1 { // dequeued: done, no attempt follows
		t.Errorf("a 404 was retried: %d attempts", n)
	}
}

func TestETSecretHeaderSingleAttempt(t *testing.T) {
	rcv := &receiver{script: []int{503}}
	srv := httptest.NewServer(rcv)
	defer srv.Close()
	src := source{}
	h, q := setup(t, map[protocol.Product]Source{protocol.ProductET: src})
	// Registered after start, as PUT /v1/et/webhook does.
	w := watchlist.Webhook{ID: 3, URL: srv.URL, Secret: "plain-secret"}
	src["a"] = w
	h.Register(protocol.ProductET, "a", w)
	h.Sender(protocol.ProductET).Send("a", []byte(`{"type":"engagement_update"}`))
	waitFor(t, "one attempt, dequeued", func() bool { return rcv.count() == 1 && q.len() == 0 })
	x := rcv.hit(0)
	if got := x.header.Get("X-Webhook-Secret"); got != "plain-secret" {
		t.Errorf("X-Webhook-Secret %q", got)
	}
	if x.header.Get("X-Signature") != "" || x.header.Get("X-CW-Client-Id") != "" {
		t.Errorf("et delivery headers %v", x.header)
	}
	if n := rcv.count(); n != 1 { // dequeued: done, no attempt follows
		t.Errorf("an et delivery was retried: %d attempts", n)
	}
}

func TestCheckURLGuard(t *testing.T) {
	h, _ := setup(t, map[protocol.Product]Source{})
	ctx := context.Background()
	if _, err := h.CheckURL(ctx, "http://127.0.0.1:9/x"); err != nil {
		t.Errorf("allowed loopback refused: %v", err)
	}
	for _, u := range []string{"http://10.1.2.3/", "http://169.254.169.254/latest", "http://[::1]/", "ftp://8.8.8.8/", "http://224.0.0.1/"} {
		if _, err := h.CheckURL(ctx, u); err == nil {
			t.Errorf("CheckURL(%s) accepted", u)
		}
	}
}

func TestPolicies(t *testing.T) {
	tm := protocol.DefaultTimings()
	for _, p := range []protocol.Product{protocol.ProductCW, protocol.ProductCT} {
		pol := Policy(p, tm)
		if pol.Attempts != 3 || !slices.Equal(pol.Backoff, []time.Duration{time.Second, 2 * time.Second}) ||
			pol.Timeout != 5*time.Second || pol.Signature.Kind != webhook.SignHMAC || pol.Signature.Header != "X-Signature" || pol.DisableAfter != 0 {
			t.Errorf("%s policy %+v", p, pol)
		}
	}
	pol := Policy(protocol.ProductET, tm)
	if pol.Attempts != 1 || pol.Signature.Kind != webhook.SignSecret || pol.Signature.Header != "X-Webhook-Secret" || pol.Timeout != 5*time.Second {
		t.Errorf("et policy %+v", pol)
	}
}

func TestLapsedSubscriptionGetsNothing(t *testing.T) {
	rcv := &receiver{script: []int{200}}
	srv := httptest.NewServer(rcv)
	defer srv.Close()
	live := func(_ protocol.Product, acct string) bool { return acct == "live" }
	src := source{"live": {ID: 1, URL: srv.URL + "/live", Secret: "a"}, "lapsed": {ID: 2, URL: srv.URL + "/lapsed", Secret: "b"}}
	h, q := setupActive(t, map[protocol.Product]Source{protocol.ProductCW: src}, live)
	h.Sender(protocol.ProductCW).Send("lapsed", []byte(`{"n":1}`))
	h.Sender(protocol.ProductCW).Send("live", []byte(`{"n":2}`))
	waitFor(t, "the live delivery", func() bool { return rcv.count() == 1 && q.len() == 0 })
	if x := rcv.hit(0); x.body != `{"n":2}` {
		t.Errorf("delivered %q, want only the live account's", x.body)
	}
}
