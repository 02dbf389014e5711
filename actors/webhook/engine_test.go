package webhook

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/alertd/alertd/actors/kit"
	"github.com/alertd/alertd/internal/testkit"
	"github.com/alertd/alertd/persistence"
	"github.com/asynkron/protoactor-go/actor"
	"go.uber.org/goleak"
)

// memQueue is an in-memory Queue (the store contract suite covers the real
// ones). fail makes inserts fail while set.
type memQueue struct {
	mu       sync.Mutex
	rows     []persistence.WebhookDelivery
	attempts []persistence.WebhookAttempt
	fail     bool
	refused  int   // inserts refused while fail was set
	loads    int   // ListEndpointDeliveries calls
	limits   []int // and the limit of each
	health   []string
}

func (q *memQueue) InsertDeliveries(_ context.Context, ds []persistence.WebhookDelivery) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.fail {
		q.refused++
		return errors.New("store down")
	}
	for _, d := range ds {
		if !slices.ContainsFunc(q.rows, func(r persistence.WebhookDelivery) bool {
			return r.Scope == d.Scope && r.DeliveryID == d.DeliveryID
		}) {
			q.rows = append(q.rows, d)
		}
	}
	return nil
}

func (q *memQueue) RecordAttempts(_ context.Context, scope string, as []persistence.WebhookAttempt) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, a := range as {
		q.attempts = append(q.attempts, a)
		for i := range q.rows {
			r := &q.rows[i]
			if r.Scope != scope || r.DeliveryID != a.DeliveryID {
				continue
			}
			r.Attempts = a.Attempts
			switch a.Result {
			case persistence.AttemptOK:
				r.State = persistence.DeliveryDelivered
			case persistence.AttemptFailed:
				r.State = persistence.DeliveryFailed
			}
		}
	}
	return nil
}

func (q *memQueue) DropDeliveries(_ context.Context, scope string, ids []string, _ time.Time) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	for i := range q.rows {
		if r := &q.rows[i]; r.Scope == scope && r.State == persistence.DeliveryQueued && slices.Contains(ids, r.DeliveryID) {
			r.State = persistence.DeliveryDropped
		}
	}
	return nil
}

func (q *memQueue) DropEndpointDeliveries(_ context.Context, scope string, ep int64, _ time.Time) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	for i := range q.rows {
		if r := &q.rows[i]; r.Scope == scope && r.EndpointID == ep && r.State == persistence.DeliveryQueued {
			r.State = persistence.DeliveryDropped
		}
	}
	return nil
}

func (q *memQueue) RequeueDeliveries(_ context.Context, scope string, ep int64, f persistence.RedeliverFilter) ([]persistence.WebhookDelivery, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	var out []persistence.WebhookDelivery
	for i := range q.rows {
		r := &q.rows[i]
		if r.Scope != scope || r.EndpointID != ep || r.State == persistence.DeliveryQueued {
			continue
		}
		if len(f.IDs) > 0 && !slices.Contains(f.IDs, r.DeliveryID) ||
			len(f.IDs) == 0 && (r.CreatedAt.Before(f.Since) || r.State == persistence.DeliveryDelivered) {
			continue
		}
		r.State, r.Attempts = persistence.DeliveryQueued, 0
		out = append(out, *r)
	}
	return out, nil
}

func (q *memQueue) QueuedEndpoints(_ context.Context, scope string) ([]int64, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	var out []int64
	for _, r := range q.rows {
		if r.Scope == scope && r.State == persistence.DeliveryQueued && !slices.Contains(out, r.EndpointID) {
			out = append(out, r.EndpointID)
		}
	}
	slices.Sort(out)
	return out, nil
}

func (q *memQueue) ListEndpointDeliveries(_ context.Context, scope string, ep int64, limit int) ([]persistence.WebhookDelivery, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.loads++
	q.limits = append(q.limits, limit)
	var out []persistence.WebhookDelivery
	for _, r := range q.rows {
		if r.Scope == scope && r.EndpointID == ep && r.State == persistence.DeliveryQueued && len(out) < limit {
			out = append(out, r)
		}
	}
	return out, nil
}

func (q *memQueue) EndpointHealth(_ context.Context, id int64, failures int, disabled bool) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.health = append(q.health, fmt.Sprintf("%d:%d:%v", id, failures, disabled))
	return nil
}

// has reports whether delivery id is still queued.
func (q *memQueue) has(id string) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return slices.ContainsFunc(q.rows, func(r persistence.WebhookDelivery) bool {
		return r.DeliveryID == id && r.State == persistence.DeliveryQueued
	})
}

// queued are the deliveries still queued.
func (q *memQueue) queued() []persistence.WebhookDelivery {
	q.mu.Lock()
	defer q.mu.Unlock()
	var out []persistence.WebhookDelivery
	for _, r := range q.rows {
		if r.State == persistence.DeliveryQueued {
			out = append(out, r)
		}
	}
	return out
}

func (q *memQueue) DeliveryLog(context.Context, string, int64, int64, int) ([]persistence.WebhookLogEntry, error) {
	return nil, nil
}

// all are every stored delivery, whatever its state.
func (q *memQueue) all() []persistence.WebhookDelivery {
	q.mu.Lock()
	defer q.mu.Unlock()
	return slices.Clone(q.rows)
}

// state is delivery id's state ("" when unknown) and its logged attempts.
func (q *memQueue) state(id string) (string, []persistence.WebhookAttempt) {
	q.mu.Lock()
	defer q.mu.Unlock()
	var st string
	for _, r := range q.rows {
		if r.DeliveryID == id {
			st = r.State
		}
	}
	var as []persistence.WebhookAttempt
	for _, a := range q.attempts {
		if a.DeliveryID == id {
			as = append(as, a)
		}
	}
	return st, as
}

func (q *memQueue) healthLog() []string {
	q.mu.Lock()
	defer q.mu.Unlock()
	return slices.Clone(q.health)
}

// hit is one request a receiver got.
type hit struct {
	at      time.Time
	body    string
	headers http.Header
	stored  bool // the delivery was in the queue when it arrived
	path    string
}

// receiver is a local endpoint whose answer the test chooses per request.
type receiver struct {
	t      *testing.T
	srv    *httptest.Server
	q      *memQueue
	mu     sync.Mutex
	hits   []hit
	answer func(n int) int // status for the n-th request (1-based); 0 hangs until the client gives up
}

func newReceiver(t *testing.T, q *memQueue, answer func(n int) int) *receiver {
	r := &receiver{t: t, q: q, answer: answer}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		id := req.Header.Get("X-Delivery-Id")
		r.mu.Lock()
		r.hits = append(r.hits, hit{at: time.Now(), body: string(body), headers: req.Header.Clone(), stored: q == nil || q.has(id), path: req.URL.Path})
		n := len(r.hits)
		r.mu.Unlock()
		status := r.answer(n)
		if status == 0 {
			<-req.Context().Done()
			return
		}
		w.WriteHeader(status)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) got() []hit {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.hits)
}

func waitFor(t *testing.T, what string, f func() bool) {
	t.Helper()
	testkit.WaitFor(t, 10*time.Second, what, func() (bool, string) { return f(), "no" })
}

var testLog = slog.New(slog.NewTextHandler(io.Discard, nil))

func testPolicy() Policy {
	return Policy{
		Attempts:         3,
		Backoff:          []time.Duration{60 * time.Millisecond, 120 * time.Millisecond},
		Timeout:          300 * time.Millisecond,
		Signature:        Signature{Kind: SignHMAC, Header: "X-Signature"},
		Headers:          map[string]string{"X-Product": "test"},
		EndpointIDHeader: "X-Webhook-Id",
		DeliveryIDHeader: "X-Delivery-Id",
		DisableAfter:     3,
	}
}

func newEngine(t *testing.T, q *memQueue, p Policy) *Engine {
	t.Helper()
	g, err := NewGuard([]string{"127.0.0.0/8"})
	if err != nil {
		t.Fatal(err)
	}
	e := New(Config{Scope: "xg", Policy: p, Queue: q, Health: q, Guard: g, System: actor.NewActorSystem(),
		Workers: 8, Log: testLog})
	t.Cleanup(e.Stop)
	return e
}

func TestDeliverSignedWithHeaders(t *testing.T) {
	q := &memQueue{}
	rcv := newReceiver(t, q, func(int) int { return 200 })
	e := newEngine(t, q, testPolicy())
	e.Put(Endpoint{ID: 7, URL: rcv.srv.URL + "/hook", Secret: "s3cret", Headers: map[string]string{"X-Client": "c1"}})
	if err := e.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	e.Publish([]Outgoing{{EndpointID: 7, DeliveryID: "d1", Body: []byte(`{"n":1}`)}, {EndpointID: 7, Body: []byte(`{"n":2}`)},
		{EndpointID: 99, DeliveryID: "nobody", Body: []byte(`{}`)}})
	waitFor(t, "two deliveries", func() bool { return len(rcv.got()) == 2 })
	waitFor(t, "queue emptied", func() bool { return len(q.queued()) == 0 })
	hits := rcv.got()
	sort.Slice(hits, func(i, j int) bool { return hits[i].body < hits[j].body })
	for i, h := range hits {
		if !h.stored {
			t.Errorf("delivery %d arrived before it was stored (write-ahead broken)", i)
		}
		if h.headers.Get("Content-Type") != "application/json" || h.headers.Get("X-Webhook-Id") != "7" ||
			h.headers.Get("X-Product") != "test" || h.headers.Get("X-Client") != "c1" {
			t.Errorf("headers %v", h.headers)
		}
		if !Verify("s3cret", []byte(h.body), h.headers.Get("X-Signature")) {
			t.Errorf("bad signature on %s", h.body)
		}
	}
	if hits[0].headers.Get("X-Delivery-Id") != "d1" || len(hits[1].headers.Get("X-Delivery-Id")) != 32 {
		t.Errorf("delivery ids %q %q", hits[0].headers.Get("X-Delivery-Id"), hits[1].headers.Get("X-Delivery-Id"))
	}
	if s := e.Stats(); s.Delivered != 2 || s.Published != 3 || s.Failed != 0 {
		t.Errorf("stats %+v", s)
	}
}

func TestRetryOn5xxWithBackoff(t *testing.T) {
	q := &memQueue{}
	rcv := newReceiver(t, q, func(n int) int { return 503 })
	p := testPolicy()
	e := newEngine(t, q, p)
	e.Put(Endpoint{ID: 1, URL: rcv.srv.URL, Secret: "k"})
	_ = e.Start(t.Context())
	e.Publish([]Outgoing{{EndpointID: 1, DeliveryID: "x", Body: []byte(`{}`)}})
	waitFor(t, "failure recorded", func() bool { return len(q.healthLog()) == 1 })
	hits := rcv.got()
	if len(hits) != 3 {
		t.Fatalf("%d attempts, want 3", len(hits))
	}
	const tol = 15 * time.Millisecond
	for i, want := range p.Backoff {
		if gap := hits[i+1].at.Sub(hits[i].at); gap < want-tol {
			t.Errorf("gap before attempt %d = %v, want >= %v", i+2, gap, want)
		}
	}
	for _, h := range hits {
		if h.headers.Get("X-Delivery-Id") != "x" {
			t.Errorf("delivery id changed across attempts: %q", h.headers.Get("X-Delivery-Id"))
		}
	}
	if got := q.healthLog(); fmt.Sprint(got) != "[1:1:false]" {
		t.Errorf("health %v", got)
	}
	waitFor(t, "row deleted", func() bool { return len(q.queued()) == 0 })
}

func TestSecondAttemptSucceeds(t *testing.T) {
	q := &memQueue{}
	rcv := newReceiver(t, q, func(n int) int {
		if n == 1 {
			return 500
		}
		return 204
	})
	e := newEngine(t, q, testPolicy())
	e.Put(Endpoint{ID: 1, URL: rcv.srv.URL, Secret: "k", Failures: 2})
	_ = e.Start(t.Context())
	e.Publish([]Outgoing{{EndpointID: 1, DeliveryID: "x", Body: []byte(`{}`)}})
	waitFor(t, "failures reset", func() bool { return len(q.healthLog()) == 1 })
	if got := q.healthLog(); fmt.Sprint(got) != "[1:0:false]" {
		t.Errorf("health %v, want the count reset to 0", got)
	}
	if n := len(rcv.got()); n != 2 {
		t.Errorf("%d attempts, want 2", n)
	}
}

func TestNoRetryOn4xxAndRedirect(t *testing.T) {
	for _, status := range []int{404, 400, 302} {
		t.Run(strconv.Itoa(status), func(t *testing.T) {
			q := &memQueue{}
			target := newReceiver(t, nil, func(int) int { return 200 })
			rcv := newReceiver(t, q, func(int) int { return status })
			if status == 302 {
				rcv.srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					rcv.mu.Lock()
					rcv.hits = append(rcv.hits, hit{at: time.Now()})
					rcv.mu.Unlock()
					http.Redirect(w, r, target.srv.URL, http.StatusFound)
				})
			}
			e := newEngine(t, q, testPolicy())
			e.Put(Endpoint{ID: 1, URL: rcv.srv.URL, Secret: "k"})
			_ = e.Start(t.Context())
			e.Publish([]Outgoing{{EndpointID: 1, DeliveryID: "x", Body: []byte(`{}`)}})
			waitFor(t, "failure recorded", func() bool { return len(q.healthLog()) == 1 })
			if n := len(rcv.got()); n != 1 {
				t.Errorf("%d attempts, want 1", n)
			}
			if n := len(target.got()); n != 0 {
				t.Errorf("the redirect was followed")
			}
		})
	}
}

func TestTimeoutAndClosedConnectionsRetry(t *testing.T) {
	t.Run("slow", func(t *testing.T) {
		q := &memQueue{}
		rcv := newReceiver(t, q, func(int) int { return 0 })
		e := newEngine(t, q, testPolicy())
		e.Put(Endpoint{ID: 1, URL: rcv.srv.URL, Secret: "k"})
		_ = e.Start(t.Context())
		e.Publish([]Outgoing{{EndpointID: 1, DeliveryID: "x", Body: []byte(`{}`)}})
		waitFor(t, "failure recorded", func() bool { return len(q.healthLog()) == 1 })
		if n := len(rcv.got()); n != 3 {
			t.Errorf("%d attempts, want 3", n)
		}
	})
	t.Run("closed", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		var mu sync.Mutex
		conns := 0
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				mu.Lock()
				conns++
				mu.Unlock()
				c.Close()
			}
		}()
		defer ln.Close()
		q := &memQueue{}
		e := newEngine(t, q, testPolicy())
		e.Put(Endpoint{ID: 1, URL: "http://" + ln.Addr().String() + "/", Secret: "k"})
		_ = e.Start(t.Context())
		e.Publish([]Outgoing{{EndpointID: 1, DeliveryID: "x", Body: []byte(`{}`)}})
		waitFor(t, "failure recorded", func() bool { return len(q.healthLog()) == 1 })
		mu.Lock()
		defer mu.Unlock()
		// net/http may retry a request that died on a fresh connection
		// once itself, so count connections: at least one per attempt.
		if conns < 3 {
			t.Errorf("%d connections, want at least 3 (one per attempt)", conns)
		}
	})
}

func TestDisableAfterConsecutiveFailures(t *testing.T) {
	q := &memQueue{}
	rcv := newReceiver(t, q, func(int) int { return 410 })
	p := testPolicy()
	p.PerEndpoint = 1 // one at a time, so the fourth is still queued when the third disables
	e := newEngine(t, q, p)
	e.Put(Endpoint{ID: 5, URL: rcv.srv.URL, Secret: "k"})
	_ = e.Start(t.Context())
	var out []Outgoing
	for i := range 6 {
		out = append(out, Outgoing{EndpointID: 5, DeliveryID: fmt.Sprint("d", i), Body: []byte(`{}`)})
	}
	e.Publish(out)
	waitFor(t, "disabled", func() bool { return len(q.healthLog()) == 3 })
	if got := q.healthLog(); fmt.Sprint(got) != "[5:1:false 5:2:false 5:3:true]" {
		t.Errorf("health %v", got)
	}
	waitFor(t, "queue dropped", func() bool { return len(q.queued()) == 0 })
	if n := len(rcv.got()); n != 3 {
		t.Errorf("%d requests, want 3 (then disabled)", n)
	}
	if e.Endpoints() != 0 || e.Stats().Disabled != 1 {
		t.Errorf("endpoint still there: %d, %+v", e.Endpoints(), e.Stats())
	}
	e.Publish([]Outgoing{{EndpointID: 5, DeliveryID: "late", Body: []byte(`{}`)}})
	waitFor(t, "late delivery dropped", func() bool { return !q.has("late") && e.Stats().Published == 7 })
}

func TestRemoveDropsQueue(t *testing.T) {
	q := &memQueue{}
	release := make(chan struct{})
	rcv := newReceiver(t, q, func(int) int { <-release; return 200 })
	defer close(release)
	p := testPolicy()
	p.PerEndpoint = 1
	e := newEngine(t, q, p)
	e.Put(Endpoint{ID: 1, URL: rcv.srv.URL, Secret: "k"})
	_ = e.Start(t.Context())
	e.Publish([]Outgoing{{EndpointID: 1, DeliveryID: "a", Body: []byte(`{}`)}, {EndpointID: 1, DeliveryID: "b", Body: []byte(`{}`)}})
	waitFor(t, "first in flight", func() bool { return len(rcv.got()) == 1 })
	e.Remove(1)
	waitFor(t, "queue dropped", func() bool { return len(q.queued()) == 0 })
	if e.Endpoints() != 0 {
		t.Errorf("endpoint still registered")
	}
}

// TestRestartResumes: deliveries queued (one in backoff, one never tried)
// when the engine stops arrive from a new engine over the same queue, with
// the same delivery ids and their attempts counted.
func TestRestartResumes(t *testing.T) {
	q := &memQueue{}
	down := newReceiver(t, q, func(int) int { return 503 })
	p := testPolicy()
	p.Backoff = []time.Duration{time.Hour}
	p.PerEndpoint = 1
	e1 := newEngine(t, q, p)
	e1.Put(Endpoint{ID: 1, URL: down.srv.URL, Secret: "k"})
	_ = e1.Start(t.Context())
	e1.Publish([]Outgoing{{EndpointID: 1, DeliveryID: "a", Body: []byte(`{"a":1}`)}})
	waitFor(t, "first attempt", func() bool { return len(down.got()) == 1 })
	waitFor(t, "attempt recorded", func() bool { r := q.queued(); return len(r) == 1 && r[0].Attempts == 1 })
	e1.Publish([]Outgoing{{EndpointID: 1, DeliveryID: "b", Body: []byte(`{"b":1}`)}})
	e1.Stop()
	if r := q.queued(); len(r) != 2 {
		t.Fatalf("after stop: %d queued, want 2: %+v", len(r), r)
	}

	up := newReceiver(t, q, func(int) int { return 200 })
	p.Backoff = []time.Duration{10 * time.Millisecond}
	e2 := newEngine(t, q, p)
	e2.Put(Endpoint{ID: 1, URL: up.srv.URL, Secret: "k"})
	e2.Put(Endpoint{ID: 2, URL: up.srv.URL, Secret: "k"})
	_ = e2.Start(t.Context())
	waitFor(t, "both delivered", func() bool { return len(up.got()) == 2 })
	waitFor(t, "queue empty", func() bool { return len(q.queued()) == 0 })
	ids := []string{up.got()[0].headers.Get("X-Delivery-Id"), up.got()[1].headers.Get("X-Delivery-Id")}
	if fmt.Sprint(ids) != "[a b]" {
		t.Errorf("resumed ids %v, want [a b] in order", ids)
	}
}

func TestStoreOutageHoldsDeliveries(t *testing.T) {
	q := &memQueue{fail: true}
	rcv := newReceiver(t, q, func(int) int { return 200 })
	e := newEngine(t, q, testPolicy())
	e.Put(Endpoint{ID: 1, URL: rcv.srv.URL, Secret: "k"})
	_ = e.Start(t.Context())
	e.Publish([]Outgoing{{EndpointID: 1, DeliveryID: "a", Body: []byte(`{}`)}})
	waitFor(t, "insert retried", func() bool { q.mu.Lock(); defer q.mu.Unlock(); return q.refused >= 2 })
	if n := len(rcv.got()); n != 0 {
		t.Fatalf("%d deliveries attempted while the store refused them", n)
	}
	q.mu.Lock()
	q.fail = false
	q.mu.Unlock()
	waitFor(t, "delivered once the store is back", func() bool { return len(rcv.got()) == 1 })
	if !rcv.got()[0].stored {
		t.Errorf("delivered before it was stored")
	}
}

func TestStopPersistsUnstartedPublishes(t *testing.T) {
	q := &memQueue{}
	e := newEngine(t, q, testPolicy())
	e.Put(Endpoint{ID: 1, URL: "http://127.0.0.1:9/", Secret: "k"})
	e.Publish([]Outgoing{{EndpointID: 1, DeliveryID: "a", Body: []byte(`{}`)}})
	e.Stop()
	if !q.has("a") {
		t.Errorf("a delivery published before Start was lost at Stop")
	}
}

// TestStopLeavesNoGoroutines: workers, the write-ahead and effects
// goroutines, retry timers and idle connections all end with Stop.
func TestStopLeavesNoGoroutines(t *testing.T) {
	sys := actor.NewActorSystem()
	q := &memQueue{}
	var rcv *receiver
	func() {
		rcv = newReceiver(t, q, func(n int) int {
			if n%2 == 0 {
				return 503 // leaves retries waiting in backoff
			}
			return 200
		})
	}()
	ignore := goleak.IgnoreCurrent()
	g, _ := NewGuard([]string{"127.0.0.0/8"})
	p := testPolicy()
	p.Backoff = []time.Duration{time.Hour}
	e := New(Config{Scope: "xg", Policy: p, Queue: q, Health: q, Guard: g, System: sys, Workers: 4, Log: testLog})
	e.Put(Endpoint{ID: 1, URL: rcv.srv.URL, Secret: "k"})
	if err := e.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	var out []Outgoing
	for i := range 6 {
		out = append(out, Outgoing{EndpointID: 1, DeliveryID: fmt.Sprint("d", i), Body: []byte(`{}`)})
	}
	e.Publish(out)
	waitFor(t, "all attempted", func() bool { return len(rcv.got()) == 6 })
	e.Stop()
	rcv.srv.CloseClientConnections()
	goleak.VerifyNone(t, ignore)
	if n := len(q.queued()); n != 3 {
		t.Errorf("%d deliveries still queued after Stop, want the 3 in backoff", n)
	}
}

// TestEndpointPanicRestarts: under the kit's supervisor an endpoint actor
// that panics (here, more than protoactor's 10 failures in 10 s) restarts
// from the endpoint as last Put, with its failure count, and delivers what
// comes next; it is never stopped.
func TestEndpointPanicRestarts(t *testing.T) {
	q := &memQueue{}
	old := newReceiver(t, q, func(int) int { return 200 })
	rcv := newReceiver(t, q, func(n int) int { return []int{500, 200}[min(n-1, 1)] })
	g, err := NewGuard([]string{"127.0.0.0/8"})
	if err != nil {
		t.Fatal(err)
	}
	p := testPolicy()
	p.Attempts = 1
	sup := kit.NewSupervisor(testLog, kit.Backoff{Initial: time.Microsecond, Max: time.Microsecond, Window: time.Minute})
	e := New(Config{Scope: "xg", Policy: p, Queue: q, Health: q, Guard: g, System: actor.NewActorSystem(),
		Supervisor: sup, Workers: 8, Log: testLog})
	t.Cleanup(e.Stop)
	e.Put(Endpoint{ID: 7, URL: old.srv.URL, Secret: "s"})
	e.Put(Endpoint{ID: 7, URL: rcv.srv.URL, Secret: "s"}) // moved before the panics
	if err := e.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	e.Publish([]Outgoing{{EndpointID: 7, DeliveryID: "first", Body: []byte(`{}`)}}) // fails once: one failure counted
	waitFor(t, "the failed delivery recorded", func() bool { return slices.Contains(q.healthLog(), "7:1:false") })
	pid := e.pid(7)
	for range 15 {
		e.root.Send(pid, &deliver{ds: []*delivery{nil}}) // a nil delivery panics in the actor
	}
	e.Publish([]Outgoing{{EndpointID: 7, DeliveryID: "after", Body: []byte(`{"n":2}`)}})
	waitFor(t, "a delivery after the panics", func() bool { return len(rcv.got()) == 2 })
	waitFor(t, "the success recorded", func() bool { return slices.Contains(q.healthLog(), "7:0:false") })
	if !e.pid(7).Equal(pid) || len(old.got()) != 0 {
		t.Errorf("pid %s (was %s), %d hits at the old URL", e.pid(7), pid, len(old.got()))
	}
}
