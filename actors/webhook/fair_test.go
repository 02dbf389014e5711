package webhook

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/alertd/alertd/persistence"
	"github.com/asynkron/protoactor-go/actor"
)

// newEngineWith is newEngine with the pool size and memory bound chosen.
func newEngineWith(t *testing.T, q *memQueue, p Policy, workers, memory int) *Engine {
	t.Helper()
	g, err := NewGuard([]string{"127.0.0.0/8"})
	if err != nil {
		t.Fatal(err)
	}
	e := New(Config{Scope: "xg", Policy: p, Queue: q, Health: q, Guard: g, System: actor.NewActorSystem(),
		Workers: workers, MemoryQueue: memory, Log: testLog})
	t.Cleanup(e.Stop)
	return e
}

// TestBlackholedEndpointDoesNotDelayOthers: an endpoint that never answers
// holds only its own PerEndpoint workers; every delivery of another
// endpoint, published after it, is made while the blackholed attempts are
// still held (the barrier is released only at the end).
func TestBlackholedEndpointDoesNotDelayOthers(t *testing.T) {
	q := &memQueue{}
	release := make(chan struct{})
	hole := newReceiver(t, q, func(int) int { <-release; return 200 })
	good := newReceiver(t, q, func(int) int { return 204 })
	p := testPolicy()
	p.Timeout = time.Minute // the blackholed attempts end only when released
	p.PerEndpoint = 2
	e := newEngineWith(t, q, p, 4, 0)
	e.Put(Endpoint{ID: 1, URL: hole.srv.URL, Secret: "k"})
	e.Put(Endpoint{ID: 2, URL: good.srv.URL, Secret: "k"})
	if err := e.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	var toHole, toGood []Outgoing
	for i := range 20 {
		toHole = append(toHole, Outgoing{EndpointID: 1, DeliveryID: fmt.Sprint("h", i), Body: []byte(`{}`)})
		toGood = append(toGood, Outgoing{EndpointID: 2, DeliveryID: fmt.Sprint("g", i), Body: []byte(`{}`)})
	}
	e.Publish(toHole)
	waitFor(t, "the blackholed endpoint holding its workers", func() bool { return len(hole.got()) == p.PerEndpoint })
	e.Publish(toGood)
	waitFor(t, "every delivery of the other endpoint", func() bool { return len(good.got()) == len(toGood) })
	if n := len(hole.got()); n != p.PerEndpoint {
		t.Errorf("the blackholed endpoint has %d attempts open, want its cap %d", n, p.PerEndpoint)
	}
	close(release)
	waitFor(t, "the blackholed endpoint drained once released", func() bool { return len(hole.got()) == len(toHole) })
}

// TestQueueSpillsToStoreAndLosesNothing: past its memory bound an endpoint
// leaves deliveries in the store and reads them back as its queue drains;
// each is delivered exactly once, in the order published, and nothing
// stays queued.
func TestQueueSpillsToStoreAndLosesNothing(t *testing.T) {
	q := &memQueue{}
	release := make(chan struct{})
	rcv := newReceiver(t, q, func(n int) int {
		if n == 1 {
			<-release // everything is published and stored before anything is delivered
		}
		return 200
	})
	p := testPolicy()
	p.PerEndpoint = 1
	e := newEngineWith(t, q, p, 2, 4)
	e.Put(Endpoint{ID: 1, URL: rcv.srv.URL, Secret: "k"})
	if err := e.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	const n = 50
	var out []Outgoing
	for i := range n {
		out = append(out, Outgoing{EndpointID: 1, DeliveryID: fmt.Sprintf("d%02d", i), Body: []byte(`{}`)})
	}
	e.Publish(out)
	waitFor(t, "the first attempt held", func() bool { return len(rcv.got()) == 1 })
	waitFor(t, "the rest past the bound left in the store", func() bool { return e.Stats().Spilled == n-4 })
	close(release)
	waitFor(t, "every delivery made", func() bool { return e.Stats().Delivered == n })
	waitFor(t, "nothing left queued", func() bool { return len(q.queued()) == 0 })
	var ids []string
	for _, h := range rcv.got() {
		ids = append(ids, h.headers.Get("X-Delivery-Id"))
	}
	var want []string
	for _, o := range out {
		want = append(want, o.DeliveryID)
	}
	if fmt.Sprint(ids) != fmt.Sprint(want) {
		t.Errorf("delivered %v,\nwant each once in order %v", ids, want)
	}
	q.mu.Lock()
	loads := q.loads
	q.mu.Unlock()
	if loads < n/4-1 {
		t.Errorf("%d read-backs for %d deliveries through a queue of 4: the queue was not bounded", loads, n)
	}
}

// TestDeliveredNeverSentAgainAfterRestart: a delivery acknowledged with a
// 2xx is not made again by a new engine over the same store; the second
// engine's own delivery is the barrier that shows it started delivering.
func TestDeliveredNeverSentAgainAfterRestart(t *testing.T) {
	q := &memQueue{}
	rcv := newReceiver(t, q, func(int) int { return 200 })
	p := testPolicy()
	e1 := newEngine(t, q, p)
	e1.Put(Endpoint{ID: 1, URL: rcv.srv.URL, Secret: "k"})
	_ = e1.Start(t.Context())
	e1.Publish([]Outgoing{{EndpointID: 1, DeliveryID: "a", Body: []byte(`{"a":1}`)}})
	waitFor(t, "a delivered and recorded", func() bool { st, _ := q.state("a"); return st == "delivered" })
	e1.Stop()

	e2 := newEngine(t, q, p)
	e2.Put(Endpoint{ID: 1, URL: rcv.srv.URL, Secret: "k"})
	_ = e2.Start(t.Context())
	e2.Publish([]Outgoing{{EndpointID: 1, DeliveryID: "b", Body: []byte(`{"b":1}`)}})
	waitFor(t, "b delivered", func() bool { return e2.Stats().Delivered == 1 })
	var ids []string
	for _, h := range rcv.got() {
		ids = append(ids, h.headers.Get("X-Delivery-Id"))
	}
	if fmt.Sprint(ids) != "[a b]" {
		t.Errorf("deliveries %v, want [a b]: a was sent again after its success", ids)
	}
}

// TestGeneratedDeliveryIDStableAcrossRetries: a delivery published without
// an id gets one, and every attempt of it carries the same one.
func TestGeneratedDeliveryIDStableAcrossRetries(t *testing.T) {
	q := &memQueue{}
	rcv := newReceiver(t, q, func(n int) int { return []int{503, 500, 200}[min(n-1, 2)] })
	e := newEngine(t, q, testPolicy())
	e.Put(Endpoint{ID: 1, URL: rcv.srv.URL, Secret: "k"})
	_ = e.Start(t.Context())
	e.Publish([]Outgoing{{EndpointID: 1, Body: []byte(`{}`)}})
	waitFor(t, "delivered on the third attempt", func() bool { return e.Stats().Delivered == 1 })
	hits := rcv.got()
	if len(hits) != 3 {
		t.Fatalf("%d attempts, want 3", len(hits))
	}
	id := hits[0].headers.Get("X-Delivery-Id")
	for i, h := range hits {
		if got := h.headers.Get("X-Delivery-Id"); len(id) != 32 || got != id {
			t.Errorf("attempt %d: X-Delivery-Id %q, first was %q", i+1, got, id)
		}
	}
}

// TestStartReadsBackAtMostTheBound: a restart over a long stored queue reads
// at most the memory bound of each endpoint (and one more, to know the store
// holds more); the rest is read back as the queue drains, so every delivery
// is made once, in order. An endpoint no longer put has its queue dropped.
func TestStartReadsBackAtMostTheBound(t *testing.T) {
	q := &memQueue{}
	const n = 30
	var want []string
	for i := range n {
		id := fmt.Sprintf("d%02d", i)
		want = append(want, id)
		q.rows = append(q.rows, persistence.WebhookDelivery{Scope: "xg", EndpointID: 1, DeliveryID: id, Body: []byte(`{}`),
			State: persistence.DeliveryQueued, Attempts: 1})
	}
	for i := range 3 {
		q.rows = append(q.rows, persistence.WebhookDelivery{Scope: "xg", EndpointID: 9, DeliveryID: fmt.Sprint("gone", i),
			Body: []byte(`{}`), State: persistence.DeliveryQueued})
	}
	rcv := newReceiver(t, q, func(int) int { return 200 })
	p := testPolicy()
	p.PerEndpoint = 1
	e := newEngineWith(t, q, p, 2, 4)
	e.Put(Endpoint{ID: 1, URL: rcv.srv.URL, Secret: "k"})
	if err := e.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	q.mu.Lock()
	first := slices.Clone(q.limits)
	q.mu.Unlock()
	if len(first) == 0 || first[0] != 5 {
		t.Fatalf("Start read %v deliveries of the endpoint, want the bound (4) and one more", first)
	}
	waitFor(t, "every delivery made", func() bool { return e.Stats().Delivered == n })
	waitFor(t, "nothing left queued", func() bool { return len(q.queued()) == 0 })
	var ids []string
	for _, h := range rcv.got() {
		ids = append(ids, h.headers.Get("X-Delivery-Id"))
	}
	if fmt.Sprint(ids) != fmt.Sprint(want) {
		t.Errorf("delivered %v,\nwant each once in order %v", ids, want)
	}
	for i := range 3 {
		if st, _ := q.state(fmt.Sprint("gone", i)); st != persistence.DeliveryDropped {
			t.Errorf("a delivery of the endpoint no longer put is %q, want dropped", st)
		}
	}
}
