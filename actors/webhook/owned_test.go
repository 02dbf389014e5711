package webhook

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/alertd/alertd/persistence"
	"github.com/asynkron/protoactor-go/actor"
)

// owners is the ownership table of a two-node test: which node sends each
// endpoint, and the engines by node, to carry Queued to the owner's Wake as
// the cluster's feed does.
type owners struct {
	mu      sync.Mutex
	owner   map[int64]string
	engines map[string]*Engine
}

func (o *owners) set(ep int64, node string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.owner[ep] = node
}

// view is one node's Owners.
type view struct {
	o    *owners
	self string
}

func (v view) Owns(_ string, ep int64) bool {
	v.o.mu.Lock()
	defer v.o.mu.Unlock()
	return v.o.owner[ep] == v.self
}

func (v view) Queued(_ string, eps []int64) {
	v.o.mu.Lock()
	var to []*Engine
	for _, ep := range eps {
		if n := v.o.owner[ep]; n != v.self && v.o.engines[n] != nil {
			to = append(to, v.o.engines[n])
		}
	}
	v.o.mu.Unlock()
	for _, e := range to {
		e.Wake(eps)
	}
}

// twoNodes starts engines "a" and "b" over one queue, endpoint 1 put on
// each with the receiver's URL and the node's name as path.
func twoNodes(t *testing.T, q *memQueue, rcv *receiver, p Policy, first string) (*owners, map[string]*Engine) {
	t.Helper()
	g, err := NewGuard([]string{"127.0.0.0/8"})
	if err != nil {
		t.Fatal(err)
	}
	o := &owners{owner: map[int64]string{1: first}, engines: map[string]*Engine{}}
	for _, n := range []string{"a", "b"} {
		e := New(Config{Scope: "xg", Policy: p, Queue: q, Health: q, Guard: g, System: actor.NewActorSystem(),
			Workers: 8, Log: testLog, Owners: view{o: o, self: n}})
		t.Cleanup(e.Stop)
		e.Put(Endpoint{ID: 1, URL: rcv.srv.URL + "/" + n, Secret: "s"})
		if err := e.Start(t.Context()); err != nil {
			t.Fatal(err)
		}
		o.mu.Lock()
		o.engines[n] = e
		o.mu.Unlock()
	}
	return o, o.engines
}

// TestOnlyTheOwnerSends: deliveries published on the node that does not
// own their endpoint are sent once, by the owner, which reads them back
// from the store when told.
func TestOnlyTheOwnerSends(t *testing.T) {
	t.Parallel()
	q := &memQueue{}
	rcv := newReceiver(t, q, func(int) int { return 200 })
	_, e := twoNodes(t, q, rcv, testPolicy(), "a")
	var out []Outgoing
	for i := range 20 {
		out = append(out, Outgoing{EndpointID: 1, DeliveryID: "d" + string(rune('a'+i)), Body: []byte(`{}`)})
	}
	e["b"].Publish(out[:10])
	e["a"].Publish(out[10:])
	waitFor(t, "20 deliveries", func() bool { return len(rcv.got()) >= 20 })
	waitFor(t, "queue emptied", func() bool { return len(q.queued()) == 0 })
	hits := rcv.got()
	ids := map[string]int{}
	for _, h := range hits {
		ids[h.headers.Get("X-Delivery-Id")]++
		if !strings.HasSuffix(h.path, "/a") {
			t.Errorf("delivery %s sent by the node that does not own its endpoint (%s)", h.headers.Get("X-Delivery-Id"), h.path)
		}
	}
	if len(ids) != 20 || len(hits) != 20 {
		t.Errorf("%d hits of %d ids, want 20 once each", len(hits), len(ids))
	}
}

// TestHandOverNeverTwoSenders: the old owner yields (its attempts in flight
// come back and are stored first), then the new owner takes the queue with
// the original delivery ids; the old one sends nothing after its Yield.
func TestHandOverNeverTwoSenders(t *testing.T) {
	t.Parallel()
	q := &memQueue{}
	release := make(chan struct{})
	var rcv *receiver
	rcv = newReceiver(t, q, func(n int) int {
		if h := rcv.got()[n-1]; strings.HasSuffix(h.path, "/a") {
			<-release // a's attempts hang until the test lets them answer 500
			return 500
		}
		return 200
	})
	p := testPolicy()
	p.Timeout = time.Minute // a's attempts come back when the test says
	o, e := twoNodes(t, q, rcv, p, "a")
	var out []Outgoing
	for i := range 8 {
		out = append(out, Outgoing{EndpointID: 1, DeliveryID: "h" + string(rune('a'+i)), Body: []byte(`{}`)})
	}
	e["a"].Publish(out)
	waitFor(t, "a's attempts in flight", func() bool { return len(rcv.got()) == testPolicy().PerEndpoint })

	o.set(1, "b")
	yielded := make(chan error, 1)
	go func() { yielded <- e["a"].Yield(context.Background(), func(id int64) bool { return id == 1 }) }()
	select {
	case err := <-yielded:
		t.Fatalf("Yield returned (%v) while attempts were in flight", err)
	default:
	}
	close(release)
	if err := <-yielded; err != nil {
		t.Fatal(err)
	}
	before := len(rcv.got())
	for _, d := range q.all() {
		if d.State != persistence.DeliveryQueued {
			t.Errorf("delivery %s is %s after the yield, want queued", d.DeliveryID, d.State)
		}
	}
	e["b"].Take(func(id int64) bool { return id == 1 })
	waitFor(t, "queue emptied by b", func() bool { return len(q.queued()) == 0 })
	hits := rcv.got()
	for _, h := range hits[before:] {
		if !strings.HasSuffix(h.path, "/b") {
			t.Errorf("a sent %s after its yield", h.headers.Get("X-Delivery-Id"))
		}
	}
	ok := map[string]int{}
	for _, h := range hits[before:] {
		ok[h.headers.Get("X-Delivery-Id")]++
	}
	for _, d := range out {
		if ok[d.DeliveryID] != 1 {
			t.Errorf("delivery %s sent %d times by the new owner, want once", d.DeliveryID, ok[d.DeliveryID])
		}
	}
}
